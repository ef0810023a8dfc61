//! HTTP shared by the search providers: timeouts, retries of 429/5xx honouring `Retry-After`,
//! and failures mapped to [`SearchError`].

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::SearchError;

pub(crate) struct Http {
    pub(crate) provider: &'static str,
    client: reqwest::Client,
    attempts: u32,
}

impl Http {
    pub(crate) fn new(provider: &'static str, timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10).min(timeout))
            .timeout(timeout)
            .user_agent(concat!(
                "Mozilla/5.0 (X11; Linux x86_64) ResearchStudio/",
                env!("CARGO_PKG_VERSION")
            ))
            .redirect(research_http_retry::same_origin_redirects())
            .build()
            .unwrap_or_default();
        Self {
            provider,
            client,
            attempts: 3,
        }
    }

    /// Sends what `make` builds, retrying rate limits and server errors; returns the body text.
    pub(crate) async fn send(
        &self,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<String, SearchError> {
        let provider = self.provider;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (error, wait) = match make(&self.client).send().await {
                Err(e) if e.is_timeout() => (
                    SearchError::Unavailable {
                        provider,
                        reason: "it did not answer in time".into(),
                    },
                    None,
                ),
                Err(e) => (
                    SearchError::Unavailable {
                        provider,
                        reason: research_http_retry::cause(&e),
                    },
                    None,
                ),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| research_http_retry::parse_retry_after(v, SystemTime::now()));
                    let body = resp.text().await.map_err(|e| SearchError::BadResponse {
                        provider,
                        detail: research_http_retry::cause(&e),
                    })?;
                    match status {
                        200..=299 => return Ok(body),
                        401 | 403 => return Err(SearchError::Unauthorized { provider, status }),
                        429 => (SearchError::RateLimited { provider }, retry_after),
                        500..=599 => (
                            SearchError::Unavailable {
                                provider,
                                reason: format!("HTTP {status}"),
                            },
                            retry_after,
                        ),
                        _ => {
                            let detail: String = body.chars().take(200).collect();
                            return Err(SearchError::BadResponse {
                                provider,
                                detail: format!("HTTP {status}: {}", detail.trim()),
                            });
                        }
                    }
                }
            };
            if attempt >= self.attempts {
                return Err(error);
            }
            let backoff = Duration::from_millis(300 * 2u64.pow(attempt - 1))
                .mul_f64(rand::random_range(0.75..=1.25));
            tokio::time::sleep(wait.unwrap_or(backoff)).await;
        }
    }

    pub(crate) fn json(&self, body: &str) -> Result<Value, SearchError> {
        if body.trim_start().starts_with('<') {
            return Err(SearchError::BadResponse {
                provider: self.provider,
                detail: "an HTML page instead of JSON".into(),
            });
        }
        serde_json::from_str(body).map_err(|e| SearchError::BadResponse {
            provider: self.provider,
            detail: format!("malformed JSON ({e})"),
        })
    }
}

/// Plain text of an HTML fragment (snippets come with highlighting markup).
pub(crate) fn strip_html(fragment: &str) -> String {
    let doc = dom_query::Document::fragment(fragment);
    let text = doc.root().text().to_string();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
