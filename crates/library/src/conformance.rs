//! One conformance suite for every [`LibraryIndex`]: the ranking contract a person relies on
//! (every word before some, stems, snippets, CJK words inside sentences, typed syntax that
//! never breaks a query), incremental re-indexing, removal, vectors kept in step with passages,
//! and two connections writing at once. The same checks run on SQLite here and on PostgreSQL in
//! `research-postgres` (feature `conformance`).
//!
//! Use [`library_conformance!`](crate::library_conformance) in a test module with an expression
//! that makes a fresh, empty [`Database`]; it writes one `#[test]` per check.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use research_embed::{EmbedError, Embedder, TrigramEmbedder};

use crate::{Library, LibraryIndex, Ranking};

mod meaning;
mod references;
pub use meaning::{
    a_search_never_waits_for_the_index_to_be_built,
    a_stopped_pass_keeps_what_it_embedded_and_the_next_goes_on,
    another_model_re_embeds_and_a_broken_one_falls_back_to_keywords,
    counts_and_the_vector_tally_follow_every_change, only_new_and_changed_passages_are_embedded,
    passage_ids_are_never_used_again, the_approximate_index_is_kept_in_step_and_saved,
    vectors_alone_do_not_return_what_is_far_from_the_question, vectors_are_listed_and_read_by_id,
    what_another_process_indexed_is_found_by_meaning,
};
pub use references::a_reference_managers_export_is_searched_cited_and_imported_again;

/// A fresh database the checks open indexes on; each call is another connection to it, as
/// another process of the same machine would have.
pub trait Database {
    /// This machine's index, on a new connection.
    fn index(&self) -> Arc<dyn LibraryIndex>;
}

