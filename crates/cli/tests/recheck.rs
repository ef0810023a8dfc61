//! Reports that stay true, end to end with the scripted model over a library folder that
//! changes after the report: `research recheck` reads every cited source again, leaves an
//! unchanged report alone, and records a changed or vanished source as a new report version
//! with the sentences that lost their support marked — with no model call.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

fn setup(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, Value) {
    let db = dir.join("db.sqlite");
    let corpus = corpus_copy(dir, &db);
    // The model is gone after the run: a recheck that asked it anything would fail.
    let script = dir.join("script.json");
    std::fs::copy(fixtures().join("script.json"), &script).unwrap();
    let llm = format!("scripted:{}", script.display());
    let first = first_run(&db, &llm);
    std::fs::remove_file(&script).unwrap();
    (corpus, db, first)
}

#[test]
fn an_unchanged_report_is_left_alone_and_the_check_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db, first) = setup(dir.path());
    let session = first["session_id"].as_str().unwrap();
    let found = ok(&research(&["recheck", session, "--json"], &db));
    let sources = found["sources"].as_array().unwrap();
    assert_eq!(sources.len(), first["sources"].as_array().unwrap().len());
    assert!(
        sources.iter().all(|s| s["state"]["state"] == "unchanged"),
        "{found:#}"
    );
    assert!(found["version"].is_null());
    assert_eq!(found["lost"].as_array().unwrap().len(), 0);
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["reports"].as_array().unwrap().len(), 1);
    assert!(shown["session"]["checked_at_ms"].as_i64().unwrap() > 0);
    let list = research(&["sessions", "list"], &db);
    assert!(String::from_utf8_lossy(&list.stdout).contains("sources checked"));
}

#[test]
fn a_changed_and_a_vanished_source_mark_what_they_no_longer_support_in_a_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, db, first) = setup(dir.path());
    let session = first["session_id"].as_str().unwrap();
    let id_of = |name: &str| {
        first["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["url"].as_str().unwrap().ends_with(name))
            .unwrap()["id"]
            .as_u64()
            .unwrap()
    };
    let (colony, pollination) = (id_of("colony.html"), id_of("pollination.txt"));
    // One of the colony page's quoted sentences is taken out; the pollination file is deleted.
    let page = corpus.join("colony.html");
    let text = std::fs::read_to_string(&page).unwrap();
    let start = text
        .find("A honeybee colony contains a single queen")
        .expect("the fixture quotes it");
    let end = start + text[start..].find('.').unwrap() + 1;
    std::fs::write(&page, format!("{}{}", &text[..start], &text[end..])).unwrap();
    std::fs::remove_file(corpus.join("pollination.txt")).unwrap();

    let found = ok(&research(&["recheck", session, "--json"], &db));
    let state = |id: u64| {
        found["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source_id"] == id)
            .unwrap()["state"]
            .clone()
    };
    assert_eq!(state(colony)["state"], "changed");
    // One quote named the sentence taken out; the page's other quotes are still there.
    let quoted = first["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source_id"].as_u64() == Some(colony))
        .count() as u64;
    assert!(quoted >= 2, "{}", first["evidence"]);
    assert_eq!(state(colony)["lost"], 1);
    assert_eq!(state(colony)["kept"], quoted - 1);
    assert_eq!(state(pollination)["state"], "gone");
    assert_eq!(state(id_of("waggle-dance.md"))["state"], "unchanged");
    let lost = found["lost"].as_array().unwrap();
    assert!(!lost.is_empty());
    for l in lost {
        let why = l["why"].as_str().unwrap();
        assert!(
            why.contains(&format!("source {colony} no longer says this"))
                || why.contains(&format!("source {pollination} is gone")),
            "{l}"
        );
        // Only sentences that cite a source that changed lose their support.
        assert!(l["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == colony || s == pollination));
    }
    assert!(lost.iter().any(|l| l["sentence"]
        .as_str()
        .unwrap()
        .contains("A honeybee colony contains a single queen")));

    // A new report version says what changed; the original stays.
    assert_eq!(found["version"], 2);
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    let reports = shown["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["markdown"], first["report"]);
    let latest = reports[1]["markdown"].as_str().unwrap();
    assert!(latest.contains("## Sources checked again"), "{latest}");
    assert!(
        latest.contains(&format!("[{pollination}] is gone")),
        "{latest}"
    );
    assert!(latest.contains("⚠ *(source"), "{latest}");
    assert_eq!(reports[1]["provenance"]["recheck"]["version"], Value::Null);
    assert!(reports[1]["provenance"]["recheck"]["lost"].is_array());

    // Text output names each source's state.
    let out = research(&["recheck", session], &db);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("gone: the file no longer exists"), "{text}");
}

#[test]
fn a_session_without_a_report_or_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let out = research(&["recheck", "no-such-session"], &db);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session"));
}
