//! Forks end to end with the scripted model over the local library: a run's history lists the
//! stages it can be forked from with what each holds; a fork from any of them — with a new
//! reading, a new plan, another model, more rounds — is a new run in the same session whose
//! ledger shows nothing before its fork point was done again; a failed run is rescued by a fork
//! with a working model; wrong stages and edits are refused with why.

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// A copy of the fixture script with `edit` applied, saved as `name`.
fn script(dir: &Path, name: &str, edit: impl FnOnce(&mut Vec<Value>)) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    edit(script["answers"].as_array_mut().unwrap());
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

fn history(db: &Path, thread: &str) -> Value {
    ok(&research(&["history", thread, "--json"], db))
}

fn stage<'a>(history: &'a Value, name: &str) -> &'a Value {
    history["fork_points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["stage"] == name)
        .unwrap_or_else(|| panic!("no {name} in {history:#}"))
}

#[test]
fn a_run_forks_from_each_stage_and_repeats_nothing_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), "script.json", |_| {});
    let first = first_run(&db, &llm);
    let thread = first["thread_id"].as_str().unwrap();
    let session = first["session_id"].as_str().unwrap();

    // The history lists the stages with what each holds.
    let h = history(&db, thread);
    let stages: Vec<&str> = h["fork_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stage"].as_str().unwrap())
        .collect();
    // Two rounds: the model proposes no new search, but a question is still open, so the
    // second round searches what the best passages read suggest.
    assert_eq!(stages, ["reading", "plan", "round-1", "round-2", "draft"]);
    assert!(stage(&h, "plan")["holds"]
        .as_str()
        .unwrap()
        .contains("3 research questions"));
    assert!(stage(&h, "round-1")["holds"]
        .as_str()
        .unwrap()
        .contains("3 sources"));
    let text = String::from_utf8_lossy(&research(&["history", thread], &db).stdout).to_string();
    assert!(
        text.contains("fork points") && text.contains("round-1"),
        "{text}"
    );

    // A new plan: the question is not read again nor planned; the fork searches as told.
    let plan = dir.path().join("plan.json");
    std::fs::write(
        &plan,
        json!({"questions": ["What is the waggle dance?"], "aspects": [], "searches": ["waggle dance"]})
            .to_string(),
    )
    .unwrap();
    let out = research(
        &[
            "fork",
            thread,
            "--at",
            "plan",
            "--plan",
            plan.to_str().unwrap(),
            "--no-input",
            "--json",
        ],
        &db,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let fork = ok(&out);
    assert!(stderr.contains("forked at plan"), "{stderr}");
    assert_eq!(
        fork["session_id"], session,
        "a fork is a run of the same session"
    );
    assert_ne!(fork["thread_id"], first["thread_id"]);
    let done = nodes(&fork);
    assert!(
        !done.contains(&"understand".into()) && !done.contains(&"plan".into()),
        "{done:?}"
    );
    assert!(done.contains(&"search_and_extract".into()));
    // The fork's told search runs first (later rounds search on while the passages read answer
    // the research question only in part).
    assert_eq!(fork["metadata"]["queries"][0], json!("waggle dance"));
    assert_eq!(
        fork["research_questions"],
        json!(["What is the waggle dance?"])
    );
    check_grounding(&fork, dir.path(), None);
    // The session knows where the fork started, and the plan stage offers its plan to edit.
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    let origin = &shown["forks"][fork["thread_id"].as_str().unwrap()];
    assert_eq!(origin["from"], thread);
    assert_eq!(origin["stage"], "plan");
    assert_eq!(
        stage(&h, "plan")["plan"]["questions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(stage(&h, "reading")["reading"].as_str().unwrap().len() > 10);

    // A new reading: planning runs again from it, the reading itself does not.
    let out = research(
        &[
            "fork",
            thread,
            "--at",
            "reading",
            "--reading",
            "Only the waggle dance of honeybee foragers",
            "--no-input",
            "--json",
        ],
        &db,
    );
    let fork = ok(&out);
    let done = nodes(&fork);
    assert!(!done.contains(&"understand".into()), "{done:?}");
    assert!(done.contains(&"plan".into()), "{done:?}");
    let forked = history(&db, fork["thread_id"].as_str().unwrap());
    assert!(stage(&forked, "reading")["holds"]
        .as_str()
        .unwrap()
        .contains("Only the waggle dance"));

    // Another model after the first round: only the gap judgement and the writing are redone,
    // by the new model.
    let other = script(dir.path(), "other.json", |_| {});
    let fork = ok(&research(
        &[
            "fork",
            thread,
            "--at",
            "round-1",
            "--llm",
            &other,
            "--max-iterations",
            "2",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    let done = nodes(&fork);
    assert_eq!(done, ["detect_gaps", "write_report"], "{done:?}");
    assert!(fork["metadata"]["models"]["write"]
        .as_str()
        .unwrap()
        .ends_with("other.json"));
    check_grounding(&fork, dir.path(), None);

    // The original and its report stay; every fork is a run of the session with its report.
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["runs"].as_array().unwrap().len(), 4);
    let reports = shown["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 4);
    assert_eq!(reports[0]["markdown"], first["report"]);
}

#[test]
fn a_failed_run_is_rescued_by_a_fork_with_a_working_model() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    // This model cannot write: the run fails at the report, after its research.
    let broken = script(dir.path(), "broken.json", |answers| {
        answers.retain(|a| a["purpose"] != "write");
    });
    let out = research(
        &[
            "run",
            QUESTION,
            "--llm",
            &broken,
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(!out.status.success());
    let thread = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(run_ids)
        .expect("the run names its ids")
        .0;
    let h = history(&db, &thread);
    assert!(h["fork_points"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["stage"] == "round-1"));
    let good = script(dir.path(), "good.json", |_| {});
    let fork = ok(&research(
        &[
            "fork",
            &thread,
            "--at",
            "round-1",
            "--llm",
            &good,
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(fork["status"], "finished");
    assert!(!nodes(&fork).contains(&"search_and_extract".into()));
    assert_eq!(fork["sources"].as_array().unwrap().len(), 3);
    check_grounding(&fork, dir.path(), None);
}

#[test]
fn wrong_stages_and_edits_are_refused_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), "script.json", |_| {});
    let first = first_run(&db, &llm);
    let thread = first["thread_id"].as_str().unwrap();
    let refused = |args: &[&str], code: i32, says: &str| {
        let out = research(args, &db);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    refused(
        &["fork", thread, "--at", "round-4"],
        2,
        "it has: reading, plan, round-1, round-2, draft",
    );
    refused(&["fork", thread, "--at", "writing"], 2, "is no stage");
    refused(
        &["fork", thread, "--at", "draft", "--reading", "bees"],
        2,
        "--at reading",
    );
    let plan = dir.path().join("plan.json");
    std::fs::write(
        &plan,
        r#"{"questions": ["a"], "aspects": [], "searches": []}"#,
    )
    .unwrap();
    refused(
        &[
            "fork",
            thread,
            "--at",
            "plan",
            "--plan",
            plan.to_str().unwrap(),
        ],
        2,
        "no searches",
    );
    std::fs::write(&plan, "not json").unwrap();
    refused(
        &[
            "fork",
            thread,
            "--at",
            "plan",
            "--plan",
            plan.to_str().unwrap(),
        ],
        2,
        "is not a plan",
    );
    refused(
        &["fork", thread, "--at", "plan", "--max-iterations", "0"],
        2,
        "at least one",
    );
    refused(
        &["fork", thread, "--at", "plan", "--pipeline", "nope"],
        2,
        "no pipeline called nope",
    );
    refused(&["fork", "no-such-run", "--at", "plan"], 3, "no-such-run");
    // Nothing was registered by the refusals.
    let shown = ok(&research(
        &[
            "sessions",
            "show",
            first["session_id"].as_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(shown["runs"].as_array().unwrap().len(), 1);
}
