//! The report audit, shared by every pipeline: after the writer, each sentence of the report
//! that cites sources is checked against the evidence of the sources it cites — deterministic
//! checks a model cannot talk its way past (content words shared with a quote, every number and
//! date present). A sentence that fails is rewritten once from its best evidence, else removed;
//! a findings line is verified against its own quote. Every audited sentence is kept with its
//! status, so the report can say how many of its cited sentences hold and a checker can verify
//! the audit independently.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::guard;
use crate::records::Evidence;
use crate::report::cited_ids;

/// What the audit decided about a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    /// The evidence of a cited source supports it.
    Verified,
    /// The evidence shares its words and numbers, but not enough to call it supported.
    Partly,
    /// It failed and was replaced by what its best evidence says.
    Rewritten,
    /// It failed and is kept, marked, because removing it would leave nothing in its place.
    Flagged,
    /// It failed and was taken out of the report.
    Removed,
}

/// One audited sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AuditEntry {
    /// The sentence as the report has it (as the writer had it, for a removed one).
    pub sentence: String,
    /// The sources it cites.
    pub sources: Vec<u32>,
    /// What the audit decided.
    pub status: AuditStatus,
    /// The evidence items that decided it.
    pub evidence: Vec<u32>,
    /// Which check decided, in words.
    pub check: String,
}

/// Share of content words (with all numbers present) below which a sentence is not even partly
/// supported: under a third, the sentence says something its evidence does not.
pub const PARTLY_OVERLAP: f64 = 0.34;

/// The audited body and the audit of every cited sentence in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audited {
    /// The body with failing sentences rewritten or removed.
    pub body: String,
    /// One entry per cited sentence.
    pub entries: Vec<AuditEntry>,
}

/// The best evidence of `sources` for `claim`: the item whose quote supports it most.
fn best_evidence<'a>(
    claim: &str,
    sources: &BTreeSet<u32>,
    evidence: &'a [Evidence],
) -> Option<(&'a Evidence, guard::Support)> {
    evidence
        .iter()
        .filter(|e| sources.contains(&e.source_id))
        .map(|e| (e, guard::supports(claim, &e.quote)))
        .max_by(|a, b| {
            (a.1.supported, a.1.numbers_ok)
                .cmp(&(b.1.supported, b.1.numbers_ok))
                .then(a.1.overlap.total_cmp(&b.1.overlap))
        })
}

fn without_markers(sentence: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in sentence.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Audits every sentence of `body` that carries a citation marker against `evidence`.
pub fn audit(body: &str, evidence: &[Evidence]) -> Audited {
    let mut out = String::new();
    let mut entries = Vec::new();
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        // Headings, quotations and code are not claims of the writer's own.
        if trimmed.starts_with('#') || trimmed.starts_with('>') || trimmed.starts_with("```") {
            out.push_str(line);
            continue;
        }
        let mut kept_line = String::new();
        for sentence in line.split_sentence_bounds() {
            let sources = cited_ids(sentence);
            if sources.is_empty() {
                match audit_uncited(sentence, evidence) {
                    Uncited::Framing => kept_line.push_str(sentence),
                    Uncited::Cited(cited, entry) => {
                        kept_line.push_str(&cited);
                        entries.push(entry);
                    }
                    Uncited::Removed(entry) => entries.push(entry),
                }
                continue;
            }
            let text = sentence.trim();
            let claim = without_markers(text);
            let cited: Vec<u32> = sources.iter().copied().collect();
            let Some((best, support)) = best_evidence(&claim, &sources, evidence) else {
                // It cites sources with no evidence at all: nothing can back it.
                entries.push(AuditEntry {
                    sentence: text.to_string(),
                    sources: cited,
                    status: AuditStatus::Removed,
                    evidence: Vec::new(),
                    check: "no evidence from the sources it cites".into(),
                });
                continue;
            };
            if support.supported {
                entries.push(AuditEntry {
                    sentence: text.to_string(),
                    sources: cited,
                    status: AuditStatus::Verified,
                    evidence: vec![best.id],
                    check: support.reason,
                });
                kept_line.push_str(sentence);
            } else if support.numbers_ok && support.overlap >= PARTLY_OVERLAP {
                entries.push(AuditEntry {
                    sentence: text.to_string(),
                    sources: cited,
                    status: AuditStatus::Partly,
                    evidence: vec![best.id],
                    check: support.reason,
                });
                kept_line.push_str(sentence);
            } else if guard::fact_matches_quote(&best.fact, &best.quote)
                && guard::degenerate(&best.fact).is_none()
            {
                // Rewritten from the evidence: its fact, which its quote bears out.
                let rewritten = format!(
                    "{} [{}].",
                    best.fact.trim().trim_end_matches('.'),
                    best.source_id
                );
                let trailing = &sentence[sentence.trim_end().len()..];
                entries.push(AuditEntry {
                    sentence: rewritten.clone(),
                    sources: vec![best.source_id],
                    status: AuditStatus::Rewritten,
                    evidence: vec![best.id],
                    check: format!(
                        "rewritten from its evidence; the writer's sentence was {}",
                        support.reason
                    ),
                });
                kept_line.push_str(&rewritten);
                kept_line.push_str(if trailing.is_empty() { " " } else { trailing });
            } else {
                entries.push(AuditEntry {
                    sentence: text.to_string(),
                    sources: cited,
                    status: AuditStatus::Removed,
                    evidence: vec![best.id],
                    check: support.reason,
                });
            }
        }
        let bare = kept_line.trim().trim_start_matches(['-', '*']).trim();
        if bare.is_empty() && !line.trim().is_empty() {
            // Every sentence of the line went: drop the line rather than leave a bare bullet.
            continue;
        }
        if !kept_line.ends_with('\n') && line.ends_with('\n') {
            kept_line = kept_line.trim_end().to_string();
            kept_line.push('\n');
        }
        out.push_str(&kept_line);
    }
    Audited { body: out, entries }
}

