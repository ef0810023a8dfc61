//! The scripted model: answers by purpose, in order, recorded.
use research_llm::{connect, generate, ChatRequest, ConnectSettings, Message};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    questions: Vec<String>,
}

#[tokio::test]
async fn answers_by_purpose_in_order_and_records_requests() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"answers": [
            {"purpose": "plan", "json": {"questions": ["q1", "q2"]}},
            {"purpose": "write", "text": "First draft."},
            {"purpose": "write", "text": "Second draft."}
        ]}"#,
    )
    .unwrap();
    let spec = format!("scripted:{}", script.display());
    let model = connect(&spec, &ConnectSettings::default()).unwrap();
    let ask = |purpose: &str| ChatRequest::new(vec![Message::user("go")]).purpose(purpose);
    let plan = generate::<Plan>(model.as_ref(), ask("plan"), None)
        .await
        .unwrap();
    assert_eq!(plan.value.questions, ["q1", "q2"]);
    assert_eq!(
        model.complete(&ask("write"), None).await.unwrap().text,
        "First draft."
    );
    assert_eq!(
        model.complete(&ask("write"), None).await.unwrap().text,
        "Second draft."
    );
    assert_eq!(
        model.complete(&ask("write"), None).await.unwrap().text,
        "Second draft.",
        "the last answer repeats"
    );
    let err = model
        .complete(&ask("review"), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("no answer for purpose `review`"), "{err}");
    assert_eq!(model.spec(), spec);
}

#[test]
fn a_broken_script_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(&script, "{not json").unwrap();
    let err = connect(
        &format!("scripted:{}", script.display()),
        &ConnectSettings::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("is not valid"), "{err}");
    let err = connect("scripted:/nonexistent/x.json", &ConnectSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("could not read the script /nonexistent/x.json"),
        "{err}"
    );
}

#[tokio::test]
async fn a_user_schema_is_enforced() {
    use research_llm::{generate_json, OutputSchema, ScriptedAnswer, ScriptedLlm};
    let answer = |json: serde_json::Value| ScriptedAnswer {
        purpose: None,
        contains: None,
        text: None,
        json: Some(json),
        delay_ms: None,
    };
    let schema = OutputSchema {
        name: "city".into(),
        schema: serde_json::json!({"type": "object", "required": ["name", "population"],
            "properties": {"name": {"type": "string"}, "population": {"type": "integer", "minimum": 0}}}),
    };
    let req = ChatRequest::new(vec![Message::user("largest city?")]);
    // Wrong twice: a typed error that says what was wrong.
    let model = ScriptedLlm::new(vec![answer(
        serde_json::json!({"name": "Tokyo", "population": -1}),
    )]);
    let err = generate_json(&model, req.clone(), schema.clone(), None)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("minimum"), "{err}");
    assert_eq!(model.requests().len(), 2);
    // Wrong once, then right.
    let model = ScriptedLlm::new(vec![
        answer(serde_json::json!({"name": "Tokyo"})),
        answer(serde_json::json!({"name": "Tokyo", "population": 37_000_000})),
    ]);
    let out = generate_json(&model, req, schema, None).await.unwrap();
    assert_eq!(out.value["population"], 37_000_000);
    assert_eq!(out.calls, 2);
}
