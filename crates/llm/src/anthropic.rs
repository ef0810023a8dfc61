//! Anthropic's Messages API. Structured output uses tool use: the schema becomes the input
//! schema of one tool the model is made to call, and the call's input is the answer.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use crate::http::{broke_off, Http};
use crate::{
    ChatRequest, ChatResponse, Flow, LlmClient, LlmError, RetryConfig, Role, TokenSink, Usage,
};

const API_VERSION: &str = "2023-06-01";
/// The Messages API requires a limit; this is used when the request sets none.
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A client for one Anthropic model.
pub struct AnthropicClient {
    http: Http,
    model: String,
    key: String,
    spec: String,
}

impl AnthropicClient {
    /// A client for `model` at `base_url` (`https://api.anthropic.com`).
    pub fn new(
        base_url: &str,
        model: &str,
        key: String,
        timeout: Duration,
        retry: RetryConfig,
        spec: &str,
    ) -> Result<Self, LlmError> {
        Ok(Self {
            http: Http::new("anthropic", base_url, timeout, retry, "")?,
            model: model.into(),
            key,
            spec: spec.into(),
        })
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let messages: Vec<Value> = request
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .map(|m| json!({"role": if m.role == Role::User { "user" } else { "assistant" }, "content": m.content}))
            .collect();
        let mut body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": messages,
            "stream": stream,
        });
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        // Recent models refuse `top_p` together with `temperature`; the temperature wins.
        if let Some(p) = request.top_p.filter(|_| request.temperature.is_none()) {
            body["top_p"] = json!(p);
        }
        if !request.stop.is_empty() {
            body["stop_sequences"] = json!(request.stop);
        }
        if let Some(schema) = &request.schema {
            body["tools"] = json!([{
                "name": schema.name,
                "description": "Record the answer in this exact structure.",
                "input_schema": schema.schema,
            }]);
            body["tool_choice"] = json!({"type": "tool", "name": schema.name});
        }
        body
    }

    async fn send(&self, body: &Value) -> Result<reqwest::Response, LlmError> {
        let headers = [
            ("x-api-key", self.key.as_str()),
            ("anthropic-version", API_VERSION),
        ];
        self.http.post("/v1/messages", &headers, body).await
    }

    fn whole(&self, value: &Value, started: Instant) -> Result<ChatResponse, LlmError> {
        let blocks = value["content"]
            .as_array()
            .ok_or_else(|| self.http.bad("the answer had no content"))?;
        // A tool call is the structured answer; otherwise the text blocks are.
        let text = match blocks.iter().find(|b| b["type"] == "tool_use") {
            Some(tool) => tool["input"].to_string(),
            None => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<String>(),
        };
        Ok(ChatResponse {
            text,
            model: value["model"].as_str().unwrap_or(&self.model).to_string(),
            usage: Usage {
                prompt_tokens: value["usage"]["input_tokens"].as_u64().unwrap_or(0),
                completion_tokens: value["usage"]["output_tokens"].as_u64().unwrap_or(0),
            },
            latency: started.elapsed(),
        })
    }

    async fn streaming(
        &self,
        request: &ChatRequest,
        on_token: TokenSink<'_>,
        started: Instant,
    ) -> Result<ChatResponse, LlmError> {
        use eventsource_stream::Eventsource;
        let resp = self.send(&self.body(request, true)).await?;
        let mut events = resp.bytes_stream().eventsource();
        let (mut text, mut tool_json, mut model) =
            (String::new(), String::new(), self.model.clone());
        let (mut used, mut finished) = (Usage::default(), false);
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| {
                self.http
                    .bad(format!("the stream broke off ({})", broke_off(&e)))
            })?;
            let data: Value = serde_json::from_str(&event.data).map_err(|e| {
                self.http
                    .bad(format!("a streamed event was not JSON ({e})"))
            })?;
            match data["type"].as_str().unwrap_or(event.event.as_str()) {
                "message_start" => {
                    model = data["message"]["model"]
                        .as_str()
                        .unwrap_or(&model)
                        .to_string();
                    used.prompt_tokens = data["message"]["usage"]["input_tokens"]
                        .as_u64()
                        .unwrap_or(0);
                }
                "content_block_delta" => {
                    let delta = &data["delta"];
                    if let Some(t) = delta["text"].as_str() {
                        text.push_str(t);
                        if on_token(t) == Flow::Stop {
                            // Dropping the stream closes the connection: nothing more is made.
                            finished = true;
                            break;
                        }
                    }
                    if let Some(j) = delta["partial_json"].as_str() {
                        tool_json.push_str(j);
                    }
                }
                "message_delta" => {
                    used.completion_tokens = data["usage"]["output_tokens"]
                        .as_u64()
                        .unwrap_or(used.completion_tokens);
                }
                "message_stop" => {
                    finished = true;
                    break;
                }
                "error" => {
                    let message = data["error"]["message"].as_str().unwrap_or("unknown error");
                    let kind = data["error"]["type"].as_str().unwrap_or("error");
                    return Err(if kind == "overloaded_error" {
                        LlmError::Server {
                            provider: "anthropic".into(),
                            status: 529,
                            attempts: 1,
                        }
                    } else {
                        self.http
                            .bad(format!("the stream reported an error: {message} ({kind})"))
                    });
                }
                _ => {}
            }
        }
        if !finished {
            return Err(self.http.bad(format!(
                "the stream ended before the answer did ({} characters received)",
                text.len()
            )));
        }
        if !tool_json.is_empty() {
            text = tool_json;
        }
        Ok(ChatResponse {
            text,
            model,
            usage: used,
            latency: started.elapsed(),
        })
    }
}

#[async_trait]
impl LlmClient for AnthropicClient {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn context_tokens(&self) -> Option<usize> {
        crate::types::known_window(&self.model)
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        match on_token {
            Some(sink) => self.streaming(request, sink, started).await,
            None => {
                let resp = self.send(&self.body(request, false)).await?;
                self.whole(&self.http.json(resp).await?, started)
            }
        }
    }
}