fn library(db: &dyn Database) -> Library {
    Library::on(db.index())
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn names(hits: &[research_search::Hit]) -> Vec<&str> {
    hits.iter()
        .map(|h| h.url.rsplit('/').next().unwrap_or(""))
        .collect()
}

/// Mixed files are indexed (Markdown, text, HTML, PDF; binary counted, hidden and other
/// extensions skipped), ranked with every word before some, matched by stems, re-indexed
/// incrementally, and removed.
pub fn mixed_files_are_indexed_ranked_reindexed_and_removed(db: &dyn Database) {
    let lib = library(db);
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
    assert_eq!(
        (report.total, report.scanned, report.indexed),
        (5, 5, 4),
        "hidden folders and other extensions are skipped: {report:?}"
    );
    assert_eq!(
        report.failed.len(),
        1,
        "the binary .txt is counted, not fatal: {report:?}"
    );
    assert!(report.failed[0].0.ends_with("broken.txt"));

    // The page with every word first, then pages with some of them ("Wasps do not dance").
    let hits = lib.search("waggle dance", 5).unwrap();
    assert_eq!(names(&hits), ["bees.md", "wasps.txt"], "{hits:?}");
    assert!(hits[0].url.starts_with("file:///") && hits[0].url.ends_with("notes/bees.md"));
    // Words are matched by their stems: plurals, -ing.
    let hits = lib.search("dancing foragers trail", 5).unwrap();
    let found = names(&hits);
    assert!(
        found.contains(&"bees.md") && found.contains(&"page.html"),
        "{found:?}"
    );
    assert_eq!(hits[0].title, "Bee notes");
    assert!(hits[0].snippet.contains("waggle dance"), "{:?}", hits[0]);
    assert_eq!(
        names(&lib.search("termites mounds", 5).unwrap())[0],
        "paper.pdf"
    );
    assert_eq!(lib.search("pheromone", 5).unwrap()[0].title, "Ant trails");
    for typed in [
        "bees OR -\"wasps",
        "a & b | !c <-> d:*",
        "'); DROP TABLE x; --",
        "!!!",
        "",
    ] {
        assert!(
            lib.search(typed, 5).is_ok(),
            "typed syntax never breaks the query: {typed}"
        );
    }
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
    // A file read is readable by its URL; one that failed or is gone is not.
    assert!(lib.read(&hits[0].url).is_ok());
    let broken = url_of(&d.join("broken.txt"));
    assert!(lib.read(&broken).is_err());

    let folders = lib.folders().unwrap();
    assert_eq!(
        (folders.len(), folders[0].files, folders[0].failed),
        (1, 3, 1)
    );
    lib.remove(d).unwrap();
    assert!(lib.search("waggle", 5).unwrap().is_empty());
    assert!(lib.folders().unwrap().is_empty());
    assert_eq!(lib.passage_count().unwrap(), 0);
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

fn url_of(path: &Path) -> String {
    url::Url::from_file_path(path.canonicalize().unwrap_or(path.to_path_buf()))
        .unwrap()
        .to_string()
}

/// A file that could be read and no longer can is a failure, its passages gone; mended, it is
/// read again.
pub fn a_file_that_breaks_loses_its_passages_and_comes_back_mended(db: &dyn Database) {
    let lib = library(db);
    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    write(
        d,
        "note.txt",
        "Lichens are a partnership of fungus and alga.",
    );
    lib.add(d, &|_| {}).unwrap();
    assert_eq!(lib.search("lichens", 5).unwrap().len(), 1);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(d, "note.txt", [0u8, 1, 2, 3, 0, 0, 159]);
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(lib.search("lichens", 5).unwrap().is_empty());
    assert_eq!(lib.folders().unwrap()[0].failed, 1);
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(d, "note.txt", "Lichens grow slowly on bare rock.");
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!(report.indexed, 1, "{report:?}");
    assert_eq!(names(&lib.search("rock", 5).unwrap()), ["note.txt"]);
    assert_eq!(
        (
            lib.folders().unwrap()[0].files,
            lib.folders().unwrap()[0].failed
        ),
        (1, 0)
    );
}

/// A Japanese or Chinese word is found inside a sentence (no spaces between words), and a whole
/// question is cut at its particles; snippets are shown without the index's spacing.
pub fn cjk_words_are_found_inside_sentences(db: &dyn Database) {
    let lib = library(db);
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "ja.txt",
        "量子コンピュータは重ね合わせを利用して計算します。古典的なコンピュータとは異なります。",
    );
    write(docs.path(), "en.txt", "Classical computers use bits.");
    write(docs.path(), "zh.txt", "蜜蜂通过摇摆舞告诉同伴花蜜的位置。");
    lib.add(docs.path(), &|_| {}).unwrap();
    let hits = lib.search("重ね合わせ", 5).unwrap();
    assert_eq!(names(&hits), ["ja.txt"], "{hits:?}");
    assert!(
        hits[0].snippet.contains("重ね合わせを利用して"),
        "{}",
        hits[0].snippet
    );
    assert_eq!(names(&lib.search("classical", 5).unwrap()), ["en.txt"]);
    let hits = lib
        .search("量子コンピュータは何を利用して計算しますか？", 5)
        .unwrap();
    assert_eq!(names(&hits)[0], "ja.txt", "{hits:?}");
    assert_eq!(names(&lib.search("摇摆舞", 5).unwrap()), ["zh.txt"]);
    // A phrase of characters, not the characters anywhere: 舞摇 is not in the text.
    assert!(lib.search("舞摇", 5).unwrap().is_empty());
}

/// Two connections (two processes of one machine) index folders at once: neither loses the
/// other's files, and each sees all of them.
pub fn two_connections_index_at_once(db: &dyn Database) {
    let (a, b) = (library(db), library(db));
    let (docs_a, docs_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for i in 0..12 {
        write(
            docs_a.path(),
            &format!("a{i}.md"),
            format!("# A {i}\n\nAlpine meadow note number {i}."),
        );
        write(
            docs_b.path(),
            &format!("b{i}.md"),
            format!("# B {i}\n\nBoreal forest note number {i}."),
        );
    }
    std::thread::scope(|s| {
        let one = s.spawn(|| a.add(docs_a.path(), &|_| {}).unwrap());
        let two = s.spawn(|| b.add(docs_b.path(), &|_| {}).unwrap());
        assert_eq!(one.join().unwrap().indexed, 12);
        assert_eq!(two.join().unwrap().indexed, 12);
    });
    let fresh = library(db);
    assert_eq!(fresh.folders().unwrap().len(), 2);
    assert_eq!(fresh.search("alpine", 50).unwrap().len(), 12);
    assert_eq!(fresh.search("boreal", 50).unwrap().len(), 12);
    assert_eq!(fresh.passage_count().unwrap(), 24);
}

/// Two processes indexing the same folder at once (the app and `research library reindex`)
/// leave one copy of each file: no duplicate passages, no error.
pub fn one_folder_indexed_twice_at_once_keeps_one_copy(db: &dyn Database) {
    let (a, b) = (library(db), library(db));
    let docs = tempfile::tempdir().unwrap();
    for i in 0..12 {
        write(
            docs.path(),
            &format!("n{i}.md"),
            format!("# Note {i}\n\nTundra lichen note number {i}."),
        );
    }
    std::thread::scope(|s| {
        let one = s.spawn(|| a.add(docs.path(), &|_| {}).unwrap());
        let two = s.spawn(|| b.add(docs.path(), &|_| {}).unwrap());
        for report in [one.join().unwrap(), two.join().unwrap()] {
            assert!(report.failed.is_empty(), "{report:?}");
        }
    });
    let fresh = library(db);
    assert_eq!(fresh.passage_count().unwrap(), 12);
    assert_eq!(fresh.search("tundra", 50).unwrap().len(), 12);
    assert_eq!(fresh.folders().unwrap()[0].files, 12);
}

/// The test embedder, counting the texts it is given.
#[derive(Default)]
struct Counting {
    inner: TrigramEmbedder,
    texts: AtomicUsize,
}

impl Embedder for Counting {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts)
    }
}

