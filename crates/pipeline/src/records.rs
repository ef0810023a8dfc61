//! The records every pipeline works with: sources, evidence, claims, plans, warnings, the
//! questions asked of the user and their answers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A document the run read, numbered for citation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Source {
    /// The citation number, stable for the run (`[n]` in the report).
    pub id: u32,
    /// Where it came from: an http(s) URL or a `file://` URL of a library file.
    pub url: String,
    /// Its title (the URL when it had none).
    pub title: String,
    /// `web`, `academic`, `news` or `local`.
    pub kind: String,
    /// The search provider that found it.
    pub provider: String,
    /// When it was published, as its search provider gave it (`None` when unknown): the trust
    /// pipeline's freshness signal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub published: Option<String>,
    /// SHA-256 of the stored extracted text: quotes are checked against that text.
    pub sha256: String,
    /// When it was read (ms since the epoch).
    pub accessed_at_ms: i64,
    /// Who wrote it and where it appeared, for a citation style: the search provider's record
    /// first, then what the document says of itself. `None` when neither says anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub citation: Option<research_cite::Citation>,
}

impl Source {
    /// The citation number a newly read source takes: after every source of `sources`, also
    /// when a step dropped one (numbers are never reused within a run).
    pub fn next_id(sources: &[Source]) -> u32 {
        sources.iter().map(|s| s.id).max().unwrap_or(0) + 1
    }
}

/// A search hit as the run ranked it against the question, before the source cap chose what
/// to read: every search's hits merged (one row per address), best first within a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RankedHit {
    /// The round of searches (from 1).
    pub round: u32,
    /// Its rank within the round (from 1).
    pub rank: usize,
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The first search that found it.
    pub query: String,
    /// Its BM25 score against the question and the research questions (title, snippet and
    /// address words).
    pub score: f64,
    /// Whether it was picked to read.
    pub picked: bool,
}

/// A fact taken from a source, with the verbatim span that says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Evidence {
    /// Number within the run.
    pub id: u32,
    /// The source's citation number.
    pub source_id: u32,
    /// The source's URL (workers know URLs before sources are numbered).
    pub source_url: String,
    /// The fact in the model's words.
    pub fact: String,
    /// The exact text of the source that supports it.
    pub quote: String,
    /// The research question (index into the plan) it answers, when known.
    pub question: Option<usize>,
    /// The search that led to it.
    pub query: String,
}

impl Evidence {
    /// The id a new item takes after every item of `evidence` (ids are unique within a run,
    /// whatever subset of them a step is shown).
    pub fn next_id(evidence: &[Evidence]) -> u32 {
        evidence.iter().map(|e| e.id).max().unwrap_or(0) + 1
    }

    /// A fact and its quote as taken from a page, before the run numbers it and names its
    /// source.
    pub fn unnumbered(fact: String, quote: String) -> Self {
        Evidence {
            id: 0,
            source_id: 0,
            source_url: String::new(),
            fact,
            quote,
            question: None,
            query: String::new(),
        }
    }

    /// Whether the fact is its quote's own words (spacing, case and punctuation aside), as a
    /// passage taken verbatim is: shown to a reader, the quote alone says it. Not whether it
    /// needs no check: "$5" reads as "5" here.
    pub fn reads_as_its_quote(&self) -> bool {
        crate::text::normalize(&self.fact) == crate::text::normalize(&self.quote)
    }
}

/// What a model did in a run that tells what asking it is worth: counted by the steps that ask
/// it (extraction, writing, second opinions), summed per model over the person's runs
/// ([`crate::measured`]). Counts only: nothing it read or wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct ModelWork {
    /// Facts it was asked to restate in its own words and that were kept.
    #[ts(type = "number")]
    pub facts: u64,
    /// Of those, how many were its quote's own words.
    #[ts(type = "number")]
    pub own_words: u64,
    /// First drafts of a report it wrote.
    #[ts(type = "number")]
    pub drafts: u64,
    /// Of those, how many the checks refused (the report gave the passages instead).
    #[ts(type = "number")]
    pub refused: u64,
    /// Claims it was asked to give a verdict on (its second opinion).
    #[ts(type = "number")]
    pub verdicts_asked: u64,
    /// Of those, how many it gave a verdict on.
    #[ts(type = "number")]
    pub verdicts_given: u64,
}

