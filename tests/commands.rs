//! The app's commands on a mock Tauri runtime (no window, no WebKit): the page's calls go
//! through the real IPC layer, so argument names, JSON shapes and `{code, message}` errors are
//! what the UI gets.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use research_api::{KeychainStatus, MemoryKeys, Studio};
use research_studio::commands::AppState;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindowBuilder;

const SENTINEL: &str = "sk-SENTINEL-0123456789abcdef-KEY";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/cli/tests/fixtures")
}

struct App {
    _app: tauri::App<tauri::test::MockRuntime>,
    window: tauri::WebviewWindow<tauri::test::MockRuntime>,
    dir: tempfile::TempDir,
}

impl App {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let studio = Studio::open(Some(&dir.path().join("research.sqlite3"))).unwrap();
        studio
            .library()
            .unwrap()
            .add(&fixtures().join("corpus"), &|_| {})
            .unwrap();
        let app = mock_builder()
            .plugin(tauri_plugin_store::Builder::default().build())
            .manage(AppState {
                studio,
                keys: Arc::new(MemoryKeys::default()),
                keychain: KeychainStatus {
                    available: false,
                    detail: "tests keep keys in memory".into(),
                },
                log_dir: dir.path().join("logs"),
                storage_problem: None,
                runs: Default::default(),
                download: Default::default(),
                embedding_stop: Default::default(),
            })
            .invoke_handler(research_studio::invoke_handler())
            .build(tauri::generate_context!(test = true))
            .unwrap();
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        Self {
            _app: app,
            window,
            dir,
        }
    }

    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        get_ipc_response(
            &self.window,
            InvokeRequest {
                cmd: cmd.into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body: InvokeBody::Json(args),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|b| b.deserialize::<Value>().unwrap())
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.call(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }
}

fn request(question: &str, review: bool) -> Value {
    json!({"request": {
        "question": question,
        "config": {
            "mode": "single",
            "models": {"model": format!("scripted:{}", fixtures().join("script.json").display())},
            "search": ["local"],
            "review": {"clarify": review, "plan": review, "report": review},
        }
    }})
}

