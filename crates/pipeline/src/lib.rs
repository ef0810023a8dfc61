//! The research pipelines, built on the graph engine.
//!
//! The standard pipeline (seed 004) reads a question, asks for a clarification when it is
//! ambiguous, plans research questions and searches, then either loops search → read → extract
//! → find gaps (single agent) or sends one worker per sub-question in parallel and synthesises
//! their findings (multi agent), checks claims against their quotes, and writes a cited report
//! that a person may approve, send back for one revision, or reject.
//!
//! Grounding is structural: the extractor picks sentences *by number* from the stored text of a
//! page, so every quote is a verbatim span of what was fetched; the quote is checked against the
//! text anyway; the report's citation markers are validated after writing; and its findings
//! section is built from the evidence itself, so a weak model can write a weak report but not
//! an ungrounded one.
//!
//! Everything the pipeline needs from outside comes in through [`Env`]: models per role, one
//! search provider (which may fan out to several), a fetcher, and a [`Documents`] store for the
//! text of every source.
#![deny(missing_docs)]

mod config;
pub mod eval;
mod nodes;
mod prompts;
pub mod report;
mod state;
pub mod text;

use std::sync::Arc;

use research_fetch::Fetcher;
use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, NodeOptions, StateGraph, END, START,
};
use research_llm::RoleModels;
use research_search::SearchProvider;
use serde::{Deserialize, Serialize};

pub use config::{Depth, DepthLimits, Mode, ReviewPoints, RunConfig, Structure};
pub use state::{
    Answer, Assignment, Claim, Coverage, Decision, Evidence, Found, Outcome, Plan, Question,
    ResearchState, ResearchUpdate, Source, Synthesis, Understanding, Warning, WorkerResult,
};

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
    /// Quotation marks were removed from text no source contains.
    QuotesUnquoted {
        /// How many quoted spans.
        count: usize,
    },
    /// Citation markers were fixed after writing.
    CitationsRepaired {
        /// Markers pointed at the right source.
        repaired: usize,
        /// Markers dropped.
        removed: usize,
    },
}

/// The name the standard pipeline is registered under in the thread registry.
pub const STANDARD: &str = "research";

/// Builds the standard pipeline (both modes; the plan's `mode` chooses the path) for a run
/// configured by `config`.
pub fn graph(
    config: &RunConfig,
    checkpointer: Option<Arc<dyn Checkpointer>>,
) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
    let limits = config.limits();
    let min_coverage = config.min_coverage;
    let mut g = StateGraph::<ResearchState, Env>::new();
    g.add_node("understand", nodes::understand);
    g.add_node("clarify", nodes::clarify);
    g.add_node("plan", nodes::plan);
    g.add_node("review_plan", nodes::review_plan);
    g.add_node("search_and_extract", nodes::search_and_extract);
    g.add_node("detect_gaps", nodes::detect_gaps);
    g.add_node("orchestrate", nodes::orchestrate);
    g.add_worker(
        "search_worker",
        NodeOptions::default(),
        nodes::search_worker,
    );
    g.add_node("collect", nodes::collect);
    g.add_node("synthesize", nodes::synthesize);
    g.add_node("verify", nodes::verify);
    g.add_node("write_report", nodes::write_report);
    g.add_node("review_report", nodes::review_report);
    g.add_node("revise_report", nodes::revise_report);

    g.add_edge(START, "understand");
    g.add_conditional_edges(
        "understand",
        |s: &ResearchState| {
            if s.ask_clarification {
                "clarify"
            } else {
                "plan"
            }
        },
        &["clarify", "plan"],
    );
    g.add_edge("clarify", "plan");
    g.add_edge("plan", "review_plan");
    g.add_conditional_edges(
        "review_plan",
        |s: &ResearchState| match (&s.outcome, s.mode) {
            (Outcome::Cancelled, _) => END,
            (_, Mode::Single) => "search_and_extract",
            (_, Mode::Multi) => "orchestrate",
        },
        &["search_and_extract", "orchestrate"],
    );
    g.add_edge("search_and_extract", "detect_gaps");
    g.add_conditional_edges(
        "detect_gaps",
        move |s: &ResearchState| {
            if nodes::after_gaps(s, min_coverage, limits.max_iterations) {
                "verify"
            } else {
                "search_and_extract"
            }
        },
        &["search_and_extract", "verify"],
    );
    g.add_conditional_edges(
        "orchestrate",
        move |s: &ResearchState| nodes::fan_out(s, limits.max_sources),
        &["search_worker"],
    );
    g.add_edge("search_worker", "collect");
    g.add_edge("collect", "synthesize");
    g.add_conditional_edges(
        "synthesize",
        move |s: &ResearchState| {
            if nodes::after_synthesis(s, limits.max_iterations) {
                "verify"
            } else {
                "orchestrate"
            }
        },
        &["orchestrate", "verify"],
    );
    g.add_edge("verify", "write_report");
    g.add_edge("write_report", "review_report");
    g.add_conditional_edges(
        "review_report",
        |s: &ResearchState| {
            if s.outcome == Outcome::Running {
                "revise_report"
            } else {
                END
            }
        },
        &["revise_report"],
    );
    g.add_edge("revise_report", END);
    g.compile(CompileOptions {
        checkpointer,
        ..Default::default()
    })
}

/// The initial state of a run on `question`.
pub fn initial_state(question: &str, config: &RunConfig, now_ms: i64) -> ResearchState {
    follow_up_state(question, "", config, now_ms)
}

/// The initial state of a follow-up question, with the session's earlier turns as `context`.
pub fn follow_up_state(
    question: &str,
    context: &str,
    config: &RunConfig,
    now_ms: i64,
) -> ResearchState {
    ResearchState {
        context: context.trim().to_string(),
        query: question.trim().to_string(),
        mode: config.mode,
        language: config
            .language
            .clone()
            .unwrap_or_else(|| text::detect_language(question)),
        started_at_ms: now_ms,
        ..Default::default()
    }
}