impl ModelWork {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &ModelWork) {
        self.facts += other.facts;
        self.own_words += other.own_words;
        self.drafts += other.drafts;
        self.refused += other.refused;
        self.verdicts_asked += other.verdicts_asked;
        self.verdicts_given += other.verdicts_given;
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == ModelWork::default()
    }
}

/// A checked claim (seed 004's verify step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Claim {
    /// The evidence item the claim comes from.
    pub evidence_id: u32,
    /// The claim.
    pub text: String,
    /// Whether the quote supports it.
    pub supported: bool,
}

/// The clarification the `understand` step asks for, or its reading of a clear question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Understanding {
    /// Whether the question can be researched as asked.
    pub is_clear: bool,
    /// The kinds of ambiguity found (polysemy, scope, time period, …).
    pub ambiguities: Vec<String>,
    /// The question to ask.
    pub question: String,
    /// 3–5 choices to offer.
    pub options: Vec<String>,
    /// The most likely reading, used when nobody answers.
    pub interpretation: String,
}

/// The research plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
pub struct Plan {
    /// 3–5 research questions.
    pub questions: Vec<String>,
    /// Aspects the report should cover.
    pub aspects: Vec<String>,
    /// Initial web searches.
    pub searches: Vec<String>,
    /// How the planner means to answer the question (seed 000's methodology), when it said so
    /// in words a person can read.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[ts(as = "Option<String>", optional)]
    pub methodology: String,
    /// How sure the planner is that the plan answers the question, 0–1: the model's own
    /// estimate, shown as such.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub confidence: Option<f64>,
    /// What the planner is concerned about in the question's scope (too broad, ambiguous,
    /// outside what can be found).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub concerns: Vec<String>,
}

impl Plan {
    /// The plan as a person reviews it: the research questions, the planner's approach, its
    /// confidence and concerns, then the first searches. One text for every place that asks.
    pub fn describe(&self) -> String {
        let mut text = String::from("The research will answer these questions:");
        for q in &self.questions {
            text.push_str(&format!("\n• {q}"));
        }
        if let Some(line) = self.planner_line() {
            text.push_str(&format!("\n\n{line}"));
        }
        for c in &self.concerns {
            text.push_str(&format!("\nA concern: {c}"));
        }
        text.push_str("\n\nIt starts with these searches:");
        for s in &self.searches {
            text.push_str(&format!("\n• {s}"));
        }
        text
    }

    /// The planner's approach and confidence in one line, when it gave either.
    pub fn planner_line(&self) -> Option<String> {
        let approach = self.methodology.trim();
        let confidence = self.confidence.map(|c| {
            format!(
                "the planner's own confidence in the plan: {:.0}%",
                c * 100.0
            )
        });
        match (approach.is_empty(), confidence) {
            (true, None) => None,
            (true, Some(c)) => Some(format!("{}{}.", c[..1].to_uppercase(), &c[1..])),
            (false, None) => Some(format!("Approach: {approach}")),
            (false, Some(c)) => Some(format!(
                "Approach: {} ({c}).",
                approach.trim_end_matches('.')
            )),
        }
    }
}

/// Coverage of one research question.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Coverage {
    /// Nothing found.
    #[default]
    Missing,
    /// Some evidence.
    Partial,
    /// Answered.
    WellCovered,
}

