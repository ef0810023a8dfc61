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
