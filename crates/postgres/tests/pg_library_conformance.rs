//! The library index's conformance suite against a real PostgreSQL server the test starts
//! itself, each check on a fresh server; every index a check opens is a pool of its own, as
//! another process's would be. And what only a shared server has: machines.
use std::sync::Arc;

use research_library::conformance::Database;
use research_library::{Library, LibraryIndex};
use research_postgres::testing::TempPostgres;
use research_postgres::{PgLibrary, PgSessions};

struct Pg {
    url: String,
    _server: TempPostgres,
}

impl Database for Pg {
    fn index(&self) -> Arc<dyn LibraryIndex> {
        Arc::new(PgLibrary::connect_lazy(&self.url, "this-machine").unwrap())
    }
}

fn fresh() -> Pg {
    let server = TempPostgres::start().expect("a PostgreSQL server for the test");
    let url = server.database("research").unwrap();
    Pg {
        url,
        _server: server,
    }
}

research_library::library_conformance!(fresh());

fn write(dir: &std::path::Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// Two machines share a server: each has its folders, searches its own files (the only ones it
/// can open), and one's re-index does not drop the other's files — even of a folder at the same
/// path, which on each machine is another folder.
#[test]
fn machines_keep_their_folders_apart() {
    let db = fresh();
    let laptop = Library::on(Arc::new(
        PgLibrary::connect_lazy(&db.url, "laptop").unwrap(),
    ));
    let server = Library::on(Arc::new(
        PgSessions::connect_lazy(&db.url).unwrap().library("server"),
    ));
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nForager bees dance to share where nectar is.",
    );
    laptop.add(docs.path(), &|_| {}).unwrap();
    let bees = laptop.search("nectar", 5).unwrap();
    assert_eq!(bees.len(), 1);

    // The same path on the server box is another folder, with other files.
    std::fs::remove_file(docs.path().join("bees.md")).unwrap();
    write(
        docs.path(),
        "ants.md",
        "# Ants\n\nAnts follow pheromone trails to food.",
    );
    let report = server.add(docs.path(), &|_| {}).unwrap();
    assert_eq!((report.indexed, report.removed), (1, 0), "{report:?}");
    assert!(server.search("nectar", 5).unwrap().is_empty());
    assert!(
        server.read(&bees[0].url).is_err(),
        "not a file of this machine's library"
    );
    assert_eq!(server.search("pheromone", 5).unwrap().len(), 1);
    assert_eq!(server.folders().unwrap()[0].files, 1);

    // The laptop's files are still indexed; its own re-index (bees.md gone here) drops it.
    assert_eq!(laptop.search("nectar", 5).unwrap().len(), 1);
    assert!(laptop.search("pheromone", 5).unwrap().is_empty());
    assert_eq!(laptop.passage_count().unwrap(), 1);
    server.remove(docs.path()).unwrap();
    assert_eq!(
        laptop.folders().unwrap().len(),
        1,
        "removing is per machine too"
    );
    let again = laptop.reindex(&|_| {}).unwrap();
    assert_eq!((again.indexed, again.removed), (1, 1), "{again:?}");
}

