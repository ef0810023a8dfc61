//! What can go wrong when calling a model, as the user should hear it.

use std::time::Duration;

/// A failed model call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The model string or settings are wrong.
    #[error("{0}")]
    Config(String),
    /// No key is set for a provider that needs one.
    #[error("no API key is set for {provider} (nor the {env} environment variable)")]
    MissingKey {
        /// Provider name.
        provider: String,
        /// The conventional environment variable.
        env: String,
    },
    /// The provider refused the key (401/403). Never retried.
    #[error("the key for {provider} was refused (HTTP {status}); check it")]
    Unauthorized {
        /// Provider name.
        provider: String,
        /// 401 or 403.
        status: u16,
    },
    /// Too many requests, still after the retries.
    #[error("{provider} is rate limiting requests (HTTP 429) and still was after {attempts} attempts; try again later or lower the concurrency")]
    RateLimited {
        /// Provider name.
        provider: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The server failed (5xx), still after the retries.
    #[error("{provider} answered with a server error (HTTP {status}) {attempts} times")]
    Server {
        /// Provider name.
        provider: String,
        /// Last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
    },
    /// The server refused the request (other 4xx).
    #[error("{provider} refused the request (HTTP {status}): {message}")]
    Request {
        /// Provider name.
        provider: String,
        /// Status.
        status: u16,
        /// The server's explanation.
        message: String,
    },
    /// The prompt is longer than the model's context.
    #[error("the prompt is too long for the model's context window ({provider}): {message}")]
    ContextOverflow {
        /// Provider name.
        provider: String,
        /// The server's explanation.
        message: String,
    },
    /// The server could not be reached.
    #[error("could not reach {provider} at {url}: {reason}{hint}")]
    Unreachable {
        /// Provider name.
        provider: String,
        /// The address tried.
        url: String,
        /// What failed.
        reason: String,
        /// What to do about it (may be empty).
        hint: String,
    },
    /// No answer in time.
    #[error("{provider} did not answer within {timeout:?}")]
    Timeout {
        /// Provider name.
        provider: String,
        /// The limit.
        timeout: Duration,
    },
    /// The answer was not what the API promises (an HTML page, broken JSON, a cut-off stream).
    #[error("{provider} sent an answer that could not be read: {detail}")]
    BadResponse {
        /// Provider name.
        provider: String,
        /// What was wrong.
        detail: String,
    },
    /// The model's text did not parse as the requested JSON, even after a repair and a second ask.
    #[error("the model did not produce valid JSON for `{schema}`: {error}")]
    InvalidOutput {
        /// The schema's name.
        schema: String,
        /// The last parse error.
        error: String,
        /// The model's last raw answer.
        raw: String,
    },
    /// The run's budget would be exceeded by another call.
    #[error("the run's budget is spent ({spent}); resume with a larger budget to continue")]
    BudgetExhausted {
        /// Which limit, and how much was used.
        spent: String,
    },
}

impl LlmError {
    /// Whether another attempt may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Server { .. }
                | LlmError::Timeout { .. }
                | LlmError::Unreachable { .. }
        )
    }
}
