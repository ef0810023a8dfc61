//! Seed 003's test scenarios (§13.1), adapted to research, end to end with the scripted model:
//! each answer from a new process, as after a restart. Follow-up, topic change, cancel and the
//! empty question in an open session are in `conversation.rs`; the web provider cases (a real
//! provider against a local server, a provider that fails, the automatic choice without keys)
//! are `research.rs`'s `web_search_and_fetching_through_local_servers`-style tests and
//! `search.rs`.

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

fn unclear(question: &str) -> Value {
    json!({"purpose": "understand", "json": {
        "is_clear": false, "ambiguities": ["scope"], "question": question,
        "options": ["Communication", "Colony organisation", "Pollination"],
        "interpretation": "Honeybee communication and colony life"}})
}

fn clear() -> Value {
    json!({"purpose": "understand", "json": {
        "is_clear": true, "ambiguities": [], "question": "", "options": [],
        "interpretation": "How honeybees communicate and organise their colonies"}})
}

/// The fixture script with its first (understand) answer replaced by `understand`, and `extra`
/// answers put first.
fn script(dir: &Path, understand: &[Value], extra: &[Value]) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    let answers = script["answers"].as_array_mut().unwrap();
    answers.retain(|a| a["purpose"] != "understand");
    for (i, a) in extra.iter().chain(understand).enumerate() {
        answers.insert(i, a.clone());
    }
    let path = dir.join("script.json");
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

fn start(db: &Path, llm: &str, extra: &[&str]) -> Value {
    let mut args = vec!["run", QUESTION, "--llm", llm, "--search", "local", "--json"];
    args.extend_from_slice(extra);
    ok(&research(&args, db))
}

fn answer(db: &Path, thread: &str, text: &str) -> Value {
    ok(&research(
        &["resume", thread, "--answer", text, "--json"],
        db,
    ))
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    (dir, db)
}

/// Scenario 1: Happy path: a clear question is researched and reported, grounded.
#[test]
fn s01_happy_path() {
    let (dir, db) = setup();
    let llm = script(dir.path(), &[clear()], &[]);
    let done = start(&db, &llm, &["--no-input"]);
    assert_eq!(done["status"], "finished");
    assert!(done["sources"].as_array().unwrap().len() >= 2);
    check_grounding(&done, dir.path(), None);
}

/// Scenario 2: Clarification: a vague question stops to ask; an offered reading is researched at once.
#[test]
fn s02_clarification() {
    let (dir, db) = setup();
    let llm = script(dir.path(), &[unclear("Which aspect of honeybees?")], &[]);
    let first = start(&db, &llm, &[]);
    assert_eq!(first["status"], "waiting");
    assert_eq!(first["pending_question"]["question"]["type"], "clarify");
    let thread = first["thread_id"].as_str().unwrap();
    let done = answer(&db, thread, "Pollination");
    assert_eq!(done["status"], "finished", "{done:#}");
    // An offered reading needs no second reading of the question.
    assert_eq!(done["metadata"]["usage_by_node"]["understand"]["calls"], 1);
    assert!(done["report"]
        .as_str()
        .unwrap()
        .contains("clarification: Pollination"));
}

/// Scenario 3: Double clarification: a still-vague answer in the person's own words is read with the
/// question again and asked about once more; the second answer makes it clear.
#[test]
fn s03_double_clarification() {
    let (dir, db) = setup();
    // Each process reads its script afresh: answers are told apart by what the prompt holds.
    let mut second = unclear("Which part of their life do you mean?");
    second["contains"] = json!("The person clarified: the social one");
    let mut last = clear();
    last["contains"] = json!("the social one; how the workers");
    let llm = script(
        dir.path(),
        &[last, second, unclear("Which aspect of honeybees?")],
        &[],
    );
    let first = start(&db, &llm, &[]);
    let thread = first["thread_id"].as_str().unwrap();
    let second = answer(&db, thread, "the social one");
    assert_eq!(second["status"], "waiting", "{second:#}");
    assert_eq!(
        second["pending_question"]["question"]["question"],
        "Which part of their life do you mean?"
    );
    let done = answer(&db, thread, "how the workers share the work");
    assert_eq!(done["status"], "finished", "{done:#}");
    assert_eq!(done["metadata"]["usage_by_node"]["understand"]["calls"], 3);
    let report = done["report"].as_str().unwrap();
    assert!(report.contains("clarification: the social one"), "{report}");
    assert!(
        report.contains("clarification: how the workers share the work"),
        "{report}"
    );
}

