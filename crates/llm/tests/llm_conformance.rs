//! The `LlmClient` conformance suite against every HTTP provider, each answered by a local mock
//! of its API. Each provider supplies a small adapter: where a call goes and how its API shapes
//! answers, streams, structured answers and errors, as its documentation shows them.

use std::sync::Arc;
use std::time::Duration;

use research_llm::conformance::{MockApi, Sent, MODEL, SERVED_MODEL};
use research_llm::{connect, ConnectSettings, LlmClient, RetryConfig, Role, Usage};
use serde_json::{json, Value};
use wiremock::matchers::{body_partial_json, header, method, path, query_param};
use wiremock::{Mock, MockBuilder, ResponseTemplate};

fn settings(timeout: Duration, retry: RetryConfig) -> ConnectSettings {
    ConnectSettings {
        timeout,
        retry,
        ..ConnectSettings::default()
    }
}

fn role(name: &str) -> Role {
    match name {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" | "model" => Role::Assistant,
        other => panic!("unknown role {other}"),
    }
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// Messages shaped `[{"role", "content"}]`, as OpenAI and Ollama take them.
fn role_content(messages: &Value) -> Vec<(Role, String)> {
    messages
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                role(m["role"].as_str().unwrap_or_default()),
                text(&m["content"]),
            )
        })
        .collect()
}

/// OpenAI's Chat Completions API, at api.openai.com or at any OpenAI-compatible server.
struct OpenAi {
    compat: bool,
}

impl OpenAi {
    fn key(&self) -> &'static str {
        if self.compat {
            "compat-key"
        } else {
            "sk-test"
        }
    }

    fn chunk(delta: &str, finish: Option<&str>) -> Value {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": SERVED_MODEL,
               "choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": finish}]})
    }
}

impl MockApi for OpenAi {
    fn provider(&self) -> &str {
        if self.compat {
            "openai-compat"
        } else {
            "openai"
        }
    }

    fn client(&self, base: &str, timeout: Duration, retry: RetryConfig) -> Arc<dyn LlmClient> {
        let mut s = settings(timeout, retry);
        if self.compat {
            s.compat_key = Some(self.key().into());
            connect(&format!("openai-compat:{base}/v1#{MODEL}"), &s).unwrap()
        } else {
            s.openai_key = Some(self.key().into());
            s.openai_base_url = format!("{base}/v1");
            connect(&format!("openai:{MODEL}"), &s).unwrap()
        }
    }

    fn call(&self, stream: bool) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", format!("Bearer {}", self.key())))
            .and(body_partial_json(json!({"model": MODEL, "stream": stream})))
    }

    fn answer(&self, text: &str, usage: Usage) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-123", "object": "chat.completion", "created": 1_700_000_000, "model": SERVED_MODEL,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                      "total_tokens": usage.prompt_tokens + usage.completion_tokens}
        }))
    }

    fn stream(&self, pieces: &[&str], usage: Usage, finished: bool) -> ResponseTemplate {
        let last = pieces.len() - 1;
        let mut body: String = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let finish = (finished && i == last).then_some("stop");
                format!("data: {}\n\n", Self::chunk(p, finish))
            })
            .collect();
        if finished {
            // With `stream_options.include_usage`, the counts come in a last chunk without choices.
            let counts = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": SERVED_MODEL, "choices": [],
                                "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}});
            body.push_str(&format!("data: {counts}\n\ndata: [DONE]\n\n"));
        }
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    }

    fn error(&self, status: u16, message: &str) -> ResponseTemplate {
        let (kind, code) = match status {
            401 | 403 => ("invalid_request_error", json!("invalid_api_key")),
            429 => ("requests", json!("rate_limit_exceeded")),
            500..=599 => ("server_error", Value::Null),
            _ => ("invalid_request_error", Value::Null),
        };
        ResponseTemplate::new(status).set_body_json(
            json!({"error": {"message": message, "type": kind, "param": null, "code": code}}),
        )
    }

    fn context_overflow(&self) -> ResponseTemplate {
        ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}))
    }

    fn sent_schema<'a>(&self, body: &'a Value) -> Option<&'a Value> {
        (body["response_format"]["type"] == "json_schema")
            .then(|| body.pointer("/response_format/json_schema/schema"))
            .flatten()
    }

    fn sent(&self, body: &Value) -> Sent {
        Sent {
            messages: role_content(&body["messages"]),
            temperature: body["temperature"].as_f64(),
            max_tokens: body["max_tokens"].as_u64(),
        }
    }

    fn unreachable_hint(&self) -> &str {
        if self.compat {
            "; is the server running?"
        } else {
            ""
        }
    }
}

/// Anthropic's Messages API; structured output is a forced tool call.
struct Anthropic;

impl Anthropic {
    fn events(events: &[Value]) -> ResponseTemplate {
        let body: String = events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect();
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    }

