//! The typed run configuration (seed 004's `Configuration`): everything a user can choose for one
//! research run. It is saved with the run, so a resumed run continues with the same choices.

use research_llm::{Budget, ModelRouting};
use research_search::HitKind;
use serde::{Deserialize, Serialize};

use crate::records::{Answer, Question};

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
    /// The kinds of source an untyped search goes to, the library always among them (seed
    /// 000: web at quick depth, web and academic at standard, web, academic and news at
    /// comprehensive).
    pub kinds: &'static [HitKind],
    /// Times the analyst's gaps may send the review pipeline back to search (seed 000's
    /// `max_gap_searches`: 2; one at quick depth, which is asked to be quick).
    pub gap_rounds: u32,
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
                kinds: &[HitKind::Web],
                gap_rounds: 1,
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
                kinds: &[HitKind::Web, HitKind::Academic],
                gap_rounds: 2,
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
                kinds: &[HitKind::Web, HitKind::Academic, HitKind::News],
                gap_rounds: 2,
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

/// The report's register (seed 000's writer styles); what each changes is written in
/// [`Style::rule`], the one place the writer is told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// Formal and measured: terms defined, claims qualified as the evidence qualifies them.
    #[default]
    Academic,
    /// Precise and practical: names, options, steps and numbers exactly as the sources give them.
    Technical,
    /// The answer first, then what it means; plain words, short paragraphs.
    Executive,
}

impl Style {
    /// What the writer is told for this style.
    pub fn rule(self) -> &'static str {
        match self {
            Style::Academic => {
                "Style: academic. Formal, third person, complete sentences; define each technical \
term the first time it is used; qualify a claim exactly as far as its evidence does."
            }
            Style::Technical => {
                "Style: technical. Precise and practical: give names, options, commands and numbers \
exactly as the evidence gives them; prefer short sentences; describe procedures as ordered steps."
            }
            Style::Executive => {
                "Style: executive. Open with the answer in one or two sentences, then what it means \
for a decision; plain words, no jargon; short paragraphs."
            }
        }
    }
}

/// Seed 000's banned words: the default list of words a report may not use (editable in
/// settings). A word found after writing is rewritten away ([`crate::guard::banned`]).
pub const DEFAULT_BANNED_WORDS: &[&str] = &[
    "delve",
    "realm",
    "harness",
    "unlock",
    "tapestry",
    "paradigm",
    "cutting-edge",
    "revolutionize",
    "landscape",
    "crucial",
    "pivotal",
    "groundbreaking",
    "leverage",
    "synergy",
    "innovative",
    "game-changer",
    "holistic",
    "transformative",
    "seamless",
    "robust",
    "breakthrough",
    "empower",
];

/// Domains whose sources the trust pipeline starts from high credibility (seed 004's list,
/// E-E-A-T's "trust"): an entry starting with a dot matches a suffix (`.edu`), any other the
/// domain and its subdomains. The user can replace the list in settings.
pub const DEFAULT_TRUSTED_DOMAINS: &[&str] = &[
    ".edu",
    ".gov",
    ".ac.uk",
    ".ac.jp",
    ".go.jp",
    ".europa.eu",
    "who.int",
    "arxiv.org",
    "nature.com",
    "science.org",
    "nih.gov",
    "acm.org",
    "ieee.org",
    "springer.com",
    "sciencedirect.com",
    "plos.org",
    "bmj.com",
    "thelancet.com",
    "nejm.org",
    "wikipedia.org",
];

/// Domains whose sources the trust pipeline keeps under its credibility bar: user-generated
/// answers, pinboards and content farms. The user can replace the list in settings.
pub const DEFAULT_LOW_TRUST_DOMAINS: &[&str] = &[
    "pinterest.com",
    "quora.com",
    "buzzfeed.com",
    "answers.com",
    "ehow.com",
    "wikihow.com",
    "facebook.com",
    "tiktok.com",
    "instagram.com",
];

