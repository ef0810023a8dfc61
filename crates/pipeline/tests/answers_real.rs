//! The answering measure read with the sentence model the project ships: passages that state
//! what a question on trade-offs asks for answer it, one that shares its subject's name only does
//! not. Skips, saying why, when the model is not installed (`bash scripts/fetch-embedder.sh`).

use std::sync::Arc;

use research_check::meaning::Meaning;
use research_pipeline::steps::relevance::answers::{signals, Weights};

fn model() -> Option<Meaning> {
    let Some(dir) = research_embed::locate_model() else {
        eprintln!(
            "SKIPPED: no embedding model (run `bash scripts/fetch-embedder.sh`, or set {})",
            research_embed::MODEL_ENV
        );
        return None;
    };
    let model = research_embed::BertEmbedder::load(&dir).expect("the installed model loads");
    Some(Meaning::new(Arc::new(model)))
}

#[test]
fn the_pros_and_cons_answer_a_question_on_trade_offs_and_a_filename_rule_does_not() {
    let Some(meaning) = model() else { return };
    let key =
        "What are the advantages and disadvantages of using WAL instead of a rollback journal?";
    // wal.html's list of advantages and disadvantages, and what SmolLM2's report quoted instead.
    let passages = [
        "WAL is significantly faster in most scenarios.",
        "WAL provides more concurrency as readers do not block writers and a writer does not block readers.",
        "WAL normally requires that the VFS support shared-memory primitives.",
        "SQLite database files need no particular file extension.",
        "| On | Off | Yes | all |",
    ];
    let weights = Weights::committed(true);
    let scores: Vec<f64> = signals(key, &passages, Some(&meaning))
        .iter()
        .map(|s| weights.probability(s))
        .collect();
    for i in 0..3 {
        assert!(
            scores[i] >= weights.answers,
            "{i}: {scores:?} {}",
            weights.answers
        );
    }
    assert!(
        scores[3] < weights.answers,
        "{scores:?} {}",
        weights.answers
    );
    assert_eq!(scores[4], 0.0);
}
