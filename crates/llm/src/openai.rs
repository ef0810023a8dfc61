//! OpenAI's Chat Completions API, and every server that speaks it (LM Studio, vLLM, llama.cpp's
//! server, OpenRouter, Ollama's `/v1`).

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use crate::{ChatRequest, ChatResponse, LlmClient, LlmError, TokenSink, Usage};

/// How hard to retry rate limits, server errors and dropped connections.
#[derive(Debug, Clone)]
pub struct RetryConfig {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Wait after the first failure; doubled after each further one, with ±25% jitter.
    pub base_delay: Duration,
    /// Upper bound of one wait, `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(750),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryConfig {
    fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let wait = retry_after.unwrap_or_else(|| {
            let base = self.base_delay.as_secs_f64() * 2f64.powi(attempt as i32 - 1);
            Duration::from_secs_f64(base * rand::random_range(0.75..=1.25))
        });
        wait.min(self.max_delay)
    }
}

/// Where and how to reach an OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The provider's name in messages (`openai`, `openai-compat`, `ollama`).
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

/// A client for one model on an OpenAI-compatible server.
pub struct OpenAiClient {
    config: OpenAiConfig,
    http: reqwest::Client,
    spec: String,
}

impl OpenAiClient {
    /// A client; `spec` is the model string it was made from (reported by [`LlmClient::model`]).
    pub fn new(config: OpenAiConfig, spec: impl Into<String>) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(config.timeout)
            .user_agent(concat!("ResearchStudio/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("could not set up the HTTP client: {e}")))?;
        Ok(Self {
            config,
            http,
            spec: spec.into(),
        })
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": request.messages,
            "stream": stream,
        });
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(n) = request.max_tokens {
            body["max_tokens"] = json!(n);
        }
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

    fn err_bad(&self, detail: impl Into<String>) -> LlmError {
        LlmError::BadResponse {
            provider: self.config.provider.clone(),
            detail: detail.into(),
        }
    }

    fn transport_error(&self, e: &reqwest::Error, url: &str) -> LlmError {
        let provider = self.config.provider.clone();
        if e.is_timeout() {
            LlmError::Timeout {
                provider,
                timeout: self.config.timeout,
            }
        } else if e.is_connect() {
            let reason = std::error::Error::source(e)
                .and_then(std::error::Error::source)
                .map(|s| s.to_string())
                .unwrap_or_else(|| "connection failed".into());
            LlmError::Unreachable {
                provider,
                url: url.to_string(),
                reason,
                hint: self.config.unreachable_hint.clone(),
            }
        } else {
            LlmError::Unreachable {
                provider,
                url: url.to_string(),
                reason: e.to_string(),
                hint: String::new(),
            }
        }
    }