/// An embedder whose model is broken.
struct Broken;

impl Embedder for Broken {
    fn model_id(&self) -> &str {
        "broken"
    }
    fn dimensions(&self) -> usize {
        3
    }
    fn embed(&self, _: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Err(EmbedError::Compute("the model file is damaged".into()))
    }
}

fn corpus() -> tempfile::TempDir {
    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    write(
        d,
        "indexing.md",
        "# Indexing\n\nIndexing a column speeds lookups.",
    );
    write(
        d,
        "bees.md",
        "# Bees\n\nForager bees dance to share where nectar is.",
    );
    write(
        d,
        "ants.md",
        "# Ants\n\nAnts follow pheromone trails to food.",
    );
    docs
}

/// The corpus and three more notes: six passages, past the five from which the checks of the
/// approximate index use it.
fn six_notes() -> tempfile::TempDir {
    let docs = corpus();
    for (name, text) in [
        (
            "queues.md",
            "# Queues\n\nA queue serves requests in arrival order.",
        ),
        (
            "caches.md",
            "# Caches\n\nA cache keeps recent answers close at hand.",
        ),
        (
            "locks.md",
            "# Locks\n\nA lock lets one writer change a table at a time.",
        ),
    ] {
        write(docs.path(), name, text);
    }
    docs
}

