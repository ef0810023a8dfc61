//! The built-in model on a real GGUF file (SmolLM2-135M-Instruct, fetched by scripts/fetch-model.sh
//! into the cache; RS_TEST_MODEL names it). In CI a missing model fails the test; elsewhere the
//! tests say they were skipped.
#![cfg(feature = "local")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use research_llm::{connect, generate, ChatRequest, ConnectSettings, LlmClient, LlmError, Message};

fn model() -> Option<Arc<dyn LlmClient>> {
    let path = std::env::var_os("RS_TEST_MODEL")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    let Some(path) = path else {
        assert!(
            std::env::var_os("CI").is_none(),
            "RS_TEST_MODEL does not name the test model; scripts/test.sh fetches it with scripts/fetch-model.sh"
        );
        eprintln!("skipped: set RS_TEST_MODEL to the SmolLM2 GGUF (scripts/fetch-model.sh prints its path)");
        return None;
    };
    Some(
        connect(
            &format!("local:{}", path.display()),
            &ConnectSettings::default(),
        )
        .unwrap(),
    )
}

#[tokio::test]
async fn answers_and_streams() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user(
        "What is the capital of France? Answer in one sentence.",
    )]);
    request.max_tokens = Some(48);
    let streamed = Arc::new(Mutex::new(String::new()));
    let sink = {
        let streamed = streamed.clone();
        move |t: &str| streamed.lock().unwrap().push_str(t)
    };
    let answer = model.complete(&request, Some(&sink)).await.unwrap();
    assert!(!answer.text.trim().is_empty());
    assert_eq!(
        *streamed.lock().unwrap(),
        answer.text,
        "streamed pieces add up to the answer"
    );
    assert!(answer.usage.prompt_tokens > 5 && answer.usage.completion_tokens > 0);
    assert!(answer.usage.completion_tokens <= 48);
}

/// Kept small and bounded: a 135M model writes valid JSON under a grammar, but only briefly.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Outline {
    #[schemars(length(min = 1, max = 60))]
    topic: String,
    #[schemars(length(min = 1, max = 3), inner(length(min = 1, max = 80)))]
    questions: Vec<String>,
}

#[tokio::test]
async fn structured_output_is_valid_json_of_the_schema() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user(
        "Plan research on how honey bees communicate: give the topic and up to three research questions.",
    )]);
    request.max_tokens = Some(256);
    let out = generate::<Outline>(model.as_ref(), request, None)
        .await
        .unwrap();
    assert!(!out.value.topic.is_empty());
    assert!((1..=3).contains(&out.value.questions.len()));
}

#[tokio::test]
async fn a_prompt_longer_than_the_context_is_refused_before_running() {
    let Some(model) = model() else { return };
    let huge = "bees ".repeat(6000);
    let err = model
        .complete(&ChatRequest::new(vec![Message::user(huge)]), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
}

#[test]
fn a_missing_model_file_is_a_clear_error() {
    let err = connect("local:/nonexistent/model.gguf", &ConnectSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert_eq!(err, "there is no model file at /nonexistent/model.gguf");
}
