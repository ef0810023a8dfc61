//! Anthropic, Gemini and Ollama's native API against a local mock server, with answers shaped
//! like each API's documented ones.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_llm::{
    connect, generate, ChatRequest, ConnectSettings, LlmClient, LlmError, Message, RetryConfig,
};
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn settings(server: &MockServer) -> ConnectSettings {
    ConnectSettings {
        anthropic_key: Some("sk-ant-test".into()),
        gemini_key: Some("g-test".into()),
        anthropic_base_url: server.uri(),
        gemini_base_url: server.uri(),
        ollama_url: server.uri(),
        timeout: Duration::from_secs(5),
        retry: RetryConfig {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(20),
        },
        ..ConnectSettings::default()
    }
}

fn ask() -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Plan it."),
    ])
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    questions: Vec<String>,
}

fn collector() -> (Arc<Mutex<String>>, impl Fn(&str) + Send + Sync) {
    let seen = Arc::new(Mutex::new(String::new()));
    let s = seen.clone();
    (seen, move |t: &str| s.lock().unwrap().push_str(t))
}

async fn model(server: &MockServer, spec: &str) -> Arc<dyn LlmClient> {
    connect(spec, &settings(server)).unwrap()
}

#[tokio::test]
async fn anthropic_text_tool_use_and_stream() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-ant-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Plan", "input": {"questions": ["a", "b"]}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 20, "output_tokens": 9}
        })))
        .mount(&server)
        .await;
    let m = model(&server, "anthropic:claude-sonnet-4-5").await;
    let out = generate::<Plan>(m.as_ref(), ask(), None).await.unwrap();
    assert_eq!(out.value.questions, ["a", "b"]);
    assert_eq!(out.usage.prompt_tokens, 20);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["tool_choice"], json!({"type": "tool", "name": "Plan"}));
    assert!(
        sent["system"].as_str().unwrap().starts_with("Be brief."),
        "system messages go to `system`"
    );
    assert_eq!(sent["messages"].as_array().unwrap().len(), 1);
    assert_eq!(sent["max_tokens"], 4096);

    let server = MockServer::start().await;
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 11, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " world"}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let body: String = events
        .iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;
    let (seen, sink) = collector();
    let answer = model(&server, "anthropic:claude-sonnet-4-5")
        .await
        .complete(&ask(), Some(&sink))
        .await
        .unwrap();
    assert_eq!(answer.text, "Hello world");
    assert_eq!(*seen.lock().unwrap(), "Hello world");
    assert_eq!(
        (answer.usage.prompt_tokens, answer.usage.completion_tokens),
        (11, 2)
    );
}

#[tokio::test]
async fn anthropic_errors() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})))
        .expect(1)
        .mount(&server)
        .await;
    let err = model(&server, "anthropic:claude-sonnet-4-5")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Unauthorized {
            provider: "anthropic".into(),
            status: 401
        }
    );

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})))
        .expect(3)
        .mount(&server)
        .await;
    let err = model(&server, "anthropic:claude-sonnet-4-5")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            LlmError::Server {
                status: 529,
                attempts: 3,
                ..
            }
        ),
        "{err}"
    );

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}})))
        .mount(&server)
        .await;
    let err = model(&server, "anthropic:claude-sonnet-4-5")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
}

