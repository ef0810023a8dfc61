//! `research watch`: a session kept current by a schedule — due ones run by `--run-due` at the
//! time given, nothing run twice (not by a second call, not by two processes at once), a changed
//! source noticed and the question researched again, pause and remove, and the mistakes a person
//! can make.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const HOUR: i64 = 3_600_000;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn run_due(db: &Path, at: i64) -> Value {
    ok(&research(
        &["watch", "--run-due", "--now", &at.to_string(), "--json"],
        db,
    ))
}

#[test]
fn a_watched_session_is_rechecked_when_due_and_researched_again_when_a_source_changed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let pages = dir.path().join("pages");
    copy_dir(&corpus(), &pages);
    let added = research(&["library", "add", pages.to_str().unwrap()], &db);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let first = first_run(&db, &script);
    let session = first["session_id"].as_str().unwrap().to_string();

    // Mistakes first: no session, a bad interval, two things at once.
    assert!(!research(&["watch", "nosuch", "--every", "1d"], &db)
        .status
        .success());
    let bad = research(&["watch", &session, "--every", "30m"], &db);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("once an hour"));
    assert!(
        !research(&["watch", &session, "--every", "1d", "--list"], &db)
            .status
            .success()
    );

    let start = now_ms();
    let view = ok(&research(
        &["watch", &session, "--every", "1d", "--json"],
        &db,
    ));
    assert_eq!(view["every"], "1d");
    let list = ok(&research(&["watch", "--list", "--json"], &db));
    assert_eq!(list[0]["session_id"], session.as_str());

    // Not due within the day; due after it, once.
    assert_eq!(run_due(&db, start + HOUR), Value::Array(vec![]));
    let runs = run_due(&db, start + 25 * HOUR);
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    assert!(
        runs[0]["outcome"].as_str().unwrap().contains("unchanged"),
        "{runs}"
    );
    assert_eq!(runs[0]["changed"], false);
    assert_eq!(
        run_due(&db, start + 25 * HOUR),
        Value::Array(vec![]),
        "not twice"
    );

    // Two processes at the next due time: one of them runs it.
    let at = (start + 49 * HOUR).to_string();
    let spawn = || {
        std::process::Command::new(BIN)
            .args(["watch", "--run-due", "--now", &at, "--json", "--db"])
            .arg(&db)
            .output()
            .unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap(), b.join().unwrap())
    });
    let count = |o: &std::process::Output| {
        serde_json::from_slice::<Value>(&o.stdout)
            .map(|v| v.as_array().map_or(0, Vec::len))
            .unwrap_or(0)
    };
    assert_eq!(count(&a) + count(&b), 1, "{a:?} {b:?}");

    // A cited source changes: the schedule that researches again makes a new run.
    ok(&research(
        &[
            "watch",
            &session,
            "--every",
            "1d",
            "--research-again",
            "--json",
        ],
        &db,
    ));
    let cited: Vec<String> = first["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["url"].as_str())
        .filter_map(|u| u.strip_prefix("file://"))
        .map(String::from)
        .collect();
    assert!(!cited.is_empty(), "{first}");
    std::fs::write(
        &cited[0],
        "This page was rewritten and says something else entirely now.\n",
    )
    .unwrap();
    let runs = run_due(&db, start + 100 * HOUR);
    assert_eq!(runs[0]["changed"], true, "{runs}");
    assert!(runs[0]["researched"].is_string(), "{runs}");
    let shown = ok(&research(&["sessions", "show", &session, "--json"], &db));
    assert!(shown
        .to_string()
        .contains(runs[0]["researched"].as_str().unwrap()));

    // A schedule that starts now is due at once.
    ok(&research(
        &[
            "watch", &session, "--every", "1w", "--first", "now", "--json",
        ],
        &db,
    ));
    assert_eq!(run_due(&db, now_ms() + 1000).as_array().unwrap().len(), 1);

    // Paused, nothing runs; removed, it is gone.
    assert!(research(&["watch", &session, "--pause"], &db)
        .status
        .success());
    assert_eq!(run_due(&db, start + 1000 * HOUR), Value::Array(vec![]));
    assert!(research(&["watch", &session, "--remove"], &db)
        .status
        .success());
    assert_eq!(
        ok(&research(&["watch", "--list", "--json"], &db)),
        Value::Array(vec![])
    );
    let again = research(&["watch", &session, "--remove"], &db);
    assert!(String::from_utf8_lossy(&again.stderr).contains("has no schedule"));
    assert!(
        !research(&["watch", "--run-due", "--now", "yesterday"], &db)
            .status
            .success()
    );
}