/// With an embedding model a search is hybrid and finds what keywords miss (a hit found by
/// meaning alone shows the start of its passage), and says which ranking it used.
pub fn hybrid_finds_what_keywords_miss_and_says_which_ranking_it_used(db: &dyn Database) {
    let docs = corpus();
    // No model: BM25 alone, and "indeksing" (mistyped) is not a word or stem of any file.
    let plain = library(db);
    plain.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(plain.ranking(), Ranking::Bm25);
    let ranked = plain.search_ranked("indeksing", 5).unwrap();
    assert_eq!(ranked.ranking, Ranking::Bm25);
    assert!(ranked.hits.is_empty(), "{:?}", ranked.hits);
    assert_eq!(plain.embedded_share().unwrap(), (0, 3));
    drop(plain);

    // The model installed since: the next pass embeds the unchanged files' passages.
    let embedder = Arc::new(Counting::default());
    let lib = library(db).with_embedder(embedder.clone());
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!(report.unchanged, 3, "{report:?}");
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);
    assert_eq!(lib.embedded_share().unwrap(), (3, 3));
    assert_eq!(lib.vectors_stored().unwrap(), 3);

    let ranked = lib.search_ranked("indeksing", 5).unwrap();
    assert_eq!(
        ranked.ranking,
        Ranking::Hybrid {
            model: "test-trigrams-256".into()
        }
    );
    assert!(
        ranked.hits[0].url.ends_with("indexing.md"),
        "found by its letters: {:?}",
        ranked.hits
    );
    assert!(
        ranked.hits[0].snippet.contains("Indexing a column speeds"),
        "{:?}",
        ranked.hits[0]
    );
    assert!(ranked.ranking.to_string().contains("fused by rank"));
    // Keyword hits keep their place: an exact word still comes first.
    let hits = lib.search("pheromone", 5).unwrap();
    assert!(hits[0].url.ends_with("ants.md"), "{hits:?}");
}

/// How many passages a word is in is counted as the search matches it (by its stem), and
/// never past the number asked: what a search reads to leave out its commonest words.
pub fn a_words_passages_are_counted_no_further_than_asked(db: &dyn Database) {
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nForager bees dance to share where nectar is.",
    );
    write(
        docs.path(),
        "hive.md",
        "# Hive\n\nA hive of bees hums at night.",
    );
    write(
        docs.path(),
        "queen.md",
        "# Queen\n\nThe queen bee rests; wasps hunt.",
    );
    library(db).add(docs.path(), &|_| {}).unwrap();
    let index = db.index();
    let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        index
            .passages_with(&words(&["bees", "dancing", "termites", "!?", "bee"]), 10)
            .unwrap(),
        [3, 1, 0, 0, 3],
        "each word counted, in the order asked; one with nothing to search for is in none"
    );
    assert_eq!(index.passages_with(&words(&["bees"]), 2).unwrap(), [2]);
    assert_eq!(index.passages_with(&words(&["bees"]), 0).unwrap(), [0]);
    assert!(index.passages_with(&[], 10).unwrap().is_empty());
}

/// In a search for any word (words rarest first), a passage saying the rare word once ranks
/// above passages repeating a common one: what BM25's weighing of a rare word does, and what an
/// index ranking the rarest word's passages first does too.
pub fn a_rare_word_ranks_above_a_common_one_in_a_search_for_any(db: &dyn Database) {
    let docs = tempfile::tempdir().unwrap();
    for i in 0..8 {
        write(
            docs.path(),
            &format!("nectar{i}.md"),
            format!("# Note {i}\n\nNectar, nectar and more nectar in field {i}."),
        );
    }
    write(
        docs.path(),
        "propolis.md",
        "# Resin\n\nBees seal cracks in the hive with propolis gathered from buds.",
    );
    library(db).add(docs.path(), &|_| {}).unwrap();
    let index = db.index();
    let words = vec!["propolis".to_string(), "nectar".to_string()];
    let counts = index.passages_with(&words, 100).unwrap();
    assert_eq!(counts, [1, 8]);
    let found = index.keyword(&words, false, 5).unwrap();
    assert_eq!(
        found.len(),
        5,
        "every passage with either word, up to the depth"
    );
    let first = index.passages(&found[..1]).unwrap();
    assert!(
        first[0].1.path.ends_with("propolis.md"),
        "the rare word's passage first: {}",
        first[0].1.path
    );
}

