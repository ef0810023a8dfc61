//! The writer's draft, watched as it streams. A draft the guard or the audit will refuse once
//! it is whole can often be told early: a small model that loops, writes numbers, or echoes its
//! evidence listing runs to the token cap (1,500 tokens, most of a run's wall time on a small
//! machine) and the audit then removes nearly every cited sentence. The watch applies the same
//! tests to what has streamed so far and stops the model there, so the run goes on to the
//! passages without waiting for prose no one will read.
//!
//! Only what the end cannot mend stops a draft: the guard's tests that stay true of every
//! longer text ([`guard::degenerate_so_far`]), and an audit of the lines ended so far — made as
//! the whole draft's will be, each line's verdict depending only on the lines before it and the
//! one after — that has judged [`EARLY_JUDGED`] sentences and failed more than
//! [`EARLY_FAILED_SHARE`] of them, a stricter bar than the whole draft's
//! ([`super::MAX_REMOVED_SHARE`]) because the rest of a draft could still make up for a bad
//! beginning.

use std::collections::BTreeMap;

use research_llm::Flow;

use super::super::audit::{self, AuditStatus};
use super::tidy;
use crate::guard;
use crate::records::Evidence;
use crate::report;

/// Sentences the audit judges before a draft may be stopped for failing it.
pub const EARLY_JUDGED: usize = 8;

/// Share of the sentences judged so far that must fail for a draft to be stopped.
pub const EARLY_FAILED_SHARE: f64 = 2.0 / 3.0;

/// Sentences after which the audit stops watching: the time a stop saves is in a draft's
/// beginning, and auditing a long draft again at every line costs more the longer it is.
pub const WATCHED_JUDGED: usize = 30;

/// Pieces between two looks of the guard at a draft whose lines do not end (a loop on one line).
const GUARD_EVERY: usize = 24;

/// Why a draft was stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The guard found it degenerate however it went on (a loop, one sentence over and over,
    /// runaway): the writer may try again.
    Degenerate(String),
    /// The audit failed most of its first sentences: the prose would be refused.
    Audit {
        /// Sentences the audit failed.
        failed: usize,
        /// Sentences the audit judged.
        judged: usize,
    },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Degenerate(why) => write!(f, "{why} (the draft was stopped there)"),
            Self::Audit { failed, judged } => write!(
                f,
                "the audit removed {failed} of the first {judged} sentences it checked (the draft was stopped there)"
            ),
        }
    }
}

/// What the audit of a draft needs, as the whole draft's audit will have it.
pub struct Judge<'a> {
    /// The evidence the draft may cite.
    pub evidence: &'a [Evidence],
    /// Each source's text normalised (for quotes).
    pub normalized: &'a BTreeMap<u32, String>,
    /// Words the report may not use.
    pub banned: &'a [String],
    /// The sources' texts for the audit.
    pub texts: &'a audit::SourceTexts,
    /// The same as the checker reads them, made once.
    pub read: &'a research_check::SourceTexts<'a>,
    /// The evidence span verification adds for a body (none outside the trust engine).
    pub spans: &'a (dyn Fn(&str) -> Vec<Evidence> + Send + Sync),
}

/// A draft as it streams, with what the audit and the guard made of it so far.
pub struct Watch<'a> {
    judge: Option<Judge<'a>>,
    runaway: usize,
    draft: String,
    /// Bytes of the draft (its extras taken out) the audit has judged.
    judged_to: usize,
    judged: usize,
    pieces: usize,
    stopped: Option<Stopped>,
}

