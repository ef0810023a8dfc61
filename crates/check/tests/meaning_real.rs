//! The checker with the sentence model the project ships: a true sentence in other words is
//! kept where words alone cut it, and a reversed comparison stays contradicted. Skips, saying
//! why, when the model is not installed (`bash scripts/fetch-embedder.sh`).

use std::sync::Arc;

use research_check::meaning::Meaning;
use research_check::{check_reading, Passage, SourceTexts, Status, Weights, LIKELY};

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

/// PostgreSQL 15, "Asynchronous Commit" (wal-async-commit.html), as Debian's
/// postgresql-doc-15 ships it.
const ASYNC: &str = "The risk that is taken by using asynchronous commit is of data loss, not \
    data corruption. If the database should crash, it will recover by replaying WAL up to the \
    last record that was flushed.";

fn one(text: &str) -> [Passage<'_>; 1] {
    [Passage { source: 1, text }]
}

#[test]
fn a_true_sentence_in_other_words_is_kept_with_meaning() {
    let Some(meaning) = model() else { return };
    let sentence = "With asynchronous commit a crash can cost you recent data but will not leave \
        the database corrupt, because recovery replays the log as far as the last record that \
        reached disk [1].";
    let texts = SourceTexts::new();
    let words = check_reading(sentence, &one(ASYNC), &texts, Weights::committed(), None);
    let read = check_reading(
        sentence,
        &one(ASYNC),
        &texts,
        Weights::committed_meaning(),
        Some(&meaning),
    );
    assert!(read.signals.meaning > 0.5, "{read:?}");
    assert!(read.signals.token_recall > 0.5, "{read:?}");
    let kept = |v: &research_check::Verdict| {
        v.status == Status::Verified || (v.status == Status::Partly && v.score >= LIKELY)
    };
    assert!(kept(&read), "with meaning: {read:?}");
    assert!(
        read.score > words.score,
        "words {words:?}\nmeaning {read:?}"
    );
}

#[test]
fn a_swapped_comparison_is_contradicted_with_meaning_too() {
    let Some(meaning) = model() else { return };
    let wal = "WAL works best with smaller transactions. WAL does not work well for very large \
        transactions. For transactions larger than about 100 megabytes, traditional rollback \
        journal modes will likely be faster.";
    let v = check_reading(
        "For transactions larger than about 100 megabytes, WAL mode is likely to be faster than \
         the rollback journal modes [1].",
        &one(wal),
        &SourceTexts::new(),
        Weights::committed_meaning(),
        Some(&meaning),
    );
    assert_eq!(v.status, Status::Contradicted, "{v:?}");
}
