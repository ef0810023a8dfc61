//! The `research` binary as a user runs it, including a SIGKILL in the middle of a fan-out.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_research");

fn research(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("research runs")
}

fn lines(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The workers whose results the store holds for the fan-out's step, read with SQL rather than
/// the engine; empty while the database or its tables do not exist yet.
fn saved_workers(db: &std::path::Path, thread: &str) -> Vec<u32> {
    let Ok(conn) =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return Vec::new();
    };
    let Ok(mut stmt) = conn
        .prepare("SELECT value FROM writes WHERE thread_id = ?1 AND checkpoint = 1 AND kind = 0")
    else {
        return Vec::new();
    };
    let Ok(rows) = stmt.query_map([thread], |r| r.get::<_, Vec<u8>>(0)) else {
        return Vec::new();
    };
    rows.filter_map(Result::ok)
        .map(|v| {
            serde_json::from_slice::<serde_json::Value>(&v).unwrap()["results"][0]["index"]
                .as_u64()
                .unwrap() as u32
        })
        .collect()
}

#[test]
fn killed_mid_fanout_resumes_without_repeating_finished_workers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    let log = dir.path().join("exec.log");
    let mut child = Command::new(BIN)
        .args([
            "demo",
            "--workers",
            "20",
            "--concurrency",
            "4",
            "--task-ms",
            "300",
            "--db",
        ])
        .arg(&db)
        .arg("--exec-log")
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let thread = first.trim().to_string();
    assert!(!thread.is_empty(), "the thread id comes first");

    // Kill it once some workers are saved and others are still running. The store is polled,
    // not the exec log: a worker logs before its write lands, and under load that gap is wide.
    let deadline = Instant::now() + Duration::from_secs(60);
    while saved_workers(&db, &thread).len() < 5 {
        assert!(
            Instant::now() < deadline,
            "workers never ran or were never saved"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before_kill = lines(&log);
    assert!(
        before_kill.len() < 20,
        "the run had not finished when killed"
    );

    // What the store had saved at the moment of the kill, read independently of the engine.
    let saved = saved_workers(&db, &thread);
    assert!(
        saved.len() >= 5 && saved.len() < 20,
        "finished workers were saved as they finished, before the step ended: {saved:?}"
    );

    let out = research(&["resume", &thread, "--json", "--db", db.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "resume failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let state: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let mut indexes: Vec<u64> = state["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    indexes.sort();
    assert_eq!(
        indexes,
        (0..20).collect::<Vec<u64>>(),
        "every worker's result exactly once"
    );
    assert_eq!(state["summary"], "20 workers finished; sum of squares 2470");

    let after = lines(&log);
    for i in &saved {
        assert_eq!(
            after.iter().filter(|&&x| x == *i).count(),
            1,
            "worker {i} finished before the kill and ran again"
        );
    }
    for i in 0..20 {
        assert!(after.contains(&i), "worker {i} never ran");
    }
    let resumed_ran = after.len() - before_kill.len();
    assert!(
        resumed_ran <= 20 - saved.len(),
        "resume ran {resumed_ran} workers, at most {} were unfinished",
        20 - saved.len()
    );

    let again = research(&["resume", &thread, "--db", db.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already finished"));
}

#[test]
fn history_lists_one_checkpoint_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let db = db.to_str().unwrap();
    let out = research(&["demo", "--workers", "3", "--task-ms", "1", "--db", db]);
    assert!(out.status.success());
    let thread = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let out = research(&["history", &thread, "--db", db, "--json"]);
    let history: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(history["fork_points"], serde_json::json!([]));
    let next: Vec<String> = history["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["next"].to_string())
        .collect();
    assert_eq!(
        next,
        [
            r#"["plan"]"#,
            r#"["worker","worker","worker"]"#,
            r#"["summarize"]"#,
            "[]"
        ]
    );
    let text = String::from_utf8(research(&["history", &thread, "--db", db]).stdout).unwrap();
    assert!(text.contains("next: worker x3"), "{text}");
}

#[test]
fn errors_are_one_sentence_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let out = research(&["resume", "no-such-thread", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "research: there is no session or run with id no-such-thread (research sessions list \
         shows the sessions, and sessions show SESSION their runs)"
    );

    let out = research(&["demo", "--workers", "0", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--workers must be between 1 and 10000"));

    let out = research(&[
        "demo",
        "--workers",
        "2",
        "--task-ms",
        "1",
        "--exec-log",
        "/proc/nope/log",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("research: step `worker` failed"), "{err}");
    assert!(last.contains("continue it with: research resume"), "{err}");

    let out = research(&["history", "x", "--db", "/proc/nope/db.sqlite3"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("research: could not open the database at /proc/nope/db.sqlite3"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "no debug dump: {err}");
}

#[test]
fn an_unknown_choice_is_refused_with_the_valid_ones() {
    let refused = |args: &[&str], expected: &[&str]| {
        let out = research(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        for e in expected {
            assert!(err.contains(e), "{args:?}: {err}");
        }
    };
    refused(
        &["run", "q", "--depth", "bogus"],
        &[
            "invalid value 'bogus' for '--depth <DEPTH>'",
            "[possible values: quick, standard, comprehensive]",
        ],
    );
    refused(
        &["run", "q", "--review", "plan,bogus"],
        &["[possible values: clarify, plan, report, none]"],
    );
    refused(
        &["export", "x", "--format", "odt", "--out", "x.odt"],
        &["[possible values: md, pdf, docx, tex, bib, ris, csl-json]"],
    );
}

#[test]
fn graph_prints_mermaid() {
    let out = research(&["graph", "demo", "--mermaid"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("graph TD;"));
    assert!(text.contains("plan -. Send .-> worker;"));
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    // `research sessions list | head -3`: the reader closes before everything is written.
    // Before, print! panicked ("failed printing to stdout: Broken pipe", exit 101, a backtrace
    // with RUST_BACKTRACE); now it ends as `cat` does, with 141 and nothing on stderr.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    let db = db.to_str().unwrap();
    for args in [
        vec!["sessions", "list", "--json", "--db", db],
        vec!["settings", "list", "--db", db],
        vec!["providers", "--db", db],
    ] {
        let mut child = Command::new(BIN)
            .args(&args)
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the command writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_and_errors_list_every_choice_the_code_takes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    let db = db.to_str().unwrap();
    let text = |args: &[&str]| {
        let out = research(args);
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    // Every setting, in `set --help`, `unset --help` and an unknown one's error.
    let set = text(&["settings", "set", "--help"]);
    let unset = text(&["settings", "unset", "--help"]);
    let unknown = text(&["settings", "unset", "nosuch", "--db", db]);
    for key in [
        "default_model",
        "banned_words",
        "database",
        "mcp_sources",
        "low_trust_domains",
    ] {
        for (what, said) in [("set", &set), ("unset", &unset), ("unset nosuch", &unknown)] {
            assert!(said.contains(key), "{what} does not name {key}: {said}");
        }
    }
    // A key can be stored for an MCP source.
    assert!(text(&["keys", "set", "--help"]).contains("mcp:NAME"));
    // Every search choice in run's help.
    let run = text(&["run", "--help"]);
    for name in ["local", "auto", "mcp:NAME", "semantic-scholar"] {
        assert!(run.contains(name), "{run}");
    }
    // Two answers that contradict each other are refused, not one silently taken.
    let out = research(&["resume", "some-run", "--approve", "--cancel", "--db", db]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A search of the sessions that finds none says so, not "no sessions yet".
    let none = text(&["sessions", "list", "wasp", "--db", db]);
    assert!(none.contains("no session matches \"wasp\""), "{none}");
}

#[test]
fn a_shared_database_that_cannot_be_reached_says_how_to_leave_it() {
    // The `database` setting beside the file --db names wins over the file: the error must not
    // say "pass --db PATH" (it was passed), but how to go back to this machine's file.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    let db = db.to_str().unwrap();
    let set = research(&[
        "settings",
        "set",
        "database",
        "postgres://nobody@127.0.0.1:1/research",
        "--db",
        db,
    ]);
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let out = research(&["sessions", "list", "--db", db]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("pass --db PATH"), "{err}");
    assert!(
        err.contains("research settings set database local"),
        "{err}"
    );
    // The advice, followed literally.
    let back = research(&["settings", "set", "database", "local", "--db", db]);
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let out = research(&["sessions", "list", "--db", db]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 56: a command that ends normally takes away its marker that it had the database open
/// (a killed one cannot, and the next to open the file checks it in full); one killed leaves it.
#[test]
fn a_command_that_ends_leaves_no_open_marker_and_a_killed_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let db_arg = db.to_str().unwrap();
    let out = research(&["sessions", "list", "--db", db_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The first command made the file; the second opened an existing one.
    let out = research(&["sessions", "list", "--db", db_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let markers = || -> Vec<String> {
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.contains(".open-"))
            .collect()
    };
    assert!(markers().is_empty(), "{:?}", markers());
    // A process killed while it has the file open leaves its marker.
    let mut mcp = Command::new(BIN)
        .args(["mcp", "--db", db_arg])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while markers().is_empty() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    mcp.kill().unwrap();
    let _ = mcp.wait();
    assert_eq!(markers().len(), 1, "{:?}", markers());
    let out = research(&["sessions", "list", "--db", db_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        markers().is_empty(),
        "the dead one's marker went: {:?}",
        markers()
    );
}