    fn start(usage: Usage) -> Value {
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": SERVED_MODEL,
               "content": [], "stop_reason": null, "usage": {"input_tokens": usage.prompt_tokens, "output_tokens": 1}}})
    }

    fn end(usage: Usage, reason: &str) -> [Value; 3] {
        [
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
                   "usage": {"output_tokens": usage.completion_tokens}}),
            json!({"type": "message_stop"}),
        ]
    }

    fn message(content: Value, reason: &str, usage: Usage) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": SERVED_MODEL,
            "content": content, "stop_reason": reason, "stop_sequence": null,
            "usage": {"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens}
        }))
    }
}

impl MockApi for Anthropic {
    fn provider(&self) -> &str {
        "anthropic"
    }

    fn client(&self, base: &str, timeout: Duration, retry: RetryConfig) -> Arc<dyn LlmClient> {
        let s = ConnectSettings {
            anthropic_key: Some("sk-ant-test".into()),
            anthropic_base_url: base.into(),
            ..settings(timeout, retry)
        };
        connect(&format!("anthropic:{MODEL}"), &s).unwrap()
    }

    fn call(&self, stream: bool) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .and(header("x-api-key", "sk-ant-test"))
            .and(header("anthropic-version", "2023-06-01"))
            .and(body_partial_json(json!({"model": MODEL, "stream": stream})))
    }

    fn answer(&self, text: &str, usage: Usage) -> ResponseTemplate {
        Self::message(json!([{"type": "text", "text": text}]), "end_turn", usage)
    }

    fn stream(&self, pieces: &[&str], usage: Usage, finished: bool) -> ResponseTemplate {
        let mut events = vec![
            Self::start(usage),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "ping"}),
        ];
        events.extend(pieces.iter().map(|p| {
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}})
        }));
        if finished {
            events.extend(Self::end(usage, "end_turn"));
        }
        Self::events(&events)
    }

    fn structured(&self, value: &Value, usage: Usage) -> ResponseTemplate {
        Self::message(
            json!([{"type": "tool_use", "id": "toolu_1", "name": "Plan", "input": value}]),
            "tool_use",
            usage,
        )
    }

    fn structured_stream(&self, value: &Value, usage: Usage) -> ResponseTemplate {
        let json = value.to_string();
        let (a, b) = json.split_at(json.len() / 2);
        let mut events = vec![
            Self::start(usage),
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Plan", "input": {}}}),
        ];
        events.extend([a, b].iter().map(|p| {
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}})
        }));
        events.extend(Self::end(usage, "tool_use"));
        Self::events(&events)
    }

    fn error(&self, status: u16, message: &str) -> ResponseTemplate {
        let kind = match status {
            401 => "authentication_error",
            403 => "permission_error",
            429 => "rate_limit_error",
            529 => "overloaded_error",
            500..=599 => "api_error",
            _ => "invalid_request_error",
        };
        ResponseTemplate::new(status)
            .set_body_json(json!({"type": "error", "error": {"type": kind, "message": message}}))
    }

    fn context_overflow(&self) -> ResponseTemplate {
        self.error(400, "prompt is too long: 210000 tokens > 200000 maximum")
    }

    fn sent_schema<'a>(&self, body: &'a Value) -> Option<&'a Value> {
        body.pointer("/tools/0/input_schema")
    }

    fn sent(&self, body: &Value) -> Sent {
        let mut messages: Vec<(Role, String)> = body["system"]
            .as_str()
            .map(|s| (Role::System, s.to_string()))
            .into_iter()
            .collect();
        messages.extend(role_content(&body["messages"]));
        Sent {
            messages,
            temperature: body["temperature"].as_f64(),
            max_tokens: body["max_tokens"].as_u64(),
        }
    }
}

/// Google's Gemini API: `generateContent`, and `streamGenerateContent` as server-sent events.
struct Gemini;

impl Gemini {
    fn response(text: &str, finish: Option<&str>, usage: Option<Usage>) -> Value {
        let mut v = json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}],
                           "modelVersion": SERVED_MODEL, "responseId": "r1"});
        if let Some(f) = finish {
            v["candidates"][0]["finishReason"] = json!(f);
        }
        if let Some(u) = usage {
            v["usageMetadata"] = json!({"promptTokenCount": u.prompt_tokens, "candidatesTokenCount": u.completion_tokens,
                                        "totalTokenCount": u.prompt_tokens + u.completion_tokens});
        }
        v
    }
}

impl MockApi for Gemini {
    fn provider(&self) -> &str {
        "gemini"
    }

    fn client(&self, base: &str, timeout: Duration, retry: RetryConfig) -> Arc<dyn LlmClient> {
        let s = ConnectSettings {
            gemini_key: Some("g-test".into()),
            gemini_base_url: base.into(),
            ..settings(timeout, retry)
        };
        connect(&format!("gemini:{MODEL}"), &s).unwrap()
    }

    fn call(&self, stream: bool) -> MockBuilder {
        let call = Mock::given(method("POST")).and(header("x-goog-api-key", "g-test"));
        if stream {
            call.and(path(format!(
                "/v1beta/models/{MODEL}:streamGenerateContent"
            )))
            .and(query_param("alt", "sse"))
        } else {
            call.and(path(format!("/v1beta/models/{MODEL}:generateContent")))
        }
    }

