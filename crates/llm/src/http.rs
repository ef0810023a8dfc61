//! What every HTTP model API shares: one client with timeouts, retries of what may succeed on
//! another attempt (429 with `Retry-After`, 5xx, dropped connections), and the mapping of every
//! failure to an [`LlmError`] that names the provider and says what to do.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::LlmError;

/// How hard to retry rate limits, server errors and dropped connections.
#[derive(Debug, Clone)]
pub struct RetryConfig {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Wait after the first failure; doubled after each further one, with ±25% jitter.
    pub base_delay: Duration,
    /// Upper bound of one wait, `Retry-After` included (which is also bounded by
    /// [`research_http_retry::MAX_RETRY_AFTER`] however large this is).
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

/// One provider's HTTP endpoint.
pub(crate) struct Http {
    pub(crate) provider: String,
    pub(crate) base_url: String,
    client: reqwest::Client,
    timeout: Duration,
    retry: RetryConfig,
    unreachable_hint: String,
}

impl Http {
    pub(crate) fn new(
        provider: &str,
        base_url: &str,
        timeout: Duration,
        retry: RetryConfig,
        unreachable_hint: &str,
    ) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(timeout)
            .redirect(research_http_retry::same_origin_redirects())
            .user_agent(concat!("ResearchStudio/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("could not set up the HTTP client: {e}")))?;
        Ok(Self {
            provider: provider.into(),
            base_url: base_url.trim_end_matches('/').into(),
            client,
            timeout,
            retry,
            unreachable_hint: unreachable_hint.into(),
        })
    }

    pub(crate) fn bad(&self, detail: impl Into<String>) -> LlmError {
        LlmError::BadResponse {
            provider: self.provider.clone(),
            detail: detail.into(),
        }
    }

    pub(crate) fn transport_error(&self, e: &reqwest::Error) -> LlmError {
        let provider = self.provider.clone();
        let url = self.base_url.clone();
        if e.is_timeout() {
            LlmError::Timeout {
                provider,
                timeout: self.timeout,
            }
        } else if e.is_connect() {
            LlmError::Unreachable {
                provider,
                url,
                reason: research_http_retry::cause(e),
                hint: self.unreachable_hint.clone(),
            }
        } else {
            LlmError::Unreachable {
                provider,
                url,
                reason: research_http_retry::cause(e),
                hint: String::new(),
            }
        }
    }

    /// POSTs `body` to `path` with `headers`, retrying what may succeed on another attempt.
    pub(crate) async fn post(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> Result<reqwest::Response, LlmError> {
        let url = format!("{}{path}", self.base_url);
        let provider = &self.provider;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut req = self.client.post(&url).json(body);
            for (name, value) in headers {
                req = req.header(*name, *value);
            }
            let (error, retry_after) = match req.send().await {
                Err(e) => (self.transport_error(&e), None),
                Ok(resp) if resp.status().is_success() => return Ok(resp),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| research_http_retry::parse_retry_after(v, SystemTime::now()));
                    let message = error_message(&resp.text().await.unwrap_or_default());
                    let lower = message.to_lowercase();
                    let error = match status {
                        401 | 403 => {
                            return Err(LlmError::Unauthorized {
                                provider: provider.clone(),
                                status,
                            })
                        }
                        // Some APIs (Gemini) answer a bad key with 400.
                        400 if lower.contains("api key not valid")
                            || lower.contains("invalid api key") =>
                        {
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
                        _ if lower.contains("context_length_exceeded")
                            || lower.contains("context length")
                            || lower.contains("maximum context")
                            || lower.contains("prompt is too long")
                            || lower.contains("input token count") =>
                        {
                            return Err(LlmError::ContextOverflow {
                                provider: provider.clone(),
                                message,
                            })
                        }
                        _ => {
                            return Err(LlmError::Request {
                                provider: provider.clone(),
                                status,
                                message,
                            })
                        }
                    };
                    (error, retry_after)
                }
            };
            if !error.is_retryable() || attempt >= self.retry.max_attempts {
                return Err(error);
            }
            let wait = self.retry.delay(attempt, retry_after);
            tracing::warn!(%provider, attempt, ?wait, %error, "retrying model call");
            tokio::time::sleep(wait).await;
        }
    }

    /// Reads a whole response as JSON, naming an HTML page or broken JSON for what it is.
    pub(crate) async fn json(&self, resp: reqwest::Response) -> Result<Value, LlmError> {
        let content_type = content_type(&resp);
        let text = resp.text().await.map_err(|e| self.transport_error(&e))?;
        self.parse(&text, &content_type)
    }

    pub(crate) fn parse(&self, text: &str, content_type: &str) -> Result<Value, LlmError> {
        if content_type.contains("html") || text.trim_start().starts_with('<') {
            let title = text
                .split_once("<title>")
                .and_then(|(_, rest)| rest.split_once("</title>"))
                .map(|(t, _)| format!(" (\"{}\")", t.trim()))
                .unwrap_or_default();
            return Err(self.bad(format!(
                "an HTML page{title} instead of JSON; is the base URL right ({})?",
                self.base_url
            )));
        }
        serde_json::from_str(text).map_err(|e| self.bad(format!("the JSON was malformed ({e})")))
    }
}

pub(crate) fn content_type(resp: &reqwest::Response) -> String {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The server's own explanation from an error body, or the body's start.
fn error_message(text: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let from_json = parsed.as_ref().and_then(|v| {
        let e = &v["error"];
        let message = e["message"].as_str().or_else(|| e.as_str())?;
        let code = e["code"]
            .as_str()
            .or_else(|| e["type"].as_str())
            .or_else(|| e["status"].as_str());
        Some(match code {
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

/// A stream error that can say why the stream stopped.
pub(crate) trait StreamFailure {
    /// Why, without the URL the stream came from.
    fn reason(&self) -> String;
}

impl StreamFailure for reqwest::Error {
    fn reason(&self) -> String {
        research_http_retry::cause(self)
    }
}

impl StreamFailure for eventsource_stream::EventStreamError<reqwest::Error> {
    fn reason(&self) -> String {
        match self {
            eventsource_stream::EventStreamError::Transport(e) => research_http_retry::cause(e),
            other => other.to_string(),
        }
    }
}

/// Why a streamed answer broke off, without the URL (see [`research_http_retry::cause`]).
pub(crate) fn broke_off(e: &impl StreamFailure) -> String {
    e.reason()
}
