//! What the CLI's end-to-end tests share: the binary, its fixtures, running it on a database,
//! reading its JSON, and the independent grounding checker.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_research");

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn corpus() -> PathBuf {
    fixtures().join("corpus")
}

pub fn research(args: &[&str], db: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("RESEARCH_LLM")
        .env_remove("DATABASE_URL")
        .env_remove("TAVILY_API_KEY")
        .env_remove("BRAVE_API_KEY")
        .env_remove("SERPER_API_KEY")
        .output()
        .unwrap()
}

pub fn ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The independent checker, given the result file and how URLs map to the corpus.
pub fn check_grounding(result: &Value, dir: &Path, url_map: Option<String>) {
    check_grounding_over(result, dir, &corpus(), url_map)
}

/// The independent checker over `corpus` (a test's own copy, say).
pub fn check_grounding_over(result: &Value, dir: &Path, corpus: &Path, url_map: Option<String>) {
    let file = dir.join("result.json");
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/check_grounding.py");
    let mut cmd = Command::new("python3");
    // Every report carries its sentence audit; the checker verifies it independently.
    cmd.arg(script)
        .arg(&file)
        .arg(corpus)
        .arg("--require-audit");
    if let Some(map) = url_map {
        cmd.arg(map);
    }
    let out = cmd.output().expect("python3 runs the grounding check");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "grounding check failed:\n{text}\n{}",
        result["report"]
    );
    assert!(text.contains("grounding ok"), "{text}");
}

pub fn library(db: &Path) {
    let out = research(&["library", "add", corpus().to_str().unwrap()], db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The question the scripted corpus answers.
pub const QUESTION: &str = "How do honeybees communicate and organise their colonies?";

/// A run of `question` over the library alone with the model `llm`, answering nothing it asks.
pub fn local_run(db: &Path, llm: &str, question: &str) -> std::process::Output {
    research(
        &[
            "run",
            question,
            "--llm",
            llm,
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        db,
    )
}

/// A first run of `QUESTION` over the library with the scripted model `llm`.
pub fn first_run(db: &Path, llm: &str) -> Value {
    ok(&local_run(db, llm, QUESTION))
}

/// The graph nodes a run used, from its usage per node.
pub fn nodes(result: &Value) -> Vec<String> {
    result["metadata"]["usage_by_node"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// A copy of the whole corpus under `dir`, added to the library of `db`: its files can change
/// or go while the test runs.
pub fn corpus_copy(dir: &Path, db: &Path) -> PathBuf {
    let copy = dir.join("corpus");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let out = research(&["library", "add", copy.to_str().unwrap()], db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    copy
}

/// Serves the three on-topic corpus pages at `/<file name>` on `server`, as a web server would.
pub async fn serve_corpus(server: &wiremock::MockServer) {
    use wiremock::matchers::path;
    use wiremock::{Mock, ResponseTemplate};
    for name in ["waggle-dance.md", "colony.html", "pollination.txt"] {
        let body = std::fs::read(corpus().join(name)).unwrap();
        let content_type = if name.ends_with(".html") {
            "text/html; charset=utf-8"
        } else {
            "text/plain; charset=utf-8"
        };
        Mock::given(path(format!("/{name}")))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header("content-type", content_type)
                    .set_body_bytes(body),
            )
            .mount(server)
            .await;
    }
}

/// Starts a run (`cmd`, a `research run` or `resume`) and returns it with the thread id it
/// names on stderr; stderr is drained after, so the child never blocks on a full pipe.
pub fn spawn_run(mut cmd: Command) -> (Child, String) {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let thread = loop {
        let line = lines.next().expect("the run names its thread").unwrap();
        if let Some((run, _)) = run_ids(&line) {
            break run;
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, thread)
}

/// The run and session ids of the line a run names itself with ("run ID (session ID)").
pub fn run_ids(line: &str) -> Option<(String, String)> {
    let rest = line.trim().strip_prefix("run ")?;
    let (run, session) = rest.split_once(" (session ")?;
    let session = session.strip_suffix(')')?;
    let id = |s: &str| s.len() == 36 && s.matches('-').count() == 4;
    (id(run) && id(session)).then(|| (run.to_string(), session.to_string()))
}
