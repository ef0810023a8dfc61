//! Two processes on one database — the CLI and the app, or two CLIs — for a minute: each runs
//! research, lists, renames and deletes sessions while the other writes. No "database is
//! locked" may reach the person: writers wait out each other (busy timeout, IMMEDIATE
//! transactions) instead of failing.

mod common;

use std::time::{Duration, Instant};

use common::*;

#[test]
fn two_processes_write_to_one_database_for_a_minute_without_a_lock_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = fixtures().join("script.json");
    let llm = format!("scripted:{}", script.display());
    // RS_CONTENTION_SECS shortens it by hand; CI runs the full minute.
    let secs = std::env::var("RS_CONTENTION_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let until = Instant::now() + Duration::from_secs(secs);
    let worker = |name: &'static str| {
        let (db, llm) = (db.clone(), llm.clone());
        std::thread::spawn(move || {
            let mut done = 0;
            let mut failures = Vec::new();
            while Instant::now() < until {
                let mut check = |out: std::process::Output, what: &str| {
                    let err = String::from_utf8_lossy(&out.stderr).to_string();
                    if !out.status.success() || err.to_lowercase().contains("locked") {
                        failures.push(format!("{name} {what}: {:?} {err}", out.status.code()));
                    }
                    out
                };
                let out = check(
                    research(
                        &[
                            "run",
                            QUESTION,
                            "--llm",
                            &llm,
                            "--search",
                            "local",
                            "--no-input",
                            "--json",
                        ],
                        &db,
                    ),
                    "run",
                );
                let Ok(run) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
                    continue;
                };
                let session = run["session_id"].as_str().unwrap_or_default().to_string();
                check(research(&["sessions", "list"], &db), "list");
                check(
                    research(&["sessions", "rename", &session, name], &db),
                    "rename",
                );
                if done % 2 == 1 {
                    check(research(&["sessions", "delete", &session], &db), "delete");
                }
                done += 1;
            }
            (done, failures)
        })
    };
    let (a, b) = (worker("first"), worker("second"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    let failures: Vec<String> = a.1.into_iter().chain(b.1).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(a.0 > 0 && b.0 > 0, "both processes got work done");
    eprintln!("runs: {} + {}", a.0, b.0);
}
