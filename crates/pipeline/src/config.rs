//! The typed run configuration (seed 004's `Configuration`): everything a user can choose for one
//! research run. It is saved with the run, so a resumed run continues with the same choices.

use research_llm::{Budget, ModelRouting};
use serde::{Deserialize, Serialize};

/// Single agent (an iterative search loop) or several parallel workers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One agent searches, reads and looks for gaps in a loop.
    #[default]
    Single,
    /// An orchestrator splits the question; one worker per sub-question runs in parallel.
    Multi,
}

/// How much research to do (seed 000's depth levels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    /// A few searches, one round.
    Quick,
    /// The default.
    #[default]
    Standard,
    /// More questions, searches and rounds.
    Comprehensive,
}

/// The numbers a depth stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthLimits {
    /// Research questions planned.
    pub questions: usize,
    /// Searches planned at the start.
    pub initial_searches: usize,
    /// Rounds of the gap loop (single) or synthesis loop (multi).
    pub max_iterations: u32,
    /// Hits asked of the search provider per query.
    pub results_per_search: usize,
    /// Pages read per query.
    pub pages_per_search: usize,
    /// Chunks of one page given to the extractor.
    pub chunks_per_page: usize,
    /// Facts taken from one chunk.
    pub facts_per_page: usize,
    /// Workers in multi mode.
    pub workers: usize,
    /// Searches one worker runs.
    pub searches_per_worker: usize,
    /// Sources read in the whole run.
    pub max_sources: usize,
}

impl Depth {
    /// The limits of this depth.
    pub fn limits(self) -> DepthLimits {
        match self {
            Depth::Quick => DepthLimits {
                questions: 3,
                initial_searches: 3,
                max_iterations: 1,
                results_per_search: 4,
                pages_per_search: 2,
                chunks_per_page: 1,
                facts_per_page: 3,
                workers: 3,
                searches_per_worker: 2,
                max_sources: 8,
            },
            Depth::Standard => DepthLimits {
                questions: 4,
                initial_searches: 5,
                max_iterations: 2,
                results_per_search: 5,
                pages_per_search: 2,
                chunks_per_page: 2,
                facts_per_page: 4,
                workers: 4,
                searches_per_worker: 3,
                max_sources: 20,
            },
            Depth::Comprehensive => DepthLimits {
                questions: 5,
                initial_searches: 6,
                max_iterations: 3,
                results_per_search: 8,
                pages_per_search: 3,
                chunks_per_page: 2,
                facts_per_page: 5,
                workers: 5,
                searches_per_worker: 3,
                max_sources: 30,
            },
        }
    }
}

/// The shape of the written report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    /// Sections with full paragraphs.
    #[default]
    Detailed,
    /// A short report.
    Concise,
    /// Findings as bullet points.
    BulletPoints,
}

/// Which human review points stop the run for an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct ReviewPoints {
    /// Ask the clarification question when the question is ambiguous.
    pub clarify: bool,
    /// Show the plan for approval before searching.
    pub plan: bool,
    /// Show the report for approval before it is final.
    pub report: bool,
}

impl Default for ReviewPoints {
    fn default() -> Self {
        Self {
            clarify: true,
            plan: false,
            report: false,
        }
    }
}

impl ReviewPoints {
    /// No stops at all.
    pub fn none() -> Self {
        Self {
            clarify: false,
            plan: false,
            report: false,
        }
    }
}

/// Everything chosen for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RunConfig {
    /// Single or multi agent.
    pub mode: Mode,
    /// How much research to do.
    pub depth: Depth,
    /// The report's shape.
    pub structure: Structure,
    /// Which model answers which role.
    pub models: ModelRouting,
    /// Extra instructions for the writer (audience, tone).
    pub system_prompt: Option<String>,
    /// Overrides the depth's number of rounds.
    pub max_iterations: Option<u32>,
    /// Coverage at which the gap loop stops.
    pub min_coverage: f64,
    /// Search providers (`auto`, `local`, `tavily`, …).
    pub search: Vec<String>,
    /// Limits on model use.
    pub budget: Budget,
    /// Which review points stop the run.
    pub review: ReviewPoints,
    /// Never wait for a person: take the best interpretation and approve review points.
    pub no_input: bool,
    /// The report's language (`en`, `ja`, …); the question's language when absent.
    pub language: Option<String>,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            mode: Mode::Single,
            depth: Depth::Standard,
            structure: Structure::Detailed,
            models: ModelRouting::default(),
            system_prompt: None,
            max_iterations: None,
            min_coverage: 0.7,
            search: vec!["auto".into()],
            budget: Budget::default(),
            review: ReviewPoints::default(),
            no_input: false,
            language: None,
        }
    }
}

impl RunConfig {
    /// The depth's limits with this configuration's overrides.
    pub fn limits(&self) -> DepthLimits {
        let mut limits = self.depth.limits();
        if let Some(max) = self.max_iterations {
            limits.max_iterations = max.max(1);
        }
        limits
    }
}
