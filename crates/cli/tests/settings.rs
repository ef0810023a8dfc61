//! `research settings` (the file the desktop app's store shares) and `research providers`
//! against local stand-ins for Ollama and SearXNG.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");

fn research(args: &[&str], db: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("RESEARCH_LLM")
        .env_remove("OLLAMA_HOST")
        .env_remove("TAVILY_API_KEY")
        .env("TAVILY_API_KEY", "tvly-test")
        .output()
        .unwrap()
}

#[tokio::test]
async fn settings_are_kept_in_the_shared_file_and_providers_report_readiness() {
    let ollama = MockServer::start().await;
    Mock::given(path("/api/tags"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"models": [{"name": "qwen2.5:7b", "size": 1}]})),
        )
        .mount(&ollama)
        .await;
    let searxng = MockServer::start().await;
    Mock::given(path("/search"))
        .respond_with(ResponseTemplate::new(403))
        .mount(&searxng)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    for (k, v) in [
        ("ollama_url", ollama.uri()),
        ("searxng_url", searxng.uri()),
        ("search", "local".to_string()),
    ] {
        let out = research(&["settings", "set", k, &v], &db);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The file is a plain JSON object next to the database, as tauri-plugin-store keeps it.
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(file["ollama_url"], ollama.uri());
    let bad = research(&["settings", "set", "default_model", "nosuch:x"], &db);
    assert_eq!(bad.status.code(), Some(2));

    let out = research(&["providers", "--json"], &db);
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let find = |kind: &str, name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|p| p["kind"] == kind && p["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(find("model", "ollama")["ready"], true);
    // What it has is what the form's model picker offers.
    assert_eq!(
        find("model", "ollama")["models"],
        json!(["ollama:qwen2.5:7b"])
    );
    let sx = find("search", "searxng");
    assert_eq!(sx["ready"], false);
    assert!(
        sx["detail"].as_str().unwrap().contains("search.formats"),
        "{sx}"
    );
    assert_eq!(
        find("search", "tavily")["ready"],
        true,
        "the key from the environment counts"
    );
    assert_eq!(find("search", "local")["ready"], false);

    // The default model comes from the settings when --llm is not given.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/script.json");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    assert!(research(&["library", "add", corpus.to_str().unwrap()], &db)
        .status
        .success());
    let spec = format!("scripted:{}", script.display());
    assert!(research(&["settings", "set", "default_model", &spec], &db)
        .status
        .success());
    let out = research(
        &[
            "run",
            "How do honeybees communicate?",
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "finished");
    assert!(result["sources"][0]["url"]
        .as_str()
        .unwrap()
        .starts_with("file://"));
}
