//! The checker with the sentence model the project ships: a true sentence in other words is
//! kept where words alone cut it, and a reversed comparison stays contradicted. Skips, saying
//! why, when the model is not installed (`bash scripts/fetch-embedder.sh`).

use std::sync::Arc;

use research_check::meaning::Meaning;
use research_check::{check_reading, Passage, SourceTexts, Status, Weights};

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
    let kept = |v: &research_check::Verdict| v.kept();
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

/// The sentence model with the entailment reader (`bash scripts/fetch-entailment.sh`); `None`,
/// saying why, when either is not installed.
fn with_entailment() -> Option<Meaning> {
    let dir = research_embed::locate_model()?;
    let Some(reader_dir) = research_entail::locate_model() else {
        assert!(
            std::env::var_os(research_entail::MODEL_ENV).is_none(),
            "{} names a folder with no entailment model in it",
            research_entail::MODEL_ENV
        );
        eprintln!("SKIPPED: no entailment reader (run `bash scripts/fetch-entailment.sh`)");
        return None;
    };
    let model = research_embed::BertEmbedder::load(&dir).expect("the installed model loads");
    let reader =
        research_entail::OnnxEntailment::load(&reader_dir).expect("the installed reader loads");
    Some(Meaning::with_entailment(Arc::new(model), Arc::new(reader)))
}

#[test]
fn read_with_entailment_near_misses_are_cut_and_true_sentences_mostly_kept() {
    // The near-miss set the rules (and DENIED_CUT) were developed against; the held-out set is
    // measured by scripts/near-miss-bench.py, never by a test.
    let Some(meaning) = with_entailment() else {
        return;
    };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../benches/near-miss/cases.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the near-miss set is in the repository");
    let (mut truths, mut truths_kept, mut misses, mut misses_kept) = (0, 0, 0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        if row["id"].as_str().unwrap().starts_with("issue") {
            continue;
        }
        let passage = row["passage"].as_str().unwrap();
        let mut texts = SourceTexts::new();
        texts.insert(1, passage);
        let claim = format!("{} [1]", row["claim"].as_str().unwrap());
        let v = check_reading(
            &claim,
            &one(passage),
            &texts,
            Weights::committed_meaning(),
            Some(&meaning),
        );
        let kept = v.kept();
        if row["label"] == "true" {
            truths += 1;
            truths_kept += usize::from(kept);
        } else {
            misses += 1;
            misses_kept += usize::from(kept);
        }
    }
    // Measured: 10 of 116 near-misses kept (45 without the reader), 51 of 112 true sentences.
    assert!(
        misses_kept * 100 <= misses * 12,
        "{misses_kept} of {misses} near-misses kept"
    );
    assert!(
        truths_kept * 100 >= truths * 40,
        "{truths_kept} of {truths} true sentences kept"
    );
}

#[test]
fn the_issue_s_reversed_comparison_is_not_kept_by_the_reader_alone() {
    // The sentence the comparison rule contradicts, read by the entailment reader with that rule
    // out of the way (its window says the sides the other way round in other words): denied.
    let Some(meaning) = with_entailment() else {
        return;
    };
    let wal = "WAL does not work well for very large transactions. For transactions larger than \
        about 100 megabytes, traditional rollback journal modes will likely be faster.";
    let d = meaning
        .denied(
            wal,
            "For transactions larger than about 100 megabytes, WAL mode is likely to be the \
             quicker one.",
        )
        .expect("the reader reads");
    assert!(d >= research_check::DENIED_CUT, "denied {d}");
    let d = meaning
        .denied(
            wal,
            "Rollback journals are likely to be quicker than WAL for transactions above about \
             100 megabytes.",
        )
        .expect("the reader reads");
    assert!(d < research_check::DENIED_CUT, "denied {d}");
}
