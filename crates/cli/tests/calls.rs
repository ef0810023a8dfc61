//! Seed 003's inspectable record of model calls: `research run --record-calls` keeps each call's
//! prompt and answer with the session, keys and secrets redacted, and `research sessions show
//! ID --calls` prints them; without the flag only the counters are kept.

mod common;

use std::process::Command;

use common::*;
use serde_json::Value;

/// A key the run can use (from the environment), not shaped like any provider's.
const SECRET: &str = "plain-secret-value-0042";

fn run(db: &std::path::Path, extra: &[&str]) -> Value {
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let out = Command::new(BIN)
        .args([
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--no-input",
            "--json",
        ])
        .args([
            "--system-prompt",
            &format!("Write for beekeepers; my key is {SECRET}."),
        ])
        .args(extra)
        .arg("--db")
        .arg(db)
        .env_remove("RESEARCH_LLM")
        .env_remove("TAVILY_API_KEY")
        .env("OPENAI_API_KEY", SECRET)
        .output()
        .unwrap();
    ok(&out)
}

fn calls(db: &std::path::Path, session: &str) -> (Value, String) {
    let json = ok(&research(
        &["sessions", "show", session, "--calls", "--json"],
        db,
    ));
    let text = research(&["sessions", "show", session, "--calls"], db);
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    (json, String::from_utf8_lossy(&text.stdout).into_owned())
}

#[test]
fn a_recorded_run_keeps_every_prompt_and_answer_with_its_keys_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let result = run(&db, &["--record-calls"]);
    let session = result["session_id"].as_str().unwrap();
    let (runs, text) = calls(&db, session);
    let calls = runs[0]["calls"].as_array().unwrap();
    assert!(calls.len() >= 3, "{runs:#}");
    for call in calls {
        let exchange = &call["exchange"];
        assert!(
            !exchange["messages"].as_array().unwrap().is_empty(),
            "every call keeps what was sent: {call:#}"
        );
        assert!(
            exchange["answer"].is_string() || exchange["error"].is_string(),
            "{call:#}"
        );
    }
    let all = serde_json::to_string(&runs).unwrap();
    assert!(!all.contains(SECRET), "the key must never be kept");
    assert!(all.contains("[redacted]"), "the writer's prompt carried it");
    assert!(all.contains(QUESTION), "the prompts are the run's own");
    assert!(!text.contains(SECRET));
    assert!(
        text.contains("[answer]") && text.contains("[user]"),
        "{text}"
    );
    // The live counters and the report are unchanged by keeping the words.
    assert!(result["report"].as_str().unwrap().contains("[1]"));
}

#[test]
fn without_the_flag_only_the_counters_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let result = run(&db, &[]);
    let session = result["session_id"].as_str().unwrap();
    let (runs, text) = calls(&db, session);
    let calls = runs[0]["calls"].as_array().unwrap();
    assert!(!calls.is_empty());
    assert!(
        calls.iter().all(|c| c.get("exchange").is_none()),
        "{runs:#}"
    );
    assert!(calls
        .iter()
        .all(|c| c["prompt_tokens"].as_u64().unwrap() > 0));
    assert!(
        text.contains("not kept: start a run with --record-calls"),
        "{text}"
    );
    let missing = research(&["sessions", "show", "no-such-session", "--calls"], &db);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no session"));
}

#[test]
fn what_you_already_know_reaches_the_planner_and_an_overlong_note_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let result = run(
        &db,
        &[
            "--record-calls",
            "--known",
            "Worker bees do the foraging.",
            "--domains",
            "entomology, apiculture",
            "--method",
            "field studies first",
        ],
    );
    let session = result["session_id"].as_str().unwrap();
    let (runs, _) = calls(&db, session);
    let plan = runs[0]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["purpose"] == "plan")
        .unwrap_or_else(|| panic!("no plan call: {runs:#}"));
    let sent = plan["exchange"]["messages"].to_string();
    for told in [
        "do not research it again): Worker bees do the foraging.",
        "Domains to focus on: entomology, apiculture",
        "Notes on method: field studies first",
    ] {
        assert!(sent.contains(told), "{told} not in {sent}");
    }
    let long = "x".repeat(2_001);
    let refused = Command::new(BIN)
        .args(["run", QUESTION, "--llm", "scripted:x", "--search", "local"])
        .args(["--no-input", "--known", &long, "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("runs over 2000 characters"), "{err}");
}
