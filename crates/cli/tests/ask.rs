//! `research ask` against a local OpenAI-compatible mock server.

use std::process::Command;

use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");

fn completion(content: &str) -> serde_json::Value {
    json!({"model": "mock-model", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 3, "completion_tokens": 2}})
}

async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .args(args)
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn streams_an_answer_and_honours_a_schema() {
    let server = MockServer::start().await;
    let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\" there\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;
    let spec = format!("openai-compat:{}/v1#mock-model", server.uri());
    let out = run(vec![
        "ask".into(),
        "Say hello".into(),
        "--llm".into(),
        spec.clone(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "Hello there\n");

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(completion("```json\n{\"city\": \"Lyon\"}\n```")),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}"#,
    )
    .unwrap();
    let spec = format!("openai-compat:{}/v1#mock-model", server.uri());
    let out = run(vec![
        "ask".into(),
        "A city?".into(),
        "--llm".into(),
        spec,
        "--schema".into(),
        schema.display().to_string(),
        "--json".into(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["json"]["city"], "Lyon");
    assert_eq!(answer["calls"], 1);
}

#[tokio::test]
async fn user_mistakes_are_one_sentence() {
    let out = run(vec![
        "ask".into(),
        "  ".into(),
        "--llm".into(),
        "openai:gpt-4o-mini".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "research: the prompt is empty"
    );

    let out = run(vec![
        "ask".into(),
        "hi".into(),
        "--llm".into(),
        "openai:gpt-4o-mini".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no API key is set for openai") && err.contains("OPENAI_API_KEY"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1);

    let out = run(vec![
        "ask".into(),
        "hi".into(),
        "--llm".into(),
        "gpt4".into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a model string"));

    // A huge prompt arrives on standard input (no argument can be that long).
    let big = "x".repeat(200_001);
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = Command::new(BIN)
            .args(["ask", "-", "--llm", "openai:gpt-4o-mini"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(big.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than 200000 characters"));
}
