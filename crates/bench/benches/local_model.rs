//! The built-in model's prompt-processing and generation speed on a GGUF file.
//!
//! `RS_TEST_MODEL` names the file (scripts/fetch-model.sh prints it). Prints one JSON line per
//! measurement: a short and a long prompt, unconstrained and schema-constrained generation.

use std::time::Instant;

use research_llm::{connect, ChatRequest, ConnectSettings, Flow, Message, OutputSchema};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(model) = std::env::var_os("RS_TEST_MODEL") else {
        eprintln!("set RS_TEST_MODEL to a GGUF file (scripts/fetch-model.sh)");
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let llm = connect(
        &format!("local:{}", model.to_string_lossy()),
        &ConnectSettings::default(),
    )
    .unwrap();
    let long_context =
        "Honey bees communicate the location of food with a waggle dance. ".repeat(40);
    let cases: [(&str, String, Option<OutputSchema>); 3] = [
        (
            "short_prompt",
            "Write a paragraph about honey bees.".to_string(),
            None,
        ),
        (
            "long_prompt",
            format!("{long_context}\nSummarise the text above in one paragraph."),
            None,
        ),
        (
            "json_schema",
            "List three research questions about honey bee communication.".to_string(),
            Some(OutputSchema {
                name: "questions".into(),
                schema: serde_json::json!({"type": "object", "required": ["questions"], "properties": {
                    "questions": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "string", "maxLength": 100}}}}),
            }),
        ),
    ];
    for (name, prompt, schema) in cases {
        let mut request = ChatRequest::new(vec![Message::user(prompt)]);
        request.max_tokens = Some(128);
        request.schema = schema;
        // Warm-up (model load, caches), then the median of 3.
        rt.block_on(llm.complete(&request, None)).unwrap();
        let mut runs = Vec::new();
        for _ in 0..3 {
            let first_token = std::sync::Mutex::new(None::<f64>);
            let t = Instant::now();
            let sink = |_: &str| {
                let mut f = first_token.lock().unwrap();
                if f.is_none() {
                    *f = Some(t.elapsed().as_secs_f64());
                }
                Flow::Continue
            };
            let answer = rt.block_on(llm.complete(&request, Some(&sink))).unwrap();
            let total = t.elapsed().as_secs_f64();
            let ttft = first_token.lock().unwrap().unwrap_or(total);
            let prompt_tps = answer.usage.prompt_tokens as f64 / ttft;
            let gen_tps =
                answer.usage.completion_tokens.saturating_sub(1) as f64 / (total - ttft).max(1e-9);
            runs.push((
                prompt_tps,
                gen_tps,
                answer.usage.prompt_tokens,
                answer.usage.completion_tokens,
                total,
            ));
        }
        runs.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
        let (p, g, pt, ct, total) = runs[1];
        println!(
            "{}",
            serde_json::json!({"scenario": "local_model", "case": name, "prompt_tokens": pt, "completion_tokens": ct,
                "prompt_tok_per_s": p.round(), "gen_tok_per_s": g.round(), "total_s": (total * 1000.0).round() / 1000.0})
        );
    }
}
