//! The standard pipeline's state.

use crate::records::*;

research_graph::state! {
    /// Everything a research run knows.
    pub struct ResearchState / ResearchUpdate {
        /// The user's question.
        pub query: String => Replace,
        /// Earlier turns of the session (question and report summary) for a follow-up.
        pub context: String => Replace,
        /// What the session is about (a follow-up's focus entities); empty otherwise.
        pub focus: Vec<String> => Replace,
        /// Single or multi agent (from the run configuration).
        pub mode: crate::Mode => Replace,
        /// Whether the run stops to ask the clarification question.
        pub ask_clarification: bool => Replace,
        /// The report's language.
        pub language: String => Replace,
        /// Result of the understand step.
        pub understanding: Understanding => Replace,
        /// The user's clarification (or the interpretation taken).
        pub clarification: String => Replace,
        /// Clarifications the person answered (at most `intake::MAX_CLARIFICATIONS`).
        pub clarifications: u32 => Replace,
        /// Whether the last answer is read with the question again (the person's own words).
        pub reread: bool => Replace,
        /// The plan.
        pub plan: Plan => Replace,
        /// The trust pipeline's research tree: levels, typed searches, outline (empty in the
        /// others).
        pub tree: crate::steps::tree::ResearchTree => Replace,
        /// Searches waiting to run (single mode).
        pub pending_searches: Vec<String> => Replace,
        /// Searches run, in order.
        pub searches_done: Vec<String> => Append,
        /// Searches that led nowhere, with why (never searched again by the trust pipeline).
        pub dead_ends: Vec<crate::steps::backtrack::DeadEnd> => Append,
        /// Every round's search hits merged and ranked against the question, best first.
        pub ranked_hits: Vec<RankedHit> => Append,
        /// Searches skipped as near-duplicates of earlier ones.
        pub searches_skipped: Vec<String> => Append,
        /// Sources read, by citation number order.
        pub sources: Vec<Source> => Replace,
        /// How many of `sources` (the first ones) a follow-up carried over from its session:
        /// they were read by earlier turns and do not count against this run's limit.
        pub carried_sources: usize => Replace,
        /// Sources a person granted beyond the depth's limit by choosing "research more" at an
        /// escalation: the limit had been reached, and more research must be able to read.
        pub granted_sources: usize => Sum,
        /// Carried sources whose stored text was read for this question (not read again).
        pub carried_read: Vec<String> => Append,
        /// Evidence, in the order found.
        pub evidence: Vec<Evidence> => Replace,
        /// What workers found, before collection (multi mode).
        pub found: Vec<Found> => Append,
        /// Worker reports (multi mode).
        pub worker_results: Vec<WorkerResult> => Append,
        /// Workers finished, summed over rounds.
        pub done_workers: u64 => Sum,
        /// Coverage per research question.
        pub coverage_by_question: Vec<Coverage> => Replace,
        /// Overall coverage, 0–1.
        pub coverage: f64 => Replace,
        /// Coverage after each round.
        pub coverage_history: Vec<f64> => Append,
        /// Gaps named by the last round.
        pub gaps: Vec<String> => Replace,
        /// Rounds done.
        pub iteration: u32 => Replace,
        /// This round's worker assignments (multi mode).
        pub assignments: Vec<Assignment> => Replace,
        /// The last synthesis (multi mode).
        pub synthesis: Synthesis => Replace,
        /// The question's key terms in the sources' language, when they are not in the
        /// question's (searched once, and counted as the question's words).
        pub crossing: Option<crate::steps::languages::Crossing> => Replace,
        /// Times a failed verification sent the run back to research (seed 001).
        pub verification_loops: u32 => Replace,
        /// Whether the last verification sent the run back to research.
        pub research_again: bool => Replace,
        /// Times the analyst's gaps sent the review pipeline back to search (seed 000).
        pub gap_rounds: u32 => Replace,
        /// Checked claims.
        pub claims: Vec<Claim> => Replace,
        /// Supported claims / all claims.
        pub confidence: f64 => Replace,
        /// The report (Markdown).
        pub report: String => Replace,
        /// The writer's part of the report (without findings, sources, method).
        pub draft: String => Replace,
        /// The audit of the report's cited sentences.
        pub audit: Vec<crate::steps::audit::AuditEntry> => Replace,
        /// The analyst's themes, contradictions and gaps (review pipeline).
        pub analysis: crate::steps::analyze::Analysis => Replace,
        /// The review pipeline's drafts and reviews (empty in the standard pipeline).
        pub review: crate::steps::review::ReviewRecord => Replace,
        /// The trust pipeline's reading of the question (empty in the others).
        pub profile: crate::steps::profile::Profile => Replace,
        /// Sources read when each gap round ended (the trust pipeline's novelty check).
        pub sources_per_round: Vec<usize> => Append,
        /// The trust engine's record: credibility, cross-validation, hallucination score (trust
        /// pipeline; empty in the others).
        pub trust: crate::steps::trust::TrustRecord => Replace,
        /// The reviewer's feedback for a revision.
        pub feedback: String => Replace,
        /// The person's edit of the draft, waiting for its audit.
        pub edited: String => Replace,
        /// Earlier versions of the report, oldest first.
        pub report_versions: Vec<String> => Append,
        /// Decisions at review points.
        pub decisions: Vec<Decision> => Append,
        /// Why the report was rejected.
        pub rejection: String => Replace,
        /// How the run ended.
        pub outcome: Outcome => Replace,
        /// Warnings.
        pub warnings: Vec<Warning> => Append,
        /// When the run started (ms since the epoch).
        pub started_at_ms: i64 => Replace,
        /// When the report was finished.
        pub finished_at_ms: i64 => Replace,
    }
}