impl<'a> Watch<'a> {
    /// A watch over a draft, audited by `judge` (none: only the guard watches) and runaway past
    /// `runaway` words.
    pub fn new(judge: Option<Judge<'a>>, runaway: usize) -> Self {
        Self {
            judge,
            runaway,
            draft: String::new(),
            judged_to: 0,
            judged: 0,
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
        let look = line_ended || self.pieces.is_multiple_of(GUARD_EVERY);
        if look {
            // A small model may write its whole draft as one paragraph: what has ended is
            // judged every few pieces too, up to its last ended sentence.
            self.audit_ended();
        }
        if self.stopped.is_none() && look {
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

    /// The draft's ended sentences, tidied and audited as the whole draft will be (a sources
    /// section the writer added dropped, citations repaired, unfound quotes unquoted, banned
    /// words rewritten, span evidence added, a sentence that repeats an earlier one's rewrite
    /// removed): each sentence's verdict depends only on those before it and the one after.
    fn audit_ended(&mut self) {
        let Some(judge) = &self.judge else {
            return;
        };
        if self.judged >= WATCHED_JUDGED {
            return;
        }
        let Some(end) = self
            .draft
            .char_indices()
            .rev()
            .find(|(_, c)| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？'))
            .map(|(i, c)| i + c.len_utf8())
        else {
            return;
        };
        // Taking the extras out depends only on the lines before, so what is kept of a longer
        // draft begins with what is kept of a shorter one.
        let kept = report::strip_model_extras(&self.draft[..end]);
        if kept.len() <= self.judged_to {
            return;
        }
        let cites = kept
            .get(self.judged_to..)
            .is_none_or(|new| new.contains('['));
        if !cites {
            // No citation marker since the last look (a heading, a blank): what it holds is
            // judged with the next sentence that cites.
            return;
        }
        self.judged_to = kept.len();
        let tidied = tidy(&kept, judge.evidence, judge.normalized, judge.banned);
        let spans = (judge.spans)(&tidied.body);
        let with_spans: Vec<Evidence>;
        let evidence = if spans.is_empty() {
            judge.evidence
        } else {
            with_spans = judge.evidence.iter().chain(&spans).cloned().collect();
            &with_spans
        };
        let audited = audit::audit_read(&tidied.body, evidence, judge.texts, judge.read);
        self.judged = audited.entries.len();
        let failed = audited
            .entries
            .iter()
            .filter(|e| matches!(e.status, AuditStatus::Removed | AuditStatus::Flagged))
            .count();
        if self.judged >= EARLY_JUDGED && failed as f64 > EARLY_FAILED_SHARE * self.judged as f64 {
            self.stopped = Some(Stopped::Audit {
                failed,
                judged: self.judged,
            });
        }
    }

    /// The guard's tests that no continuation mends, on the draft as it will be judged
    /// (without a sources section the writer added).
    fn guard(&mut self) {
        let kept = report::strip_model_extras(&self.draft);
        if let Some(d) = guard::degenerate_so_far(&kept, self.runaway) {
            self.stopped = Some(Stopped::Degenerate(d.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push_all(watch: &mut Watch<'_>, text: &str) -> Flow {
        let mut flow = Flow::Continue;
        for piece in text.split_inclusive(' ') {
            flow = watch.push(piece);
        }
        flow
    }

    /// A sentence still being written is not yet a repeat of the one it begins like: the
    /// guard looks at the ended sentences only.
    #[test]
    fn a_sentence_still_being_written_is_not_yet_a_repeat() {
        let mut watch = Watch::new(None, 1_000);
        let said = "Memcheck finds leaks in C programs [1]. ";
        // 3 + 2 × 7 + 7 pieces: the guard's look at the 24th falls inside the third sentence.
        assert_eq!(push_all(&mut watch, "Some words first. "), Flow::Continue);
        assert_eq!(push_all(&mut watch, &said.repeat(2)), Flow::Continue);
        assert_eq!(
            push_all(&mut watch, "Memcheck finds leaks in C programs [1] "),
            Flow::Continue
        );
        assert_eq!(
            push_all(&mut watch, "and shows the stack of each.\n"),
            Flow::Continue
        );
        assert!(watch.stopped().is_none());
        // Said a third time, it is a loop whatever follows.
        push_all(&mut watch, said);
        assert_eq!(watch.push("\n"), Flow::Stop);
        assert!(matches!(watch.stopped(), Some(Stopped::Degenerate(_))));
        assert!(watch
            .stopped()
            .unwrap()
            .to_string()
            .ends_with("(the draft was stopped there)"));
    }

    /// A draft looping on one line is stopped without waiting for its line to end, and says
    /// stop to every piece after.
    #[test]
    fn a_loop_on_one_line_is_stopped() {
        let mut watch = Watch::new(None, 1_000);
        let looped = "the cache line is hot and ".repeat(60);
        assert_eq!(push_all(&mut watch, &looped), Flow::Stop);
        assert_eq!(watch.push("more "), Flow::Stop);
    }

    /// Prose that reads as prose runs to its end.
    #[test]
    fn a_varied_draft_runs_to_its_end() {
        let mut watch = Watch::new(None, 1_000);
        let draft = "## Summary\nMemcheck detects memory errors in C and C++ programs [1]. \
            It reports reads of uninitialised values and leaks [2].\n\n## Leaks\n\
            A block is definitely lost when no pointer to it remains [1]. \
            It is possibly lost when only an interior pointer points into it [2].\n";
        assert_eq!(push_all(&mut watch, draft), Flow::Continue);
        assert!(watch.stopped().is_none());
    }
}
