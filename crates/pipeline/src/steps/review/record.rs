//! The review loop's record: every draft with its review, and the escalations to the person —
//! what a run keeps (and `research run --json` shows) of the reviewer's work.

use serde::{Deserialize, Serialize};

use super::{Critique, Issue};
use crate::steps::audit::AuditEntry;

/// A draft as the review loop keeps it: what was written and what the reviewer made of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewedDraft {
    /// 1 for the first draft, then each revision.
    pub version: u32,
    /// The writer's part, as audited.
    pub body: String,
    /// The whole report of this draft.
    pub report: String,
    /// The audit of its cited sentences.
    pub audit: Vec<AuditEntry>,
    /// Why the writer's prose was replaced by the passages, when it was.
    pub rejected: Option<String>,
    /// The review (none until reviewed).
    pub critique: Option<Critique>,
    /// What asked for this draft: the reviewer's issues or a person's feedback (none for the
    /// first).
    pub asked: String,
}

/// The review loop's record: every draft with its review, and how the loop ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewRecord {
    /// Every draft, oldest first.
    pub drafts: Vec<ReviewedDraft>,
    /// Why the run ended with the best draft instead of an approved one, when it did.
    pub fallback: Option<String>,
    /// A model failure that ended the loop (the fallback's reason then says so).
    pub failure: Option<String>,
    /// Escalations to the person, in order.
    pub escalations: Vec<Escalated>,
}

/// What a person chose when the reviewer's critical issues stayed open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum EscalationChoice {
    /// The best draft, with its open issues as caveats.
    Accept,
    /// Another round of research with the issues as gaps, then new drafts.
    ResearchMore,
    /// End the run.
    Stop,
}

/// One escalation and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Escalated {
    /// The last draft when the run asked.
    pub after_draft: u32,
    /// What was chosen.
    pub choice: EscalationChoice,
    /// Whether `--no-input` chose (accept), not a person.
    pub automatic: bool,
}

/// Escalations a run makes at most; after them the loop ends with the best draft.
pub const MAX_ESCALATIONS: usize = 2;

impl ReviewRecord {
    /// Revisions since the research the current drafts are written from (a "research more"
    /// starts the count again).
    pub fn revisions(&self) -> u32 {
        let start = self
            .escalations
            .iter()
            .filter(|e| e.choice == EscalationChoice::ResearchMore)
            .map(|e| e.after_draft as usize)
            .max()
            .unwrap_or(0);
        self.drafts.len().saturating_sub(start + 1) as u32
    }

    /// The last draft.
    pub fn last(&self) -> Option<&ReviewedDraft> {
        self.drafts.last()
    }

    /// The best-scored reviewed draft (the later one on a tie), else the last draft.
    pub fn best(&self) -> Option<&ReviewedDraft> {
        self.drafts
            .iter()
            .filter(|d| d.critique.is_some())
            .max_by(|a, b| {
                let score = |d: &ReviewedDraft| d.critique.as_ref().map_or(0.0, |c| c.overall);
                score(a)
                    .total_cmp(&score(b))
                    .then(a.version.cmp(&b.version))
            })
            .or_else(|| self.drafts.last())
    }

    /// The issues of draft `index` (0 for the first) that the next draft no longer has: what
    /// that revision fixed. Empty for the last draft and for a draft either side of which is
    /// unreviewed. An issue is still there when the next review names one of the same
    /// criterion with the same description, or at the same place (other than "general").
    pub fn fixed_by_next(&self, index: usize) -> Vec<Issue> {
        let (Some(before), Some(after)) = (
            self.drafts.get(index).and_then(|d| d.critique.as_ref()),
            self.drafts.get(index + 1).and_then(|d| d.critique.as_ref()),
        ) else {
            return Vec::new();
        };
        before
            .issues
            .iter()
            .filter(|i| !after.issues.iter().any(|j| i.same_as(j)))
            .cloned()
            .collect()
    }
}

impl Issue {
    /// Whether `other` names the same problem: the same criterion, and the same description or
    /// the same place (a place of "general" says nothing about which problem it is).
    pub fn same_as(&self, other: &Issue) -> bool {
        let words = |s: &str| crate::text::normalize(s);
        let place = words(&self.location);
        self.category == other.category
            && (words(&self.description) == words(&other.description)
                || (!place.is_empty() && place != "general" && place == words(&other.location)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::review::{Criterion, FoundBy, Severity, Verdict};

    fn issue(category: Criterion, location: &str, description: &str) -> Issue {
        Issue {
            category,
            severity: Severity::Major,
            location: location.into(),
            description: description.into(),
            fix: String::new(),
            found_by: FoundBy::Model,
        }
    }

    fn draft(version: u32, issues: Vec<Issue>) -> ReviewedDraft {
        ReviewedDraft {
            version,
            critique: Some(Critique {
                scores: Vec::new(),
                overall: 6.0,
                issues,
                verdict: Verdict::Revise,
                summary: String::new(),
                improvement_potential: 0.5,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_revision_fixed_the_issues_the_next_review_no_longer_names() {
        let record = ReviewRecord {
            drafts: vec![
                draft(
                    1,
                    vec![
                        issue(Criterion::Coherence, "Ownership", "Transitions are abrupt."),
                        issue(Criterion::Style, "general", "Banned words: delve"),
                        issue(Criterion::Citation, "general", "Cites [7]."),
                    ],
                ),
                draft(
                    2,
                    vec![
                        // Reworded at the same place: still there.
                        issue(Criterion::Coherence, "ownership", "Still abrupt."),
                        // The same words, another case: still there.
                        issue(Criterion::Citation, "general", "cites [7]"),
                        // "general" alone is no match.
                        issue(Criterion::Style, "general", "Banned words: tapestry"),
                    ],
                ),
            ],
            ..Default::default()
        };
        let fixed = record.fixed_by_next(0);
        assert_eq!(fixed.len(), 1);
        assert_eq!(fixed[0].description, "Banned words: delve");
        assert!(record.fixed_by_next(1).is_empty(), "the last draft");
    }
}
