//! The disk fills up mid-run: the run ends as failed (resumable) with a message that says so,
//! the session is not left "running", and once space is freed `research resume` finishes it
//! from its last checkpoint. The database lives on a small tmpfs mounted for the test (root
//! only; CI runs as root).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

/// A tmpfs of `mb` megabytes at `at`, unmounted when dropped.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(at: &Path, mb: u32) -> Option<Self> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mb}m"), "tmpfs"])
            .arg(at)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| SmallDisk(at.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Writes `file` until the disk refuses another byte.
fn fill(file: &Path) {
    let mut f = std::fs::File::create(file).unwrap();
    let block = vec![0u8; 64 * 1024];
    while f.write_all(&block).is_ok() {}
    let small = [0u8; 512];
    while f.write_all(&small).is_ok() {}
    let _ = f.sync_all();
}

#[test]
fn a_full_disk_fails_the_run_resumably_and_it_resumes_once_space_is_freed() {
    if !is_root() {
        eprintln!("skipped: mounting a small tmpfs needs root (CI runs as root)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = SmallDisk::mount(&dir.path().join("disk"), 24) else {
        panic!("root could not mount a tmpfs");
    };
    let db = disk.0.join("db.sqlite");
    library(&db);
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    for a in script["answers"].as_array_mut().unwrap() {
        if a["purpose"] == "extract" {
            a["delay_ms"] = json!(2000);
        }
    }
    let script_path = dir.path().join("slow.json");
    std::fs::write(&script_path, serde_json::to_vec(&script).unwrap()).unwrap();
    let llm = format!("scripted:{}", script_path.display());

    let mut child = Command::new(BIN)
        .args([
            "run",
            QUESTION,
            "--llm",
            &llm,
            "--search",
            "local",
            "--no-input",
        ])
        .arg("--db")
        .arg(&db)
        .env_remove("RESEARCH_LLM")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let said = Arc::new(Mutex::new(Vec::<String>::new()));
    let lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let s = said.clone();
    let reader = std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            s.lock().unwrap().push(line);
        }
    });
    // Once the run is reading pages, the disk fills up.
    let deadline = Instant::now() + Duration::from_secs(60);
    let thread = loop {
        let named = said
            .lock()
            .unwrap()
            .iter()
            .find_map(|l| run_ids(l).map(|(run, _)| run));
        if let Some(t) = named {
            let out = research(&["history", &t, "--json"], &db);
            let saved = serde_json::from_slice::<Value>(&out.stdout)
                .ok()
                .and_then(|h| h["checkpoints"].as_array().map(Vec::len))
                .unwrap_or(0);
            if saved >= 3 {
                break t;
            }
        }
        assert!(Instant::now() < deadline, "the run never got to reading");
        std::thread::sleep(Duration::from_millis(50));
    };
    let filler = disk.0.join("filler");
    fill(&filler);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let stderr = said.lock().unwrap().join("\n");
    assert!(
        !status.success(),
        "the run went on with a full disk: {stderr}"
    );
    assert!(
        stderr.contains("the disk holding the database is full"),
        "{stderr}"
    );
    assert!(stderr.contains("resume"), "{stderr}");

    // The session says failed, not running (read while the disk is still full).
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    let session = &list.as_array().unwrap()[0];
    assert_eq!(session["status"], "failed", "{list:#}");

    std::fs::remove_file(&filler).unwrap();
    let done = ok(&research(&["resume", &thread, "--json"], &db));
    assert_eq!(done["status"], "finished", "{done:#}");
    check_grounding(&done, dir.path(), None);
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list.as_array().unwrap()[0]["status"], "finished");
    drop(disk);
}
