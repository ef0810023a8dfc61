//! A person's own model is judged by what it did in their runs: once it has written enough
//! drafts the checks refused, it is no longer asked for one — in the estimate and in Settings —
//! by the same rule that keeps the built-in models from it; before that, and for other models,
//! nothing changes.

use research_api::{ModelRouting, RunConfig, Studio};
use research_store::{ModelCounts, ModelRunRow, ModelStore, SqliteSessions};

const THEIRS: &str = "ollama:qwen2.5:0.5b";

fn record_runs(db: &std::path::Path, runs: u64) {
    let store = SqliteSessions::open(db).unwrap();
    for i in 0..runs {
        store
            .record_models(
                &format!("t{i}"),
                i as i64,
                &[ModelRunRow {
                    model: THEIRS.into(),
                    counts: ModelCounts {
                        facts: 8,
                        own_words: 2,
                        drafts: 1,
                        refused: 1,
                        completion_tokens: 500,
                        call_ms: 10_000,
                        ..Default::default()
                    },
                }],
            )
            .unwrap();
    }
}

fn calls(studio: &Studio, model: &str) -> u64 {
    let config = RunConfig {
        models: ModelRouting::single(model.to_string()),
        search: vec!["wikipedia".into()],
        ..RunConfig::default()
    };
    studio.estimate("standard", &config).unwrap().calls
}

#[test]
fn a_model_whose_drafts_the_checks_refused_in_enough_runs_is_not_asked_for_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let studio = Studio::open(Some(&db)).unwrap();
    let other = "ollama:qwen2.5:7b";
    let before = calls(&studio, THEIRS);
    assert_eq!(before, calls(&studio, other));

    // Four runs are not enough to tell.
    record_runs(&db, 4);
    assert_eq!(calls(&studio, THEIRS), before);
    let shown = studio.model_measurements().unwrap();
    let theirs = shown.iter().find(|m| m.model == THEIRS).unwrap();
    assert_eq!((theirs.your_runs, theirs.builtin), (4, false));
    assert!(theirs.decisions.is_empty(), "{theirs:?}");
    assert_eq!(theirs.tokens_per_second, Some(50.0));

    // Six are: the writer is not asked, and Settings says why.
    record_runs(&db, 6);
    assert_eq!(calls(&studio, THEIRS), before - 1);
    assert_eq!(
        calls(&studio, other),
        before,
        "another model is asked as ever"
    );
    let shown = studio.model_measurements().unwrap();
    let theirs = shown.iter().find(|m| m.model == THEIRS).unwrap();
    assert_eq!(theirs.your_runs, 6, "a run recorded again counts once");
    assert_eq!(
        theirs.decisions,
        ["not asked to write reports: the checks refused 6 of its 6 drafts"]
    );
    // The built-in models are listed with their own measurements, untouched.
    let builtin: Vec<&str> = shown
        .iter()
        .filter(|m| m.builtin)
        .map(|m| m.model.as_str())
        .collect();
    assert_eq!(builtin.len(), 2, "{shown:?}");
    assert!(shown
        .iter()
        .filter(|m| m.builtin)
        .all(|m| m.your_runs == 0 && m.decisions.len() == 2));
}