/// A German file is stemmed as German, an English one as English, and a question finds each by
/// its own language's word forms.
#[test]
fn each_language_is_stemmed_as_itself() {
    let db = fresh();
    let lib = Library::on(db.index());
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "de.md",
        "Die Bienen tanzen im Stock, und das ist nicht zufällig: der Tanz zeigt die Richtung.",
    );
    write(
        docs.path(),
        "en.md",
        "The bees of the hive are dancing, and the dance shows the direction of the flowers.",
    );
    lib.add(docs.path(), &|_| {}).unwrap();
    let found = |q: &str| -> Vec<String> {
        lib.search(q, 5)
            .unwrap()
            .iter()
            .map(|h| h.url.rsplit('/').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(found("Biene"), ["de.md"], "German plural to singular");
    assert_eq!(found("danced flower"), ["en.md"]);
    assert_eq!(found("Richtungen"), ["de.md"]);
}

/// Issue 54: a team's database restored from a dump (`pg_restore --clean`) gives the ids its
/// passages had at the dump to the passages indexed after it — ids the vector index saved on
/// this machine before the restore holds for other passages. That index is not loaded for the
/// restored records: a search by meaning finds what they say now.
#[test]
fn a_vector_index_saved_before_a_restore_never_serves_the_restored_records() {
    use research_embed::TrigramEmbedder;
    let server = TempPostgres::start().expect("a PostgreSQL server for the test");
    let url = server.database("research").unwrap();
    let cache = tempfile::tempdir().unwrap();
    let search = || {
        Arc::new(
            research_library::VectorSearch::kept_in(cache.path().join("vectors"))
                .approximate_from(3),
        )
    };
    let library = |vectors| {
        Library::on(Arc::new(
            PgLibrary::connect_lazy(&url, "this-machine").unwrap(),
        ))
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(vectors)
    };
    let first = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("ants.md", "Ants follow pheromone trails to food."),
        ("moss.md", "Moss grows on the north side of stones."),
        ("tides.md", "Tides follow the moon around the earth."),
    ] {
        write(first.path(), name, text);
    }
    library(search()).add(first.path(), &|_| {}).unwrap();
    let dump = server.dump("research").unwrap();

    // After the dump: more passages, and the index on this machine saved with them.
    let later = tempfile::tempdir().unwrap();
    notes(later.path(), "later", 60);
    library(search()).add(later.path(), &|_| {}).unwrap();
    // An app that stays open across the restore, its copy read before it.
    let open = Arc::new(
        research_library::VectorSearch::kept_in(cache.path().join("vectors"))
            .approximate_from(3)
            .recheck_every(std::time::Duration::ZERO),
    );
    assert!(library(open.clone())
        .nearest("granitee laterr", 1)
        .unwrap()
        .is_some());

    // The dump restored, then other files indexed: they take the ids the later ones had.
    server.restore("research", &dump).unwrap();
    let other = tempfile::tempdir().unwrap();
    notes(other.path(), "other", 59);
    write(
        other.path(),
        "comets.md",
        "Comets grow tails of dust near the sun.",
    );
    // Indexed by a process that never read this machine's saved index (a small library's pass
    // does not: it is read at the first search).
    Library::on(Arc::new(
        PgLibrary::connect_lazy(&url, "this-machine").unwrap(),
    ))
    .with_embedder(Arc::new(TrigramEmbedder::default()))
    .add(other.path(), &|_| {})
    .unwrap();
    // By meaning, through the index of vectors this machine keeps: as a scan of the restored
    // records finds it.
    let question = "cometts taills of dustt";
    let scan = Library::on(Arc::new(
        PgLibrary::connect_lazy(&url, "this-machine").unwrap(),
    ))
    .with_embedder(Arc::new(TrigramEmbedder::default()));
    let truth = scan.nearest(question, 1).unwrap().unwrap();
    let found = library(search()).nearest(question, 1).unwrap().unwrap();
    assert_eq!(found[0].id, truth[0].id, "{found:?} against {truth:?}");
    let still_open = library(open).nearest(question, 1).unwrap().unwrap();
    assert_eq!(
        still_open[0].id, truth[0].id,
        "the app open across the restore: {still_open:?} against {truth:?}"
    );
    let hits = library(search()).search(question, 1).unwrap();
    assert!(hits[0].url.ends_with("comets.md"), "{hits:?}");

    // The next indexing pass saves the index of the restored records; the one saved before the
    // restore, never to be loaded again, goes (each is as large as the library's vectors).
    let saved = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(cache.path().join("vectors"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".usearch"))
            .collect();
        names.sort();
        names
    };
    let before = saved();
    assert_eq!(before.len(), 1, "{before:?}");
    let last = tempfile::tempdir().unwrap();
    write(
        last.path(),
        "dunes.md",
        "Dunes move with the wind across the desert.",
    );
    library(search()).add(last.path(), &|_| {}).unwrap();
    let after = saved();
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after, before, "saved for the restored records");
    let hits = library(search()).search("dunnes wind desertt", 1).unwrap();
    assert!(hits[0].url.ends_with("dunes.md"), "{hits:?}");
}

/// `count` notes in `dir`, each on a topic of its own (words no other note has).
fn notes(dir: &std::path::Path, stem: &str, count: usize) {
    const WORDS: &[&str] = &[
        "granite", "harbour", "lantern", "meadow", "orchard", "pebble", "quarry", "saddle",
        "thimble", "velvet", "walnut", "yonder", "anvil", "bramble", "cobalt", "dapple",
    ];
    for i in 0..count {
        let a = WORDS[i % WORDS.len()];
        let b = WORDS[(i / WORDS.len() + 3 * i + 1) % WORDS.len()];
        write(
            dir,
            &format!("{stem}-{i}.md"),
            &format!("The {a} {stem} number {i} lies beside a {b} of the {stem} kind."),
        );
    }
}