/// How the trust pipeline's engine asks its model to confirm what the deterministic checks
/// found (seed 004's two variants).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TrustVariant {
    /// Two calls for the whole report: the audit's, then one for every cross-source check.
    #[default]
    Batched,
    /// One call per claim, with all its spans at once: more context per judgement, more calls.
    Full,
}

/// Revisions the review pipeline's reviewer may ask for unless a run chooses otherwise: two,
/// so at most three drafts (the first and two revisions), as seed 000's `max_iterations: 3`
/// counts them (each review counts one; the third asking for changes ends the loop).
pub const DEFAULT_MAX_REVISIONS: u32 = 2;

/// The most revisions a run may allow its reviewer to ask for.
pub const MAX_REVISIONS: u32 = 10;

/// The longest a review point may wait for an answer, in minutes (a week); the shortest is one.
pub const MAX_REVIEW_TIMEOUT_MINUTES: u32 = 10_080;

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

    /// Whether any review point is on: the person takes part in the run, so an escalation may
    /// stop for them too (with every point off, nothing stops the run).
    pub fn any(self) -> bool {
        self.clarify || self.plan || self.report
    }
}

/// What a run does at a review point nobody answers in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutAction {
    /// Go on as if approved: the plan and the report approved, an escalation accepted with
    /// its caveats.
    #[default]
    Approve,
    /// End the run: the plan cancelled, the report rejected, an escalation stopped (the best
    /// draft is kept).
    Stop,
}

/// A deadline for the run's review points (off unless a run chooses one). A clarification
/// nobody answers takes the best reading under either action: there is nothing yet to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewTimeout {
    /// Minutes a question waits, from when it was asked.
    pub minutes: u32,
    /// What the run does then.
    pub then: TimeoutAction,
}

impl ReviewTimeout {
    /// When a question asked at `asked_at_ms` is due.
    pub fn deadline_ms(&self, asked_at_ms: i64) -> i64 {
        asked_at_ms.saturating_add(i64::from(self.minutes) * 60_000)
    }

    /// The answer the run takes for `question` when nobody answered it in time.
    pub fn answer(&self, question: &Question) -> Answer {
        let stop = self.then == TimeoutAction::Stop;
        match question {
            Question::Clarify { .. } => Answer::Clarify {
                text: String::new(),
            },
            Question::PlanReview { .. } if stop => Answer::CancelPlan,
            Question::PlanReview { .. } => Answer::ApprovePlan,
            Question::ReportReview { .. } if stop => Answer::RejectReport { reason: self.why() },
            Question::ReportReview { .. } => Answer::ApproveReport,
            Question::Escalation { .. } if stop => Answer::StopRun,
            Question::Escalation { .. } => Answer::AcceptWithCaveats,
        }
    }

    /// Why the run went on without the person, in words for its decision record.
    pub fn why(&self) -> String {
        format!(
            "no answer within {} minute{}",
            self.minutes,
            if self.minutes == 1 { "" } else { "s" }
        )
    }
}

/// Share of a token or cost budget after which research stops and the report is written (the
/// soft budget): the rest is left for writing and checking it.
pub const SOFT_BUDGET: f64 = 0.8;

/// Model calls writing and checking a report takes after the research: the claims' check, the
/// writer, the audit's check and cross-validation (batched: one call; full: about one a claim).
pub fn writing_calls(variant: TrustVariant) -> u64 {
    match variant {
        TrustVariant::Batched => 4,
        TrustVariant::Full => 10,
    }
}

/// Whether research should stop to leave the budget's rest for the report: a call budget with
/// no more room than writing needs, or [`SOFT_BUDGET`] of a token or cost budget spent. The
/// words say what was spent.
pub fn soft_budget(config: &RunConfig, spent: &research_llm::UsageTotals) -> Option<String> {
    if let Some(max) = config.budget.max_calls {
        if spent.calls + writing_calls(config.trust) >= max {
            return Some(format!(
                "{} of {max} model calls, and writing needs about {}",
                spent.calls,
                writing_calls(config.trust)
            ));
        }
    }
    let limits = research_llm::Budget {
        max_calls: None,
        ..config.budget
    };
    limits
        .most_spent(spent)
        .filter(|(share, _)| *share >= SOFT_BUDGET)
        .map(|(_, words)| words)
}

