//! Google's Gemini API (`generateContent`). Structured output uses the response's JSON mime
//! type with the schema as `responseJsonSchema`.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};

use crate::http::{broke_off, Http};
use crate::{
    ChatRequest, ChatResponse, Flow, LlmClient, LlmError, RetryConfig, Role, TokenSink, Usage,
};

/// A client for one Gemini model.
pub struct GeminiClient {
    http: Http,
    model: String,
    key: String,
    spec: String,
}

impl GeminiClient {
    /// A client for `model` at `base_url` (`https://generativelanguage.googleapis.com`).
    pub fn new(
        base_url: &str,
        model: &str,
        key: String,
        timeout: Duration,
        retry: RetryConfig,
        spec: &str,
    ) -> Result<Self, LlmError> {
        Ok(Self {
            http: Http::new("gemini", base_url, timeout, retry, "")?,
            model: model.into(),
            key,
            spec: spec.into(),
        })
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        let contents: Vec<Value> = request
            .messages
            .iter()
            .filter(|m| m.role != Role::System)
            .map(|m| json!({"role": if m.role == Role::User { "user" } else { "model" }, "parts": [{"text": m.content}]}))
            .collect();
        let mut config = json!({});
        if let Some(t) = request.temperature {
            config["temperature"] = json!(t);
        }
        if let Some(n) = request.max_tokens {
            config["maxOutputTokens"] = json!(n);
        }
        if let Some(p) = request.top_p {
            config["topP"] = json!(p);
        }
        if !request.stop.is_empty() {
            config["stopSequences"] = json!(request.stop);
        }
        if let Some(schema) = &request.schema {
            config["responseMimeType"] = json!("application/json");
            config["responseJsonSchema"] = schema.schema.clone();
        }
        let mut body = json!({"contents": contents, "generationConfig": config});
        if !system.is_empty() {
            body["systemInstruction"] = json!({"parts": [{"text": system.join("\n\n")}]});
        }
        body
    }

    /// Text of one response chunk; an error when the prompt or answer was blocked.
    fn chunk(&self, value: &Value) -> Result<(String, Option<String>), LlmError> {
        if let Some(reason) = value["promptFeedback"]["blockReason"].as_str() {
            return Err(self
                .http
                .bad(format!("Gemini blocked the prompt ({reason})")));
        }
        let Some(candidate) = value["candidates"].get(0) else {
            return Ok((String::new(), None));
        };
        let text: String = candidate["content"]["parts"]
            .as_array()
            .map(|parts| {
                parts
                    .iter()
                    .filter(|p| p["thought"] != true)
                    .filter_map(|p| p["text"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        let finish = candidate["finishReason"].as_str().map(str::to_string);
        if let Some(reason @ ("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT")) =
            finish.as_deref()
        {
            return Err(self
                .http
                .bad(format!("Gemini withheld the answer ({reason})")));
        }
        Ok((text, finish))
    }

    fn usage(value: &Value) -> Usage {
        Usage {
            prompt_tokens: value["usageMetadata"]["promptTokenCount"]
                .as_u64()
                .unwrap_or(0),
            completion_tokens: value["usageMetadata"]["candidatesTokenCount"]
                .as_u64()
                .unwrap_or(0),
        }
    }
}

#[async_trait]
impl LlmClient for GeminiClient {
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
        let headers = [("x-goog-api-key", self.key.as_str())];
        let body = self.body(request);
        let Some(sink) = on_token else {
            let path = format!("/v1beta/models/{}:generateContent", self.model);
            let value = self
                .http
                .json(self.http.post(&path, &headers, &body).await?)
                .await?;
            let (text, _) = self.chunk(&value)?;
            return Ok(ChatResponse {
                text,
                model: value["modelVersion"]
                    .as_str()
                    .unwrap_or(&self.model)
                    .to_string(),
                usage: Self::usage(&value),
                latency: started.elapsed(),
            });
        };
        use eventsource_stream::Eventsource;
        let path = format!(
            "/v1beta/models/{}:streamGenerateContent?alt=sse",
            self.model
        );
        let resp = self.http.post(&path, &headers, &body).await?;
        let mut events = resp.bytes_stream().eventsource();
        let (mut text, mut model, mut used, mut finished) =
            (String::new(), self.model.clone(), Usage::default(), false);
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| {
                self.http
                    .bad(format!("the stream broke off ({})", broke_off(&e)))
            })?;
            let value: Value = serde_json::from_str(&event.data).map_err(|e| {
                self.http
                    .bad(format!("a streamed chunk was not JSON ({e})"))
            })?;
            let (piece, finish) = self.chunk(&value)?;
            if let Some(v) = value["modelVersion"].as_str() {
                model = v.to_string();
            }
            if value["usageMetadata"].is_object() {
                used = Self::usage(&value);
            }
            finished |= finish.is_some();
            if !piece.is_empty() {
                text.push_str(&piece);
                if sink(&piece) == Flow::Stop {
                    // Dropping the stream closes the connection: nothing more is made.
                    finished = true;
                    break;
                }
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
