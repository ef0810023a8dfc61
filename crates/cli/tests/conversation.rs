//! Sessions as conversations, end to end with the scripted model over the local library (seed
//! 003's scenarios, adapted to research): a follow-up that carries the session's sources and
//! evidence over without reading them again, a topic change, cancel phrases that cost no model
//! call, the model deciding when the words cannot, the person overriding, an empty question, a
//! changed stored text left behind, and a long conversation summarised once.

mod common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};

/// A copy of the fixture script, with `extra` answers first.
fn script(dir: &Path, extra: &[Value]) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    let answers = script["answers"].as_array_mut().unwrap();
    for (i, a) in extra.iter().enumerate() {
        answers.insert(i, a.clone());
    }
    let path = dir.join("script.json");
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

fn ask(db: &Path, session: &str, question: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        question,
        "--session",
        session,
        "--no-input",
        "--json",
    ];
    args.extend_from_slice(extra);
    research(&args, db)
}

fn usable(result: &Value, dir: &Path) {
    let file = dir.join("usable.json");
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/check_usable.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        result["report"]
    );
}

#[test]
fn a_follow_up_starts_from_the_sessions_sources_and_evidence_without_fetching_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    // A copy of the corpus, so its files can go after the first turn.
    let corpus = corpus_copy(dir.path(), &db);
    let llm = script(dir.path(), &[]);
    let first = first_run(&db, &llm);
    assert!(nodes(&first).contains(&"search_and_extract".to_string()));
    let session = first["session_id"].as_str().unwrap();
    // The files are away: a follow-up that fetched them would find nothing to read.
    let away = dir.path().join("away");
    std::fs::rename(&corpus, &away).unwrap();

    let out = ask(
        &db,
        session,
        "Tell me more about the waggle dance of honeybees",
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let next = ok(&out);
    // Classified by its words, shown with why and how to override.
    assert_eq!(next["turn"]["classification"]["kind"], "follow_up");
    assert_eq!(next["turn"]["classification"]["by"], "rules");
    assert!(
        stderr.contains("follow-up") && stderr.contains("--as"),
        "{stderr}"
    );
    // The focus is inherited, and the new question's own words join it.
    let focus: Vec<&str> = next["turn"]["focus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        focus.starts_with(&["honeybees", "communicate"]),
        "{focus:?}"
    );
    assert!(focus.contains(&"waggle"), "{focus:?}");
    // Every earlier source carried over, numbered first in the same order, and read for this
    // question from its stored text (the files are gone): nothing fetched, nothing unreadable.
    let old: Vec<&Value> = first["sources"].as_array().unwrap().iter().collect();
    assert_eq!(next["turn"]["carried_sources"], old.len());
    let new = next["sources"].as_array().unwrap();
    assert_eq!(new.len(), old.len(), "no new source");
    for (a, b) in old.iter().zip(new) {
        assert_eq!(a["url"], b["url"]);
        assert_eq!(a["sha256"], b["sha256"]);
    }
    assert!(
        nodes(&next).contains(&"search_and_extract".to_string()),
        "{:?}",
        nodes(&next)
    );
    let warnings = next["metadata"]["warnings"].to_string();
    assert!(!warnings.contains("could not read"), "{warnings}");
    // The carried evidence is cited and checked as any other: both checkers pass (on the
    // files, back in place).
    std::fs::rename(&away, &corpus).unwrap();
    assert!(next["evidence"].as_array().unwrap().len() >= 3);
    check_grounding_over(&next, dir.path(), &corpus, None);
    usable(&next, dir.path());

    // The session lists both turns with what each was taken to be.
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    let turns = shown["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["classification"]["kind"], "first");
    assert_eq!(turns[1]["classification"]["kind"], "follow_up");
    assert_eq!(turns[1]["thread_id"], next["thread_id"]);
}

#[test]
fn cancel_phrases_end_the_turn_politely_with_no_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), &[]);
    let first = first_run(&db, &llm);
    let session = first["session_id"].as_str().unwrap();
    // Without its script the session's model cannot even be connected: a cancel never tries.
    std::fs::remove_file(dir.path().join("script.json")).unwrap();
    for (phrase, words) in [
        ("Nevermind", "cancelled"),
        ("forget it", "cancelled"),
        ("やめて", "中止"),
        ("もういいです。", "中止"),
    ] {
        let turn = ok(&ask(&db, session, phrase, &[]));
        assert_eq!(turn["turn"]["classification"]["kind"], "cancel", "{phrase}");
        assert!(turn["turn"]["thread_id"].is_null());
        assert!(
            turn["turn"]["reply"].as_str().unwrap().contains(words),
            "{turn}"
        );
        // Without --json the reply is what is printed.
        let plain = ask(&db, session, phrase, &[]);
        assert!(plain.status.success());
    }
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["runs"].as_array().unwrap().len(), 1, "no run started");
    assert_eq!(shown["reports"].as_array().unwrap().len(), 1);
    let turns = shown["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1 + 8);
    assert!(turns[1..].iter().all(
        |t| t["classification"]["kind"] == "cancel" && !t["reply"].as_str().unwrap().is_empty()
    ));
    // "stop words" is a question, not a cancel (it names things of its own; the session
    // topic shares none: a topic change).
    let out = ask(&db, session, "stop words in search engines", &[]);
    assert!(
        !out.status.success(),
        "the script is gone, so the run fails"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("topic change"), "{stderr}");
}