/// What the person tells the planner besides the question (seed 000's planner input): what
/// they already know, the domains to focus on, and notes on method. Only the planner is told:
/// it shapes the research questions and searches, not what evidence must be about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Background {
    /// What they already know, which the research need not establish again.
    pub known: String,
    /// Domains or kinds of source to focus on ("academic", "industry", "SQLite internals").
    pub domains: Vec<String>,
    /// How to go about it ("primary sources only", "compare benchmarks from 2023 on").
    pub method: String,
}

/// Characters each of the person's background notes may run to.
pub const MAX_BACKGROUND_CHARS: usize = 2_000;

/// Domains the person may name for the planner, and the characters of each.
pub const MAX_DOMAINS: usize = 10;
/// See [`MAX_DOMAINS`].
pub const MAX_DOMAIN_CHARS: usize = 100;

impl Background {
    /// Whether the person said nothing.
    pub fn is_empty(&self) -> bool {
        self.known.trim().is_empty()
            && self.method.trim().is_empty()
            && self.domains.iter().all(|d| d.trim().is_empty())
    }

    /// The lines the planner is told (empty when the person said nothing).
    pub fn block(&self) -> String {
        let mut out = String::new();
        if !self.known.trim().is_empty() {
            out.push_str(&format!(
                "What the person already knows (do not research it again): {}\n",
                self.known.trim()
            ));
        }
        let domains: Vec<&str> = self
            .domains
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
            .collect();
        if !domains.is_empty() {
            out.push_str(&format!("Domains to focus on: {}\n", domains.join(", ")));
        }
        if !self.method.trim().is_empty() {
            out.push_str(&format!("Notes on method: {}\n", self.method.trim()));
        }
        out
    }

    /// Why the notes cannot be used, if they cannot: one is longer than
    /// [`MAX_BACKGROUND_CHARS`], or the domains are too many or too long ([`MAX_DOMAINS`]).
    pub fn invalid(&self) -> Option<String> {
        let long = [
            ("what you already know", &self.known),
            ("the notes on method", &self.method),
        ]
        .into_iter()
        .find(|(_, t)| t.chars().count() > MAX_BACKGROUND_CHARS);
        if let Some((what, _)) = long {
            return Some(format!(
                "{what} runs over {MAX_BACKGROUND_CHARS} characters: shorten it"
            ));
        }
        if self.domains.len() > MAX_DOMAINS {
            return Some(format!(
                "at most {MAX_DOMAINS} domains, not {}",
                self.domains.len()
            ));
        }
        if self
            .domains
            .iter()
            .any(|d| d.chars().count() > MAX_DOMAIN_CHARS)
        {
            return Some(format!(
                "a domain runs over {MAX_DOMAIN_CHARS} characters: name it in a few words"
            ));
        }
        None
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
    /// Share of the checked claims the verification must find supported before the report is
    /// written: under it, research goes back for what the unsupported claims are about (seed
    /// 001's verification loop), at most [`RunConfig::verification_loops`] times.
    pub min_supported: f64,
    /// Times a failed verification may send the run back to research.
    pub verification_loops: u32,
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
    /// The report's register.
    pub style: Style,
    /// The length the report body should have, in words (the structure's own when absent).
    pub target_words: Option<u32>,
    /// Words the report may not use ([`DEFAULT_BANNED_WORDS`] when not chosen; see
    /// [`RunConfig::banned`]).
    pub banned_words: Option<Vec<String>>,
    /// Revisions the review pipeline's reviewer may ask for before the best draft is taken.
    pub max_revisions: u32,
    /// How long review points wait before the run goes on without an answer (never when
    /// absent).
    pub review_timeout: Option<ReviewTimeout>,
    /// The trust pipeline's engine variant.
    pub trust: TrustVariant,
    /// Trusted domains (`None`: [`DEFAULT_TRUSTED_DOMAINS`]).
    pub trusted_domains: Option<Vec<String>>,
    /// Low-trust domains (`None`: [`DEFAULT_LOW_TRUST_DOMAINS`]).
    pub low_trust_domains: Option<Vec<String>>,
    /// What the person tells the planner besides the question.
    pub background: Background,
    /// Keep each model call's prompt and answer with the session, keys and secrets redacted,
    /// for a person to inspect (seed 003); off by default, since they are large and may quote
    /// what the person typed.
    pub record_calls: bool,
    /// What the models were measured to do, which decides what each is asked for
    /// ([`crate::measured`]): the built-in measurements, with the person's runs added by the
    /// api when it starts or estimates a run. Not saved with the run: it is the machine's
    /// knowledge of its models, read afresh each time.
    #[serde(skip)]
    #[ts(skip)]
    pub measured: crate::measured::Measurements,
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
            min_supported: 0.5,
            verification_loops: 1,
            search: vec!["auto".into()],
            budget: Budget::default(),
            review: ReviewPoints::default(),
            no_input: false,
            language: None,
            style: Style::default(),
            target_words: None,
            banned_words: None,
            max_revisions: DEFAULT_MAX_REVISIONS,
            review_timeout: None,
            trust: TrustVariant::default(),
            trusted_domains: None,
            low_trust_domains: None,
            background: Background::default(),
            record_calls: false,
            measured: Default::default(),
        }
    }
}

