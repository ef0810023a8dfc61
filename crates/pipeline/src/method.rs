//! How a run went, for the app's Method panel and the report's provenance: the reading of the
//! question taken, the plan's questions with their coverage, what is still missing, the pages
//! that could not be read, and the run's counts.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::eval::Metadata;
use crate::records::{Coverage, Warning};

/// How a run went.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RunMethod {
    /// The reading of the question the run took: the user's clarification or the model's
    /// interpretation.
    pub interpretation: String,
    /// The plan's research questions.
    pub research_questions: Vec<String>,
    /// Coverage of each research question, in plan order.
    pub question_coverage: Vec<Coverage>,
    /// The planner's approach and confidence in its words ([`crate::Plan::planner_line`]).
    #[serde(default)]
    pub planner: Option<String>,
    /// The planner's concerns about the question's scope.
    #[serde(default)]
    pub concerns: Vec<String>,
    /// What the last round found still missing.
    pub gaps: Vec<String>,
    /// Workers run (multi mode), over all rounds.
    pub workers: u64,
    /// Pages the searches found that could not be read, with why.
    pub unread: Vec<UnreadPage>,
    /// Counts, searches, coverage per round and usage.
    pub metadata: Metadata,
}

/// A page a search found that the run could not read (blocked, broken, too big, not text…).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct UnreadPage {
    /// Its address.
    pub url: String,
    /// Why, in one sentence.
    pub reason: String,
}

/// The pages named by `warnings`, each once, with why.
pub fn unread_pages(warnings: &[Warning]) -> Vec<UnreadPage> {
    let mut seen = BTreeSet::new();
    warnings
        .iter()
        // A copy of a page read was read once, not left unread.
        .filter(|w| w.kind != crate::records::WarningKind::Repeated)
        .filter_map(|w| {
            let url = w.url.clone()?;
            let reason = if w.detail.is_empty() {
                w.message.clone()
            } else {
                w.detail.clone()
            };
            seen.insert(url.clone())
                .then_some(UnreadPage { url, reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::WarningKind;

    #[test]
    fn the_method_lists_each_unreadable_page_once_with_its_reason() {
        let page = |url: &str, detail: &str| Warning {
            node: "search_and_extract".into(),
            message: format!("could not read {url}: {detail}"),
            url: Some(url.into()),
            kind: WarningKind::Unreadable,
            detail: detail.into(),
        };
        let warnings = vec![
            page("https://a.example/x", "the server answered 404"),
            Warning {
                node: "search_and_extract".into(),
                message: "the search \"bees\" failed: timeout".into(),
                url: None,
                kind: WarningKind::SearchFailed,
                detail: "timeout".into(),
            },
            page("https://a.example/x", "the server answered 404"),
            page("https://b.example/big.pdf", "it is larger than 5 MB"),
        ];
        assert_eq!(
            unread_pages(&warnings),
            vec![
                UnreadPage {
                    url: "https://a.example/x".into(),
                    reason: "the server answered 404".into()
                },
                UnreadPage {
                    url: "https://b.example/big.pdf".into(),
                    reason: "it is larger than 5 MB".into()
                },
            ]
        );
    }

    #[test]
    fn coverage_saved_as_scores_reads_as_levels() {
        let method: RunMethod =
            serde_json::from_value(serde_json::json!({"question_coverage": [0.0, 0.5, 1.0]}))
                .unwrap();
        assert_eq!(
            method.question_coverage,
            vec![Coverage::Missing, Coverage::Partial, Coverage::WellCovered]
        );
        let again: RunMethod =
            serde_json::from_value(serde_json::to_value(&method).unwrap()).unwrap();
        assert_eq!(again, method);
    }
}