#[tokio::test]
async fn gemini_json_schema_stream_and_blocks() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-flash:generateContent"))
        .and(header("x-goog-api-key", "g-test"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "candidates": [{"content": {"parts": [{"text": "{\"questions\": [\"x\"]}"}], "role": "model"}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 5, "totalTokenCount": 13},
            "modelVersion": "gemini-2.5-flash"
        })))
        .mount(&server)
        .await;
    let m = model(&server, "gemini:gemini-2.5-flash").await;
    let out = generate::<Plan>(m.as_ref(), ask(), None).await.unwrap();
    assert_eq!(out.value.questions, ["x"]);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(
        sent["generationConfig"]["responseMimeType"],
        "application/json"
    );
    assert_eq!(
        sent["generationConfig"]["responseJsonSchema"]["properties"]["questions"]["type"],
        "array"
    );
    assert_eq!(sent["contents"][0]["role"], "user");
    assert!(sent["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Be brief."));

    let server = MockServer::start().await;
    let chunk = |text: &str, finish: Option<&str>| {
        let mut c = json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}}], "modelVersion": "gemini-2.5-flash"});
        if let Some(f) = finish {
            c["candidates"][0]["finishReason"] = json!(f);
            c["usageMetadata"] = json!({"promptTokenCount": 4, "candidatesTokenCount": 2});
        }
        format!("data: {c}\r\n\r\n")
    };
    let body = chunk("Bon", None) + &chunk("jour", Some("STOP"));
    Mock::given(method("POST"))
        .and(path(
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;
    let (seen, sink) = collector();
    let answer = model(&server, "gemini:gemini-2.5-flash")
        .await
        .complete(&ask(), Some(&sink))
        .await
        .unwrap();
    assert_eq!(
        (answer.text.as_str(), seen.lock().unwrap().as_str()),
        ("Bonjour", "Bonjour")
    );
    assert_eq!(answer.usage.completion_tokens, 2);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"promptFeedback": {"blockReason": "SAFETY"}})),
        )
        .mount(&server)
        .await;
    let err = model(&server, "gemini:gemini-2.5-flash")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("blocked the prompt (SAFETY)"), "{err}");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}})))
        .expect(1)
        .mount(&server)
        .await;
    let err = model(&server, "gemini:gemini-2.5-flash")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Unauthorized {
            provider: "gemini".into(),
            status: 400
        }
    );
}

#[tokio::test]
async fn ollama_native_format_lines_and_missing_model() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "model": "qwen2.5:7b", "created_at": "2026-11-22T10:00:00Z",
            "message": {"role": "assistant", "content": "{\"questions\": [\"q\"]}"},
            "done": true, "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 12
        })))
        .mount(&server)
        .await;
    let m = model(&server, "ollama:qwen2.5:7b").await;
    let out = generate::<Plan>(m.as_ref(), ask(), None).await.unwrap();
    assert_eq!(out.value.questions, ["q"]);
    assert_eq!(out.usage.prompt_tokens, 26);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["format"]["properties"]["questions"]["type"], "array");
    assert_eq!(sent["model"], "qwen2.5:7b");

    let server = MockServer::start().await;
    let lines = [
        json!({"model": "qwen2.5:7b", "message": {"role": "assistant", "content": "Hi"}, "done": false}),
        json!({"model": "qwen2.5:7b", "message": {"role": "assistant", "content": " there"}, "done": false}),
        json!({"model": "qwen2.5:7b", "message": {"role": "assistant", "content": ""}, "done": true, "prompt_eval_count": 3, "eval_count": 2}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/x-ndjson"))
        .mount(&server)
        .await;
    let (seen, sink) = collector();
    let answer = model(&server, "ollama:qwen2.5:7b")
        .await
        .complete(&ask(), Some(&sink))
        .await
        .unwrap();
    assert_eq!(
        (answer.text.as_str(), seen.lock().unwrap().as_str()),
        ("Hi there", "Hi there")
    );
    assert_eq!(answer.usage.completion_tokens, 2);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(404)
                .set_body_json(json!({"error": "model 'llama9' not found, try pulling it first"})),
        )
        .mount(&server)
        .await;
    let err = model(&server, "ollama:llama9")
        .await
        .complete(&ask(), None)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Ollama does not have the model `llama9`; pull it with `ollama pull llama9`"
    );

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(format!("{}\n", lines[0]), "application/x-ndjson"),
        )
        .mount(&server)
        .await;
    let err = model(&server, "ollama:qwen2.5:7b")
        .await
        .complete(&ask(), Some(&|_: &str| {}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the stream ended before the answer did"),
        "{err}"
    );
}

#[test]
fn cloud_models_without_keys_say_which_variable() {
    for (spec, env) in [
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gemini:gemini-2.5-flash", "GEMINI_API_KEY"),
    ] {
        let err = connect(spec, &ConnectSettings::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(env), "{err}");
    }
}