#[test]
fn a_topic_change_starts_afresh_and_the_person_can_override_the_classification() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), &[]);
    let first = first_run(&db, &llm);
    let session = first["session_id"].as_str().unwrap();

    let changed = ok(&ask(
        &db,
        session,
        "Now tell me about crop pollination",
        &[],
    ));
    assert_eq!(changed["turn"]["classification"]["kind"], "topic_change");
    assert_eq!(changed["turn"]["carried_sources"], 0);
    assert_eq!(changed["turn"]["focus"], json!(["crop", "pollination"]));
    assert_eq!(
        changed["session_id"], session,
        "the history stays in the session"
    );
    // The run read its pages itself.
    assert!(nodes(&changed).contains(&"search_and_extract".to_string()));
    check_grounding(&changed, dir.path(), None);

    // The person says it is a follow-up after all: their choice wins and is recorded.
    let overridden = ok(&ask(
        &db,
        session,
        "Now tell me about crop pollination",
        &["--as", "follow-up"],
    ));
    assert_eq!(overridden["turn"]["classification"]["kind"], "follow_up");
    assert_eq!(overridden["turn"]["classification"]["by"], "person");
    assert!(overridden["turn"]["carried_sources"].as_u64().unwrap() >= 1);
    // A follow-up after the topic change inherits the new focus.
    assert!(overridden["turn"]["focus"]
        .as_array()
        .unwrap()
        .contains(&json!("pollination")));
    // --follow-up is the same as --session … --as follow-up.
    let legacy = ok(&research(
        &[
            "run",
            "and in winter?",
            "--follow-up",
            session,
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(legacy["turn"]["classification"]["by"], "person");
}

#[test]
fn the_model_decides_when_the_words_cannot_and_bad_questions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(
        dir.path(),
        &[
            json!({"purpose": "classify_turn", "json": {"kind": "follow_up", "why": "it asks about the dances again"}}),
        ],
    );
    let first = first_run(&db, &llm);
    let session = first["session_id"].as_str().unwrap();
    let turn = ok(&ask(&db, session, "Really?", &[]));
    assert_eq!(turn["turn"]["classification"]["by"], "model");
    assert_eq!(
        turn["turn"]["classification"]["why"],
        "it asks about the dances again"
    );
    // The session's model gone (its script deleted), the model named for this turn reads the
    // question, and its run is made with it.
    std::fs::remove_file(dir.path().join("script.json")).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let named = script(
        &elsewhere,
        &[
            json!({"purpose": "classify_turn", "json": {"kind": "follow_up", "why": "it doubts what the dances say"}}),
        ],
    );
    let turn = ok(&ask(&db, session, "Truly?", &["--llm", &named]));
    assert_eq!(turn["turn"]["classification"]["by"], "model", "{turn}");
    assert_eq!(
        turn["turn"]["classification"]["why"],
        "it doubts what the dances say"
    );
    assert_eq!(turn["status"], "finished");

    // Empty, blank and enormous questions are refused with why, and nothing is recorded.
    for question in ["", "   ", &"why ".repeat(2_000)] {
        let out = ask(&db, session, question, &[]);
        assert_eq!(out.status.code(), Some(2), "{question:.20}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("empty") || stderr.contains("characters"),
            "{stderr}"
        );
    }
    let missing = ask(&db, "no-such-session", "and bees?", &[]);
    assert_eq!(missing.status.code(), Some(3));
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["turns"].as_array().unwrap().len(), 3);
    // --as needs a session.
    let out = research(&["run", "x?", "--as", "cancel"], &db);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_source_whose_stored_text_changed_is_left_behind_and_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), &[]);
    let first = first_run(&db, &llm);
    let session = first["session_id"].as_str().unwrap();
    let changed = &first["sources"][0];
    // The stored text of the first source no longer matches the hash it was cited by.
    let status = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); \
             c.execute('UPDATE documents SET text = text || \" (altered)\" WHERE sha256 = ?', (sys.argv[2],)); \
             c.commit()",
        )
        .arg(&db)
        .arg(changed["sha256"].as_str().unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let out = ask(&db, session, "What about their queens?", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let next = ok(&out);
    assert_eq!(
        next["turn"]["dropped_sources"],
        json!([changed["url"]]),
        "{stderr}"
    );
    assert!(stderr.contains("left out"), "{stderr}");
    let carried = next["turn"]["carried_sources"].as_u64().unwrap() as usize;
    assert_eq!(carried, first["sources"].as_array().unwrap().len() - 1);
    // The page is found again by the search and read afresh, after the carried ones.
    let sources = next["sources"].as_array().unwrap();
    let again = sources
        .iter()
        .position(|s| s["url"] == changed["url"])
        .expect("read again");
    assert!(again >= carried);
    assert!(nodes(&next).contains(&"search_and_extract".to_string()));
    check_grounding(&next, dir.path(), None);
}

#[test]
fn a_long_conversation_is_summarised_once_and_the_summary_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(
        dir.path(),
        &[
            json!({"purpose": "summarize_conversation", "text": "The person asked how honeybees communicate and organise colonies, then about the dances in detail."}),
        ],
    );
    let first = first_run(&db, &llm);
    let session = first["session_id"].as_str().unwrap();
    for i in 1..10 {
        ok(&ask(
            &db,
            session,
            &format!("Tell me more about honeybee dances, part {i}"),
            &[],
        ));
    }
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["summary"]["turns"], 0, "ten turns: no summary yet");
    // The eleventh turn summarises all but the last four, once.
    ok(&ask(
        &db,
        session,
        "Tell me more about honeybee dances, part 10",
        &[],
    ));
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["summary"]["turns"], 10 - 4);
    assert!(shown["summary"]["text"]
        .as_str()
        .unwrap()
        .contains("honeybees"));
    let plain = research(&["sessions", "show", session], &db);
    assert!(String::from_utf8_lossy(&plain.stderr).contains("summary of the first 6 turns"));
}

/// A follow-up that names nothing of the session's subject alone ("What about their
/// predators?") is judged against the library with the session's focus: the honeybee library is
/// searched for it, while the same words asked afresh are judged alone and find the library off
/// the question.
#[test]
fn a_follow_up_is_judged_against_the_library_with_the_sessions_focus() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let llm = script(dir.path(), &[]);
    let first = first_run(&db, &llm);
    let report = first["report"].as_str().unwrap();
    if !report.contains("hybrid ranking") {
        eprintln!("SKIPPED: the library is not read by meaning here (no sentence model installed)");
        return;
    }
    let session = first["session_id"].as_str().unwrap();
    let question = "What about their predators?";
    let next = ok(&ask(&db, session, question, &["--as", "follow-up"]));
    let report = next["report"].as_str().unwrap();
    assert!(!report.contains("nothing on this question"), "{report}");
    let afresh = ok(&local_run(&db, &llm, question));
    let report = afresh["report"].as_str().unwrap();
    assert!(
        report.contains("Library: nothing on this question"),
        "{report}"
    );
}
