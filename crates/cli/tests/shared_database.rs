//! Two machines on one PostgreSQL server (two data folders, one `DATABASE_URL`): a run started on
//! one is listed, answered and finished on the other; a run whose process was killed is resumed
//! from the other; a run another live process runs is not run twice; the server restarted
//! mid-run is a resumable failure. Each "machine" keeps its keys and settings, and its own
//! library of the same folder — indexed on the server under its machine, read from its disk.

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use common::*;
use research_postgres::testing::TempPostgres;
use research_store::SessionStore;
use serde_json::{json, Value};

struct Team {
    dir: tempfile::TempDir,
    url: String,
    _server: TempPostgres,
    two_machines: bool,
}

impl Team {
    /// Two data folders on this computer.
    fn new() -> Self {
        Self::with(false)
    }

    /// Two computers: neither sees the other's processes, and each has a library of its own.
    fn of_two_computers() -> Self {
        Self::with(true)
    }

    fn with(two_machines: bool) -> Self {
        let server = TempPostgres::start().expect("a PostgreSQL server for the test");
        let url = server.database("team").unwrap();
        let team = Team {
            dir: tempfile::tempdir().unwrap(),
            url,
            _server: server,
            two_machines,
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
        if self.two_machines {
            // As two computers: neither can see the other's processes, only its lease.
            cmd.env("RESEARCH_STUDIO_MACHINE", machine);
        }
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
        spawn_run(self.command(machine, args))
    }

    /// A slow run of `QUESTION` started on the laptop, once the desktop sees it reading pages.
    fn slow_run_on_the_laptop(&self) -> (Child, String) {
        let slow = self.script(true);
        let args = [
            "run",
            QUESTION,
            "--llm",
            &slow,
            "--search",
            "local",
            "--no-input",
            "--json",
        ];
        let (child, thread) = self.spawn("laptop", &args);
        // Read, planned, reading pages — seen from the desktop.
        self.wait_for("desktop", &thread, 3);
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
    // Nothing of it was written to either machine's own file: none was made.
    for machine in ["laptop", "desktop"] {
        assert!(!team.db(machine).exists(), "{machine} wrote a local file");
    }
}

#[test]
fn a_run_killed_on_one_machine_is_resumed_on_the_other_and_never_run_twice() {
    let team = Team::new();
    let (mut child, thread) = team.slow_run_on_the_laptop();
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

/// Two computers that cannot see each other's processes: a run killed on one is held by its
/// lease until the lease runs out, then the other takes it over.
#[test]
fn another_computer_takes_a_run_over_only_when_its_lease_ran_out() {
    let team = Team::of_two_computers();
    let (mut child, thread) = team.slow_run_on_the_laptop();
    let refused = |when: &str| {
        let out = team.research("desktop", &["resume", &thread, "--json"]);
        assert!(!out.status.success(), "{when}: run twice");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("running in another process"),
            "{when}: {said}"
        );
    };
    refused("while it runs");
    child.kill().unwrap();
    child.wait().unwrap();
    // The laptop was closed: the desktop cannot tell, and its lease still holds.
    refused("within the lease");
    // A minute later, as far as the lease can tell: it was not renewed.
    let store = research_postgres::PgSessions::connect_lazy(&team.url).unwrap();
    let record = store.runner(&thread).unwrap().expect("the laptop's record");
    assert!(record.starts_with("laptop/"), "{record}");
    let (holder, _until) = record.rsplit_once('/').unwrap();
    assert!(store
        .swap_runner(&thread, Some(&record), &format!("{holder}/1"))
        .unwrap());
    let fast = team.script(false);
    let done = ok(&team.research("desktop", &["resume", &thread, "--llm", &fast, "--json"]));
    assert_eq!(done["status"], "finished", "{done:#}");
    assert_eq!(
        store.runner(&thread).unwrap(),
        None,
        "the desktop let it go"
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

/// Each computer's library is indexed on the server under its name: it searches and lists its
/// own folders (the files it can open), another computer's are not its; nothing of it is in the
/// local file.
#[test]
fn each_computer_searches_its_own_library_on_the_server() {
    let team = Team::of_two_computers();
    let search = |machine: &str| {
        ok(&team.research(
            machine,
            &["library", "search", "honeybees communicate", "--json"],
        ))
    };
    let hits = search("laptop");
    assert!(hits.as_array().is_some_and(|h| !h.is_empty()), "{hits:#}");
    // A third computer with no folder of its own finds nothing, and lists nothing.
    assert_eq!(search("tablet").as_array().map(Vec::len), Some(0));
    let listed = team.research("tablet", &["library", "list"]);
    assert!(
        String::from_utf8_lossy(&listed.stderr).contains("the library is empty"),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    // Removing the folder on the desktop leaves the laptop's.
    let out = team.research(
        "desktop",
        &["library", "remove", corpus().to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(search("desktop").as_array().map(Vec::len), Some(0));
    assert_eq!(search("laptop"), hits);
    // Indexed on the server: the laptop has no file of its own.
    assert!(!team.db("laptop").exists());
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
    // A setting that points nowhere is said by every command but `settings`, which puts it right;
    // and `DATABASE_URL=local` keeps a shell on this machine's file whatever the setting says.
    let set = research(
        &[
            "settings",
            "set",
            "database",
            "postgres://nobody@127.0.0.1:9/none",
        ],
        &db,
    );
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let stuck = research(&["sessions", "list"], &db);
    assert!(String::from_utf8_lossy(&stuck.stderr).contains("could not be opened"));
    let local = Command::new(BIN)
        .args(["sessions", "list", "--json", "--db"])
        .arg(&db)
        .env("DATABASE_URL", "local")
        .output()
        .unwrap();
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let unset = research(&["settings", "unset", "database"], &db);
    assert!(
        unset.status.success(),
        "{}",
        String::from_utf8_lossy(&unset.stderr)
    );
    assert!(research(&["sessions", "list"], &db).status.success());
    // The setting refuses a password: settings are a plain file; and does not repeat it.
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
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("PGPASSWORD") && !said.contains("secret"),
        "{said}"
    );
    let bad = research(
        &[
            "settings",
            "set",
            "database",
            "postgres://alice:secret@db:54x/team",
        ],
        &db,
    );
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && !said.contains("secret"), "{said}");
}

#[test]
fn a_session_moves_from_a_persons_own_file_to_the_team_server_and_back() {
    // Issue 56: a session file is written and read through the store seams, so it moves between
    // this machine's file and a team's server alike, and reads the same on each.
    let team = Team::new();
    let own = team.dir.path().join("own/db.sqlite");
    library(&own);
    let done = first_run(&own, &team.script(false));
    let session = done["session_id"].as_str().unwrap().to_string();
    let thread = done["thread_id"].as_str().unwrap().to_string();
    let file = team.dir.path().join("s.research-session");
    let path = file.to_str().unwrap();
    ok(&research(
        &["sessions", "export", &session, "--out", path, "--json"],
        &own,
    ));

    let imported = ok(&team.research("laptop", &["sessions", "import", path, "--json"]));
    assert_eq!(imported["already_here"], false);
    let on_server = |args: &[&str]| ok(&team.research("desktop", args));
    let show = ["sessions", "show", &session, "--json"];
    let history = ["history", &thread, "--json"];
    assert_eq!(on_server(&show), ok(&research(&show, &own)));
    assert_eq!(on_server(&history), ok(&research(&history, &own)));

    // And back to a file of its own elsewhere.
    let back = team.dir.path().join("back.research-session");
    let back_path = back.to_str().unwrap();
    on_server(&["sessions", "export", &session, "--out", back_path, "--json"]);
    let elsewhere = team.dir.path().join("elsewhere/db.sqlite");
    ok(&research(
        &["sessions", "import", back_path, "--json"],
        &elsewhere,
    ));
    assert_eq!(ok(&research(&show, &elsewhere)), ok(&research(&show, &own)));
    assert_eq!(
        ok(&research(&history, &elsewhere)),
        ok(&research(&history, &own))
    );
}
