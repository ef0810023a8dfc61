//! `research search` over local servers standing in for providers (through SearXNG, whose
//! address is an option) and the errors a user can cause.

use std::process::Command;

use serde_json::json;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");

async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .args(args)
            .env_remove("TAVILY_API_KEY")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn searches_searxng_and_reports_failures_per_provider() {
    let server = MockServer::start().await;
    Mock::given(path("/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"results": [
            {"url": "https://example.org/a/", "title": "A", "content": "first"},
            {"url": "https://example.org/a#section", "title": "A again", "content": "dup"},
            {"url": "https://example.org/b", "title": "B", "content": "second"}
        ]})))
        .mount(&server)
        .await;
    let out = run(vec![
        "search".into(),
        "bees".into(),
        "--search".into(),
        "searxng,tavily".into(),
        "--searxng-url".into(),
        server.uri(),
        "--json".into(),
    ])
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "tavily has no key: refused before searching"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("TAVILY_API_KEY"));

    let out = run(vec![
        "search".into(),
        "bees".into(),
        "--search".into(),
        "searxng".into(),
        "--searxng-url".into(),
        server.uri(),
        "--json".into(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let urls: Vec<&str> = outcome["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        ["https://example.org/a/", "https://example.org/b"],
        "the same page twice is kept once"
    );

    let out = run(vec!["search".into(), "  ".into()]).await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "research: the query is empty"
    );

    let out = run(vec![
        "search".into(),
        "bees".into(),
        "--search".into(),
        "bing".into(),
    ])
    .await;
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown search provider `bing`"));
}

#[tokio::test]
async fn the_searxng_address_set_in_the_settings_is_searched() {
    let server = MockServer::start().await;
    Mock::given(path("/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"results": [
            {"url": "https://example.org/set", "title": "Set", "content": "from the setting"}
        ]})))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite").to_str().unwrap().to_string();
    let set = run(vec![
        "settings".into(),
        "set".into(),
        "searxng_url".into(),
        server.uri(),
        "--db".into(),
        db.clone(),
    ])
    .await;
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    // As `research run` does: the setting stands in for --searxng-url.
    let out = run(vec![
        "search".into(),
        "bees".into(),
        "--search".into(),
        "searxng".into(),
        "--json".into(),
        "--db".into(),
        db,
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["hits"][0]["url"], "https://example.org/set");
}