/// A word the server's statistics call common is counted from them, without visiting its
/// passages; what they do not list, or a word read as a phrase, is counted as before.
#[test]
fn a_common_word_is_counted_from_the_servers_statistics() {
    let db = fresh();
    let lib = Library::on(Arc::new(
        PgLibrary::connect_lazy(&db.url, "this-machine").unwrap(),
    ));
    let docs = tempfile::tempdir().unwrap();
    for i in 0..300 {
        let rare = if i % 100 == 0 { " Termites swarm." } else { "" };
        write(
            docs.path(),
            &format!("note{i}.md"),
            &format!("# Note {i}\n\nForager bees dance at hive {i}; e-mail the keeper.{rare}"),
        );
    }
    lib.add(docs.path(), &|_| {}).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute("ANALYZE research.library_passages")
            .await
            .unwrap();
        let listed: i64 = client
            .query_one(
                "SELECT count(*) FROM pg_stats WHERE tablename = 'library_passages'
                 AND attname = 'words' AND most_common_elems IS NOT NULL",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(listed, 1, "ANALYZE kept the column's commonest stems");
    });
    let index: Arc<dyn LibraryIndex> =
        Arc::new(PgLibrary::connect_lazy(&db.url, "this-machine").unwrap());
    let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        index
            .passages_with(&words(&["bees", "termites", "e-mail", "wasps"]), 50)
            .unwrap(),
        [50, 3, 50, 0]
    );
    assert_eq!(index.passages_with(&words(&["bee"]), 1000).unwrap(), [300]);
    // The statistics are the server's, not a machine's: a word common on the server is taken
    // as common on a machine that has none of its passages (a search leaves it out of its
    // any-word query, as it would there). What they do not list is counted per machine.
    let other: Arc<dyn LibraryIndex> =
        Arc::new(PgLibrary::connect_lazy(&db.url, "other-machine").unwrap());
    assert_eq!(
        other.passages_with(&words(&["bees"]), 50).unwrap(),
        [0],
        "a machine with no passages has none of any word"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    write(elsewhere.path(), "ants.md", "# Ants\n\nAnts farm aphids.");
    Library::on(other.clone())
        .add(elsewhere.path(), &|_| {})
        .unwrap();
    assert_eq!(
        other
            .passages_with(&words(&["bees", "termites"]), 50)
            .unwrap(),
        [50, 0]
    );
}

/// Two processes of one machine re-index, in two folders at once, files whose language flips
/// the opposite ways (English to Japanese in one, Japanese to English in the other): each moves
/// two rows of the passage tally, and neither waits on the other for ever (the server would
/// abort one, "deadlock detected", and that file's indexing would fail).
#[test]
fn writers_whose_languages_flip_the_opposite_ways_never_deadlock() {
    let db = fresh();
    let english = vec!["The bees dance to show the others where the nectar is.".to_string()];
    let japanese = vec!["蜂 は 踊 り で 蜜 の 場 所 を 仲 間 に 伝 え る 。".to_string()];
    let writers: Vec<_> = ["/a", "/b"]
        .into_iter()
        .enumerate()
        .map(|(n, root)| {
            let index = PgLibrary::connect_lazy(&db.url, "this-machine").unwrap();
            index.add_root(root, 1).unwrap();
            let (english, japanese) = (english.clone(), japanese.clone());
            std::thread::spawn(move || {
                let path = format!("{root}/notes.txt");
                for round in 0..60 {
                    let passages = if (round + n) % 2 == 0 {
                        &english
                    } else {
                        &japanese
                    };
                    index
                        .put_file(&research_library::ReadFile {
                            root,
                            path: &path,
                            mtime_ns: round as i64,
                            size: 1,
                            sha256: "x",
                            kind: "text",
                            title: None,
                            passages,
                            at_ms: 1,
                        })
                        .unwrap_or_else(|e| panic!("{root}, round {round}: {e}"));
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let index = PgLibrary::connect_lazy(&db.url, "this-machine").unwrap();
    assert_eq!(index.counts(None).unwrap().passages, 2);
}
