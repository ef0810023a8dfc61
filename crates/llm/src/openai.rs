//! OpenAI's Chat Completions API, and every server that speaks it (LM Studio, vLLM, llama.cpp's
//! server, OpenRouter).

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use crate::http::{broke_off, content_type, Http};
use crate::{ChatRequest, ChatResponse, Flow, LlmClient, LlmError, RetryConfig, TokenSink, Usage};

/// Where and how to reach an OpenAI-compatible server (its `Debug` never shows the key).
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The provider's name in messages (`openai`, `openai-compat`).
    pub provider: String,
    /// Base URL ending in `/v1`.
    pub base_url: String,
    /// The model id the server knows.
    pub model: String,
    /// Bearer key, when the server wants one.
    pub api_key: Option<String>,
    /// Longest silence while waiting for (more of) an answer.
    pub timeout: Duration,
    /// Retry policy.
    pub retry: RetryConfig,
    /// Said when the server cannot be reached (e.g. how to start it).
    pub unreachable_hint: String,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field(
                "api_key",
                &format_args!("{}", crate::spec::redacted(&self.api_key)),
            )
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("unreachable_hint", &self.unreachable_hint)
            .finish()
    }
}

/// A client for one model on an OpenAI-compatible server.
pub struct OpenAiClient {
    http: Http,
    model: String,
    api_key: Option<String>,
    spec: String,
}

impl OpenAiClient {
    /// A client; `spec` is the model string it was made from (reported by [`LlmClient::spec`]).
    pub fn new(config: OpenAiConfig, spec: impl Into<String>) -> Result<Self, LlmError> {
        let http = Http::new(
            &config.provider,
            &config.base_url,
            config.timeout,
            config.retry,
            &config.unreachable_hint,
        )?;
        Ok(Self {
            http,
            model: config.model,
            api_key: config.api_key,
            spec: spec.into(),
        })
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = json!({"model": self.model, "messages": request.messages, "stream": stream});
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = request.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if let Some(p) = request.top_p {
            body["top_p"] = json!(p);
        }
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        // `repeat_penalty` has no equivalent here: `frequency_penalty` is additive per occurrence.
        if stream {
            body["stream_options"] = json!({"include_usage": true});
        }
        if let Some(schema) = &request.schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": schema.name, "schema": schema.schema, "strict": false},
            });
        }
        body
    }

    async fn send(&self, body: &Value) -> Result<reqwest::Response, LlmError> {
        let auth = self.api_key.as_ref().map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("authorization", a.as_str())).collect();
        self.http.post("/chat/completions", &headers, body).await
    }

    fn whole(&self, value: &Value, started: Instant) -> Result<ChatResponse, LlmError> {
        let choice = value["choices"]
            .get(0)
            .ok_or_else(|| self.http.bad("the answer had no choices"))?;
        let content = choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if choice["finish_reason"] == "length" && content.is_empty() {
            return Err(self
                .http
                .bad("the model stopped at its token limit before writing anything"));
        }
        Ok(ChatResponse {
            text: content,
            model: value["model"].as_str().unwrap_or(&self.model).to_string(),
            usage: usage(&value["usage"]),
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
        if !content_type(&resp).contains("event-stream") {
            // Some servers ignore `stream`; read the whole answer instead.
            let answer = self.whole(&self.http.json(resp).await?, started)?;
            let _ = on_token(&answer.text); // the whole answer: nothing left to stop
            return Ok(answer);
        }
        let mut events = resp.bytes_stream().eventsource();
        let (mut text, mut model, mut used, mut finished) =
            (String::new(), self.model.clone(), Usage::default(), false);
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| {
                self.http.bad(format!(
                    "the stream broke off after {} characters ({})",
                    text.len(),
                    broke_off(&e)
                ))
            })?;
            if event.data.trim() == "[DONE]" {
                finished = true;
                break;
            }
            let chunk: Value = serde_json::from_str(&event.data).map_err(|e| {
                self.http
                    .bad(format!("a streamed chunk was not JSON ({e})"))
            })?;
            if let Some(m) = chunk["model"].as_str() {
                model = m.to_string();
            }
            if chunk["usage"].is_object() {
                used = usage(&chunk["usage"]);
            }
            if let Some(choice) = chunk["choices"].get(0) {
                if let Some(delta) = choice["delta"]["content"]
                    .as_str()
                    .filter(|d| !d.is_empty())
                {
                    text.push_str(delta);
                    if on_token(delta) == Flow::Stop {
                        // Dropping the stream closes the connection: nothing more is made.
                        finished = true;
                        break;
                    }
                }
                finished |= choice["finish_reason"].is_string();
            }
        }
        if !finished {
            return Err(self.http.bad(format!(
                "the stream ended before the answer did ({} characters received)",
                text.len()
            )));
        }
        Ok(ChatResponse {
            text,
            model,
            usage: used,
            latency: started.elapsed(),
        })
    }
}

fn usage(v: &Value) -> Usage {
    Usage {
        prompt_tokens: v["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: v["completion_tokens"].as_u64().unwrap_or(0),
    }
}

#[async_trait]
impl LlmClient for OpenAiClient {
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