// Also read from the scores (0, 0.5, 1) that reports saved before the levels were.
impl<'de> Deserialize<'de> for Coverage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Named {
            Missing,
            Partial,
            WellCovered,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Level {
            Named(Named),
            Score(f64),
        }
        Ok(match Level::deserialize(d)? {
            Level::Named(Named::Missing) => Coverage::Missing,
            Level::Named(Named::Partial) => Coverage::Partial,
            Level::Named(Named::WellCovered) => Coverage::WellCovered,
            Level::Score(s) if s >= 1.0 => Coverage::WellCovered,
            Level::Score(s) if s > 0.0 => Coverage::Partial,
            Level::Score(_) => Coverage::Missing,
        })
    }
}

impl Coverage {
    /// The score of this level.
    pub fn score(self) -> f64 {
        match self {
            Coverage::Missing => 0.0,
            Coverage::Partial => 0.5,
            Coverage::WellCovered => 1.0,
        }
    }
}

/// A worker's assignment in multi mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// Which worker of its round.
    pub index: usize,
    /// The round.
    pub round: u32,
    /// The sub-question.
    pub question: String,
    /// Searches to run.
    pub searches: Vec<String>,
    /// The whole question, for context.
    pub query: String,
}

/// A document a worker read, before the run numbers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Found {
    /// The source (its `id` is 0 until collected).
    pub source: Source,
    /// Evidence from it (`source_id` 0 until collected).
    pub evidence: Vec<Evidence>,
}

/// What one worker reports back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerResult {
    /// The assignment.
    pub assignment: Assignment,
    /// Its answer to the sub-question.
    pub answer: String,
    /// Key findings.
    pub findings: Vec<String>,
    /// Its confidence, 0–1.
    pub confidence: f64,
    /// What it could not find.
    pub gaps: Vec<String>,
    /// Searches run.
    pub searches_done: Vec<String>,
}

/// The synthesis of a round of workers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Synthesis {
    /// The combined view.
    pub summary: String,
    /// Conflicts between workers.
    pub conflicts: Vec<String>,
    /// Remaining gaps.
    pub gaps: Vec<String>,
    /// Searches that would close them.
    pub additional_searches: Vec<String>,
    /// Whether another round is worth it.
    pub needs_more_research: bool,
}

/// What kind of trouble a [`Warning`] reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Anything else (a step went on without the model's answer, …).
    #[default]
    Other,
    /// A search failed while others answered.
    SearchFailed,
    /// A page could not be fetched or read.
    Unreadable,
    /// A page's address is private or local and was not allowed (the fetcher's guard).
    Blocked,
    /// A page was read but its text could not be stored.
    NotStored,
    /// A page was read but no facts could be taken from it.
    NotExtracted,
    /// A model failed past its retries and the run delivered what it had (review pipeline).
    ModelFailed,
    /// The provider said the prompt was too long for the model; it was asked again with less.
    ContextOverflow,
    /// The model's answer did not parse even after the repair; asked again with a simpler
    /// schema, or the step went on without it.
    ParseFailed,
    /// Nobody answered a review point in time; the run took the action chosen for it.
    TimedOut,
    /// A model's search or research question was refused: it echoed the prompt or the schema,
    /// answered instead of asking, or shared no word with the question.
    Refused,
    /// A search that found nothing on its kind of source was tried on every other kind.
    Switched,
    /// A page said what a page read before it says (its copy, a manual's source text beside
    /// its rendered page): read once, and the next page read in its place.
    Repeated,
}

/// A warning kept with the run (a failed search, an unreadable page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// The node.
    pub node: String,
    /// What happened, in one sentence.
    pub message: String,
    /// The page it is about, when a page could not be read or stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What kind of trouble it is.
    #[serde(default)]
    pub kind: WarningKind,
    /// Why, without the page's address (what the Sources list shows next to it).
    #[serde(default)]
    pub detail: String,
}