    fn answer(&self, text: &str, usage: Usage) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(Self::response(text, Some("STOP"), Some(usage)))
    }

    fn stream(&self, pieces: &[&str], usage: Usage, finished: bool) -> ResponseTemplate {
        let last = pieces.len() - 1;
        // Gemini separates its events with CRLF.
        let body: String = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let end = finished && i == last;
                let chunk = Self::response(p, end.then_some("STOP"), end.then_some(usage));
                format!("data: {chunk}\r\n\r\n")
            })
            .collect();
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    }

    fn error(&self, status: u16, message: &str) -> ResponseTemplate {
        let name = match status {
            401 => "UNAUTHENTICATED",
            403 => "PERMISSION_DENIED",
            429 => "RESOURCE_EXHAUSTED",
            503 => "UNAVAILABLE",
            500..=599 => "INTERNAL",
            _ => "INVALID_ARGUMENT",
        };
        ResponseTemplate::new(status)
            .set_body_json(json!({"error": {"code": status, "message": message, "status": name}}))
    }

    fn context_overflow(&self) -> ResponseTemplate {
        self.error(
            400,
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        )
    }

    fn sent_schema<'a>(&self, body: &'a Value) -> Option<&'a Value> {
        let config = &body["generationConfig"];
        (config["responseMimeType"] == "application/json")
            .then(|| config.get("responseJsonSchema"))
            .flatten()
    }

    fn sent(&self, body: &Value) -> Sent {
        let mut messages: Vec<(Role, String)> = body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .map(|s| (Role::System, s.to_string()))
            .into_iter()
            .collect();
        messages.extend(body["contents"].as_array().into_iter().flatten().map(|c| {
            (
                role(c["role"].as_str().unwrap_or_default()),
                text(&c["parts"][0]["text"]),
            )
        }));
        Sent {
            messages,
            temperature: body["generationConfig"]["temperature"].as_f64(),
            max_tokens: body["generationConfig"]["maxOutputTokens"].as_u64(),
        }
    }
}

/// Ollama's native chat API: JSON lines when streaming, the schema in `format`.
struct Ollama;

impl Ollama {
    fn line(content: &str, done: bool, usage: Usage) -> Value {
        let mut v = json!({"model": SERVED_MODEL, "created_at": "2026-11-22T10:00:00Z",
                           "message": {"role": "assistant", "content": content}, "done": done});
        if done {
            v["done_reason"] = json!("stop");
            v["prompt_eval_count"] = json!(usage.prompt_tokens);
            v["eval_count"] = json!(usage.completion_tokens);
        }
        v
    }
}

impl MockApi for Ollama {
    fn provider(&self) -> &str {
        "Ollama"
    }

    fn client(&self, base: &str, timeout: Duration, retry: RetryConfig) -> Arc<dyn LlmClient> {
        let s = ConnectSettings {
            ollama_url: base.into(),
            ..settings(timeout, retry)
        };
        connect(&format!("ollama:{MODEL}"), &s).unwrap()
    }

    fn call(&self, stream: bool) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/api/chat"))
            .and(body_partial_json(json!({"model": MODEL, "stream": stream})))
    }

    fn answer(&self, text: &str, usage: Usage) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(Self::line(text, true, usage))
    }

    fn stream(&self, pieces: &[&str], usage: Usage, finished: bool) -> ResponseTemplate {
        let mut body: String = pieces
            .iter()
            .map(|p| format!("{}\n", Self::line(p, false, usage)))
            .collect();
        if finished {
            body.push_str(&format!("{}\n", Self::line("", true, usage)));
        }
        ResponseTemplate::new(200).set_body_raw(body, "application/x-ndjson")
    }

    fn error(&self, status: u16, message: &str) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_json(json!({"error": message}))
    }

    fn context_overflow(&self) -> ResponseTemplate {
        self.error(400, "the input length exceeds the context length")
    }

    fn sent_schema<'a>(&self, body: &'a Value) -> Option<&'a Value> {
        body.get("format")
    }

    fn sent(&self, body: &Value) -> Sent {
        Sent {
            messages: role_content(&body["messages"]),
            temperature: body["options"]["temperature"].as_f64(),
            max_tokens: body["options"]["num_predict"].as_u64(),
        }
    }

    fn unreachable_hint(&self) -> &str {
        "; is Ollama running? Start it with `ollama serve`"
    }
}

mod openai {
    research_llm::llm_conformance!(super::OpenAi { compat: false });
}

mod openai_compat {
    research_llm::llm_conformance!(super::OpenAi { compat: true });
}

mod anthropic {
    research_llm::llm_conformance!(super::Anthropic);
}

mod gemini {
    research_llm::llm_conformance!(super::Gemini);
}

mod ollama {
    research_llm::llm_conformance!(super::Ollama);
}
