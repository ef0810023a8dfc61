//! Compare mode end to end with the scripted model over the local library: two configurations
//! on one question in one session, the table of what each found and spent, the sources only
//! one side read, and sides that are refused before anything runs.

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// The fixture script, its plan narrowed to `searches` when given.
fn script(dir: &Path, name: &str, searches: Option<&[&str]>) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    if let Some(searches) = searches {
        for a in script["answers"].as_array_mut().unwrap() {
            if a["purpose"] == "plan" {
                a["json"]["searches"] = json!(searches);
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

#[test]
fn two_configurations_run_side_by_side_in_one_session_and_are_tabulated() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let narrow = script(
        dir.path(),
        "narrow.json",
        Some(&["honeybee waggle dance direction"]),
    );
    let full = script(dir.path(), "full.json", None);
    let a = format!("llm={narrow},label=narrow");
    let b = format!("llm={full},mode=multi,label=multi");
    let out = research(
        &[
            "compare", QUESTION, "--search", "local", "--a", &a, "--b", &b, "--json",
        ],
        &db,
    );
    let table = ok(&out);
    assert_eq!(table["concurrent"], true);
    let cols = table["columns"].as_array().unwrap();
    assert_eq!(cols[0]["label"], "narrow");
    assert_eq!(cols[1]["label"], "multi");
    for c in cols {
        assert_eq!(c["status"], "finished", "{c:#}");
        assert!(c["calls"].as_u64().unwrap() > 0);
        assert!(c["tokens"].as_u64().unwrap() > 0);
        assert!(c["verified_sentences"].as_u64() <= c["audited_sentences"].as_u64());
    }
    // The question's own search reads every bee page whatever the plan, so both sides read
    // the same three (the sourdough page is not among them) and neither read one alone.
    assert_eq!(cols[0]["sources"], 3);
    assert_eq!(cols[1]["sources"], 3);
    assert_eq!(cols[0]["only_here"], json!([]));
    assert_eq!(cols[1]["only_here"], json!([]));
    let shared = table["shared_sources"].as_array().unwrap();
    assert_eq!(shared.len(), 3);
    for page in ["colony.html", "pollination.txt", "waggle-dance.md"] {
        assert!(
            shared.iter().any(|u| u.as_str().unwrap().ends_with(page)),
            "{page}: {shared:?}"
        );
    }

    // Both runs are in one session, each with its report; the runs' own results are grounded.
    let session = table["session_id"].as_str().unwrap();
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["runs"].as_array().unwrap().len(), 2);
    assert_eq!(shown["reports"].as_array().unwrap().len(), 2);

    // The plain table names both sides and what only one read.
    let out = research(
        &[
            "compare", QUESTION, "--search", "local", "--a", &a, "--b", &b,
        ],
        &db,
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for row in [
        "narrow (standard)",
        "multi (standard)",
        "verified sentences",
        "model calls",
    ] {
        assert!(text.contains(row), "{row}\n{text}");
    }
    assert!(!text.contains("only multi read:"), "{text}");
}

#[test]
fn a_side_that_cannot_run_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), "s.json", None);
    for (b, says) in [
        ("pipeline=nope", "no pipeline called nope"),
        ("colour=red", "a side changes"),
        (
            "depth=bottomless",
            "use one of quick, standard, comprehensive",
        ),
        ("rounds=0", "from 1"),
        ("llm=nonsense", "nonsense"),
        ("mode", "KEY=VALUE"),
    ] {
        let out = research(
            &[
                "compare", QUESTION, "--llm", &llm, "--search", "local", "--b", b,
            ],
            &db,
        );
        assert_eq!(out.status.code(), Some(2), "{b}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{b}: {stderr}");
    }
    let out = research(&["compare", "  ", "--llm", &llm, "--search", "local"], &db);
    assert_eq!(out.status.code(), Some(2));
    let sessions = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(sessions, json!([]), "nothing was created");
}
