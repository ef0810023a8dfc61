//! Two machines on one PostgreSQL server (two data folders, one `DATABASE_URL`): a run started on
//! one is listed, answered and finished on the other; a run whose process was killed is resumed
//! from the other; a run another live process runs is not run twice; the server restarted
//! mid-run is a resumable failure. Each "machine" keeps its own library of the same folder (the
//! library stays local), its keys and its settings.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use research_postgres::testing::TempPostgres;
use serde_json::{json, Value};

struct Team {
    dir: tempfile::TempDir,
    url: String,
    _server: TempPostgres,
}

impl Team {
    fn new() -> Self {
        let server = TempPostgres::start().expect("a PostgreSQL server for the test");
        let url = server.database("team").unwrap();
        let team = Team {
            dir: tempfile::tempdir().unwrap(),
            url,
            _server: server,
        };
        for machine in ["laptop", "desktop"] {
            let out = team.research(machine, &["library", "add", corpus().to_str().unwrap()]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        team
    }

    /// The machine's own data folder (its library, settings and models).
    fn db(&self, machine: &str) -> PathBuf {
        self.dir.path().join(machine).join("db.sqlite")
    }

    fn command(&self, machine: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .arg("--db")
            .arg(self.db(machine))
            .env("DATABASE_URL", &self.url)
            .env_remove("RESEARCH_LLM");
        cmd
    }

    fn research(&self, machine: &str, args: &[&str]) -> Output {
        self.command(machine, args).output().unwrap()
    }

    /// The fixture script, extraction slowed down when `slow`.
    fn script(&self, slow: bool) -> String {
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
        let path = self
            .dir
            .path()
            .join(if slow { "slow.json" } else { "fast.json" });
        std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
        format!("scripted:{}", path.display())
    }

    /// Starts a run on `machine` and returns it with the thread it names.
    fn spawn(&self, machine: &str, args: &[&str]) -> (Child, String) {
        let mut child = self
            .command(machine, args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let thread = loop {
            let line = lines.next().expect("the run names its thread").unwrap();
            let line = line.trim().to_string();
            if line.len() == 36 && line.matches('-').count() == 4 {
                break line;
            }
        };
        std::thread::spawn(move || for _ in lines {});
        (child, thread)
    }

    /// Waits until `machine` sees `thread` with `checkpoints` checkpoints saved.
    fn wait_for(&self, machine: &str, thread: &str, checkpoints: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.research(machine, &["history", thread, "--json"]);
            let saved = serde_json::from_slice::<Value>(&out.stdout)
                .ok()
                .and_then(|h| h["checkpoints"].as_array().map(Vec::len))
                .unwrap_or(0);
            if saved >= checkpoints {
                return;
            }
            assert!(Instant::now() < deadline, "the run never got that far");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn local_files(db: &Path) -> bool {
    db.exists()
}

#[test]
fn a_run_started_on_one_machine_is_answered_and_finished_on_another() {
    let team = Team::new();
    let script = team.script(false);
    let waiting = ok(&team.research(
        "laptop",
        &[
            "run", QUESTION, "--llm", &script, "--search", "local", "--review", "plan", "--json",
        ],
    ));
    assert_eq!(waiting["status"], "waiting", "{waiting:#}");
    let thread = waiting["thread_id"].as_str().unwrap().to_string();
    let session = waiting["session_id"].as_str().unwrap().to_string();
    // The other machine lists it, waiting, and answers its plan review.
    let listed = ok(&team.research("desktop", &["sessions", "list", "--json"]));
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == session.as_str())
        .unwrap_or_else(|| panic!("the laptop's session is not listed: {listed:#}"));
    assert_eq!(row["status"], "waiting");
    let done = ok(&team.research("desktop", &["resume", &thread, "--approve", "--json"]));
    assert_eq!(done["status"], "finished", "{done:#}");
    check_grounding(&done, team.dir.path(), None);
    // And the laptop reads the report the desktop finished.
    let shown = ok(&team.research("laptop", &["sessions", "show", &session, "--json"]));
    assert_eq!(shown["reports"].as_array().unwrap().len(), 1, "{shown:#}");
    // Nothing of it was written to either machine's own file but the library.
    let local = rusqlite::Connection::open(team.db("laptop")).unwrap();
    let sessions: i64 = local
        .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sessions, 0, "the session went to the local file");
    assert!(local_files(&team.db("desktop")));
}

#[test]
fn a_run_killed_on_one_machine_is_resumed_on_the_other_and_never_run_twice() {
    let team = Team::new();
    let slow = team.script(true);
    let (mut child, thread) = team.spawn(
        "laptop",
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
    );
    // Read, planned, reading pages — seen from the desktop.
    team.wait_for("desktop", &thread, 3);
    // While the laptop runs it, the desktop may not.
    let twice = team.research("desktop", &["resume", &thread, "--json"]);
    assert!(!twice.status.success(), "run twice");
    let said = String::from_utf8_lossy(&twice.stderr);
    assert!(said.contains("running in another process"), "{said}");
    assert!(child.try_wait().unwrap().is_none(), "the run had ended");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let fast = team.script(false);
    let done = ok(&team.research("desktop", &["resume", &thread, "--llm", &fast, "--json"]));
    assert_eq!(done["status"], "finished", "{done:#}");
    let calls = &done["metadata"]["usage_by_node"];
    assert_eq!(
        calls["plan"]["calls"], 1,
        "the plan was made again: {calls:#}"
    );
    check_grounding(&done, team.dir.path(), None);
}

#[test]
fn a_server_restarted_mid_run_is_a_resumable_failure() {
    let team = Team::new();
    let slow = team.script(true);
    let (child, thread) = team.spawn(
        "laptop",
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
    );
    team.wait_for("laptop", &thread, 3);
    team._server.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        !out.status.success(),
        "the run went on without its database"
    );
    team._server.restart().unwrap();
    let fast = team.script(false);
    let done = ok(&team.research("desktop", &["resume", &thread, "--llm", &fast, "--json"]));
    assert_eq!(done["status"], "finished", "{done:#}");
    check_grounding(&done, team.dir.path(), None);
}

#[test]
fn a_wrong_or_unreachable_address_is_said_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    for (url, says) in [
        ("postgres://nobody@127.0.0.1:9/none", "could not be opened"),
        ("host=/nowhere port=x", "not a PostgreSQL connection string"),
    ] {
        let out = Command::new(BIN)
            .args(["sessions", "list", "--db"])
            .arg(&db)
            .env("DATABASE_URL", url)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{url}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(says), "{url}: {said}");
    }
    // The setting refuses a password: settings are a plain file.
    let out = research(
        &[
            "settings",
            "set",
            "database",
            "postgres://alice:secret@db.example.org/team",
        ],
        &db,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("PGPASSWORD"));
}
