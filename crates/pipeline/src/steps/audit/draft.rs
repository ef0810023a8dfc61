//! The audit's findings on a draft a person edited, before it is sent back: each sentence whose
//! markers name no source the run read, and each the audit would not keep as written (its
//! cited sources do not bear it out, or it cites nothing and no source says it). The same
//! deterministic checks as the audit of the writer's prose; no model is asked.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use super::{audit_line, AuditStatus, Piece, SourceTexts};
use crate::records::Evidence;
use crate::report::cited_ids;

/// What is wrong with a sentence of an edited draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DraftProblem {
    /// A marker names a source the run never read.
    UnknownSource,
    /// The sources it cites do not support it: the audit would rewrite or remove it.
    Unsupported,
    /// A claim with no marker that no source supports: the audit would remove it.
    Uncited,
}

/// One finding of the audit on an edited draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DraftFinding {
    /// The sentence's number in the draft's prose, 1 for the first (headings, quotations and
    /// code are not counted).
    pub number: u32,
    /// The sentence as the draft has it.
    pub sentence: String,
    /// What is wrong.
    pub problem: DraftProblem,
    /// The markers that name no source read (for [`DraftProblem::UnknownSource`]).
    pub unknown: Vec<u32>,
    /// What is wrong and what the audit would do, in a sentence.
    pub message: String,
}

/// "[7]", "[7] and [9]", "[7], [8] and [9]".
fn markers(ids: &[u32]) -> String {
    let each: Vec<String> = ids.iter().map(|i| format!("[{i}]")).collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The findings on `draft` (Markdown, the writer's part) of a run that read `sources` (their
/// citation numbers) and took `evidence` from them, in the draft's order.
pub fn check_draft(
    draft: &str,
    sources: &BTreeSet<u32>,
    evidence: &[Evidence],
    texts: &SourceTexts,
) -> Vec<DraftFinding> {
    let mut findings = Vec::new();
    let mut number = 0u32;
    let whole = texts.for_checker();
    for line in draft.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') || trimmed.starts_with('>') || trimmed.starts_with("```") {
            continue;
        }
        for sentence in line.split_sentence_bounds() {
            let text = sentence.trim();
            if !text.chars().any(char::is_alphanumeric) {
                continue;
            }
            number += 1;
            let cited = cited_ids(text);
            let unknown: Vec<u32> = cited.difference(sources).copied().collect();
            let finding = |problem, unknown: Vec<u32>, message: String| DraftFinding {
                number,
                sentence: text.to_string(),
                problem,
                unknown,
                message,
            };
            if !unknown.is_empty() {
                let n = unknown.len();
                findings.push(finding(
                    DraftProblem::UnknownSource,
                    unknown.clone(),
                    format!(
                        "Sentence {number} cites {}, which no source has{}.",
                        markers(&unknown),
                        if n == cited.len() {
                            ": the audit would take the sentence out"
                        } else {
                            ""
                        }
                    ),
                ));
                if n == cited.len() {
                    continue;
                }
            }
            let audited = audit_line(text, evidence, texts, &whole);
            let entry = audited.pieces.into_iter().flatten().find_map(|p| match p {
                Piece::Claim { entry, .. } => Some(entry),
                _ => None,
            });
            let Some(entry) = entry else { continue };
            let why = entry
                .check
                .strip_prefix("unsupported: ")
                .unwrap_or(&entry.check);
            match entry.status {
                AuditStatus::Verified | AuditStatus::Partly => {}
                _ if cited.is_empty() => findings.push(finding(
                    DraftProblem::Uncited,
                    Vec::new(),
                    format!(
                        "Sentence {number} cites no source and no source says it ({why}): the audit would take it out."
                    ),
                )),
                status => findings.push(finding(
                    DraftProblem::Unsupported,
                    Vec::new(),
                    format!(
                        "Sentence {number} cites {}, but its words are not what the source says ({why}): the audit would {} it.",
                        markers(&cited.iter().copied().collect::<Vec<_>>()),
                        if status == AuditStatus::Rewritten { "rewrite" } else { "take out" }
                    ),
                )),
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Vec<Evidence> {
        vec![Evidence {
            id: 1,
            source_id: 1,
            source_url: "https://example.org/valgrind".into(),
            fact: "Memcheck tracks the definedness of every bit of memory.".into(),
            quote: "Memcheck tracks the definedness of every bit of memory the program uses."
                .into(),
            question: None,
            query: String::new(),
        }]
    }

    #[test]
    fn a_marker_to_no_source_and_an_unsupported_sentence_are_found_and_numbered() {
        let draft = "## Summary\nMemcheck tracks the definedness of every bit of memory [1]. \
Valgrind also runs on the moon [7].\n\n## More\nCachegrind was written on the moon in 1850 [1].\n";
        let sources = BTreeSet::from([1]);
        let found = check_draft(draft, &sources, &evidence(), &SourceTexts::default());
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(found[0].number, 2);
        assert_eq!(found[0].problem, DraftProblem::UnknownSource);
        assert_eq!(found[0].unknown, [7]);
        assert!(
            found[0]
                .message
                .starts_with("Sentence 2 cites [7], which no source has"),
            "{}",
            found[0].message
        );
        assert_eq!(found[1].number, 3);
        assert_eq!(found[1].problem, DraftProblem::Unsupported);
        assert!(
            found[1].message.contains("cites [1], but its words"),
            "{}",
            found[1].message
        );
    }

    #[test]
    fn a_draft_the_sources_bear_out_has_no_findings() {
        let draft = "Memcheck tracks the definedness of every bit of memory [1].\n";
        assert!(check_draft(
            draft,
            &BTreeSet::from([1]),
            &evidence(),
            &SourceTexts::default()
        )
        .is_empty());
        assert_eq!(markers(&[7, 8, 9]), "[7], [8] and [9]");
    }
}
