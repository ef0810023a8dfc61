//! The gate on what a report may cite: evidence on the question or one of its accepted research
//! questions ([`Gate::citable`]), and the passages an extractive report gives, ranked against
//! each ([`Gate::best`]). Apart from the refusals and the hit ranking because the writer, the
//! verification and the coverage all ask it, long after the searches ran.

use std::collections::BTreeSet;

use unicode_segmentation::UnicodeSegmentation;

use super::{answers, TOLD_WORDS};
use crate::guard;
use crate::records::Evidence;

/// The words of research question `q` that say what it asks: without the words of the
/// model's prompt and schema ("The answer to this question is: …") that `topic` does not use,
/// so a passage saying "to answer this question quickly" is not on it.
fn asked_words(q: &str, topic: &str) -> String {
    let told: BTreeSet<&str> = TOLD_WORDS.split_whitespace().collect();
    let own = guard::topic_term_set(topic);
    q.unicode_words()
        .filter(|w| {
            let lower = w.to_lowercase();
            !told.contains(lower.as_str()) || guard::topic_term_set(&lower).is_subset(&own)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What evidence must be about to be cited: the question (with its clarification and the
/// session's focus) or one of its accepted research questions.
#[derive(Debug, Clone)]
pub struct Gate {
    topic: String,
    questions: Vec<String>,
    focus: String,
}

impl Gate {
    /// The gate for `topic` ([`Brief::topic`](super::Brief::topic)) and the plan's accepted
    /// research questions.
    pub fn new(topic: &str, questions: &[String]) -> Self {
        Self {
            topic: topic.to_string(),
            questions: questions.iter().map(|q| asked_words(q, topic)).collect(),
            focus: String::new(),
        }
    }

    /// The gate of a follow-up in a session about `focus`: its evidence must also come from a
    /// page that speaks of the session's subject ("And how do they find water?" after a run on
    /// honeybees is not answered by a sourdough recipe's "flour and water").
    pub fn within(mut self, focus: &[String]) -> Self {
        self.focus = focus.join(" ");
        self
    }

    /// Whether a passage is plainly on the question: it shares the question's content words
    /// ([`guard::shares_content`]: two, or half of a short question's) or a research
    /// question's.
    pub fn on_question(&self, quote: &str) -> bool {
        guard::shares_content(&self.topic, quote)
            || self
                .questions
                .iter()
                .any(|q| guard::shares_content(q, quote))
    }

    /// The evidence on the question, in order: the passages plainly on it, and those of the
    /// same pages that share at least a word with the question or a research question (a page
    /// about the question says more than its sentences repeat of it). A passage that shares
    /// nothing is never on it; one that shares a single word the whole corpus uses ("SQLite"
    /// in SQLite's manual) is not, unless its page is about the question.
    pub fn citable(&self, evidence: &[Evidence]) -> Vec<Evidence> {
        let plainly: Vec<bool> = evidence
            .iter()
            .map(|e| self.on_question(&e.quote))
            .collect();
        let pages: BTreeSet<u32> = evidence
            .iter()
            .zip(&plainly)
            .filter(|(_, on)| **on)
            .map(|(e, _)| e.source_id)
            .collect();
        let asked = format!("{} {}", self.topic, self.questions.join(" "));
        // Pages that speak of the session's subject, for a follow-up (every page otherwise).
        let on_subject: Option<BTreeSet<u32>> = (!self.focus.trim().is_empty()).then(|| {
            evidence
                .iter()
                .filter(|e| guard::mentions(&self.focus, &e.quote))
                .map(|e| e.source_id)
                .collect()
        });
        evidence
            .iter()
            .zip(plainly)
            .filter(|(e, on)| {
                *on || (pages.contains(&e.source_id) && guard::mentions(&asked, &e.quote))
            })
            .filter(|(e, _)| on_subject.as_ref().is_none_or(|p| p.contains(&e.source_id)))
            .map(|(e, _)| e.clone())
            .collect()
    }

    /// What passages are ranked against: the question, then each research question.
    fn keys(&self) -> Vec<&str> {
        std::iter::once(self.topic.as_str())
            .chain(self.questions.iter().map(String::as_str))
            .collect()
    }

    /// How well each of `evidence` answers the question and each research question
    /// ([`answers::answering`]): one row of scores per key, in [`Gate::keys`] order.
    fn answering(&self, evidence: &[Evidence]) -> Vec<Vec<f64>> {
        let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
        self.keys()
            .iter()
            .map(|k| answers::answering(k, &quotes))
            .collect()
    }

    /// Whether each of `evidence` answers the question or one of its research questions, by the
    /// measure's threshold: what the coverage, the "passages on the question" line and the
    /// extractive report count.
    pub fn answers(&self, evidence: &[Evidence]) -> Vec<bool> {
        let t = answers::threshold();
        let scores = self.answering(evidence);
        (0..evidence.len())
            .map(|i| scores.iter().any(|s| s[i] >= t))
            .collect()
    }

    /// Up to `max` passages that answer the question or a research question
    /// ([`answers::answering`] at its threshold), ranked highest against the question and
    /// against each research question in turn (the question's best, the first research
    /// question's best, …, then each one's second best), each once: what an extractive report
    /// gives. Empty when none answers: the report then says so.
    /// (A passage that ends in a colon only leads in to a list it does not hold — "The following
    /// commands are available:" — and says nothing on its own: it is never one of the best.)
    pub fn best(&self, evidence: &[Evidence], max: usize) -> Vec<Evidence> {
        let t = answers::threshold();
        let rankings: Vec<Vec<usize>> = self
            .answering(evidence)
            .into_iter()
            .map(|scores| {
                let mut order: Vec<usize> =
                    (0..evidence.len()).filter(|&i| scores[i] >= t).collect();
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
                order
            })
            .collect();
        let mut out: Vec<Evidence> = Vec::new();
        let mut taken: BTreeSet<usize> = BTreeSet::new();
        let mut quotes_taken: BTreeSet<String> = BTreeSet::new();
        let mut depth = 0;
        while out.len() < max && rankings.iter().any(|r| depth < r.len()) {
            for r in &rankings {
                if let Some(&i) = r.get(depth) {
                    if out.len() < max
                        && taken.insert(i)
                        && !leads_in(&evidence[i].quote)
                        && quotes_taken.insert(crate::text::normalize(&evidence[i].quote))
                    {
                        out.push(evidence[i].clone());
                    }
                }
            }
            depth += 1;
        }
        out
    }
}

/// Whether `quote` only leads in to what follows it (it ends in a colon).
fn leads_in(quote: &str) -> bool {
    let q = quote.trim_end();
    q.ends_with(':') || q.ends_with('：')
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ev, Q};
    use super::*;

    #[test]
    fn only_evidence_on_the_question_is_citable_and_the_best_comes_first() {
        let gate = Gate::new(
            Q,
            &["What does the rollback journal hold during a commit?".into()],
        );
        let evidence = vec![
            ev(1, 1, "SQLite uses assert() macros to check its own internal state during testing."),
            ev(2, 2, "The make utility builds the amalgamation from the source tree."),
            ev(3, 3, "An atomic commit means the transaction either happens completely or not at all, even after a power failure."),
            ev(4, 3, "The rollback journal holds the original content of every page the commit changes."),
        ];
        let citable = gate.citable(&evidence);
        let ids: Vec<u32> = citable.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![3, 4]);
        // A passage sharing one word is on the question when its page is about it.
        let mut more = evidence.clone();
        more.push(ev(
            5,
            3,
            "SQLite syncs the journal to disk before it overwrites the database.",
        ));
        more.push(ev(
            6,
            1,
            "SQLite syncs the journal to disk before it overwrites the database.",
        ));
        let ids: Vec<u32> = gate.citable(&more).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        // A research question's words from the prompt do not make a passage on it.
        let told = Gate::new(
            "How do tomato plants survive a hot and dry summer?",
            &["The answer to this question is: How do tomato plants survive a heatwave?".into()],
        );
        let wal = ev(
            7,
            4,
            "The purpose of the wal-index is to answer this question quickly:",
        );
        assert!(told.citable(&[wal]).is_empty());
        // A follow-up's evidence comes from pages on the session's subject.
        let water = Gate::new("water", &[]).within(&["honeybees colonies".into()]);
        let read = vec![
            ev(
                1,
                1,
                "The starter must be fed with flour and water regularly.",
            ),
            ev(
                2,
                2,
                "Honeybee foragers also collect water to cool the colony.",
            ),
        ];
        let ids: Vec<u32> = water.citable(&read).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![2]);
        let best = gate.best(&citable, 5);
        assert_eq!(best[0].id, 3, "the question's best first");
        assert_eq!(best.len(), 2);
        // A passage sharing one common word with the question, far below the best, is left out.
        let wal = Gate::new(
            "What is the difference between write-ahead logging and the rollback journal?",
            &[],
        );
        let read = vec![
            ev(1, 1, "The difference between the rollback journal and the write-ahead log is that the rollback journal copies the original content before the write."),
            ev(2, 2, "Newer versions can read and write any schema format between 1 and 4."),
            ev(3, 3, "A write-ahead log appends changes to a separate WAL file, and readers use it too."),
        ];
        let ids: Vec<u32> = wal.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 3]);
        // A passage that only leads in to a list ("…are:") says nothing by itself.
        let vacuum = Gate::new("What does the VACUUM command do?", &[]);
        let read = vec![
            ev(1, 1, "The VACUUM command works by copying the contents of the database into a temporary database file and then overwriting the original."),
            ev(2, 1, "The VACUUM command may change the ROWIDs of entries in any tables that do not have an explicit INTEGER PRIMARY KEY for the following reasons:"),
        ];
        let ids: Vec<u32> = vacuum.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1]);
        // The subject's word in every passage weighs nearly nothing in the ranking; a passage
        // with it is still on the question (SmolLM2's run on SQLite's docs listed one passage).
        // Another command's comparison with VACUUM does not say what VACUUM does.
        let read = vec![
            ev(1, 1, "The VACUUM command rebuilds the database file, repacking it into a minimal amount of disk space."),
            ev(2, 1, "By default, VACUUM operates on the main database."),
            ev(3, 2, "An RBU Vacuum operation requires less temporary disk space and writes less data to disk than an SQLite VACUUM."),
        ];
        let ids: Vec<u32> = vacuum.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 2]);
    }
}
