//! `research mcp` driven by an MCP client over stdio (rmcp's, as another tool's assistant would
//! be): the tools are listed, a scripted research runs to its end, its report and sources are
//! read, the library searched, a document's citations checked; malformed arguments and unknown
//! sessions are tool errors and the server keeps serving; a run that stops at its plan is
//! answered, its progress arrives as notifications, and a run whose server was killed mid-way
//! is resumed by the next server.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, NumberOrString, ProgressNotificationParam,
    ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};

/// A client that keeps the progress notifications it is sent.
#[derive(Clone, Default)]
struct Listener(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

async fn connect(db: &std::path::Path) -> RunningService<RoleClient, ()> {
    connect_with(db, ()).await
}

async fn connect_with<H: ClientHandler>(
    db: &std::path::Path,
    handler: H,
) -> RunningService<RoleClient, H> {
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
    handler.serve(transport).await.expect("the client connects")
}

async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    args: Value,
) -> CallToolResult {
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
    // The client shows the server by its name: ours, not the protocol library's.
    let info = client.peer_info().expect("the server introduced itself");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("research-studio")
    );
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
        "answer",
        "resume",
        "recheck",
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

#[tokio::test]
async fn a_run_stopped_at_its_plan_is_answered_and_its_progress_arrives_as_notifications() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let listener = Listener::default();
    let client = connect_with(&db, listener.clone()).await;
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let started = value(
        &call(
            &client,
            "research",
            json!({"question": QUESTION, "model": script, "search": ["local"], "depth": "quick",
                   "review": ["plan"]}),
        )
        .await,
    );
    let (session, thread) = (
        started["session"].as_str().unwrap().to_string(),
        started["thread"].as_str().unwrap().to_string(),
    );
    // Waiting on the plan: the status shows it and the answers it takes.
    let status = value(
        &call(
            &client,
            "research_status",
            json!({"thread": thread, "wait_seconds": 60}),
        )
        .await,
    );
    assert_eq!(status["status"], "waiting", "{status}");
    assert_eq!(
        status["question"]["asked"]["type"], "plan_review",
        "{status}"
    );
    assert!(status["question"]["answers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "approve_plan"));
    // An answer that does not fit, and resume while it waits: tool errors.
    let wrong = call(&client, "resume", json!({"thread": thread})).await;
    assert_eq!(wrong.is_error, Some(true), "{}", text(&wrong));
    assert!(text(&wrong).contains("answer"), "{}", text(&wrong));
    let malformed = client
        .call_tool(
            CallToolRequestParams::new("answer").with_arguments(
                json!({"thread": thread, "answer": {"type": "approve_everything"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await;
    assert!(
        malformed.is_err() || malformed.as_ref().unwrap().is_error == Some(true),
        "{malformed:?}"
    );

    // Approved, the run goes on; a status call that waits gets the progress as notifications.
    let going = value(
        &call(
            &client,
            "answer",
            json!({"thread": thread, "answer": {"type": "approve_plan"}}),
        )
        .await,
    );
    assert_eq!(going["status"], "running", "{going}");
    let mut meta = RequestMetaObject::default();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let mut params = CallToolRequestParams::new("research_status").with_arguments(
        json!({"thread": thread, "wait_seconds": 120})
            .as_object()
            .unwrap()
            .clone(),
    );
    params.meta = Some(meta);
    let done = value(&client.call_tool(params).await.unwrap());
    assert_eq!(done["status"], "finished", "{done}");
    assert!(
        done["report_begins"].as_str().unwrap().contains('#'),
        "{done}"
    );
    let heard = listener.0.lock().unwrap().clone();
    assert!(
        heard
            .iter()
            .any(|l| l.starts_with("searching") || l.starts_with("read ")),
        "{heard:?}"
    );
    // Nothing left to continue.
    let over = call(&client, "resume", json!({"thread": thread})).await;
    assert_eq!(over.is_error, Some(true), "{}", text(&over));

    // A question the model finds ambiguous: the run asks, the assistant answers in words.
    let mut unclear: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    unclear["answers"][0]["json"] = json!({"is_clear": false, "ambiguities": ["scope"],
        "question": "Which part: how they communicate, or how the colony is organised?",
        "options": ["communication", "organisation"], "interpretation": ""});
    let path = dir.path().join("unclear.json");
    std::fs::write(&path, unclear.to_string()).unwrap();
    let asked = value(
        &call(
            &client,
            "research",
            json!({"question": QUESTION, "model": format!("scripted:{}", path.display()),
                   "search": ["local"], "depth": "quick", "review": ["clarify"]}),
        )
        .await,
    );
    let unclear_thread = asked["thread"].as_str().unwrap().to_string();
    let waiting = value(
        &call(
            &client,
            "research_status",
            json!({"thread": unclear_thread, "wait_seconds": 60}),
        )
        .await,
    );
    assert_eq!(waiting["question"]["asked"]["type"], "clarify", "{waiting}");
    assert_eq!(waiting["question"]["answers"], json!(["clarify"]));
    value(
        &call(
            &client,
            "answer",
            json!({"thread": unclear_thread, "answer": {"type": "clarify", "text": "communication"}}),
        )
        .await,
    );
    let done = value(
        &call(
            &client,
            "research_status",
            json!({"thread": unclear_thread, "wait_seconds": 120}),
        )
        .await,
    );
    assert_eq!(done["status"], "finished", "{done}");

    // The cited sources, checked again: unchanged.
    let recheck = value(&call(&client, "recheck", json!({"session": session})).await);
    assert!(recheck.to_string().contains("unchanged"), "{recheck}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_run_whose_server_was_killed_goes_on_when_the_next_server_is_asked_about_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    // The writer takes long enough to kill the server while it writes.
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    for a in script["answers"].as_array_mut().unwrap() {
        if a["purpose"] == "write" {
            a["delay_ms"] = json!(60_000);
        }
    }
    let slow = dir.path().join("slow.json");
    std::fs::write(&slow, script.to_string()).unwrap();
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("mcp")
            .arg("--db")
            .arg(&db)
            .env_remove("RESEARCH_LLM");
    }))
    .unwrap();
    let pid = transport.id().expect("the server's pid");
    let client = ().serve(transport).await.unwrap();
    let started = value(
        &call(
            &client,
            "research",
            json!({"question": QUESTION, "model": format!("scripted:{}", slow.display()),
                   "search": ["local"], "depth": "quick"}),
        )
        .await,
    );
    let thread = started["thread"].as_str().unwrap().to_string();
    // Until it writes (the searches and reading are saved by then), then the server is killed.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = value(&call(&client, "research_status", json!({"thread": thread})).await);
        let progress = status["progress"].to_string();
        if progress.contains("writ") {
            break;
        }
        assert_eq!(status["status"], "running", "{status}");
        assert!(
            Instant::now() < deadline,
            "it never began writing: {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // `kill` returns once the signal is sent; the process dies a moment later (longer on a busy
    // machine). The next server is asked once it has died — dead or a zombie not yet reaped.
    let gone = Instant::now() + Duration::from_secs(20);
    while Instant::now() < gone {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = state
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .trim()
            .chars()
            .next();
        if matches!(state, None | Some('Z') | Some('X')) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(client);

    // The next server knows the run ended mid-way and continues it from its last checkpoint
    // (the writer answers at once this time).
    for a in script["answers"].as_array_mut().unwrap() {
        a.as_object_mut().unwrap().remove("delay_ms");
    }
    std::fs::write(&slow, script.to_string()).unwrap();
    let client = connect(&db).await;
    // The next status call finds its process gone and continues it from its last checkpoint.
    let status = value(&call(&client, "research_status", json!({"thread": thread})).await);
    assert_eq!(status["status"], "running", "{status}");
    assert!(
        status["note"].as_str().unwrap().contains("last checkpoint"),
        "{status}"
    );
    let again = call(&client, "resume", json!({"thread": thread})).await;
    assert_eq!(again.is_error, Some(true), "not twice: {}", text(&again));
    let done = value(
        &call(
            &client,
            "research_status",
            json!({"thread": thread, "wait_seconds": 120}),
        )
        .await,
    );
    assert_eq!(done["status"], "finished", "{done}");
    let calls: Vec<String> = done["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert!(
        !calls.iter().any(|l| l.starts_with("  searching")),
        "the searches before the kill were not run again: {calls:?}"
    );
    client.cancel().await.unwrap();
}

#[test]
fn another_studios_library_over_mcp_is_a_source_that_is_read_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (theirs, ours) = (
        dir.path().join("theirs.sqlite"),
        dir.path().join("ours.sqlite"),
    );
    library(&theirs);
    // Their Research Studio's library, served over MCP, is our source `mcp:studio`.
    let command = format!("{BIN} mcp --db {}#library_search", theirs.display());
    let set = research(
        &[
            "settings",
            "set",
            "mcp_sources",
            &format!("studio={command}"),
        ],
        &ours,
    );
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let providers = research(&["providers", "--json"], &ours);
    let listed: Value = serde_json::from_slice(&providers.stdout).unwrap();
    let studio = |listed: &Value| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "mcp:studio")
            .cloned()
            .unwrap_or_else(|| panic!("{listed}"))
    };
    assert_eq!(studio(&listed)["ready"], true, "{listed}");
    // A tool the server does not have: not ready, saying which it has. The server is started
    // to ask, as a search would.
    let wrong = format!("{BIN} mcp --db {}#nosuch", theirs.display());
    let set = research(
        &["settings", "set", "mcp_sources", &format!("studio={wrong}")],
        &ours,
    );
    assert!(set.status.success());
    let providers = research(&["providers", "--json"], &ours);
    let listed: Value = serde_json::from_slice(&providers.stdout).unwrap();
    let wrong = studio(&listed);
    assert_eq!(wrong["ready"], false, "{wrong}");
    let detail = wrong["detail"].as_str().unwrap();
    assert!(
        detail.contains("no tool `nosuch`") && detail.contains("library_search"),
        "{detail}"
    );
    let set = research(
        &[
            "settings",
            "set",
            "mcp_sources",
            &format!("studio={command}"),
        ],
        &ours,
    );
    assert!(set.status.success());

    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let result = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "mcp:studio",
            "--no-input",
            "--json",
        ],
        &ours,
    ));
    let sources = result["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{result}");
    assert!(
        sources
            .iter()
            .all(|s| s["url"].as_str().unwrap().starts_with("mcp://studio/")),
        "{sources:?}"
    );
    assert!(
        result["audit"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["status"] == "verified"),
        "{}",
        result["audit"]
    );
    assert!(result["report"].as_str().unwrap().contains("[1]"));

    // A source that is not set up, and one whose command is not installed: clear errors.
    let unknown = research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "mcp:wiki",
            "--no-input",
        ],
        &ours,
    );
    assert!(!unknown.status.success());
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        err.contains("no MCP source `wiki`") && err.contains("mcp_sources"),
        "{err}"
    );
    let set = research(
        &[
            "settings",
            "set",
            "mcp_sources",
            "gone=/nonexistent/wiki-mcp --root x",
        ],
        &ours,
    );
    assert!(set.status.success());
    let missing = research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "mcp:gone",
            "--no-input",
            "--json",
        ],
        &ours,
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&missing.stdout),
        String::from_utf8_lossy(&missing.stderr)
    );
    assert!(text.contains("could not start"), "{text}");
    let bad = research(&["settings", "set", "mcp_sources", "no equals sign"], &ours);
    assert!(!bad.status.success());
}

