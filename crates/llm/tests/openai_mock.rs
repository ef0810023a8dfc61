//! The OpenAI-compatible client against a local mock server, with answers shaped like the API's
//! documented ones: success, streaming, structured output, and every failure a server can give.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_llm::{
    connect, generate, ChatRequest, ConnectSettings, LlmClient, LlmError, Message, RetryConfig,
};
use serde::Deserialize;
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn settings(server: &MockServer) -> ConnectSettings {
    ConnectSettings {
        openai_key: Some("sk-test".into()),
        openai_base_url: format!("{}/v1", server.uri()),
        timeout: Duration::from_secs(5),
        retry: RetryConfig {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(50),
        },
        ..ConnectSettings::default()
    }
}

fn completion(content: &str) -> serde_json::Value {
    json!({
        "id": "chatcmpl-123", "object": "chat.completion", "created": 1_700_000_000, "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    })
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system("Be brief."), Message::user(text)])
}

async fn client(server: &MockServer) -> Arc<dyn LlmClient> {
    connect("openai:gpt-4o-mini", &settings(server)).unwrap()
}

#[tokio::test]
async fn answers_with_usage_and_sends_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("Paris.")))
        .expect(1)
        .mount(&server)
        .await;
    let answer = client(&server)
        .await
        .complete(&ask("Capital of France?"), None)
        .await
        .unwrap();
    assert_eq!(answer.text, "Paris.");
    assert_eq!(
        (answer.usage.prompt_tokens, answer.usage.completion_tokens),
        (12, 7)
    );
    assert_eq!(answer.model, "gpt-4o-mini-2024-07-18");
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["model"], "gpt-4o-mini");
    assert_eq!(sent["messages"][1]["content"], "Capital of France?");
    assert_eq!(sent["stream"], false);
}

fn sse(events: &[serde_json::Value], done: bool) -> String {
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body
}

fn delta(text: &str, finish: Option<&str>) -> serde_json::Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]})
}

#[tokio::test]
async fn streams_tokens_as_they_arrive() {
    let server = MockServer::start().await;
    let body = sse(
        &[
            delta("Hel", None),
            delta("lo, ", None),
            delta("world", Some("stop")),
            json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}),
        ],
        true,
    );
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = {
        let seen = seen.clone();
        move |t: &str| seen.lock().unwrap().push(t.to_string())
    };
    let answer = client(&server)
        .await
        .complete(&ask("hi"), Some(&sink))
        .await
        .unwrap();
    assert_eq!(answer.text, "Hello, world");
    assert_eq!(*seen.lock().unwrap(), ["Hel", "lo, ", "world"]);
    assert_eq!(answer.usage.completion_tokens, 3);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn a_stream_that_breaks_off_is_an_error_not_a_short_answer() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            sse(&[delta("The answer is", None)], false),
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), Some(&|_: &str| {}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("the stream ended before the answer did"),
        "{err}"
    );
}

#[derive(Debug, Deserialize, schemars::JsonSchema, PartialEq)]
struct Plan {
    questions: Vec<String>,
    depth: String,
}

#[tokio::test]
async fn structured_output_sends_the_schema_and_reads_what_models_really_write() {
    let server = MockServer::start().await;
    let messy = "<think>They want a plan {like this}.</think>\nHere you go:\n```json\n{\"questions\": [\"Why?\", \"How?\",], \"depth\": \"quick\"}\n```\nAnything else?";
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(messy)))
        .mount(&server)
        .await;
    let out = generate::<Plan>(client(&server).await.as_ref(), ask("plan it"), None)
        .await
        .unwrap();
    assert_eq!(
        out.value,
        Plan {
            questions: vec!["Why?".into(), "How?".into()],
            depth: "quick".into()
        }
    );
    assert_eq!(out.calls, 1);
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["response_format"]["type"], "json_schema");
    assert_eq!(sent["response_format"]["json_schema"]["name"], "Plan");
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"]["properties"]["questions"]["type"],
        "array"
    );
}

#[tokio::test]
async fn invalid_json_is_asked_again_once_then_a_typed_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(completion("Sorry, I can't do JSON.")),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(completion(r#"{"questions": ["a"], "depth": "standard"}"#)),
        )
        .with_priority(2)
        .mount(&server)
        .await;
    let out = generate::<Plan>(client(&server).await.as_ref(), ask("plan"), None)
        .await
        .unwrap();
    assert_eq!(out.calls, 2);
    assert_eq!(out.usage.completion_tokens, 14);
    let second: serde_json::Value = server.received_requests().await.unwrap()[1]
        .body_json()
        .unwrap();
    let last = second["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(last.contains("not valid JSON"), "{last}");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(completion(r#"{"questions": "not a list"}"#)),
        )
        .expect(2)
        .mount(&server)
        .await;
    let err = generate::<Plan>(client(&server).await.as_ref(), ask("plan"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::InvalidOutput { ref schema, .. } if schema == "Plan"),
        "{err}"
    );
}

#[tokio::test]
async fn a_refused_key_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Unauthorized {
            provider: "openai".into(),
            status: 401
        }
    );
    assert!(err
        .to_string()
        .starts_with("the key for openai was refused"));
}

#[tokio::test]
async fn rate_limits_honour_retry_after_then_succeed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0")
                .set_body_json(json!({"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}})),
        )
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("ok")))
        .with_priority(2)
        .mount(&server)
        .await;
    let answer = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap();
    assert_eq!(answer.text, "ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn server_errors_are_retried_then_reported() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("upstream busy"))
        .expect(3)
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Server {
            provider: "openai".into(),
            status: 503,
            attempts: 3
        }
    );
}

#[tokio::test]
async fn an_html_page_where_json_was_expected_is_named() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            "<html><head><title>Welcome to nginx!</title></head></html>",
            "text/html",
        ))
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("an HTML page (\"Welcome to nginx!\") instead of JSON"),
        "{err}"
    );
}

#[tokio::test]
async fn malformed_json_and_context_overflow_are_clear() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("{\"choices\": [", "application/json"),
        )
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("the JSON was malformed"), "{err}");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "This model's maximum context length is 128000 tokens.", "code": "context_length_exceeded"}})))
        .mount(&server)
        .await;
    let err = client(&server)
        .await
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
}

#[tokio::test]
async fn a_server_that_is_not_running_is_named_with_a_hint() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = ConnectSettings {
        ollama_url: format!("http://127.0.0.1:{port}"),
        retry: RetryConfig {
            max_attempts: 2,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        },
        ..ConnectSettings::default()
    };
    let err = connect("ollama:qwen2.5:7b", &settings)
        .unwrap()
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "could not reach Ollama at http://127.0.0.1:{port}: Connection refused"
        )),
        "{text}"
    );
    assert!(text.contains("is Ollama running?"), "{text}");
}

#[tokio::test]
async fn a_server_that_does_not_answer_times_out() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(completion("late"))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let settings = ConnectSettings {
        timeout: Duration::from_millis(200),
        retry: RetryConfig {
            max_attempts: 1,
            ..RetryConfig::default()
        },
        ..settings(&server)
    };
    let started = std::time::Instant::now();
    let err = connect("openai:gpt-4o-mini", &settings)
        .unwrap()
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn missing_key_says_how_to_set_it() {
    let err = connect("openai:gpt-4o-mini", &ConnectSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
}
