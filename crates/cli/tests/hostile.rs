//! The hostile corpus (`scripts/hostile-corpus.py`): pages and PDFs built to hang, exhaust or
//! crash a parser, and library files that must not be read. Each ends in a warning or a clear
//! error within its limit, and the `research` process itself always survives to say so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");
/// The child's wall-time limit in these tests (production: 20 s).
const LIMIT_SECS: u64 = 4;
/// Start-up, the fetch itself and killing the child, besides the limit.
const SLACK: Duration = Duration::from_secs(6);

const PAGES: &[(&str, &str)] = &[
    ("nested-divs.html", "text/html"),
    ("paragraphs.html", "text/html"),
    ("table.html", "text/html"),
    ("page-tree-loop.pdf", "application/pdf"),
    ("xobject-loop.pdf", "application/pdf"),
    ("flate-bomb.pdf", "application/pdf"),
];

/// PDFs whose loops the parser detects by itself: read (or refused), never hung on.
const LOOPS: &[&str] = &["page-tree-loop.pdf", "xobject-loop.pdf"];

fn corpus(dir: &Path) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hostile-corpus.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(dir)
        .output()
        .expect("python3 runs the corpus script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.to_path_buf()
}

fn research(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .env("RESEARCH_EXTRACT_TIMEOUT_SECS", LIMIT_SECS.to_string())
        .output()
        .unwrap();
    (out, started.elapsed())
}

/// The process ended by itself (no signal) and said one clear thing.
fn survived(out: &Output) -> String {
    assert!(
        out.status.code().is_some(),
        "research was killed: {:?}",
        out.status
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pages_pdfs_and_files_end_in_warnings_within_their_limits() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"));
    let db = dir.path().join("db.sqlite3");

    // (a) The library folder: every hostile file is skipped with a reason, none hangs.
    let library = root.join("library");
    let db = db.to_str().unwrap();
    let (out, took) = research(&["library", "add", library.to_str().unwrap(), "--db", db]);
    let err = survived(&out);
    assert!(out.status.success(), "{err}");
    let files = PAGES.len() as u32 + 3;
    assert!(
        took < Duration::from_secs(LIMIT_SECS) * files + SLACK,
        "indexing took {took:?}"
    );
    let skipped = |name: &str| {
        err.lines()
            .find(|l| l.starts_with("skipped ") && l.contains(&format!("/{name}: ")))
            .unwrap_or_else(|| panic!("{name} is not named as skipped:\n{err}"))
            .to_string()
    };
    assert!(skipped("huge.txt").contains("larger than 64 MB"));
    assert!(skipped("fifo.txt").contains("a FIFO"));
    assert!(skipped("loop.md").contains("symbolic link"));
    for (name, _) in PAGES.iter().filter(|(n, _)| !LOOPS.contains(n)) {
        let line = skipped(name);
        assert!(line.contains("could not extract"), "{line}");
    }

    // (b) The same documents over HTTP: each fetch fails with a clear reason in time.
    let server = MockServer::start().await;
    for (name, content_type) in PAGES {
        let body = std::fs::read(root.join("pages").join(name)).unwrap();
        Mock::given(path(format!("/{name}")))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, content_type))
            .mount(&server)
            .await;
    }
    let origin = format!("127.0.0.1:{}", server.address().port());
    for (name, _) in PAGES {
        let url = format!("{}/{name}", server.uri());
        let args = ["fetch", &url, "--allow-host", &origin, "--json"].map(String::from);
        let (out, took) = tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            research(&args)
        })
        .await
        .unwrap();
        let err = survived(&out);
        if LOOPS.contains(name) && out.status.success() {
            // The PDF parser notices these loops itself: the text around them is read.
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(doc["kind"], "pdf", "{name}: {doc}");
            eprintln!(
                "{name}: {took:?}: read, {} bytes of text",
                doc["text"].as_str().unwrap().len()
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.starts_with("research: no readable text could be taken from")
                && err.contains("could not extract: "),
            "{name}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            took < Duration::from_secs(LIMIT_SECS) + SLACK,
            "{name} took {took:?}"
        );
        eprintln!("{name}: {took:?}: {}", err.trim());
    }
}
