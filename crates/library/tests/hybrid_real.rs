//! Hybrid ranking with the real embedding model (all-MiniLM-L6-v2): a question that shares no
//! word with the passage that answers it is answered by hybrid ranking, not by BM25 alone.
//! Skips, saying so, when the model is not installed (`bash scripts/fetch-embedder.sh`).

use std::path::Path;
use std::sync::Arc;

use research_embed::BertEmbedder;
use research_library::{Library, Ranking};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_paraphrased_question_finds_its_answer_by_meaning() {
    let Some(model) = research_embed::locate_model() else {
        eprintln!(
            "SKIPPED: no embedding model (run `bash scripts/fetch-embedder.sh`, or set {})",
            research_embed::MODEL_ENV
        );
        return;
    };
    let embedder = Arc::new(BertEmbedder::load(&model).expect("the installed model loads"));

    let docs = tempfile::tempdir().unwrap();
    let d = docs.path();
    // The answer: no word of it is in the question below.
    write(
        d,
        "recovery.md",
        "# Recovery\n\nIf the computer loses electricity halfway through saving changes, the \
         rollback journal lets SQLite restore the file to how it was before, so the half-written \
         transaction vanishes.",
    );
    // Others that share the question's common words, so keywords alone do find something.
    write(
        d,
        "garden.md",
        "# Gardening\n\nWhat happens to tulips when you cut them during a dry week is that they \
         wilt within a day.",
    );
    write(
        d,
        "bread.md",
        "# Baking\n\nWhen is a loaf done? Tap the bottom: a hollow sound is what you want.",
    );
    write(
        d,
        "trains.md",
        "# Timetables\n\nThe night train is cut from the schedule during winter.",
    );
    let question = "What happens when power is cut during a commit?";

    let db = tempfile::tempdir().unwrap();
    let path = db.path().join("db.sqlite3");
    let keywords = Library::open(&path).unwrap();
    keywords.add(d, &|_| {}).unwrap();
    let by_keywords = keywords.search_ranked(question, 3).unwrap();
    assert_eq!(by_keywords.ranking, Ranking::Bm25);
    assert!(
        !by_keywords.hits.is_empty(),
        "the common words match something"
    );
    assert!(
        by_keywords
            .hits
            .iter()
            .all(|h| !h.url.ends_with("recovery.md")),
        "no shared word, so BM25 cannot find it: {:?}",
        by_keywords.hits
    );
    drop(keywords);

    let hybrid = Library::open(&path).unwrap().with_embedder(embedder);
    hybrid.reindex(&|_| {}).unwrap();
    assert_eq!(hybrid.embedded_share().unwrap(), (4, 4));
    // The answer is the nearest in meaning; fused with the keyword list (where it is absent) it
    // shares the top two with the passage that has most of the question's words.
    let ranked = hybrid.search_ranked(question, 2).unwrap();
    assert!(matches!(ranked.ranking, Ranking::Hybrid { .. }));
    assert!(
        ranked.hits.iter().any(|h| h.url.ends_with("recovery.md")),
        "hybrid ranking finds the answer: {:?}",
        ranked.hits
    );
}
