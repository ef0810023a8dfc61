//! A follow-up and a fork survive their process being killed mid-run: each is a research thread
//! like any other, so `research resume` finishes it from its last checkpoint — the follow-up with
//! the sources it carried, the fork without redoing what came before its fork point.

mod common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

/// The fixture script, extraction slowed down when `slow` (a run can be killed mid-read).
fn script(dir: &Path, name: &str, slow: bool) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    if slow {
        for a in script["answers"].as_array_mut().unwrap() {
            if a["purpose"] == "extract" {
                a["delay_ms"] = json!(3000);
            }
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

/// Starts `research ARGS --db DB` and returns it with the thread id it names on stderr.
fn spawn(args: &[&str], db: &Path) -> (Child, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .arg("--db")
        .arg(db)
        .env_remove("RESEARCH_LLM");
    spawn_run(cmd)
}

/// Kills `child` once `thread` has saved `checkpoints` checkpoints (it is then reading pages).
fn kill_after(mut child: Child, thread: &str, checkpoints: usize, db: &Path) {
    wait_for(thread, checkpoints, db);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run had finished before it was killed"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

/// Waits until `thread` has saved `checkpoints` checkpoints, and a little more.
fn wait_for(thread: &str, checkpoints: usize, db: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = research(&["history", thread, "--json"], db);
        let saved = serde_json::from_slice::<Value>(&out.stdout)
            .ok()
            .and_then(|h| h["checkpoints"].as_array().map(Vec::len))
            .unwrap_or(0);
        if saved >= checkpoints {
            break;
        }
        assert!(Instant::now() < deadline, "the run never got that far");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn a_follow_up_killed_mid_run_resumes_with_what_it_carried() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let fast = script(dir.path(), "fast.json", false);
    let first = first_run(&db, &fast);
    let session = first["session_id"].as_str().unwrap();
    // The follow-up runs on the session's model: slow it down by changing its script in place.
    script(dir.path(), "fast.json", true);
    let (child, thread) = spawn(
        &[
            "run",
            "Tell me more about the waggle dance of honeybees",
            "--session",
            session,
            "--no-input",
            "--json",
        ],
        &db,
    );
    // Read, planned, reading pages.
    kill_after(child, &thread, 3, &db);
    script(dir.path(), "fast.json", false);
    let done = ok(&research(&["resume", &thread, "--json"], &db));
    assert_eq!(done["status"], "finished", "{done:#}");
    assert_eq!(done["session_id"], session);
    let old = first["sources"].as_array().unwrap();
    for (a, b) in old.iter().zip(done["sources"].as_array().unwrap()) {
        assert_eq!(a["url"], b["url"], "the carried sources keep their numbers");
    }
    // The killed run's reading and planning were not done again.
    let calls = &done["metadata"]["usage_by_node"];
    assert_eq!(calls["understand"]["calls"], 1, "{calls:#}");
    assert_eq!(calls["plan"]["calls"], 1, "{calls:#}");
    check_grounding(&done, dir.path(), None);
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["turns"][1]["classification"]["kind"], "follow_up");
    assert_eq!(shown["reports"].as_array().unwrap().len(), 2);
}

#[test]
fn a_fork_killed_mid_run_resumes_without_redoing_what_came_before_its_fork_point() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let fast = script(dir.path(), "fast.json", false);
    let first = first_run(&db, &fast);
    let original = first["thread_id"].as_str().unwrap();
    let slow = script(dir.path(), "slow.json", true);
    let (child, thread) = spawn(
        &[
            "fork",
            original,
            "--at",
            "plan",
            "--llm",
            &slow,
            "--no-input",
            "--json",
        ],
        &db,
    );
    // The fork's first checkpoint is the plan; the next is written once it has read pages —
    // kill it while it reads.
    kill_after(child, &thread, 1, &db);
    let good = script(dir.path(), "good.json", false);
    let done = ok(&research(
        &["resume", &thread, "--llm", &good, "--json"],
        &db,
    ));
    assert_eq!(done["status"], "finished", "{done:#}");
    let done_nodes = nodes(&done);
    assert!(
        !done_nodes.contains(&"understand".into()) && !done_nodes.contains(&"plan".into()),
        "{done_nodes:?}"
    );
    assert!(done_nodes.contains(&"search_and_extract".into()));
    check_grounding(&done, dir.path(), None);
    let shown = ok(&research(
        &[
            "sessions",
            "show",
            first["session_id"].as_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(shown["forks"][&thread]["stage"], "plan");
}

/// Issue 56: a backup taken while a run writes is whole. Restored over the database the run
/// went on to finish in (that one kept beside it), it holds the run as the backup caught it,
/// mid-read, and `research resume` takes it from there to a report.
#[test]
fn a_backup_taken_during_a_run_restores_and_the_run_it_caught_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let slow = script(dir.path(), "slow.json", true);
    let (child, thread) = spawn(
        &[
            "run",
            QUESTION,
            "--llm",
            &slow,
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    // Read, planned, reading pages.
    wait_for(&thread, 3, &db);
    let out = research(&["backup"], &db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let backup = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let mut child = child;
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run was still going when the backup was taken"
    );
    assert!(child.wait().unwrap().success(), "the run went on to finish");
    let session = ok(&research(&["sessions", "list", "--json"], &db))[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let finished = ok(&research(&["sessions", "show", &session, "--json"], &db));
    assert_eq!(finished["reports"].as_array().unwrap().len(), 1);

    let restored = research(&["restore", &backup, "--yes"], &db);
    assert!(
        restored.status.success(),
        "{}",
        String::from_utf8_lossy(&restored.stderr)
    );
    // The backup's database: the run as it was caught, no report yet.
    let caught = ok(&research(&["sessions", "show", &session, "--json"], &db));
    assert_eq!(caught["reports"].as_array().unwrap().len(), 0, "{caught:#}");
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains(".replaced-"))
        .collect();
    assert_eq!(
        kept.len(),
        1,
        "the finished database kept beside it: {kept:?}"
    );

    let fast = script(dir.path(), "fast.json", false);
    let done = ok(&research(
        &["resume", &thread, "--llm", &fast, "--json"],
        &db,
    ));
    assert_eq!(done["status"], "finished", "{done:#}");
    // What the backup held was not done again.
    let calls = &done["metadata"]["usage_by_node"];
    assert_eq!(calls["understand"]["calls"], 1, "{calls:#}");
    assert_eq!(calls["plan"]["calls"], 1, "{calls:#}");
    check_grounding(&done, dir.path(), None);
}
