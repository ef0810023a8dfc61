//! `research run --pipeline review` end to end with the scripted model over the local library:
//! a reviewed report that passes the independent grounding check, and an escalation answered
//! from new processes (as after a restart).

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// The fixture script with a reviewer (and an analyst) added.
fn review_script(dir: &Path, review: Value) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    let answers = script["answers"].as_array_mut().unwrap();
    answers.push(json!({"purpose": "review", "json": review}));
    answers.push(
        json!({"purpose": "analyze", "json": {"themes": ["waggle dance"],
        "contradictions": [], "gaps": [], "confidence": 0.9}}),
    );
    let path = dir.join("review.json");
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

/// A database with the library, and the script with `review` as the reviewer's answer.
fn setup(review: Value) -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = review_script(dir.path(), review);
    (dir, db, script)
}

/// A reviewer that approves at once.
fn approving() -> Value {
    json!({"scores": scores(9.0), "issues": [], "summary": "Good.", "improvement_potential": 0.1})
}

fn scores(score: f64) -> Value {
    json!({"accuracy": score, "completeness": score, "coherence": score, "citation": score,
           "methodology": score, "style": score})
}

#[test]
fn a_review_run_delivers_a_reviewed_grounded_report_with_the_chosen_controls() {
    let (dir, db, script) = setup(approving());
    let result = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--pipeline",
            "review",
            "--style",
            "executive",
            "--target-length",
            "300",
            "--max-revisions",
            "2",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(result["status"], "finished");
    let drafts = result["review"]["drafts"].as_array().unwrap();
    assert_eq!(drafts.len(), 1);
    assert_eq!(drafts[0]["critique"]["verdict"], "approve");
    let report = result["report"].as_str().unwrap();
    assert!(report.contains("Reviewed: approved"), "{report}");
    check_grounding(&result, dir.path(), None);
    // An unknown style is an error that lists the styles, and nothing is run.
    let bad = research(
        &["run", QUESTION, "--llm", &script, "--style", "poetic"],
        &db,
    );
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("academic") && stderr.contains("executive"),
        "{stderr}"
    );
}

#[test]
fn an_escalation_waits_across_processes_and_is_answered_from_the_command_line() {
    let (dir, db, script) = setup(
        json!({"scores": scores(6.0), "issues": [{"category": "accuracy", "severity": "critical",
            "location": "Summary", "description": "The dance distances are not in the sources.",
            "fix": "Cite the waggle dance passage."}], "summary": "Unsupported.",
            "improvement_potential": 0.6}),
    );
    let first = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--pipeline",
            "review",
            "--max-revisions",
            "0",
            "--review",
            "clarify",
            "--json",
        ],
        &db,
    ));
    assert_eq!(first["status"], "waiting", "{first:#}");
    let question = &first["pending_question"]["question"];
    assert_eq!(question["type"], "escalation");
    assert_eq!(question["issues"][0]["severity"], "critical");
    let thread = first["thread_id"].as_str().unwrap().to_string();
    // A wrong answer is one sentence and loses nothing.
    let wrong = research(&["resume", &thread, "--answer", "maybe"], &db);
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("accept, research-more or stop"));
    let done = ok(&research(
        &["resume", &thread, "--answer", "accept", "--json"],
        &db,
    ));
    assert_eq!(done["status"], "finished");
    let report = done["report"].as_str().unwrap();
    assert!(
        report.contains("you accepted the best draft with its open issues"),
        "{report}"
    );
    assert!(report.contains("The dance distances are not in the sources."));
    check_grounding(&done, dir.path(), None);
}

#[test]
fn an_edited_draft_from_a_file_is_audited_and_asked_about_again_in_a_new_process() {
    let (dir, db, script) = setup(approving());
    let first = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--pipeline",
            "review",
            "--review",
            "report",
            "--json",
        ],
        &db,
    ));
    assert_eq!(first["status"], "waiting", "{first:#}");
    let question = &first["pending_question"]["question"];
    assert_eq!(question["type"], "report_review");
    let draft = question["draft"].as_str().unwrap();
    assert!(!draft.is_empty());
    let thread = first["thread_id"].as_str().unwrap().to_string();
    // An empty edit is refused in one sentence; the run still waits.
    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "\n").unwrap();
    let refused = research(&["resume", &thread, "--edit", empty.to_str().unwrap()], &db);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("the edited draft is empty"));
    // The person's edit cites a source the run never read: the audit takes it out, and the
    // reviewer and then the person see the result.
    let edit = dir.path().join("edit.md");
    std::fs::write(
        &edit,
        format!("{draft}\n\nHoneybees also communicate by radio waves [7].\n"),
    )
    .unwrap();
    let again = ok(&research(
        &[
            "resume",
            &thread,
            "--edit",
            edit.to_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(again["status"], "waiting", "{again:#}");
    let report = again["pending_question"]["question"]["report"]
        .as_str()
        .unwrap();
    assert!(!report.contains("radio waves"), "{report}");
    assert!(
        report.contains("edited by hand and audited again"),
        "{report}"
    );
    assert_eq!(again["review"]["drafts"].as_array().unwrap().len(), 2);
    let done = ok(&research(&["resume", &thread, "--approve", "--json"], &db));
    assert_eq!(done["status"], "finished");
    check_grounding(&done, dir.path(), None);
}

#[test]
fn an_unanswered_report_review_stops_the_run_after_its_timeout() {
    let (_dir, db, script) = setup(approving());
    let first = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--review",
            "report",
            "--review-timeout",
            "1",
            "--on-timeout",
            "stop",
            "--json",
        ],
        &db,
    ));
    assert_eq!(first["status"], "waiting", "{first:#}");
    let pending = &first["pending_question"];
    let asked = pending["asked_at_ms"].as_i64().unwrap();
    assert_eq!(pending["deadline_ms"].as_i64(), Some(asked + 60_000));
    let thread = first["thread_id"].as_str().unwrap().to_string();
    // Before the deadline a resume without an answer says how to answer.
    let early = research(&["resume", &thread], &db);
    assert!(!early.status.success());
    assert!(String::from_utf8_lossy(&early.stderr).contains("--edit FILE"));
    // `--on-timeout` needs `--review-timeout`.
    let lone = research(&["run", QUESTION, "--on-timeout", "stop"], &db);
    assert!(!lone.status.success());
}
