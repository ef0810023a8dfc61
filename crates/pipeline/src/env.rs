//! What every pipeline runs with: the run's configuration and providers ([`Env`]), where source
//! texts are kept ([`Documents`]), and the progress a run reports besides the engine's events.

use std::sync::Arc;

use research_fetch::Fetcher;
use research_llm::RoleModels;
use research_search::SearchProvider;
use serde::{Deserialize, Serialize};

use crate::config::RunConfig;

/// Why the document store failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DocumentError(pub String);

/// Where the extracted text of every source is kept, addressed by its SHA-256. Quotes are
/// checked against this text, and the app shows it when a citation is opened.
pub trait Documents: Send + Sync {
    /// Stores `text` and returns its SHA-256 (hex).
    fn put(&self, text: &str) -> Result<String, DocumentError>;
    /// The text with this hash.
    fn get(&self, sha256: &str) -> Result<Option<String>, DocumentError>;
}

/// Documents in memory, for tests.
#[derive(Default)]
pub struct MemoryDocuments(std::sync::Mutex<std::collections::BTreeMap<String, String>>);

impl Documents for MemoryDocuments {
    fn put(&self, text: &str) -> Result<String, DocumentError> {
        let sha = sha256_hex(text);
        self.0
            .lock()
            .map_err(|_| DocumentError("lock poisoned".into()))?
            .insert(sha.clone(), text.to_string());
        Ok(sha)
    }

    fn get(&self, sha256: &str) -> Result<Option<String>, DocumentError> {
        Ok(self
            .0
            .lock()
            .map_err(|_| DocumentError("lock poisoned".into()))?
            .get(sha256)
            .cloned())
    }
}

/// SHA-256 of `text`, hex.
pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a run needs from outside: its configuration and providers.
pub struct Env {
    /// The run configuration.
    pub config: RunConfig,
    /// Models per role, metered.
    pub models: RoleModels,
    /// Where to search.
    pub search: Arc<dyn SearchProvider>,
    /// How to read what was found.
    pub fetcher: Arc<dyn Fetcher>,
    /// Where source texts are stored.
    pub documents: Arc<dyn Documents>,
    /// How the run searched, in words, for the report's method section (e.g. how the library
    /// ranks its passages); set by whoever built the search.
    pub notes: Vec<String>,
    /// Sources judged before the run searched to have nothing on its question, each in a
    /// sentence saying why (a library on another subject, by its nearest passage in meaning):
    /// when nothing is found, the report says so first rather than suggest rephrasing a
    /// question no rephrasing would find in them. Also listed among `notes`.
    pub off_the_question: Vec<String>,
}

/// Progress a run reports while it works (besides the engine's own node events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Progress {
    /// A worker (multi mode) took its sub-question.
    Assigned {
        /// The sub-question.
        question: String,
    },
    /// A search started.
    Searching {
        /// The query.
        query: String,
    },
    /// A search was skipped as a near-duplicate.
    Skipped {
        /// The query.
        query: String,
        /// The earlier query it resembles.
        similar_to: String,
    },
    /// A page is being read.
    Reading {
        /// Its URL.
        url: String,
    },
    /// A page was read.
    Read {
        /// Its URL.
        url: String,
        /// Facts taken from it.
        facts: usize,
    },
    /// Something failed without stopping the run.
    Warning {
        /// What.
        message: String,
    },
    /// A round ended.
    Coverage {
        /// The round.
        iteration: u32,
        /// Coverage so far.
        coverage: f64,
        /// Gaps named.
        gaps: usize,
    },
    /// The report is being written.
    Writing,
    /// A model call finished (for the live counters of calls, tokens and cost).
    LlmCall {
        /// The call.
        call: research_llm::CallRecord,
    },
    /// Sentences with a banned word that has no plain word were taken out of the report.
    BannedWordsRemoved {
        /// The words, as found.
        words: Vec<String>,
    },
    /// Quotation marks were removed from text no source contains.
    QuotesUnquoted {
        /// How many quoted spans.
        count: usize,
    },
    /// A model did work that measures it (facts restated, a draft written, verdicts given):
    /// summed per model over the person's runs ([`crate::measured`]).
    ModelWork {
        /// The model string.
        model: String,
        /// What it did.
        work: crate::records::ModelWork,
    },
    /// Citation markers were fixed after writing.
    CitationsRepaired {
        /// Markers pointed at the right source.
        repaired: usize,
        /// Markers dropped.
        removed: usize,
    },
}
