//! Hybrid ranking with the deterministic test embedder: vectors are made incrementally, kept in
//! step with the passages, optional, and fused with BM25 by rank.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use research_embed::{EmbedError, Embedder, TrigramEmbedder};
use research_library::{Library, Ranking};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
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

#[test]
fn hybrid_finds_what_keywords_miss_and_says_which_ranking_it_used() {
    let db = tempfile::tempdir().unwrap();
    let docs = corpus();
    let path = db.path().join("db.sqlite3");

    // No model: BM25 alone, and "indeksing" (mistyped) is not a word or stem of any file.
    let plain = Library::open(&path).unwrap();
    plain.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(plain.ranking(), Ranking::Bm25);
    let ranked = plain.search_ranked("indeksing", 5).unwrap();
    assert_eq!(ranked.ranking, Ranking::Bm25);
    assert!(ranked.hits.is_empty(), "{:?}", ranked.hits);
    assert_eq!(plain.embedded_share().unwrap(), (0, 3));
    drop(plain);

    // The model installed since: the next pass embeds the unchanged files' passages.
    let embedder = Arc::new(Counting::default());
    let lib = Library::open(&path)
        .unwrap()
        .with_embedder(embedder.clone());
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!(report.unchanged, 3, "{report:?}");
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);
    assert_eq!(lib.embedded_share().unwrap(), (3, 3));

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
    // A hit found by meaning alone has the start of its passage as its snippet.
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

#[test]
fn only_new_and_changed_passages_are_embedded_and_deleted_ones_take_their_vectors() {
    let db = tempfile::tempdir().unwrap();
    let docs = corpus();
    let embedder = Arc::new(Counting::default());
    let lib = Library::open(&db.path().join("db.sqlite3"))
        .unwrap()
        .with_embedder(embedder.clone());
    lib.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);

    // Nothing changed: nothing embedded.
    lib.reindex(&|_| {}).unwrap();
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);
    assert_eq!(lib.embed_pending().unwrap(), 0);

    // One file changed, one added, one removed: two passages embedded, the removed one's
    // vector gone with it.
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nHoney bees waggle to point at flowers.",
    );
    write(docs.path(), "wasps.md", "# Wasps\n\nWasps hunt insects.");
    std::fs::remove_file(docs.path().join("ants.md")).unwrap();
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!((report.indexed, report.removed), (2, 1), "{report:?}");
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 5);
    assert_eq!(lib.embedded_share().unwrap(), (3, 3));
    // The search sees the new vectors, not the ones it had read before.
    let hits = lib.search("waggles", 5).unwrap();
    assert!(hits[0].url.ends_with("bees.md"), "{hits:?}");
    assert!(lib
        .search("pheromones", 5)
        .unwrap()
        .iter()
        .all(|h| !h.url.ends_with("ants.md")));

    lib.remove(docs.path()).unwrap();
    assert_eq!(lib.embedded_share().unwrap(), (0, 0));
}

#[test]
fn another_model_re_embeds_and_a_broken_one_falls_back_to_keywords() {
    let db = tempfile::tempdir().unwrap();
    let docs = corpus();
    let path = db.path().join("db.sqlite3");
    let first = Library::open(&path)
        .unwrap()
        .with_embedder(Arc::new(TrigramEmbedder::new(64)));
    first.add(docs.path(), &|_| {}).unwrap();
    drop(first);

    // Vectors of another model are never compared with this one's: all are made again.
    let embedder = Arc::new(Counting::default());
    let lib = Library::open(&path)
        .unwrap()
        .with_embedder(embedder.clone());
    assert_eq!(lib.embedded_share().unwrap(), (0, 3));
    assert_eq!(lib.embed_pending().unwrap(), 3);
    assert!(lib.search("indexes", 5).unwrap()[0]
        .url
        .ends_with("indexing.md"));
    drop(lib);

    // A model that fails: indexing still works, searches rank by keywords and say so.
    let broken = Library::open(&path)
        .unwrap()
        .with_embedder(Arc::new(Broken));
    write(docs.path(), "new.md", "# New\n\nA fresh note about nectar.");
    let report = broken.reindex(&|_| {}).unwrap();
    assert_eq!(report.indexed, 1, "{report:?}");
    let ranked = broken.search_ranked("nectar", 5).unwrap();
    assert_eq!(ranked.ranking, Ranking::Bm25);
    assert_eq!(ranked.hits.len(), 2, "{:?}", ranked.hits);
}

#[test]
fn vectors_alone_do_not_return_what_is_far_from_the_question() {
    let db = tempfile::tempdir().unwrap();
    let docs = corpus();
    let lib = Library::open(&db.path().join("db.sqlite3"))
        .unwrap()
        .with_embedder(Arc::new(TrigramEmbedder::default()));
    lib.add(docs.path(), &|_| {}).unwrap();
    // No shared word and no shared letters to speak of: nothing, rather than the nearest.
    assert!(lib.search("zzyzx qwv", 5).unwrap().is_empty());
}
