//! Ollama's native chat API (`/api/chat`): streaming as JSON lines, structured output with the
//! schema in `format`.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use crate::http::{broke_off, Http};
use crate::{ChatRequest, ChatResponse, Flow, LlmClient, LlmError, RetryConfig, TokenSink, Usage};

/// The context Ollama is asked to give each request, in tokens. Left unset, Ollama uses its own
/// default (2,048 tokens before 0.6, 4,096 since) and silently drops the start of a longer
/// prompt — the instructions and the schema go first, so a step would answer without them.
/// 8,192 holds every prompt the pipeline sends once shrunk to it, and most models Ollama
/// serves support it; one fixed size, because a changed `num_ctx` makes Ollama reload the model.
pub const OLLAMA_CONTEXT_TOKENS: usize = 8192;

/// A client for one model on an Ollama server.
pub struct OllamaClient {
    http: Http,
    model: String,
    spec: String,
}

impl OllamaClient {
    /// A client for `model` on the server at `base_url` (`http://127.0.0.1:11434`).
    pub fn new(
        base_url: &str,
        model: &str,
        timeout: Duration,
        retry: RetryConfig,
        spec: &str,
    ) -> Result<Self, LlmError> {
        let hint = "; is Ollama running? Start it with `ollama serve`";
        Ok(Self {
            http: Http::new("Ollama", base_url, timeout, retry, hint)?,
            model: model.into(),
            spec: spec.into(),
        })
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut options = json!({ "num_ctx": OLLAMA_CONTEXT_TOKENS });
        if let Some(t) = request.temperature {
            options["temperature"] = json!(t);
        }
        if let Some(n) = request.max_tokens {
            options["num_predict"] = json!(n);
        }
        if let Some(p) = request.top_p {
            options["top_p"] = json!(p);
        }
        if !request.stop.is_empty() {
            options["stop"] = json!(request.stop);
        }
        if let Some(r) = request.repeat_penalty {
            options["repeat_penalty"] = json!(r);
        }
        let mut body = json!({"model": self.model, "messages": request.messages, "stream": stream, "options": options});
        if let Some(schema) = &request.schema {
            body["format"] = schema.schema.clone();
        }
        body
    }

    fn usage(value: &Value) -> Usage {
        Usage {
            prompt_tokens: value["prompt_eval_count"].as_u64().unwrap_or(0),
            completion_tokens: value["eval_count"].as_u64().unwrap_or(0),
        }
    }

    async fn send(&self, body: &Value) -> Result<reqwest::Response, LlmError> {
        self.http
            .post("/api/chat", &[], body)
            .await
            .map_err(|e| match e {
                LlmError::Request {
                    status: 404,
                    message,
                    ..
                } if message.contains("not found") => LlmError::Config(format!(
                    "Ollama does not have the model `{}`; pull it with `ollama pull {}`",
                    self.model, self.model
                )),
                other => other,
            })
    }
}

#[async_trait]
impl LlmClient for OllamaClient {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn context_tokens(&self) -> Option<usize> {
        Some(OLLAMA_CONTEXT_TOKENS)
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let resp = self.send(&self.body(request, on_token.is_some())).await?;
        let Some(sink) = on_token else {
            let value = self.http.json(resp).await?;
            if let Some(error) = value["error"].as_str() {
                return Err(self.http.bad(error.to_string()));
            }
            return Ok(ChatResponse {
                text: value["message"]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                model: value["model"].as_str().unwrap_or(&self.model).to_string(),
                usage: Self::usage(&value),
                latency: started.elapsed(),
            });
        };
        // One JSON object per line; the last one says `done` and carries the counts.
        let mut bytes = resp.bytes_stream();
        let (mut buffer, mut text, mut done) = (Vec::<u8>::new(), String::new(), None::<Value>);
        'read: while let Some(chunk) = bytes.next().await {
            let chunk = chunk.map_err(|e| {
                self.http
                    .bad(format!("the stream broke off ({})", broke_off(&e)))
            })?;
            buffer.extend_from_slice(&chunk);
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line);
                if line.trim().is_empty() {
                    continue;
                }
                let value: Value = serde_json::from_str(line.trim())
                    .map_err(|e| self.http.bad(format!("a streamed line was not JSON ({e})")))?;
                if let Some(error) = value["error"].as_str() {
                    return Err(self.http.bad(error.to_string()));
                }
                if let Some(piece) = value["message"]["content"]
                    .as_str()
                    .filter(|p| !p.is_empty())
                {
                    text.push_str(piece);
                    if sink(piece) == Flow::Stop {
                        // Dropping the stream closes the connection: nothing more is made. The
                        // counts come with the last line, so the meter estimates them.
                        done = Some(value);
                        break 'read;
                    }
                }
                if value["done"] == true {
                    done = Some(value);
                }
            }
        }
        let last = done.ok_or_else(|| {
            self.http.bad(format!(
                "the stream ended before the answer did ({} characters received)",
                text.len()
            ))
        })?;
        Ok(ChatResponse {
            text,
            model: last["model"].as_str().unwrap_or(&self.model).to_string(),
            usage: Self::usage(&last),
            latency: started.elapsed(),
        })
    }
}