/// The questions a run can stop with, each an engine interrupt payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Question {
    /// The question is ambiguous: which reading?
    Clarify {
        /// The question to show.
        question: String,
        /// Choices.
        options: Vec<String>,
        /// Kinds of ambiguity found.
        ambiguities: Vec<String>,
    },
    /// Approve, edit or cancel the plan.
    PlanReview {
        /// The plan.
        plan: Plan,
    },
    /// Approve, revise, edit or reject the report.
    ReportReview {
        /// The draft report (Markdown).
        report: String,
        /// The writer's part of it (without findings, sources and method): what a person
        /// edits; the rest is rebuilt around the edit.
        #[serde(default)]
        draft: String,
    },
    /// A check's critical issues are still open (the reviewer's after the revisions, or the
    /// trust check's unsupported claims): accept the best draft with them as caveats, research
    /// more with them as gaps, or stop.
    Escalation {
        /// Why the run asks, in one sentence.
        reason: String,
        /// The open critical issues.
        issues: Vec<crate::steps::review::Issue>,
        /// The best draft's overall score, 0–10.
        score: f64,
        /// The check that asks (escalations saved before it was recorded are the reviewer's).
        #[serde(default)]
        by: EscalatedBy,
    },
}

/// The check that raised an escalation: what it is called and what its score means are its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum EscalatedBy {
    /// The review pipeline's reviewer, scoring drafts 0–10.
    #[default]
    Review,
    /// The trust pipeline's claim check, by its hallucination score.
    Trust,
}

impl Question {
    /// What an escalation says first, in the words of the check that raised it (`None` for
    /// other questions): the app's dialog and the CLI's prompt both show this.
    pub fn escalation_headline(&self) -> Option<String> {
        let Question::Escalation {
            reason, score, by, ..
        } = self
        else {
            return None;
        };
        Some(match by {
            EscalatedBy::Review => format!(
                "The reviewer could not resolve everything: {reason}. The best draft scores {score:.1}/10."
            ),
            EscalatedBy::Trust => {
                format!("The trust check found claims its sources do not support: {reason}.")
            }
        })
    }
}

/// An answer to a [`Question`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Answer {
    /// The chosen option or free text.
    Clarify {
        /// The answer.
        text: String,
    },
    /// Go on with the plan as shown.
    ApprovePlan,
    /// Go on with this plan instead.
    EditPlan {
        /// The edited plan.
        plan: Plan,
    },
    /// Stop the run.
    CancelPlan,
    /// The report is final.
    ApproveReport,
    /// Revise the report once with this feedback.
    ReviseReport {
        /// What to change.
        feedback: String,
    },
    /// Reject the report; the reason is kept.
    RejectReport {
        /// Why.
        reason: String,
    },
    /// The person's own edit of the draft (Markdown, the writer's part): audited like the
    /// writer's prose, then reviewed again.
    EditReport {
        /// The edited draft.
        draft: String,
    },
    /// At an escalation: deliver the best draft with its open issues as caveats.
    AcceptWithCaveats,
    /// At an escalation: research again with the open issues as gaps, then write anew.
    ResearchMore,
    /// At an escalation: end the run here (the best draft is kept with the session).
    StopRun,
    /// Nobody answered within the run's review timeout: the run takes the action chosen for
    /// it ([`crate::ReviewTimeout`]). Only accepted once the question's deadline has passed.
    TimedOut,
}

/// The longest edited draft accepted, in characters (a report, not a book).
pub const MAX_EDITED_DRAFT_CHARS: usize = 200_000;

impl Question {
    /// The answers it takes, by their `type` names (what an assistant or a form offers).
    pub fn answer_kinds(&self) -> &'static [&'static str] {
        match self {
            Question::Clarify { .. } => &["clarify"],
            Question::PlanReview { .. } => &["approve_plan", "edit_plan", "cancel_plan"],
            Question::ReportReview { .. } => &[
                "approve_report",
                "revise_report",
                "reject_report",
                "edit_report",
            ],
            Question::Escalation { .. } => &["accept_with_caveats", "research_more", "stop_run"],
        }
    }

    /// What it is, in words ("plan review").
    pub fn kind_words(&self) -> &'static str {
        match self {
            Question::Clarify { .. } => "clarification",
            Question::PlanReview { .. } => "plan review",
            Question::ReportReview { .. } => "report review",
            Question::Escalation { .. } => "escalation",
        }
    }

    /// Whether `answer` answers it (a timed-out answer fits every question; its deadline is
    /// checked where the clock is).
    pub fn takes(&self, answer: &Answer) -> bool {
        matches!(answer, Answer::TimedOut) || self.answer_kinds().contains(&answer.kind())
    }
}