#[test]
fn a_wiki_behind_a_small_mcp_server_is_read_quoted_and_checked() {
    // A stdio MCP server written for this test in Python, speaking the protocol by hand: not
    // rmcp on both ends.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let server = fixtures().join("wiki_mcp.py");
    let set = research(
        &[
            "settings",
            "set",
            "mcp_sources",
            &format!("wiki=python3 {}#search_wiki", server.display()),
        ],
        &db,
    );
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    let result = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "mcp:wiki",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    let sources = result["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{result}");
    assert!(sources
        .iter()
        .all(|s| s["url"].as_str().unwrap().starts_with("mcp://wiki/")));
    // The evidence quotes what the server returned, and the report's audit verified some of it.
    let quotes: Vec<&str> = result["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["quote"].as_str())
        .collect();
    assert!(
        quotes
            .iter()
            .any(|q| q.contains("waggle dance") || q.contains("honeybee hives")),
        "{quotes:?}"
    );
    assert!(
        result["audit"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["status"] == "verified"),
        "{}",
        result["audit"]
    );
    assert!(
        result["report"].as_str().unwrap().contains("mcp://wiki/"),
        "the sources list names it"
    );
    // `research search` takes the same source as `run` does.
    let found = ok(&research(
        &["search", "waggle dance", "--search", "mcp:wiki", "--json"],
        &db,
    ));
    let hits = found["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{found:#}");
    assert!(hits
        .iter()
        .all(|h| h["url"].as_str().unwrap().starts_with("mcp://wiki/")));
    // A source that is not set up is named as such, with the ones there are.
    let missing = research(&["search", "bees", "--search", "mcp:nosuch"], &db);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("no MCP source `nosuch` is set up") && err.contains("wiki"),
        "{err}"
    );
}