#[test]
fn a_research_runs_through_the_commands_and_its_session_shows_a_grounded_report() {
    let app = App::new();
    let info = app.ok("app_info", json!({}));
    assert_eq!(info["first_run"], true);
    assert_eq!(info["keychain"]["available"], false);

    let started = app.ok(
        "create_research",
        request(
            "How do honeybees communicate and organise their colonies?",
            false,
        ),
    );
    let thread = started["thread_id"].as_str().unwrap().to_string();
    let session = started["session_id"].as_str().unwrap().to_string();
    let outcome = app.ok(
        "run_research",
        json!({"threadId": thread, "answer": null, "onEvent": "__CHANNEL__:1"}),
    );
    assert_eq!(outcome["status"], "finished", "{outcome}");

    let detail = app.ok("session", json!({"id": session}));
    let html = detail["report_html"].as_str().unwrap();
    assert!(html.contains("<h2>"), "{html}");
    assert!(html.contains("href=\"#cite-1\""), "{html}");
    assert!(!html.contains("<script"), "{html}");
    let sources = detail["sources"].as_array().unwrap();
    assert!(!sources.is_empty());
    assert!(!detail["claims"].as_array().unwrap().is_empty());
    // The run's usage so far, from its call ledger (a resumed run's counters start there).
    let usage = app.ok("run_usage", json!({"threadId": thread}));
    assert!(usage["calls"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(
        usage["calls"], detail["reports"][0]["provenance"]["llm_calls"],
        "{usage}"
    );

    // A follow-up that has not run yet leaves the report and the findings it cites together.
    let follow = app.ok(
        "follow_up",
        json!({"sessionId": session, "question": "And how do they find water?"}),
    );
    assert_ne!(follow["thread_id"].as_str().unwrap(), thread);
    let before = app.ok("session", json!({"id": session}));
    assert_eq!(before["runs"].as_array().unwrap().len(), 2);
    assert_eq!(before["sources"], detail["sources"]);
    assert_eq!(before["report_html"], detail["report_html"]);

    // The Method panel's record: the plan, the searches run and the rounds.
    let method = &detail["method"];
    assert!(
        !method["research_questions"].as_array().unwrap().is_empty(),
        "{method}"
    );
    assert_eq!(
        method["question_coverage"].as_array().unwrap().len(),
        method["research_questions"].as_array().unwrap().len(),
        "{method}"
    );
    assert!(
        !method["metadata"]["queries"].as_array().unwrap().is_empty(),
        "{method}"
    );
    assert!(
        method["metadata"]["iterations"].as_u64().unwrap() >= 1,
        "{method}"
    );
    assert!(
        !method["interpretation"].as_str().unwrap().is_empty(),
        "{method}"
    );
    // Each source's stored text, as the page shows it, holds its evidence quotes verbatim.
    for s in sources {
        let text = app.ok("source_text", json!({"sha256": s["sha256"]}));
        let shown = research_pipeline::text::plain(text.as_str().unwrap());
        for e in detail["evidence"].as_array().unwrap() {
            if e["source_id"] == s["source_id"] {
                assert!(shown.contains(e["quote"].as_str().unwrap()), "{e}");
            }
        }
    }
    let listed = app.ok("list_sessions", json!({"text": "honeybees"}));
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let listed = app.ok("list_sessions", json!({"text": "volcanoes"}));
    assert!(listed.as_array().unwrap().is_empty());
    app.ok("rename_session", json!({"id": session, "title": "Bees"}));
    assert_eq!(
        app.ok("session", json!({"id": session}))["session"]["title"],
        "Bees"
    );
    assert_eq!(app.ok("app_info", json!({}))["first_run"], false);
    // Keep current: the session's schedule is set, paused and removed through the commands.
    assert_eq!(
        app.ok("session_schedule", json!({"sessionId": session})),
        Value::Null
    );
    let watched = app.ok(
        "watch_session",
        json!({"sessionId": session, "every": "1w", "researchAgain": true}),
    );
    assert_eq!(watched["every"], "1w");
    app.ok(
        "pause_schedule",
        json!({"sessionId": session, "paused": true}),
    );
    assert_eq!(
        app.ok("session_schedule", json!({"sessionId": session}))["paused"],
        true
    );
    let too_often = app
        .call(
            "watch_session",
            json!({"sessionId": session, "every": "5m", "researchAgain": false}),
        )
        .unwrap_err();
    assert_eq!(too_often["code"], "invalid_input", "{too_often}");
    app.ok("unwatch_session", json!({"sessionId": session}));
    let gone = app
        .call("unwatch_session", json!({"sessionId": session}))
        .unwrap_err();
    assert!(
        gone["message"].as_str().unwrap().contains("no schedule"),
        "{gone}"
    );
    // Nothing is running any more, so Cancel has nothing to stop.
    assert_eq!(app.ok("cancel_run", json!({"threadId": thread})), false);
}

#[test]
fn review_points_wait_with_a_typed_question_and_resume_with_the_answer() {
    let app = App::new();
    let started = app.ok(
        "create_research",
        request("How do honeybees communicate?", true),
    );
    let thread = started["thread_id"].as_str().unwrap().to_string();
    let mut outcome = app.ok(
        "run_research",
        json!({"threadId": thread, "answer": null, "onEvent": "__CHANNEL__:1"}),
    );
    let mut asked = Vec::new();
    while outcome["status"] == "waiting" {
        let question = &outcome["question"]["question"];
        asked.push(question["type"].as_str().unwrap().to_string());
        // The question is still there for a restarted app to ask again.
        let pending = app.ok("pending_question", json!({"threadId": thread}));
        assert_eq!(pending["question"], *question);
        let answer = match question["type"].as_str().unwrap() {
            "plan_review" => json!({"type": "approve_plan"}),
            "report_review" => json!({"type": "approve_report"}),
            other => panic!("unexpected question {other}"),
        };
        outcome = app.ok(
            "run_research",
            json!({"threadId": thread, "answer": answer, "onEvent": "__CHANNEL__:2"}),
        );
    }
    assert_eq!(asked, ["plan_review", "report_review"]);
    assert_eq!(outcome["status"], "finished");
    assert!(app
        .ok("pending_question", json!({"threadId": thread}))
        .is_null());
}

#[test]
fn mistakes_come_back_as_code_and_sentence() {
    let app = App::new();
    let err = app
        .call("create_research", request("   ", false))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    assert!(err["message"].as_str().unwrap().contains("empty"), "{err}");
    let huge = "why ".repeat(2_000);
    let err = app
        .call("create_research", request(&huge, false))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    let err = app
        .call("session", json!({"id": "no-such-session"}))
        .unwrap_err();
    assert_eq!(err["code"], "not_found");
    let err = app
        .call(
            "set_setting",
            json!({"key": "ollama_url", "value": "not a url"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    let err = app
        .call("set_setting", json!({"key": "colour", "value": "blue"}))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    let err = app
        .call("open_external", json!({"url": "javascript:alert(1)"}))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    // Export before any report: a clear conflict, before any dialog opens.
    let started = app.ok("create_research", request("Bees?", false));
    let err = app
        .call(
            "export_report",
            json!({"sessionId": started["session_id"], "format": "pdf"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "conflict", "{err}");
    let err = app
        .call(
            "export_report",
            json!({"sessionId": started["session_id"], "format": "odt"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input", "{err}");
}

#[test]
fn settings_estimates_and_the_graph_outline() {
    let app = App::new();
    let settings = app.ok(
        "set_setting",
        json!({"key": "default_model", "value": "ollama:qwen2.5:7b"}),
    );
    assert_eq!(settings["default_model"], "ollama:qwen2.5:7b");
    assert_eq!(
        app.ok("get_settings", json!({}))["default_model"],
        "ollama:qwen2.5:7b"
    );
    // The CLI reads the same file.
    let file = std::fs::read_to_string(app.dir.path().join("settings.json")).unwrap();
    assert!(file.contains("ollama:qwen2.5:7b"));
    app.ok("set_setting", json!({"key": "default_model", "value": ""}));
    assert!(app.ok("get_settings", json!({}))["default_model"].is_null());

    // The app's own preferences (store plugin) start empty, keep what was saved, and live in
    // the profile folder beside the database.
    let fresh = app.ok("preferences", json!({}));
    assert_eq!(fresh["onboarding_done"], false);
    assert!(fresh["mode"].is_null());
    let prefs = json!({"mode": "multi", "depth": "quick", "structure": "concise", "language": "ja",
        "search": "local, wikipedia", "review": {"clarify": false, "plan": true, "report": false},
        "onboarding_done": true});
    app.ok("save_preferences", json!({"preferences": prefs}));
    assert_eq!(app.ok("preferences", json!({})), prefs);
    let stored = std::fs::read_to_string(app.dir.path().join("preferences.json")).unwrap();
    assert!(stored.contains("wikipedia"), "{stored}");

    let cheap = app.ok(
        "estimate_run",
        json!({"config": {"depth": "quick", "models": {"model": "openai:gpt-4o-mini"}}}),
    );
    let deep = app.ok(
        "estimate_run",
        json!({"config": {"depth": "comprehensive", "models": {"model": "openai:gpt-4o-mini"}}}),
    );
    assert!(deep["calls"].as_u64() > cheap["calls"].as_u64());
    assert!(deep["cost_usd"].as_f64() > cheap["cost_usd"].as_f64());

    let single = app.ok("graph_outline", json!({"mode": "single"}));
    let nodes: Vec<&str> = single["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(nodes.contains(&"search_and_extract") && !nodes.contains(&"search_worker"));
    let multi = app.ok("graph_outline", json!({"mode": "multi"}));
    assert!(multi["nodes"].to_string().contains("search_worker"));
    assert!(
        multi["mermaid"].as_str().unwrap().starts_with("graph")
            || multi["mermaid"].as_str().unwrap().contains("-->")
    );
}

#[test]
fn keys_are_only_ever_returned_masked() {
    let app = App::new();
    let listed = app.ok("set_key", json!({"provider": "openai", "key": SENTINEL}));
    let text = listed.to_string();
    assert!(!text.contains(SENTINEL), "{text}");
    let openai = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["provider"] == "openai")
        .unwrap();
    assert_eq!(openai["source"], "session");
    assert!(openai["masked"].as_str().unwrap().contains('…'));
    assert!(!app
        .ok("list_keys", json!({}))
        .to_string()
        .contains(SENTINEL));
    let err = app
        .call("set_key", json!({"provider": "duckduckgo", "key": "x"}))
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    app.ok("delete_key", json!({"provider": "openai"}));
    // Nothing the app wrote holds the key: database, settings, logs.
    for entry in walk(app.dir.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes
                .windows(SENTINEL.len())
                .any(|w| w == SENTINEL.as_bytes()),
            "{} holds the key",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Serves `body` to every request on a local port; its URL for `name`.
fn serve_file(body: Vec<u8>, name: &str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/{name}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for sock in listener.incoming() {
            let mut sock = sock.unwrap();
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf);
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
            let _ = sock.write_all(head.as_bytes());
            let _ = sock.write_all(&body);
        }
    });
    url
}

#[test]
fn a_model_downloads_into_the_data_folder_and_bad_links_are_clear_errors() {
    let app = App::new();
    let models = app.ok("recommended_models", json!({}));
    assert!(models.as_array().unwrap().len() >= 2, "{models}");

    let mut body = b"GGUF".to_vec();
    body.extend(std::iter::repeat_n(7u8, 250_000));
    let url = serve_file(body.clone(), "tiny.gguf");
    let done = app.ok(
        "download_model",
        json!({"url": url, "onProgress": "__CHANNEL__:2"}),
    );
    let path = PathBuf::from(done["path"].as_str().unwrap());
    assert_eq!(path, app.dir.path().join("models/tiny.gguf"));
    assert_eq!(std::fs::read(&path).unwrap(), body);
    assert_eq!(done["spec"], format!("local:{}", path.display()));
    // Nothing is downloading any more, so there is nothing to stop.
    assert_eq!(app.ok("cancel_download", json!({})), false);

    let err = app
        .call(
            "download_model",
            json!({"url": "not a link", "onProgress": "__CHANNEL__:3"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "invalid_input", "{err}");
    let html = serve_file(b"<html>login</html>".to_vec(), "page.gguf");
    let err = app
        .call(
            "download_model",
            json!({"url": html, "onProgress": "__CHANNEL__:4"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], "provider_failed", "{err}");
    assert!(!app.dir.path().join("models/page.gguf").exists());
}

#[test]
fn the_library_says_when_indexing_by_meaning_is_due_and_stopping_it_is_safe() {
    let app = App::new();
    let m = app.ok("library_meaning", json!({}));
    assert!(m["passages"].as_u64().unwrap() > 0, "{m}");
    let due = m["installed"].as_bool().unwrap() && m["vectors"].as_u64() < m["passages"].as_u64();
    assert_eq!(m["due"], json!(due), "{m}");
    // Nothing is indexing: stopping does nothing, and the next pass is not stopped by it.
    assert_eq!(app.ok("library_embed_stop", json!({})), json!(null));
}