impl Answer {
    /// Its `type` name, as it is written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Answer::Clarify { .. } => "clarify",
            Answer::ApprovePlan => "approve_plan",
            Answer::EditPlan { .. } => "edit_plan",
            Answer::CancelPlan => "cancel_plan",
            Answer::ApproveReport => "approve_report",
            Answer::ReviseReport { .. } => "revise_report",
            Answer::RejectReport { .. } => "reject_report",
            Answer::EditReport { .. } => "edit_report",
            Answer::AcceptWithCaveats => "accept_with_caveats",
            Answer::ResearchMore => "research_more",
            Answer::StopRun => "stop_run",
            Answer::TimedOut => "timed_out",
        }
    }

    /// Why this answer cannot be taken as it is, for answers a person types.
    pub fn problem(&self) -> Option<String> {
        match self {
            Answer::EditReport { draft } if draft.trim().is_empty() => {
                Some("the edited draft is empty; approve, reject or write the report".into())
            }
            Answer::EditReport { draft } if draft.chars().count() > MAX_EDITED_DRAFT_CHARS => Some(
                format!("the edited draft is longer than {MAX_EDITED_DRAFT_CHARS} characters"),
            ),
            _ => None,
        }
    }
}

/// A question as the run asked it: the question and when, so that a review timeout counts
/// from the asking across restarts (the engine's interrupt payload).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asked {
    /// The question.
    #[serde(flatten)]
    pub question: Question,
    /// When it was asked (ms since the epoch); 0 in runs saved before it was kept.
    #[serde(default)]
    pub asked_at_ms: i64,
}

/// How the run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Not finished.
    #[default]
    Running,
    /// A report was written (and approved, when reviewed).
    Finished,
    /// The user cancelled at the plan review.
    Cancelled,
    /// The user rejected the report.
    Rejected,
}

/// One decision a person (or `--no-input`) made during the run, for the method section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// `clarify`, `plan` or `report`.
    pub point: String,
    /// What was decided.
    pub decision: String,
    /// Whether it was taken automatically.
    pub automatic: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds a question lists are the answers' own JSON names, and each answer fits the
    /// question it is for and no other.
    #[test]
    fn answer_kinds_are_their_json_names_and_fit_their_question() {
        let answers = [
            Answer::Clarify { text: "x".into() },
            Answer::ApprovePlan,
            Answer::EditPlan {
                plan: Plan::default(),
            },
            Answer::CancelPlan,
            Answer::ApproveReport,
            Answer::ReviseReport {
                feedback: "f".into(),
            },
            Answer::RejectReport { reason: "r".into() },
            Answer::EditReport { draft: "d".into() },
            Answer::AcceptWithCaveats,
            Answer::ResearchMore,
            Answer::StopRun,
            Answer::TimedOut,
        ];
        for a in &answers {
            assert_eq!(serde_json::to_value(a).unwrap()["type"], a.kind(), "{a:?}");
        }
        let plan = Question::PlanReview {
            plan: Plan::default(),
        };
        assert!(plan.takes(&Answer::ApprovePlan) && plan.takes(&Answer::TimedOut));
        assert!(!plan.takes(&Answer::ApproveReport));
        let fitting = answers.iter().filter(|a| plan.takes(a)).count();
        assert_eq!(
            fitting,
            plan.answer_kinds().len() + 1,
            "and the timed-out one"
        );
    }
}
