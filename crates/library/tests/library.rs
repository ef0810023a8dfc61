//! The library index's conformance suite on this machine's SQLite file, each check in a fresh
//! file that every index of the check opens again (as two processes would); and the
//! documentation this machine has, indexed.

use std::path::PathBuf;
use std::sync::Arc;

use research_library::conformance::Database;
use research_library::{Library, LibraryIndex, SqliteIndex};

struct Sqlite {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Database for Sqlite {
    fn index(&self) -> Arc<dyn LibraryIndex> {
        Arc::new(SqliteIndex::open(&self.path).unwrap())
    }
}

fn fresh() -> Sqlite {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite3");
    Sqlite { _dir: dir, path }
}

research_library::library_conformance!(fresh());

#[test]
fn real_documentation_files_index() {
    // Debian ships HTML and text documentation; index what this machine has of it.
    let sources = [
        "/usr/share/doc/libsqlite3-dev",
        "/usr/share/common-licenses",
    ];
    let docs = tempfile::tempdir().unwrap();
    let mut copied = 0;
    for src in sources {
        for entry in walkdir::WalkDir::new(src)
            .max_depth(2)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .take(20)
        {
            let name = entry
                .path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            let target = if name.contains('.') {
                name
            } else {
                format!("{name}.txt")
            };
            if std::fs::copy(entry.path(), docs.path().join(&target)).is_ok() {
                copied += 1;
            }
        }
    }
    if copied == 0 {
        eprintln!("skipped: no documentation files on this machine");
        return;
    }
    let db = tempfile::tempdir().unwrap();
    let lib = Library::open(&db.path().join("db.sqlite3")).unwrap();
    let report = lib.add(docs.path(), &|_| {}).unwrap();
    assert!(report.indexed > 0, "{report:?}");
    if docs.path().join("GPL-3.txt").exists() {
        let hits = lib.search("free software redistribute modify", 3).unwrap();
        assert!(!hits.is_empty());
    }
}

#[test]
fn a_sphinx_copy_of_a_page_source_is_not_the_page_again() {
    let docs = tempfile::tempdir().unwrap();
    let html = docs.path().join("html");
    let write = |rel: &str, text: &str| {
        let path = html.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let page = "<html><body><p>Default parameter values are evaluated once, when the function is defined.</p></body></html>";
    let source =
        "Default parameter values are evaluated once, when the :keyword:`def` statement runs.";
    write("faq/programming.html", page);
    write("_sources/faq/programming.rst.txt", source);
    // Sphinx before 1.5 named the copy without the source's own suffix.
    write("old.html", page);
    write("_sources/old.txt", source);
    // A source whose page was not built is the only copy.
    write(
        "_sources/unbuilt.rst.txt",
        "Parameter values of an unbuilt page.",
    );
    let db = tempfile::tempdir().unwrap();
    let lib = Library::open(&db.path().join("db.sqlite3")).unwrap();
    let report = lib.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(report.total, 3, "{report:?}");
    let urls = |query: &str| -> Vec<String> {
        lib.search(query, 10)
            .unwrap()
            .into_iter()
            .map(|h| h.url)
            .collect()
    };
    let found = urls("default parameter values evaluated");
    assert!(
        found.iter().all(|u| !u.contains("programming.rst.txt")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|u| u.ends_with("faq/programming.html")),
        "{found:?}"
    );

    // The page built later: its source, indexed while it was the only copy, goes.
    write(
        "unbuilt.html",
        "<html><body><p>Parameter values of a page built later.</p></body></html>",
    );
    lib.reindex(&|_| {}).unwrap();
    let found = urls("parameter values");
    assert!(found.iter().all(|u| !u.contains("_sources")), "{found:?}");
    assert_eq!(lib.folders().unwrap()[0].files, 3);
}
