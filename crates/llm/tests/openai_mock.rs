//! The OpenAI client's own cases against a local mock server. What every HTTP provider must do
//! (answers, streams, structured output, every failure and its retries) is checked once for all
//! of them by the conformance suite in `llm_conformance.rs`; what is left here is OpenAI's.

use std::sync::Arc;
use std::time::Duration;

use research_llm::{
    connect, generate, ChatRequest, ConnectSettings, LlmClient, Message, RetryConfig,
};
use serde::Deserialize;
use serde_json::json;
use wiremock::matchers::method;
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
async fn missing_key_says_how_to_set_it() {
    let err = connect("openai:gpt-4o-mini", &ConnectSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("OPENAI_API_KEY"), "{err}");
}
