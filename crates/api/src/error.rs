//! The API's error: a small code the UI and the CLI branch on, one sentence for the user, and
//! where to fix it. The fix names a place, not a command: the CLI words it as the command to
//! type, the app as the place in the window, so neither rewrites the other's words.

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

/// Where the user fixes what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "place", rename_all = "snake_case")]
pub enum Fix {
    /// A provider's API key: set it, or check the one given.
    ApiKeys {
        /// The provider (`openai`, `tavily`, …).
        provider: String,
    },
    /// The model: choose one for the run or a default one.
    Model,
    /// The address of the SearXNG instance.
    SearxngUrl,
    /// The library: add a folder.
    Library,
    /// A run that must finish first: resume it.
    ResumeRun {
        /// The run's thread.
        thread: String,
    },
    /// A run that ended without a report (cancelled at a review point, its report rejected):
    /// ask its question again in the session.
    AskAgain {
        /// The session.
        session: String,
        /// The question its run asked.
        question: String,
    },
    /// The database file is damaged: put a backup in its place (the newest, when there is one).
    RestoreBackup {
        /// The newest backup beside the database.
        backup: Option<String>,
    },
    /// A local or private host the fetcher refuses unless it is allowed.
    AllowHost {
        /// The host.
        host: String,
    },
    /// Where the database is kept.
    DataFolder,
    /// The shared database chosen in the settings (or `DATABASE_URL`): its address, or this
    /// machine's file instead. It wins over the file a command names, so naming another file
    /// does not help.
    SharedDatabase,
}

/// An API error: `{code, message, fix}` on the IPC boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, ts_rs::TS)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// One sentence for the user.
    pub message: String,
    /// Where to fix it, when there is one place.
    #[serde(default)]
    pub fix: Option<Fix>,
}

impl ApiError {
    /// An error of `code` with `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            fix: None,
        }
    }

    /// This error, fixed at `fix`.
    pub fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
}

impl From<research_store::StoreError> for ApiError {
    fn from(e: research_store::StoreError) -> Self {
        // A damaged file is never written to: the way back is a backup, the newest named.
        if let research_store::StoreError::Damaged { path, .. } = &e {
            let newest = crate::backups::backups(&crate::backups::backup_folder(path))
                .into_iter()
                .next();
            return ApiError::new(ErrorCode::Storage, e.to_string()).fix(Fix::RestoreBackup {
                backup: newest.map(|p| p.display().to_string()),
            });
        }
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
        let fix = match &e {
            L::MissingKey { provider, .. } | L::Unauthorized { provider, .. } => {
                Some(Fix::ApiKeys {
                    provider: provider.clone(),
                })
            }
            _ => None,
        };
        ApiError {
            fix,
            ..ApiError::new(code, e.to_string())
        }
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
        let fix = match &e {
            F::Blocked { url, .. } => url::Url::parse(url)
                .ok()
                .and_then(|u| research_fetch::AllowedHosts::entry_for(&u))
                .map(|host| Fix::AllowHost { host }),
            _ => None,
        };
        ApiError {
            fix,
            ..ApiError::new(code, e.to_string())
        }
    }
}

impl From<research_search::SearchError> for ApiError {
    fn from(e: research_search::SearchError) -> Self {
        use research_search::SearchError as S;
        let code = match &e {
            S::Config(_) | S::MissingUrl { .. } => ErrorCode::InvalidInput,
            S::MissingKey { .. } | S::Unauthorized { .. } => ErrorCode::ProviderAuth,
            S::RateLimited { .. } | S::Unavailable { .. } => ErrorCode::ProviderUnavailable,
            _ => ErrorCode::ProviderFailed,
        };
        let fix = match &e {
            S::MissingKey { provider, .. } | S::Unauthorized { provider, .. } => {
                Some(Fix::ApiKeys {
                    provider: provider.to_string(),
                })
            }
            S::MissingUrl { .. } => Some(Fix::SearxngUrl),
            _ => None,
        };
        ApiError {
            fix,
            ..ApiError::new(code, e.to_string())
        }
    }
}

impl From<research_library::LibraryError> for ApiError {
    fn from(e: research_library::LibraryError) -> Self {
        use research_library::LibraryError as L;
        let code = match &e {
            L::NotAFolder(_) | L::Import { .. } => ErrorCode::InvalidInput,
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