    /// Sends the request, retrying what may succeed on another attempt.
    async fn send(&self, body: &Value) -> Result<reqwest::Response, LlmError> {
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let provider = &self.config.provider;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut req = self.http.post(&url).json(body);
            if let Some(key) = &self.config.api_key {
                req = req.bearer_auth(key);
            }
            let (error, retry_after) = match req.send().await {
                Err(e) => (self.transport_error(&e, &self.config.base_url), None),
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .map(|s| Duration::from_secs_f64(s.max(0.0)));
                    let text = resp.text().await.unwrap_or_default();
                    let error = match status {
                        401 | 403 => {
                            return Err(LlmError::Unauthorized {
                                provider: provider.clone(),
                                status,
                            })
                        }
                        429 => LlmError::RateLimited {
                            provider: provider.clone(),
                            attempts: attempt,
                        },
                        500..=599 => LlmError::Server {
                            provider: provider.clone(),
                            status,
                            attempts: attempt,
                        },
                        _ => {
                            let message = error_message(&text);
                            let overflow = message.contains("context_length_exceeded")
                                || message.to_lowercase().contains("context length")
                                || message.to_lowercase().contains("maximum context");
                            return Err(if overflow {
                                LlmError::ContextOverflow {
                                    provider: provider.clone(),
                                    message,
                                }
                            } else {
                                LlmError::Request {
                                    provider: provider.clone(),
                                    status,
                                    message,
                                }
                            });
                        }
                    };
                    (error, retry_after)
                }
            };
            if !error.is_retryable() || attempt >= self.config.retry.max_attempts {
                return Err(error);
            }
            let wait = self.config.retry.delay(attempt, retry_after);
            tracing::warn!(%provider, attempt, ?wait, %error, "retrying model call");
            tokio::time::sleep(wait).await;
        }
    }

    fn read_json(&self, text: &str, content_type: &str) -> Result<Value, LlmError> {
        if content_type.contains("html") || text.trim_start().starts_with('<') {
            let title = text
                .split_once("<title>")
                .and_then(|(_, rest)| rest.split_once("</title>"))
                .map(|(t, _)| format!(" (\"{}\")", t.trim()))
                .unwrap_or_default();
            return Err(self.err_bad(format!(
                "an HTML page{title} instead of JSON; is the base URL right ({})?",
                self.config.base_url
            )));
        }
        serde_json::from_str(text)
            .map_err(|e| self.err_bad(format!("the JSON was malformed ({e})")))
    }

    async fn complete_whole(
        &self,
        request: &ChatRequest,
        started: Instant,
    ) -> Result<ChatResponse, LlmError> {
        let resp = self.send(&self.body(request, false)).await?;
        let content_type = content_type(&resp);
        let text = resp
            .text()
            .await
            .map_err(|e| self.transport_error(&e, &self.config.base_url))?;
        let value = self.read_json(&text, &content_type)?;
        let choice = value["choices"]
            .get(0)
            .ok_or_else(|| self.err_bad("the answer had no choices"))?;
        let content = choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if choice["finish_reason"] == "length" && content.is_empty() {
            return Err(
                self.err_bad("the model stopped at its token limit before writing anything")
            );
        }
        Ok(ChatResponse {
            text: content,
            model: value["model"]
                .as_str()
                .unwrap_or(&self.config.model)
                .to_string(),
            usage: usage(&value["usage"]),
            latency: started.elapsed(),
        })
    }

    async fn complete_streaming(
        &self,
        request: &ChatRequest,
        on_token: TokenSink<'_>,
        started: Instant,
    ) -> Result<ChatResponse, LlmError> {
        use eventsource_stream::Eventsource;
        let resp = self.send(&self.body(request, true)).await?;
        let content_type = content_type(&resp);
        if !content_type.contains("event-stream") {
            // Some servers ignore `stream`; read the whole answer instead.
            let text = resp
                .text()
                .await
                .map_err(|e| self.transport_error(&e, &self.config.base_url))?;
            let value = self.read_json(&text, &content_type)?;
            let content = value["choices"][0]["message"]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            on_token(&content);
            return Ok(ChatResponse {
                text: content,
                model: value["model"]
                    .as_str()
                    .unwrap_or(&self.config.model)
                    .to_string(),
                usage: usage(&value["usage"]),
                latency: started.elapsed(),
            });
        }
        let mut events = resp.bytes_stream().eventsource();
        let mut text = String::new();
        let mut model = self.config.model.clone();
        let mut usage_seen = Usage::default();
        let mut finished = false;
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| {
                self.err_bad(format!(
                    "the stream broke off after {} characters ({e})",
                    text.len()
                ))
            })?;
            if event.data.trim() == "[DONE]" {
                finished = true;
                break;
            }
            let chunk: Value = serde_json::from_str(&event.data)
                .map_err(|e| self.err_bad(format!("a streamed chunk was not JSON ({e})")))?;
            if let Some(m) = chunk["model"].as_str() {
                model = m.to_string();
            }
            if chunk["usage"].is_object() {
                usage_seen = usage(&chunk["usage"]);
            }
            if let Some(choice) = chunk["choices"].get(0) {
                if let Some(delta) = choice["delta"]["content"].as_str() {
                    if !delta.is_empty() {
                        on_token(delta);
                        text.push_str(delta);
                    }
                }
                if choice["finish_reason"].is_string() {
                    finished = true;
                }
            }
        }
        if !finished {
            return Err(self.err_bad(format!(
                "the stream ended before the answer did ({} characters received)",
                text.len()
            )));
        }
        Ok(ChatResponse {
            text,
            model,
            usage: usage_seen,
            latency: started.elapsed(),
        })
    }
}

fn content_type(resp: &reqwest::Response) -> String {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

fn usage(v: &Value) -> Usage {
    Usage {
        prompt_tokens: v["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: v["completion_tokens"].as_u64().unwrap_or(0),
    }
}

/// The server's own explanation from an error body, or the body's start.
fn error_message(text: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let from_json = parsed.as_ref().and_then(|v| {
        let e = &v["error"];
        let message = e["message"].as_str().or_else(|| e.as_str())?;
        Some(match e["code"].as_str() {
            Some(code) => format!("{message} ({code})"),
            None => message.to_string(),
        })
    });
    from_json.unwrap_or_else(|| {
        text.chars()
            .take(200)
            .collect::<String>()
            .trim()
            .to_string()
    })
}

#[async_trait]
impl LlmClient for OpenAiClient {
    fn model(&self) -> &str {
        &self.spec
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        match on_token {
            Some(sink) => self.complete_streaming(request, sink, started).await,
            None => self.complete_whole(request, started).await,
        }
    }
}
