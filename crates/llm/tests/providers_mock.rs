//! Anthropic, Gemini and Ollama's own cases against a local mock server, with answers shaped
//! like each API's documented ones. What every HTTP provider must do (answers, streams,
//! structured output, every failure and its retries) is checked once for all of them by the
//! conformance suite in `llm_conformance.rs`; what is left here is particular to one API.

use std::sync::Arc;
use std::time::Duration;

use research_llm::{
    connect, generate, ChatRequest, ConnectSettings, LlmClient, LlmError, Message, RetryConfig,
};
use serde_json::json;
use wiremock::matchers::method;
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

async fn model(server: &MockServer, spec: &str) -> Arc<dyn LlmClient> {
    connect(spec, &settings(server)).unwrap()
}

#[tokio::test]
async fn anthropic_forces_its_tool_and_sets_a_token_limit() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
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
    let sent: serde_json::Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["tool_choice"], json!({"type": "tool", "name": "Plan"}));
    assert_eq!(
        sent["max_tokens"], 4096,
        "the Messages API requires a limit; a request without one gets the default"
    );
}

#[tokio::test]
async fn anthropic_overloaded_is_a_retried_server_error() {
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
}

#[tokio::test]
async fn gemini_blocks_and_its_bad_key_status() {
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
async fn ollama_missing_model_says_how_to_pull_it() {
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

/// Ollama is told the context to give (its default silently drops a long prompt's start), and
/// the pipeline is told the same size to shrink prompts to.
#[tokio::test]
async fn ollama_is_asked_for_the_context_the_pipeline_fits_prompts_to() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(wiremock::matchers::body_partial_json(
            json!({"options": {"num_ctx": research_llm::OLLAMA_CONTEXT_TOKENS}}),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "model": "llama3.2", "message": {"role": "assistant", "content": "ok"},
            "done": true, "prompt_eval_count": 5, "eval_count": 1
        })))
        .expect(1)
        .mount(&server)
        .await;
    let client = model(&server, "ollama:llama3.2").await;
    assert_eq!(
        client.context_tokens(),
        Some(research_llm::OLLAMA_CONTEXT_TOKENS)
    );
    assert_eq!(client.complete(&ask(), None).await.unwrap().text, "ok");
}