impl RunConfig {
    /// Whether a person takes part in the run: input is allowed and a review point is on. Only
    /// then may an escalation stop for them (every pipeline's escalation reads this).
    pub fn asks_a_person(&self) -> bool {
        !self.no_input && self.review.any()
    }

    /// The words the report may not use: those chosen, else seed 000's list.
    pub fn banned(&self) -> Vec<String> {
        self.banned_words
            .clone()
            .unwrap_or_else(|| DEFAULT_BANNED_WORDS.iter().map(|w| w.to_string()).collect())
    }

    /// The trusted domains: the user's, or the defaults.
    pub fn trusted(&self) -> Vec<String> {
        owned_or(&self.trusted_domains, DEFAULT_TRUSTED_DOMAINS)
    }

    /// The low-trust domains: the user's, or the defaults.
    pub fn low_trust(&self) -> Vec<String> {
        owned_or(&self.low_trust_domains, DEFAULT_LOW_TRUST_DOMAINS)
    }

    /// The depth's limits with this configuration's overrides.
    pub fn limits(&self) -> DepthLimits {
        let mut limits = self.depth.limits();
        if let Some(max) = self.max_iterations {
            limits.max_iterations = max.max(1);
        }
        limits
    }

    /// The most steps a run of this configuration takes before the engine stops it as looping.
    /// Every loop of the pipelines ends by its own count; this adds those counts up, generously,
    /// so that the longest run the configuration allows fits (the engine's default of 25 did
    /// not, once the analyst's gaps could send a review run back to search) and a routing defect
    /// still ends.
    pub fn step_limit(&self) -> usize {
        let l = self.limits();
        // Understanding and each clarification twice, the plan and its review.
        let intake = 4 + 2 * crate::steps::intake::MAX_CLARIFICATIONS as usize;
        // A round takes at most six steps (the trust pipeline's, with its backtracking); every
        // way back to research — a verification loop, a gap round, research more at an
        // escalation — runs the rounds again.
        let returns = self.verification_loops as usize
            + l.gap_rounds as usize
            + crate::steps::review::MAX_ESCALATIONS;
        let research = 6 * l.max_iterations as usize * (1 + returns);
        // A draft, its critique and revision per revision allowed, again after each escalation,
        // and the person's review and edit.
        let report =
            6 + 3 * (self.max_revisions as usize + 1) * (1 + crate::steps::review::MAX_ESCALATIONS);
        intake + research + report
    }
}

fn owned_or(list: &Option<Vec<String>>, default: &[&str]) -> Vec<String> {
    list.clone()
        .unwrap_or_else(|| default.iter().map(|d| d.to_string()).collect())
}
