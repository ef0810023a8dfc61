//! The API's error: a small code the UI and the CLI branch on, and one sentence for the user.

use serde::{Deserialize, Serialize};

/// What kind of failure, for programs to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The input was wrong (bad option, empty question).
    InvalidInput,
    /// The thread, session or file does not exist.
    NotFound,
    /// The operation conflicts with the current state (already finished, already running).
    Conflict,
    /// The run needs an answer before it can go on.
    NeedsInput,
    /// The database or the file system failed.
    Storage,
    /// A step of the run failed; the thread can be resumed.
    RunFailed,
    /// A provider needs a key that is not set, or refused the one given.
    ProviderAuth,
    /// A provider could not be reached, timed out, or kept failing.
    ProviderUnavailable,
    /// A provider answered, but not usefully (refused the request, broken or invalid output).
    ProviderFailed,
}

/// An API error: `{code, message}` on the IPC boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, ts_rs::TS)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// One sentence for the user.
    pub message: String,
}

impl ApiError {
    /// An error of `code` with `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<research_store::StoreError> for ApiError {
    fn from(e: research_store::StoreError) -> Self {
        ApiError::new(ErrorCode::Storage, e.to_string())
    }
}

impl From<research_llm::LlmError> for ApiError {
    fn from(e: research_llm::LlmError) -> Self {
        use research_llm::LlmError as L;
        let code = match &e {
            L::Config(_) => ErrorCode::InvalidInput,
            L::MissingKey { .. } | L::Unauthorized { .. } => ErrorCode::ProviderAuth,
            L::RateLimited { .. }
            | L::Server { .. }
            | L::Unreachable { .. }
            | L::Timeout { .. } => ErrorCode::ProviderUnavailable,
            _ => ErrorCode::ProviderFailed,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<research_fetch::FetchError> for ApiError {
    fn from(e: research_fetch::FetchError) -> Self {
        use research_fetch::FetchError as F;
        let code = match &e {
            F::InvalidUrl(_) | F::Blocked { .. } => ErrorCode::InvalidInput,
            F::Timeout { .. } | F::Unreachable { .. } => ErrorCode::ProviderUnavailable,
            _ => ErrorCode::ProviderFailed,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<research_search::SearchError> for ApiError {
    fn from(e: research_search::SearchError) -> Self {
        use research_search::SearchError as S;
        let code = match &e {
            S::Config(_) => ErrorCode::InvalidInput,
            S::MissingKey { .. } | S::Unauthorized { .. } => ErrorCode::ProviderAuth,
            S::RateLimited { .. } | S::Unavailable { .. } => ErrorCode::ProviderUnavailable,
            _ => ErrorCode::ProviderFailed,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<research_library::LibraryError> for ApiError {
    fn from(e: research_library::LibraryError) -> Self {
        use research_library::LibraryError as L;
        let code = match &e {
            L::NotAFolder(_) => ErrorCode::InvalidInput,
            L::NotInLibrary(_) => ErrorCode::NotFound,
            _ => ErrorCode::Storage,
        };
        ApiError::new(code, e.to_string())
    }
}

impl From<research_graph::GraphError> for ApiError {
    fn from(e: research_graph::GraphError) -> Self {
        use research_graph::GraphError as G;
        let code = match &e {
            G::ThreadNotFound(_) => ErrorCode::NotFound,
            G::ThreadExists(_) | G::AlreadyFinished(_) => ErrorCode::Conflict,
            G::ResumeValueRequired(_) => ErrorCode::NeedsInput,
            G::Checkpoint(_) | G::Serde(_) => ErrorCode::Storage,
            _ => ErrorCode::RunFailed,
        };
        ApiError::new(code, e.to_string())
    }
}
