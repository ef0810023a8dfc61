//! A session as a file (issue 56): exported from one data folder, imported into another with
//! its ids, read back the same, still forkable from its steps, imported once only; a file that
//! is not one, or one from a newer build, is refused and changes nothing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

fn script_arg() -> String {
    format!("scripted:{}", fixtures().join("script.json").display())
}

fn sessions(db: &Path) -> Vec<Value> {
    ok(&research(&["sessions", "list", "--json"], db))
        .as_array()
        .unwrap()
        .clone()
}

/// Two data folders, the first with the library and a finished scripted run: (here, there,
/// session, thread).
fn two_folders(dir: &Path) -> (PathBuf, PathBuf, String, String) {
    let here = dir.join("here/db.sqlite");
    let there = dir.join("there/db.sqlite");
    library(&here);
    let done = first_run(&here, &script_arg());
    let id = |k: &str| done[k].as_str().unwrap().to_string();
    (here, there, id("session_id"), id("thread_id"))
}

#[test]
fn a_session_moves_between_two_data_folders_and_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there, session, thread) = two_folders(dir.path());
    // Its sources read again, so a recheck's mark travels too.
    ok(&research(&["recheck", &session, "--json"], &here));

    let file = dir.path().join("moved.research-session");
    let out = research(
        &[
            "sessions",
            "export",
            &thread,
            "--out",
            file.to_str().unwrap(),
            "--json",
        ],
        &here,
    );
    let exported = ok(&out);
    assert_eq!(exported["session_id"], session.as_str());
    assert!(file.is_file() && exported["bytes"].as_u64().unwrap() > 1000);

    // Another data folder, with no library and no session.
    assert!(sessions(&there).is_empty());
    let imported = ok(&research(
        &["sessions", "import", file.to_str().unwrap(), "--json"],
        &there,
    ));
    assert_eq!(imported["session_id"], session.as_str());
    assert_eq!(imported["already_here"], false);
    // Everything a person reads is the same: the session with its runs, report versions,
    // sources, evidence and turns, and each run's steps.
    let show = |db: &Path| ok(&research(&["sessions", "show", &session, "--json"], db));
    assert_eq!(
        imported["reports"].as_u64().unwrap() as usize,
        show(&here)["reports"].as_array().unwrap().len()
    );
    assert_eq!(show(&here), show(&there));
    let history = |db: &Path| ok(&research(&["history", &thread, "--json"], db));
    assert_eq!(history(&here), history(&there));
    let list = |db: &Path| sessions(db);
    assert_eq!(list(&here), list(&there));
    let export_md = |db: &Path, name: &str| {
        let out_file = dir.path().join(name);
        let out = research(
            &[
                "export",
                &session,
                "--format",
                "md",
                "--out",
                out_file.to_str().unwrap(),
            ],
            db,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(out_file).unwrap()
    };
    assert_eq!(export_md(&here, "here.md"), export_md(&there, "there.md"));

    // The run's steps came too: it forks there as it would here.
    let fork = ok(&research(
        &[
            "fork",
            &thread,
            "--at",
            "reading",
            "--reading",
            "Only the waggle dance of honeybee foragers",
            "--llm",
            &script_arg(),
            "--no-input",
            "--json",
        ],
        &there,
    ));
    assert_eq!(fork["session_id"], session.as_str());

    // A second import is the same session, not two.
    let again = ok(&research(
        &["sessions", "import", file.to_str().unwrap(), "--json"],
        &there,
    ));
    assert_eq!(again["already_here"], true);
    assert_eq!(sessions(&there).len(), 1);
}

#[test]
fn a_file_that_is_not_a_session_or_is_from_a_newer_build_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (here, there, session, _) = two_folders(dir.path());
    let file = dir.path().join("s.research-session");
    ok(&research(
        &[
            "sessions",
            "export",
            &session,
            "--out",
            file.to_str().unwrap(),
            "--json",
        ],
        &here,
    ));

    let refused = |file: &Path, says: &str| {
        let out = research(&["sessions", "import", file.to_str().unwrap()], &there);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
        assert!(sessions(&there).is_empty(), "nothing was imported");
    };
    let text = dir.path().join("notes.research-session");
    std::fs::write(&text, "just some notes").unwrap();
    refused(&text, "is not a session file this app can read");
    refused(&dir.path().join("missing.research-session"), "cannot open");

    // Cut short (a copy that stopped half-way): refused, nothing half-imported.
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.path().join("cut.research-session");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&cut, "is not a session file this app can read");

    // Written by a newer build: its version says so.
    let newer = dir.path().join("newer.research-session");
    let script = format!(
        "import json, zipfile\n\
         src = zipfile.ZipFile({:?})\n\
         dst = zipfile.ZipFile({:?}, 'w')\n\
         for item in src.infolist():\n\
         \x20   data = src.read(item.filename)\n\
         \x20   if item.filename == 'session.json':\n\
         \x20       m = json.loads(data); m['version'] = 99; data = json.dumps(m).encode()\n\
         \x20   dst.writestr(item, data)\n\
         dst.close()\n",
        file.to_str().unwrap(),
        newer.to_str().unwrap()
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    refused(&newer, "written by a newer Research Studio");

    // The file itself imports.
    let imported = ok(&research(
        &["sessions", "import", file.to_str().unwrap(), "--json"],
        &there,
    ));
    assert_eq!(imported["session_id"], session.as_str());
}