/// Content words below which an uncited sentence is framing ("The evidence is as follows:"),
/// not a claim.
pub const CLAIM_MIN_WORDS: usize = 4;

enum Uncited {
    /// Not a claim: kept as it is.
    Framing,
    /// A claim its evidence supports: kept, with the marker it lacked.
    Cited(String, AuditEntry),
    /// A claim no evidence supports: taken out.
    Removed(AuditEntry),
}

/// A sentence the writer did not cite: framing is kept; a claim is cited when some evidence
/// supports it, else removed — an uncited claim is exactly what a loop or a guess looks like.
fn audit_uncited(sentence: &str, evidence: &[Evidence]) -> Uncited {
    let text = sentence.trim();
    if guard::content_words(text).len() < CLAIM_MIN_WORDS {
        return Uncited::Framing;
    }
    let all: BTreeSet<u32> = evidence.iter().map(|e| e.source_id).collect();
    match best_evidence(text, &all, evidence) {
        Some((best, support)) if support.supported => {
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
                    check: format!("uncited by the writer; {}", support.reason),
                },
            )
        }
        best => Uncited::Removed(AuditEntry {
            sentence: text.to_string(),
            sources: Vec::new(),
            status: AuditStatus::Removed,
            evidence: best.map(|(e, _)| vec![e.id]).unwrap_or_default(),
            check: "uncited, and no evidence read supports it".into(),
        }),
    }
}

/// The audit of the findings section: each line states an evidence item's fact, checked
/// against its own quote.
pub fn audit_findings(evidence: &[Evidence]) -> Vec<AuditEntry> {
    evidence
        .iter()
        .map(|e| {
            let sentence = format!("{} [{}]", e.fact.trim(), e.source_id);
            let support = guard::supports(&e.fact, &e.quote);
            let status = if e.fact.trim() == e.quote.trim() || support.supported {
                AuditStatus::Verified
            } else {
                AuditStatus::Partly
            };
            AuditEntry {
                sentence,
                sources: vec![e.source_id],
                status,
                evidence: vec![e.id],
                check: if e.fact.trim() == e.quote.trim() {
                    "the fact is its quote".into()
                } else {
                    support.reason
                },
            }
        })
        .collect()
}

/// "N of M cited sentences verified, K rewritten, J removed", for the report's method section.
pub fn summary(entries: &[AuditEntry], ja: bool) -> String {
    let count = |s: AuditStatus| entries.iter().filter(|e| e.status == s).count();
    let total = entries.len();
    let (verified, partly, rewritten, removed) = (
        count(AuditStatus::Verified),
        count(AuditStatus::Partly),
        count(AuditStatus::Rewritten),
        count(AuditStatus::Removed),
    );
    if ja {
        format!(
            "引用のある文 {total} 件のうち {verified} 件を根拠と照合して確認、{partly} 件は一部のみ、{rewritten} 件は根拠から書き直し、{removed} 件は削除（語と数値の照合による）"
        )
    } else {
        format!(
            "Cited sentences checked against the evidence they cite (shared words, every number present): {verified} of {total} verified, {partly} partly, {rewritten} rewritten, {removed} removed"
        )
    }
}
