//! `research check DOC.md`: a document's sentences against its sources, as files and as pages
//! on a local server; the statuses, the exit status and the errors a writer can run into.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");

/// Wikipedia, "Eiffel Tower" (lead and history, abridged).
const EIFFEL: &str = "# Eiffel Tower\n\n\
The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is \
named after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 \
to 1889.\n\n\
The tower is 330 metres (1,083 ft) tall, about the same height as an 81-storey building, and \
the tallest structure in Paris. Its base is square, measuring 125 metres (410 ft) on each side.\n\n\
The tower received 5,889,000 visitors in 2015. It was the most visited paid monument in the \
world.\n";

/// Wikipedia, "Honey bee" (abridged).
const BEES: &str = "Honey bees communicate the location of food sources to their nestmates \
through the waggle dance. A colony generally contains one breeding female, the queen, a few \
thousand drones, and tens of thousands of sterile female workers.";

fn research(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

async fn research_async(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || Command::new(BIN).args(args).output().unwrap())
        .await
        .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn audit(out: &Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["audit"].as_array().unwrap().clone()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_document_checked_against_files_gets_a_verdict_per_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let eiffel = write(dir.path(), "eiffel.md", EIFFEL);
    let bees = write(dir.path(), "bees.txt", BEES);
    let doc = write(
        dir.path(),
        "doc.md",
        "# Notes\n\nThe tower is 330 metres tall, about the same height as an 81-storey \
         building, and the tallest structure in Paris [1]. Honey bees communicate the location \
         of food sources to their nestmates through the waggle dance [2].\n",
    );
    let out = research(&[
        "check",
        &doc,
        "--source",
        &format!("1={eiffel}"),
        "--source",
        &format!("2={bees}"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let a = audit(&out);
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[0]["status"], "verified", "{a:?}");
    assert_eq!(a[0]["sources"], serde_json::json!([1]));
    assert_eq!(a[0]["source"], 1);
    // The aligned passage is the sentence of the source that says it, not the whole page.
    let passage = a[0]["passage"].as_str().unwrap();
    assert!(passage.starts_with("The tower is 330 metres"), "{passage}");
    assert!(!passage.contains("visitors"), "{passage}");
    assert!(a[0]["check"].as_str().unwrap().starts_with("verified"));
    assert!(a[0]["signals"]["overlap"].as_f64().unwrap() > 0.9);
    assert_eq!(a[1]["status"], "verified", "{a:?}");
    assert_eq!(a[1]["source"], 2);
}

#[test]
fn a_contradicted_number_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let eiffel = write(dir.path(), "eiffel.md", EIFFEL);
    let doc = write(
        dir.path(),
        "doc.md",
        "The tower is 300 metres tall, about the same height as an 81-storey building, and the \
         tallest structure in Paris [1].\n",
    );
    let out = research(&["check", &doc, "--source", &format!("1={eiffel}"), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let a = audit(&out);
    assert_eq!(a[0]["status"], "contradicted", "{a:?}");
    let check = a[0]["check"].as_str().unwrap();
    assert!(
        check.contains("\"330\"") && check.contains("\"300\""),
        "{check}"
    );

    // Without --json: one line per sentence and its reason, the same exit status.
    let out = research(&["check", &doc, "--source", &format!("1={eiffel}")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("contradicted"), "{text}");
}

#[tokio::test]
async fn a_source_on_a_local_server_is_fetched_through_the_guard() {
    let server = MockServer::start().await;
    let page = format!(
        "<html><head><title>Honey bee</title></head><body><article><h1>Honey bee</h1><p>{BEES}</p>\
         <p>Worker bees live for about six weeks in summer and several months in winter.</p>\
         </article></body></html>"
    );
    Mock::given(path("/bees"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let url = format!("{}/bees", server.uri());
    let origin = format!("127.0.0.1:{}", server.address().port());
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "doc.md",
        "A colony generally contains one breeding female, the queen, a few thousand \
         drones, and tens of thousands of sterile female workers [1].\n",
    );
    let out = research_async(vec![
        "check".into(),
        doc.clone(),
        "--source".into(),
        format!("1={url}"),
        "--allow-host".into(),
        origin,
        "--json".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let a = audit(&out);
    assert_eq!(a[0]["status"], "verified", "{a:?}");
    assert!(a[0]["passage"]
        .as_str()
        .unwrap()
        .contains("one breeding female"));

    // Without --allow-host the guard refuses a local address, in one sentence.
    let out = research_async(vec![
        "check".into(),
        doc,
        "--source".into(),
        format!("1={url}"),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("source 1") && err.contains("refused"), "{err}");
}

#[tokio::test]
async fn a_number_from_a_web_pages_table_is_checked_against_its_row_and_header() {
    // SQLite's file format page (abridged): an HTML table, stored as a Markdown table.
    let server = MockServer::start().await;
    let page = "<html><head><title>Database File Format</title></head><body><article>\
        <h1>Database File Format</h1><p>The first 100 bytes of the database file comprise the \
        database file header.</p><table><tr><th>Offset</th><th>Size</th><th>Description</th></tr>\
        <tr><td>0</td><td>16</td><td>The header string</td></tr>\
        <tr><td>16</td><td>2</td><td>The database page size in bytes.</td></tr>\
        <tr><td>18</td><td>1</td><td>File format write version.</td></tr></table>\
        <p>All multibyte fields in the database file header are big-endian.</p></article></body></html>";
    Mock::given(path("/fileformat"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let url = format!("{}/fileformat", server.uri());
    let origin = format!("127.0.0.1:{}", server.address().port());
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "doc.md",
        "The database page size in bytes has offset 16 and size 2 [1].\n\n\
         The file format write version has offset 16 and size 1 [1].\n",
    );
    let out = research_async(vec![
        "check".into(),
        doc,
        "--source".into(),
        format!("1={url}"),
        "--allow-host".into(),
        origin,
        "--json".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let a = audit(&out);
    assert_eq!(a[0]["status"], "verified", "{a:?}");
    assert_eq!(
        a[0]["passage"],
        "Offset: 16; Size: 2; Description: The database page size in bytes."
    );
    assert_eq!(a[1]["status"], "contradicted", "{a:?}");
    assert!(a[1]["check"].as_str().unwrap().contains("\"18\""), "{a:?}");
}

#[test]
fn a_marker_citing_no_given_source_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bees = write(dir.path(), "bees.txt", BEES);
    let doc = write(
        dir.path(),
        "doc.md",
        "Honey bees communicate through the waggle dance [1]. Workers are sterile females [3].\n",
    );
    let out = research(&["check", &doc, "--source", &format!("1={bees}")]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("cites [3]") && err.contains("--source N="),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn an_uncited_claim_is_reported_with_the_source_that_says_it_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let bees = write(dir.path(), "bees.txt", BEES);
    let doc = write(
        dir.path(),
        "doc.md",
        "Honey bees tell their nestmates where food is through the waggle dance. The moon \
         landing took place in July 1969 with Apollo 11.\n",
    );
    let out = research(&["check", &doc, "--source", &format!("1={bees}"), "--json"]);
    // Uncited sentences are findings, not failures.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let a = audit(&out);
    assert_eq!(a.len(), 2);
    assert_eq!(a[0]["status"], "uncited");
    assert_eq!(a[0]["suggested"], 1, "{a:?}");
    assert_eq!(a[1]["status"], "uncited");
    assert!(a[1].get("suggested").is_none(), "{a:?}");
    assert!(a[1]["check"]
        .as_str()
        .unwrap()
        .contains("no source says it"));
}

#[test]
fn an_empty_document_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bees = write(dir.path(), "bees.txt", BEES);
    for (name, text) in [
        ("empty.md", ""),
        ("heading.md", "# Only a heading\n\n```\ncode\n```\n"),
    ] {
        let doc = write(dir.path(), name, text);
        let out = research(&["check", &doc, "--source", &format!("1={bees}")]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(
            stderr(&out).contains("no sentences to check"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_binary_missing_or_empty_source_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "doc.md",
        "Honey bees communicate through the waggle dance [1].\n",
    );
    let binary = dir.path().join("photo.bin");
    std::fs::write(&binary, [0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0]).unwrap();
    let out = research(&[
        "check",
        &doc,
        "--source",
        &format!("1={}", binary.display()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("source 1") && err.contains("binary data"),
        "{err}"
    );

    let out = research(&["check", &doc, "--source", "1=/no/such/file.md"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("source 1 (/no/such/file.md) cannot be read"));

    let empty = write(dir.path(), "empty.txt", "  \n");
    let out = research(&["check", &doc, "--source", &format!("1={empty}")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no text"), "{}", stderr(&out));

    let out = research(&["check", &doc, "--source", "one=notes.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("N=PATH or N=URL"), "{}", stderr(&out));
}

#[test]
fn a_huge_source_is_refused_without_being_read() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(
        dir.path(),
        "doc.md",
        "Honey bees communicate through the waggle dance [1].\n",
    );
    let huge = dir.path().join("huge.txt");
    // Sparse: its size is over the library's limit, nothing is written.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(65 * 1024 * 1024)
        .unwrap();
    let out = research(&["check", &doc, "--source", &format!("1={}", huge.display())]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("larger than 64 MB"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_fifty_thousand_sentence_document_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let bees = write(dir.path(), "bees.txt", BEES);
    let doc = write(
        dir.path(),
        "huge.md",
        &"Honey bees communicate through the waggle dance [1]. ".repeat(50_000),
    );
    let started = Instant::now();
    let out = research(&["check", &doc, "--source", &format!("1={bees}")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("50000 sentences") && err.contains("split it"),
        "{err}"
    );
    // Not a timing target (BENCHMARKS.md has those): only that it answers, not hangs.
    eprintln!("refused in {:?}", started.elapsed());
}

#[test]
fn weights_of_your_own_are_read_and_a_bad_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let bees = write(dir.path(), "bees.txt", BEES);
    let doc = write(
        dir.path(),
        "doc.md",
        "Honey bees communicate the location of food sources through the waggle dance [1].\n",
    );
    // Weights that call nothing verified: the same sentence becomes partly.
    let strict = write(
        dir.path(),
        "strict.txt",
        "bias 0\nverified_above 1\nunsupported_below 0\n",
    );
    let out = research(&[
        "check",
        &doc,
        "--source",
        &format!("1={bees}"),
        "--weights",
        &strict,
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(audit(&out)[0]["status"], "partly");
    assert_eq!(audit(&out)[0]["score"], 0.5);

    let bad = write(dir.path(), "bad.txt", "bias 0\nsize 3\n");
    let out = research(&[
        "check",
        &doc,
        "--source",
        &format!("1={bees}"),
        "--weights",
        &bad,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown name \"size\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_document_is_checked_against_a_stored_sessions_sources() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    common::library(&db);
    let llm = format!(
        "scripted:{}",
        common::fixtures().join("script.json").display()
    );
    let run = common::first_run(&db, &llm);
    let session = run["session_id"].as_str().unwrap();
    // The session's numbers: its first source is the colony page.
    assert!(
        run["sources"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("colony.html"),
        "{:#}",
        run["sources"]
    );
    let doc = write(
        dir.path(),
        "notes.md",
        "A honeybee colony contains a single queen, a few hundred drones in summer, and tens of \
         thousands of female worker bees [1]. A colony has three queens [1].\n",
    );
    let out = common::research(&["check", &doc, "--session", session, "--json"], &db);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = audit(&out);
    let statuses: Vec<&str> = found
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["verified", "unsupported"], "{found:#?}");
    assert!(found[0]["passage"]
        .as_str()
        .unwrap()
        .contains("tens of thousands of female worker bees"));
    // The session has three sources: a marker past them is a clear error naming them.
    let beyond = write(
        dir.path(),
        "beyond.md",
        "Bees dance to tell where food is [9].\n",
    );
    let out = common::research(&["check", &beyond, "--session", session], &db);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("[9]"), "{}", stderr(&out));
}
