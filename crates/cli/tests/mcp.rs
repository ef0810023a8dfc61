//! `research mcp` driven by an MCP client over stdio (rmcp's, as another tool's assistant would
//! be): the tools are listed, a scripted research runs to its end, its report and sources are
//! read, the library searched, a document's citations checked; malformed arguments and unknown
//! sessions are tool errors and the server keeps serving.

mod common;

use std::time::{Duration, Instant};

use common::*;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

async fn connect(db: &std::path::Path) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("mcp")
            .arg("--db")
            .arg(db)
            .env_remove("RESEARCH_LLM")
            .env_remove("TAVILY_API_KEY")
            .env_remove("BRAVE_API_KEY")
            .env_remove("SERPER_API_KEY");
    }))
    .expect("the server starts");
    ().serve(transport).await.expect("the client connects")
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn value(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    serde_json::from_str(&text(result)).unwrap_or_else(|e| panic!("{e}: {}", text(result)))
}

#[tokio::test]
async fn an_assistant_researches_reads_and_checks_through_the_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let client = connect(&db).await;
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    for tool in [
        "research",
        "research_status",
        "report",
        "sources",
        "sessions",
        "library_search",
        "check_document",
    ] {
        assert!(tools.iter().any(|t| t == tool), "{tool} in {tools:?}");
    }

    // A research, started at once and followed to its end.
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let started = value(
        &call(
            &client,
            "research",
            json!({"question": QUESTION, "model": script, "search": ["local"], "depth": "quick",
                   "known": "Bees dance.", "domains": ["entomology"]}),
        )
        .await,
    );
    let (session, thread) = (
        started["session"].as_str().unwrap().to_string(),
        started["thread"].as_str().unwrap().to_string(),
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        let status = value(&call(&client, "research_status", json!({"thread": thread})).await);
        if status["status"] != "running" {
            break status;
        }
        assert!(Instant::now() < deadline, "the run did not end: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status["status"], "finished", "{status}");
    let report = text(&call(&client, "report", json!({"session": session})).await);
    assert!(report.contains("[1]") && report.contains("## "), "{report}");
    let sources = value(&call(&client, "sources", json!({"session": session})).await);
    assert!(!sources.as_array().unwrap().is_empty(), "{sources}");
    let sessions = value(&call(&client, "sessions", json!({})).await);
    assert!(sessions
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["id"] == session.as_str()));

    // The library, and the citation checker on a document of one's own.
    let found = value(&call(&client, "library_search", json!({"query": "waggle dance"})).await);
    assert!(!found["hits"].as_array().unwrap().is_empty(), "{found}");
    let page = corpus().join("waggle-dance.md");
    let checked = value(
        &call(
            &client,
            "check_document",
            json!({"text": "Honeybees fly to the moon every night in 1850 [1].",
                   "sources": [page.to_str().unwrap()]}),
        )
        .await,
    );
    assert_ne!(checked[0]["status"], "verified", "{checked}");

    // Mistakes are tool errors; the server keeps serving.
    let unknown = call(&client, "report", json!({"session": "no-such-session"})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert!(text(&unknown).contains("no session"), "{}", text(&unknown));
    let malformed = client
        .call_tool(
            CallToolRequestParams::new("research")
                .with_arguments(json!({"questions": 3}).as_object().unwrap().clone()),
        )
        .await;
    assert!(
        malformed.is_err() || malformed.as_ref().unwrap().is_error == Some(true),
        "{malformed:?}"
    );
    let long = call(
        &client,
        "research",
        json!({"question": QUESTION, "model": "scripted:x", "known": "x".repeat(2_001)}),
    )
    .await;
    assert_eq!(long.is_error, Some(true), "{}", text(&long));
    assert!(text(&long).contains("2000 characters"), "{}", text(&long));
    let empty = call(&client, "research", json!({"question": "  "})).await;
    assert_eq!(empty.is_error, Some(true), "{}", text(&empty));
    let still = value(&call(&client, "sessions", json!({})).await);
    assert!(still.as_array().is_some());
    client.cancel().await.unwrap();
}