/// Scenario 8: Max clarifications: after two rounds the run stops asking, takes the best reading and
/// says so in the report.
#[test]
fn s08_max_clarifications() {
    let (dir, db) = setup();
    let llm = script(dir.path(), &[unclear("Which aspect of honeybees?")], &[]);
    let first = start(&db, &llm, &[]);
    let thread = first["thread_id"].as_str().unwrap();
    let second = answer(&db, thread, "the thing");
    assert_eq!(second["status"], "waiting");
    let done = answer(&db, thread, "you know, that one");
    assert_eq!(done["status"], "finished", "{done:#}");
    let report = done["report"].as_str().unwrap();
    assert!(
        report.contains("still unclear after 2 clarifications"),
        "{report}"
    );
    assert!(report.contains("the thing; you know, that one"), "{report}");
}

/// Scenarios 4 and 12: Low confidence, unknown subject: nothing in the library is about it; the run says
/// so plainly instead of writing a report from nothing.
#[test]
fn s04_unknown_subject_gets_a_graceful_answer() {
    let (dir, db) = setup();
    let llm = script(dir.path(), &[clear()], &[]);
    let out = local_run(
        &db,
        &llm,
        "What is the tensile strength of carbon nanotube yarn?",
    );
    let done = ok(&out);
    assert_eq!(done["status"], "finished");
    let report = done["report"].as_str().unwrap();
    // Whatever the library returned, no source is about this question: nothing is claimed
    // from nothing.
    for s in done["sources"].as_array().unwrap() {
        assert!(!s["url"].as_str().unwrap().contains("nanotube"));
    }
    assert!(
        done["sources"].as_array().unwrap().is_empty()
            || report.to_lowercase().contains("caveat")
            || report.to_lowercase().contains("no source"),
        "{report}"
    );
}

/// Scenario 5: Retry loop with disclaimer: the coverage check keeps sending the run back with its gaps as
/// new searches, at most the depth's rounds, then the report is written with a caveat.
#[test]
fn s05_retry_loop_ends_with_a_disclaimer() {
    let (dir, db) = setup();
    let gaps = json!({"purpose": "gaps", "json": {
        "coverage": [{"question": 1, "status": "partial"}, {"question": 2, "status": "missing"},
                     {"question": 3, "status": "missing"}],
        "gaps": ["how the queen is chosen"],
        "new_searches": ["honeybee queen rearing royal jelly"]}});
    let llm = script(dir.path(), &[clear()], &[gaps]);
    let done = start(&db, &llm, &["--no-input", "--depth", "comprehensive"]);
    assert_eq!(done["status"], "finished");
    let rounds = done["metadata"]["iterations"].as_u64().unwrap();
    assert!((2..=3).contains(&rounds), "{rounds}");
    let report = done["report"].as_str().unwrap();
    assert!(report.contains("## Caveats"), "{report}");
    assert!(report.contains("some remain partly unanswered"), "{report}");
    check_grounding(&done, dir.path(), None);
}

/// Scenario 11: A known subject in the library: its files are found, read and cited.
#[test]
fn s11_known_subject_in_the_library() {
    let (dir, db) = setup();
    let llm = script(dir.path(), &[clear()], &[]);
    let done = start(&db, &llm, &["--no-input"]);
    let urls: Vec<&str> = done["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert!(
        urls.iter().any(|u| u.ends_with("waggle-dance.md")),
        "{urls:?}"
    );
    assert!(
        !urls.iter().any(|u| u.ends_with("unrelated.txt")),
        "{urls:?}"
    );
    check_grounding(&done, dir.path(), None);
}
