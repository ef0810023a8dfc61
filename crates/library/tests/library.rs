//! A library of mixed files: indexed, searched, re-indexed incrementally, removed.

use std::path::Path;

use research_library::Library;

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn indexes_mixed_files_searches_and_reindexes_incrementally() {
    let db_dir = tempfile::tempdir().unwrap();
    let lib = Library::open(&db_dir.path().join("db.sqlite3")).unwrap();
    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    write(d, "notes/bees.md", "# Bee notes\n\nForager honey bees perform a waggle dance to share where nectar is.\n\nThe angle encodes direction.");
    write(
        d,
        "wasps.txt",
        "Wasps do not dance; they hunt insects and scavenge.",
    );
    write(d, "page.html", "<html><head><title>Ant trails</title></head><body><article><h1>Ant trails</h1><p>Ants lay pheromone trails that other ants follow to food, reinforcing the shortest paths over time. This is a long enough paragraph to be the main content of the page.</p></article></body></html>");
    write(
        d,
        "paper.pdf",
        research_fetch::testing::minimal_pdf("Termites build ventilated mounds"),
    );
    write(d, "broken.txt", [0u8, 159, 146, 150, 0, 0, 1]);
    write(d, ".hidden/secret.md", "waggle secret");
    write(d, "image.png", [0x89u8, b'P', b'N', b'G']);

    // Progress knows the whole count from its first report and climbs to it.
    let seen = std::sync::Mutex::new(Vec::new());
    let report = lib
        .add(d, &|r| seen.lock().unwrap().push((r.scanned, r.total)))
        .unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.first(), Some(&(0, 5)), "{seen:?}");
    assert_eq!(seen.last(), Some(&(5, 5)), "{seen:?}");
    assert_eq!(report.total, 5);
    assert_eq!(
        report.scanned, 5,
        "hidden folders and other extensions are skipped: {report:?}"
    );
    assert_eq!(report.indexed, 4);
    assert_eq!(
        report.failed.len(),
        1,
        "the binary .txt is counted, not fatal: {report:?}"
    );
    assert!(report.failed[0].0.ends_with("broken.txt"));

    // The page with every word first, then pages with some of them ("Wasps do not dance").
    let hits = lib.search("waggle dance", 5).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits[0].url.starts_with("file:///") && hits[0].url.ends_with("notes/bees.md"));
    assert!(hits[1].url.ends_with("wasps.txt"), "{hits:?}");
    // Words are matched by their stems: plurals, -ing, -ation.
    let hits = lib.search("dancing foragers trail", 5).unwrap();
    let names: Vec<&str> = hits
        .iter()
        .map(|h| h.url.rsplit('/').next().unwrap())
        .collect();
    assert!(
        names.contains(&"bees.md") && names.contains(&"page.html"),
        "{names:?}"
    );
    assert_eq!(hits[0].title, "Bee notes");
    assert!(hits[0].snippet.contains("waggle dance"));
    assert_eq!(
        lib.search("termites mounds", 5).unwrap()[0]
            .url
            .rsplit('/')
            .next(),
        Some("paper.pdf")
    );
    assert_eq!(lib.search("pheromone", 5).unwrap()[0].title, "Ant trails");
    assert!(
        lib.search("bees OR -\"wasps", 5).is_ok(),
        "typed syntax never breaks the query"
    );
    assert!(lib.search("zebra", 5).unwrap().is_empty());

    // Unchanged files are not read again; a changed file is; a deleted file disappears.
    let last = std::sync::Mutex::new(None);
    let again = lib
        .reindex(&|r| *last.lock().unwrap() = Some((r.scanned, r.total)))
        .unwrap();
    assert_eq!(last.into_inner().unwrap(), Some((5, 5)));
    assert_eq!(
        (again.indexed, again.unchanged),
        (0, 5),
        "unreadable files are not retried until they change: {again:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        d,
        "wasps.txt",
        "Wasps now also dance, in this edited file, about zebras.",
    );
    std::fs::remove_file(d.join("page.html")).unwrap();
    let again = lib.reindex(&|_| {}).unwrap();
    assert_eq!((again.indexed, again.removed), (1, 1), "{again:?}");
    assert_eq!(lib.search("zebras", 5).unwrap().len(), 1);
    assert!(lib.search("pheromone", 5).unwrap().is_empty());

    let folders = lib.folders().unwrap();
    assert_eq!(
        (folders.len(), folders[0].files, folders[0].failed),
        (1, 3, 1)
    );
    lib.remove(d).unwrap();
    assert!(lib.search("waggle", 5).unwrap().is_empty());
    assert!(lib.folders().unwrap().is_empty());
    assert!(lib
        .remove(d)
        .unwrap_err()
        .to_string()
        .contains("is not in the library"));
    assert!(lib
        .add(Path::new("/nonexistent/folder"), &|_| {})
        .unwrap_err()
        .to_string()
        .contains("is not a folder"));
}

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
