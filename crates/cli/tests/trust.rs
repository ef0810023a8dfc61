//! `research run --pipeline trust` end to end with the scripted model over the local library: a
//! clarification asked because the reading's confidence is under 0.7, answered from a new
//! process (as after a restart), asked once more when the answer leaves it unsure, then the best
//! reading taken and said, and a cross-validated report with its marks and credibility that
//! passes the independent grounding check.

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

fn reading(confidence: f64) -> Value {
    json!({"purpose": "understand", "json": {"intent": "how honeybees communicate",
        "class": "exploratory", "entities": ["honeybees"], "temporal": "", "complexity": "simple",
        "confidence": confidence, "question": "Honeybees or bumblebees?",
        "options": ["honeybees", "bumblebees"], "interpretation": "Honeybee communication"}})
}

/// The fixture script with the trust pipeline's reading (unsure, then sure) and research tree.
fn trust_script(dir: &Path) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    let answers = script["answers"].as_array_mut().unwrap();
    answers.retain(|a| a["purpose"] != "understand" && a["purpose"] != "plan");
    // Each process reads the script afresh: every reading is unsure.
    answers.insert(0, reading(0.5));
    answers.insert(
        1,
        json!({"purpose": "plan", "json": {
            "questions": [
                {"question": "How do honeybees tell each other where food is?", "level": "primary"},
                {"question": "How is a honeybee colony organised?", "level": "secondary"}],
            "outline": ["communication", "colony roles"],
            "searches": [
                {"query": "honeybee waggle dance direction", "kind": "web", "from_year": 0, "to_year": 0},
                {"query": "honeybee colony worker queen", "kind": "web", "from_year": 0, "to_year": 0}]}}),
    );
    // The pollination section says what no page says, citing a source the run never reads (the
    // question's own search now reads the pollination page, which would bear the fixture's out).
    for a in answers.iter_mut().filter(|a| a["purpose"] == "write") {
        let text = a["text"].as_str().unwrap();
        let head = text.split("## Pollination").next().unwrap();
        a["text"] = json!(format!(
            "{}## Pollination\nHoneybees carry pollen to the moon on clear nights [9]. \
             Every orchard on Mars is pollinated by trained honeybees [9].",
            head.replace("[3]", "[9]")
        ));
    }
    let path = dir.join("trust.json");
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

#[test]
fn a_trust_run_asks_twice_when_unsure_resumes_across_processes_and_marks_its_claims() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = trust_script(dir.path());
    let first = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--pipeline",
            "trust",
            "--review",
            "clarify",
            "--json",
        ],
        &db,
    ));
    assert_eq!(first["status"], "waiting", "{first:#}");
    let question = &first["pending_question"]["question"];
    assert_eq!(question["type"], "clarify", "{question:#}");
    let thread = first["thread_id"].as_str().unwrap().to_string();
    // Still unsure after the answer: asked once more, from another process.
    let second = ok(&research(
        &[
            "resume",
            &thread,
            "--answer",
            "the western honeybee",
            "--json",
        ],
        &db,
    ));
    assert_eq!(second["status"], "waiting", "{second:#}");
    assert_eq!(second["pending_question"]["question"]["type"], "clarify");
    // Then the best reading is taken and said; the writer's unsupported claims (its pollination
    // section cites a source the run never read) are over the threshold: the run asks.
    let escalated = ok(&research(
        &["resume", &thread, "--answer", "Apis mellifera", "--json"],
        &db,
    ));
    assert_eq!(escalated["status"], "waiting", "{escalated:#}");
    let question = &escalated["pending_question"]["question"];
    assert_eq!(question["type"], "escalation", "{question:#}");
    assert!(question["reason"]
        .as_str()
        .unwrap()
        .contains("hallucination score"));
    let done = ok(&research(
        &["resume", &thread, "--answer", "accept", "--json"],
        &db,
    ));
    assert_eq!(done["status"], "finished", "{done:#}");
    assert_eq!(
        done["profile"]["clarifications"], 2,
        "{:#}",
        done["profile"]
    );
    let trust = &done["trust"];
    assert!(
        trust["claims"].as_array().is_some_and(|c| !c.is_empty()),
        "{trust:#}"
    );
    let report = done["report"].as_str().unwrap();
    assert!(report.contains("credibility 0."), "{report}");
    assert!(report.contains("hallucination score"), "{report}");
    assert!(report.contains("after 2 clarifications"), "{report}");
    assert!(report.contains("## Caveats"), "{report}");
    // A section whose every sentence went is not left as a bare heading.
    assert!(!report.contains("## Pollination"), "{report}");
    assert!(report.contains('✓') || report.contains('⚠'), "{report}");
    check_grounding(&done, dir.path(), None);
    // The session keeps the trust record with its report, for the app to show.
    let shown = ok(&research(
        &[
            "sessions",
            "show",
            done["session_id"].as_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(shown["trust"], done["trust"]);
    assert_eq!(
        shown["reports_html"].as_array().unwrap().len(),
        shown["reports"].as_array().unwrap().len()
    );
}
