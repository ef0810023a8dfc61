//! The writer's draft, watched as it streams. A draft the guard or the audit will refuse once
//! it is whole can often be told early: a small model that loops, writes numbers, or echoes its
//! evidence listing runs to the token cap (1,500 tokens, most of a run's wall time on a small
//! machine) and the audit then removes nearly every cited sentence. The watch applies the same
//! tests to what has streamed so far and stops the model there, so the run goes on to the
//! passages without waiting for prose no one will read.

use std::collections::BTreeMap;

use research_llm::Flow;

use super::super::audit::{self, AuditStatus};
use super::{tidy, MAX_REMOVED_SHARE};
use crate::guard;
use crate::records::Evidence;
use crate::report;

/// Cited sentences the audit judges before a draft may be stopped for failing it: fewer are
/// too few to say the rest will not make up for them.
pub const EARLY_JUDGED: usize = 6;

/// Pieces between two looks of the guard at a draft whose lines do not end (a loop on one line).
const GUARD_EVERY: usize = 24;

/// Why a draft was stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The guard found it degenerate however it went on (a loop, one sentence over and over,
    /// runaway): the writer may try again.
    Degenerate(String),
    /// The audit failed most of its first cited sentences: the prose would be refused.
    Audit {
        /// Cited sentences the audit failed.
        failed: usize,
        /// Cited sentences the audit judged.
        judged: usize,
    },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Degenerate(why) => write!(f, "{why} (the draft was stopped there)"),
            Self::Audit { failed, judged } => write!(
                f,
                "the audit removed {failed} of its first {judged} cited sentences (the draft was stopped there)"
            ),
        }
    }
}

/// A draft as it streams, with what the audit and the guard made of it so far.
pub struct Watch<'a> {
    evidence: &'a [Evidence],
    normalized: &'a BTreeMap<u32, String>,
    texts: audit::SourceTexts,
    runaway: usize,
    draft: String,
    /// Lines of the draft (its extras taken out) the audit has judged.
    judged_lines: usize,
    judged: usize,
    failed: usize,
    pieces: usize,
    stopped: Option<Stopped>,
}

impl<'a> Watch<'a> {
    /// A watch over a draft that may cite `evidence`, its sources' texts as the checker reads
    /// them (`texts`) and normalised (`normalized`, for quotes), runaway past `runaway` words.
    pub fn new(
        evidence: &'a [Evidence],
        texts: &BTreeMap<u32, String>,
        normalized: &'a BTreeMap<u32, String>,
        runaway: usize,
    ) -> Self {
        Self {
            evidence,
            normalized,
            texts: audit::SourceTexts::new(texts.iter().map(|(id, t)| (*id, t.as_str()))),
            runaway,
            draft: String::new(),
            judged_lines: 0,
            judged: 0,
            failed: 0,
            pieces: 0,
            stopped: None,
        }
    }

    /// Takes the next streamed piece; says stop once the draft is known to be refused.
    pub fn push(&mut self, piece: &str) -> Flow {
        if self.stopped.is_some() {
            return Flow::Stop;
        }
        self.draft.push_str(piece);
        self.pieces += 1;
        let line_ended = piece.contains('\n');
        if line_ended {
            self.audit_new_lines();
        }
        if self.stopped.is_none() && (line_ended || self.pieces.is_multiple_of(GUARD_EVERY)) {
            self.guard();
        }
        match self.stopped {
            Some(_) => Flow::Stop,
            None => Flow::Continue,
        }
    }

    /// Why the draft was stopped, if it was.
    pub fn stopped(&self) -> Option<&Stopped> {
        self.stopped.as_ref()
    }

    /// The draft's ended lines, tidied and audited as the whole draft will be (a sources
    /// section the writer added dropped, citations repaired, unfound quotes unquoted, a
    /// sentence that repeats an earlier one's rewrite removed): the verdicts the audit will
    /// give those lines, since each depends only on the lines before and the one after.
    fn audit_new_lines(&mut self) {
        let Some(end) = self.draft.rfind('\n') else {
            return;
        };
        let kept = report::strip_model_extras(&self.draft[..end]);
        let lines = kept.lines().count();
        if lines <= self.judged_lines {
            return;
        }
        self.judged_lines = lines;
        let tidied = tidy(&kept, self.evidence, self.normalized);
        let audited = audit::audit(&tidied.body, self.evidence, &self.texts);
        self.judged = audited.entries.len();
        self.failed = audited
            .entries
            .iter()
            .filter(|e| matches!(e.status, AuditStatus::Removed | AuditStatus::Flagged))
            .count();
        if self.judged >= EARLY_JUDGED
            && self.failed as f64 / self.judged as f64 > MAX_REMOVED_SHARE
        {
            self.stopped = Some(Stopped::Audit {
                failed: self.failed,
                judged: self.judged,
            });
        }
    }

    fn guard(&mut self) {
        // As the whole draft is judged: without the sources section the writer added.
        let kept = report::strip_model_extras(&self.draft);
        if let Some(d) = guard::degenerate_so_far(&kept, self.runaway) {
            self.stopped = Some(Stopped::Degenerate(d.to_string()));
        }
    }
}
