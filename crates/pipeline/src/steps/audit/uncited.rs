//! A sentence the writer did not cite: framing is kept as it is; a claim is cited when the
//! checker verifies it against some evidence read, and taken out otherwise.

use std::collections::BTreeSet;

use unicode_segmentation::UnicodeSegmentation;

use super::verdict::{checked, keep, Kept, SourceTexts};
use super::{AuditEntry, AuditStatus};
use crate::guard;
use crate::records::Evidence;

/// Letters in one word beyond which it is words run together ("Usingandunderstandingthe…").
const MAX_WORD_LETTERS: usize = 30;

/// Whether uncited text reads as words: some word of two letters or more (or CJK text), none
/// absurdly long, and not degenerate. "(10." and "Usingandunderstandingthevalgrendcore" do not.
fn readable(text: &str) -> bool {
    let words: Vec<&str> = text.unicode_words().collect();
    let wordy = words
        .iter()
        .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        || text.chars().any(|c| c as u32 >= 0x2E80);
    let run_together = words
        .iter()
        .any(|w| w.is_ascii() && w.len() > MAX_WORD_LETTERS);
    wordy && !run_together && guard::degenerate(text).is_none()
}

/// Content words below which an uncited sentence is framing ("The evidence is as follows:"),
/// not a claim.
pub const CLAIM_MIN_WORDS: usize = 4;

pub(super) enum Uncited {
    /// Not a claim: kept as it is.
    Framing,
    /// A claim its evidence supports: kept, with the marker it lacked.
    Cited(String, AuditEntry),
    /// A claim no evidence supports: taken out.
    Removed(AuditEntry),
}

/// A sentence the writer did not cite: framing is kept; a claim is cited when the checker
/// verifies it against some evidence, else removed — an uncited claim is exactly what a loop or a guess looks like.
pub(super) fn audit_uncited(
    sentence: &str,
    evidence: &[Evidence],
    texts: &SourceTexts,
    whole: &research_check::SourceTexts<'_>,
) -> Uncited {
    let text = sentence.trim();
    if text.is_empty() {
        return Uncited::Framing;
    }
    if !readable(text) {
        return Uncited::Removed(AuditEntry {
            sentence: text.to_string(),
            sources: Vec::new(),
            status: AuditStatus::Removed,
            evidence: Vec::new(),
            check: "not a sentence (no words, or letters run together)".into(),
            written: None,
            passage: None,
            score: None,
        });
    }
    if guard::content_words(text).len() < CLAIM_MIN_WORDS {
        return Uncited::Framing;
    }
    let all: BTreeSet<u32> = evidence.iter().map(|e| e.source_id).collect();
    // An uncited claim is cited only when the checker verifies it: the sources it did not cite
    // may have no stored text to tell a partly supported sentence from an invented one.
    match checked(text, &all, evidence, whole) {
        Some((verdict, best)) if matches!(keep(text, &all, &verdict, texts), Kept::Verified) => {
            let body = text.trim_end_matches(['.', '!', '?', '。']);
            let end = &text[body.len()..];
            let cited = format!(
                "{body} [{}]{}",
                best.source_id,
                if end.is_empty() { "." } else { end }
            );
            let trailing = &sentence[sentence.trim_end().len()..];
            Uncited::Cited(
                format!("{cited}{trailing}"),
                AuditEntry {
                    sentence: cited,
                    sources: vec![best.source_id],
                    status: AuditStatus::Verified,
                    evidence: vec![best.id],
                    check: format!("uncited by the writer; {}", verdict.reason),
                    written: None,
                    score: Some(verdict.score),
                    passage: Some(verdict.aligned).filter(|p| !p.is_empty()),
                },
            )
        }
        judged => Uncited::Removed(AuditEntry {
            sentence: text.to_string(),
            sources: Vec::new(),
            status: AuditStatus::Removed,
            evidence: judged.map(|(_, e)| vec![e.id]).unwrap_or_default(),
            check: "uncited, and no evidence read supports it".into(),
            written: None,
            passage: None,
            score: None,
        }),
    }
}