/// A search's candidates are read in one call with their files and references, and their
/// snippets in another; a passage gone, or one saying none of the words, is left out.
pub fn passages_and_snippets_are_read_together(db: &dyn Database) {
    let docs = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nForager bees dance to share where nectar is.",
    );
    write(docs.path(), "hive.md", "# Hive\n\nA hive hums at night.");
    let lib = library(db);
    lib.add(docs.path(), &|_| {}).unwrap();
    let index = db.index();
    let bees = docs.path().join("bees.md").canonicalize().unwrap();
    let words = vec!["bees".to_string()];
    let id_of = |w: &str| index.keyword(&[w.to_string()], true, 1).unwrap()[0];
    let (bee, hive) = (id_of("forager"), id_of("hive"));
    index
        .put_reference(
            &bees.to_string_lossy(),
            &crate::FileReference {
                key: "doe2020".into(),
                title: Some("On Bees".into()),
                ..Default::default()
            },
            1,
        )
        .unwrap();
    let mut read = index.passages(&[hive, bee, 999_999]).unwrap();
    read.sort_by_key(|(id, _)| *id);
    let mut expected = vec![bee, hive];
    expected.sort();
    assert_eq!(
        read.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        expected,
        "a passage that is not there is left out"
    );
    let (_, found) = read.iter().find(|(id, _)| *id == bee).unwrap();
    assert_eq!(found.path, bees.to_string_lossy());
    assert!(found.text.contains("Forager bees dance"));
    assert_eq!(
        found.reference.as_ref().and_then(|r| r.title.as_deref()),
        Some("On Bees"),
        "the reference manager's record comes with its file"
    );
    let (_, other) = read.iter().find(|(id, _)| *id == hive).unwrap();
    assert_eq!(other.reference, None);
    let snippets = index.snippets(&[bee, hive], &words).unwrap();
    assert_eq!(
        snippets.len(),
        1,
        "the hive passage says no bees: {snippets:?}"
    );
    assert_eq!(snippets[0].0, bee);
    assert!(snippets[0].1.contains("bees"), "{snippets:?}");
    assert!(index.passages(&[]).unwrap().is_empty());
}

/// Writes one `#[test]` per check of the library index conformance suite; `$make` is an
/// expression giving a fresh, empty [`Database`].
#[macro_export]
macro_rules! library_conformance {
    ($make:expr) => {
        $crate::library_conformance!(@tests $make;
            mixed_files_are_indexed_ranked_reindexed_and_removed,
            passages_and_snippets_are_read_together,
            a_rare_word_ranks_above_a_common_one_in_a_search_for_any,
            a_file_that_breaks_loses_its_passages_and_comes_back_mended,
            cjk_words_are_found_inside_sentences, two_connections_index_at_once,
            one_folder_indexed_twice_at_once_keeps_one_copy,
            hybrid_finds_what_keywords_miss_and_says_which_ranking_it_used,
            only_new_and_changed_passages_are_embedded,
            another_model_re_embeds_and_a_broken_one_falls_back_to_keywords,
            a_stopped_pass_keeps_what_it_embedded_and_the_next_goes_on,
            vectors_alone_do_not_return_what_is_far_from_the_question,
            counts_and_the_vector_tally_follow_every_change,
            passage_ids_are_never_used_again, vectors_are_listed_and_read_by_id,
            the_approximate_index_is_kept_in_step_and_saved,
            a_search_never_waits_for_the_index_to_be_built,
            what_another_process_indexed_is_found_by_meaning,
            a_words_passages_are_counted_no_further_than_asked,
            a_reference_managers_export_is_searched_cited_and_imported_again);
    };
    (@tests $make:expr; $($check:ident),*) => {
        $(
            #[test]
            fn $check() {
                let db = $make;
                $crate::conformance::$check(&db);
            }
        )*
    };
}
