//! Cross-validation of the report's claims against every source the run read: which sources
//! say a claim (its cited evidence, other evidence, or a passage of a source's stored text), how
//! many independent origins that is, which sources state other numbers about the same thing,
//! and from that the claim's mark (✓✓ / ✓ / ⚠) and confidence. Deterministic: the model can
//! only take a corroboration away afterwards ([`super::confirm`]).

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::credibility::Credibility;
use super::origins::Origins;
use crate::guard;
use crate::records::Evidence;
use crate::steps::audit::{without_markers, AuditEntry, AuditStatus};
use crate::text;

/// Sentences of one source searched for a claim at most (a long manual's first pages).
const MAX_SENTENCES: usize = 4_000;

/// How a claim stands after cross-validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TrustMark {
    /// ✓✓: supported by two or more independent sources, and contested by none.
    Corroborated,
    /// ✓: supported by its cited source.
    Verified,
    /// ⚠: only partly supported, kept unverified, or contested by another source.
    Weak,
}

/// A mark, its name and what it means: the legend the app draws, from the rule that sets the
/// mark, with the measured precision of the checker's verdict behind a ✓.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MarkMeaning {
    /// The mark.
    pub mark: TrustMark,
    /// ✓✓, ✓ or ⚠.
    pub symbol: String,
    /// Its name: "Corroborated", "Verified", "Weak".
    pub label: String,
    /// What it means, in words.
    pub meaning: String,
}

impl TrustMark {
    /// Every mark, strongest first.
    pub const ALL: [TrustMark; 3] = [
        TrustMark::Corroborated,
        TrustMark::Verified,
        TrustMark::Weak,
    ];

    /// The legend of the marks, in the order of [`TrustMark::ALL`].
    pub fn legend() -> Vec<MarkMeaning> {
        let worth = research_check::verified_precision().map_or_else(String::new, |p| {
            format!(
                " (the checker's verified was right {:.0} times in 100 against people's judgements)",
                p * 100.0
            )
        });
        TrustMark::ALL
            .iter()
            .map(|&mark| MarkMeaning {
                mark,
                symbol: mark.symbol().into(),
                label: match mark {
                    TrustMark::Corroborated => "Corroborated",
                    TrustMark::Verified => "Verified",
                    TrustMark::Weak => "Weak",
                }
                .into(),
                meaning: match mark {
                    TrustMark::Corroborated => format!(
                        "verified by the citation checker against two or more independent sources, and contested by none{worth}"
                    ),
                    TrustMark::Verified => format!(
                        "verified by the citation checker against the source it cites{worth}"
                    ),
                    TrustMark::Weak => {
                        "partly supported, unverified, or contested by another source".into()
                    }
                },
            })
            .collect()
    }

    /// The symbol the report shows.
    pub fn symbol(self) -> &'static str {
        match self {
            TrustMark::Corroborated => "✓✓",
            TrustMark::Verified => "✓",
            TrustMark::Weak => "⚠",
        }
    }
}

/// A source that says what a claim says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Corroboration {
    /// The source.
    pub source_id: u32,
    /// Its words that say it.
    pub quote: String,
    /// The evidence item those words are (`None` for a passage found by cross-validation that
    /// is not cited; a cited one becomes evidence).
    pub evidence_id: Option<u32>,
    /// Whether the report cites it for the claim.
    pub cited: bool,
}

/// A source that states other numbers about what a claim is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Conflict {
    /// The source.
    pub source_id: u32,
    /// Its words.
    pub quote: String,
    /// The numbers it states that the claim does not.
    pub numbers: Vec<String>,
    /// The evidence item those words are, once cited.
    pub evidence_id: Option<u32>,
}

/// One report claim after cross-validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClaimTrust {
    /// The sentence as the report has it (marked).
    pub sentence: String,
    /// What the audit decided about it.
    pub status: AuditStatus,
    /// The sources that say it.
    pub supported_by: Vec<Corroboration>,
    /// How many independent origins those are.
    pub origins: usize,
    /// Sources that state other numbers about the same thing.
    pub contradicted_by: Vec<Conflict>,
    /// ✓✓, ✓ or ⚠.
    pub mark: TrustMark,
    /// 0 to 1: the audit's verdict, independent support, credibility and contradiction.
    pub confidence: f64,
    /// How it was checked, in words.
    pub check: String,
}

/// Every quotable passage of each source (one sentence, or two running on), with its terms.
#[derive(Debug, Default)]
pub struct Passages {
    by_source: BTreeMap<u32, Vec<(String, HashSet<String>)>>,
}

impl Passages {
    /// The passages of `texts`: each source's stored text (Markdown) by source id.
    pub fn of<'a>(texts: impl IntoIterator<Item = (&'a u32, &'a String)>) -> Self {
        let mut by_source = BTreeMap::new();
        for (&id, raw) in texts {
            let sentences = text::sentences(raw, 0..raw.len());
            let sentences = &sentences[..sentences.len().min(MAX_SENTENCES)];
            let mut passages = Vec::with_capacity(sentences.len() * 2);
            for (i, s) in sentences.iter().enumerate() {
                let one = text::plain(&raw[s.range.clone()]);
                passages.push((one.clone(), guard::claim_terms(&one)));
                if let Some(next) = sentences.get(i + 1) {
                    let two = text::plain(&raw[s.range.start..next.range.end]);
                    if two.chars().count() <= 600 {
                        let terms = guard::claim_terms(&two);
                        passages.push((two, terms));
                    }
                }
            }
            by_source.insert(id, passages);
        }
        Self { by_source }
    }

    /// The passage of `source` that best supports `claim` (with `terms` its terms), if any does.
    pub(crate) fn supporting(
        &self,
        source: u32,
        claim: &str,
        terms: &HashSet<String>,
    ) -> Option<String> {
        let need = (terms.len() as f64 * guard::SUPPORT_OVERLAP).ceil() as usize;
        self.by_source
            .get(&source)?
            .iter()
            .filter(|(_, t)| terms.intersection(t).count() >= need.max(guard::SUPPORT_MIN_SHARED))
            .filter(|(p, _)| research_check::states(p, claim))
            .map(|(p, _)| (p, guard::supports(claim, p)))
            // The best-supporting passage; of equals, the shorter (one sentence, not two).
            .max_by(|a, b| {
                a.1.overlap
                    .total_cmp(&b.1.overlap)
                    .then(b.0.len().cmp(&a.0.len()))
            })
            .map(|(p, _)| p.clone())
    }

    /// A passage of `source` that states other numbers about what `claim` is about, if any.
    fn disagreeing(
        &self,
        source: u32,
        claim: &str,
        terms: &HashSet<String>,
    ) -> Option<(String, Vec<String>)> {
        let need = (terms.len() as f64 * guard::CONTRADICTION_OVERLAP).ceil() as usize;
        self.by_source
            .get(&source)?
            .iter()
            .filter(|(_, t)| {
                terms.intersection(t).count() >= need.max(guard::CONTRADICTION_MIN_SHARED)
            })
            .find_map(|(p, _)| guard::disagrees(claim, p).map(|n| (p.clone(), n)))
    }
}

/// What cross-validation looks at.
pub struct Record<'a> {
    /// All evidence.
    pub evidence: &'a [Evidence],
    /// Every source's passages.
    pub passages: &'a Passages,
    /// Which sources are one origin.
    pub origins: &'a Origins,
    /// Each source's credibility (excluded sources neither support nor contest).
    pub credibility: &'a [Credibility],
}

impl Record<'_> {
    fn credibility(&self, source: u32) -> Option<&Credibility> {
        self.credibility.iter().find(|c| c.source_id == source)
    }

    fn usable(&self, source: u32) -> bool {
        self.credibility(source).is_none_or(|c| !c.excluded)
    }
}

/// Cross-validates the audited sentence `entry` against every usable source of `record`.
pub fn cross_validate(entry: &AuditEntry, record: &Record<'_>) -> ClaimTrust {
    let claim = without_markers(&entry.sentence);
    let claim = claim.trim();
    let terms = guard::claim_terms(claim);
    let mut supported_by: Vec<Corroboration> = Vec::new();
    if matches!(entry.status, AuditStatus::Verified | AuditStatus::Rewritten) {
        for id in &entry.evidence {
            if let Some(e) = record.evidence.iter().find(|e| e.id == *id) {
                supported_by.push(Corroboration {
                    source_id: e.source_id,
                    quote: e.quote.clone(),
                    evidence_id: Some(e.id),
                    cited: true,
                });
            }
        }
    }
    let mut contradicted_by = Vec::new();
    let mut others: Vec<u32> = record.passages.by_source.keys().copied().collect();
    for e in record.evidence {
        if !others.contains(&e.source_id) {
            others.push(e.source_id);
        }
    }
    for source in others {
        if !record.usable(source) || supported_by.iter().any(|c| c.source_id == source) {
            continue;
        }
        let own: Vec<&Evidence> = record
            .evidence
            .iter()
            .filter(|e| e.source_id == source)
            .collect();
        let by_evidence = own
            .iter()
            .find(|e| research_check::states(&e.quote, claim))
            .map(|e| (e.quote.clone(), Some(e.id)));
        let found = by_evidence.or_else(|| {
            record
                .passages
                .supporting(source, claim, &terms)
                .map(|p| (p, None))
        });
        if let Some((quote, evidence_id)) = found {
            supported_by.push(Corroboration {
                source_id: source,
                quote,
                evidence_id,
                cited: entry.sources.contains(&source),
            });
            continue;
        }
        let against = own
            .iter()
            .find_map(|e| {
                guard::disagrees(claim, &e.quote).map(|n| (e.quote.clone(), n, Some(e.id)))
            })
            .or_else(|| {
                record
                    .passages
                    .disagreeing(source, claim, &terms)
                    .map(|(p, n)| (p, n, None))
            });
        if let Some((quote, numbers, evidence_id)) = against {
            contradicted_by.push(Conflict {
                source_id: source,
                quote,
                numbers,
                evidence_id,
            });
        }
    }
    judge(entry, supported_by, contradicted_by, record)
}

/// The mark, confidence and words of a claim from what supports and contests it.
pub fn judge(
    entry: &AuditEntry,
    supported_by: Vec<Corroboration>,
    contradicted_by: Vec<Conflict>,
    record: &Record<'_>,
) -> ClaimTrust {
    let origins = record
        .origins
        .independent(supported_by.iter().map(|c| c.source_id));
    let verified = matches!(entry.status, AuditStatus::Verified | AuditStatus::Rewritten)
        && supported_by.iter().any(|c| c.cited);
    let mark = if !verified || !contradicted_by.is_empty() {
        TrustMark::Weak
    } else if origins >= 2 {
        TrustMark::Corroborated
    } else {
        TrustMark::Verified
    };
    let base = match entry.status {
        AuditStatus::Verified if verified => 0.7,
        AuditStatus::Rewritten if verified => 0.6,
        AuditStatus::Partly => 0.35,
        _ => 0.15,
    };
    let extra = match origins {
        0 | 1 => 0.0,
        2 => 0.15,
        _ => 0.25,
    };
    let credibility = supported_by
        .iter()
        .filter_map(|c| record.credibility(c.source_id).map(|k| k.score))
        .fold(None, |best: Option<f64>, s| {
            Some(best.map_or(s, |b| b.max(s)))
        })
        .unwrap_or(0.5);
    let mut confidence = (base + extra) * (0.6 + 0.4 * credibility);
    if !contradicted_by.is_empty() {
        confidence *= 0.5;
    }
    let confidence = (confidence.clamp(0.0, 1.0) * 100.0).round() / 100.0;
    let mut check = match (verified, origins) {
        (false, _) => format!("not verified by its cited source ({})", entry.check),
        (true, 0 | 1) => "verified by its cited source; no independent source says it".into(),
        (true, n) => format!("said by {n} independent sources"),
    };
    if !contradicted_by.is_empty() {
        let who: Vec<String> = contradicted_by
            .iter()
            .map(|c| format!("source {} states {}", c.source_id, c.numbers.join(", ")))
            .collect();
        check.push_str(&format!("; contested: {}", who.join("; ")));
    }
    ClaimTrust {
        sentence: entry.sentence.clone(),
        status: entry.status,
        supported_by,
        origins,
        contradicted_by,
        mark,
        confidence,
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Source;

    fn source(id: u32, url: &str) -> Source {
        super::super::a_source(id, url)
    }

    #[test]
    fn a_passage_no_extractor_picked_still_corroborates_and_other_numbers_contest() {
        let sources = vec![
            source(1, "https://a.example.org/x"),
            source(2, "https://b.example.net/y"),
            source(3, "https://c.example.com/z"),
        ];
        let mut texts = BTreeMap::new();
        texts.insert(
            1,
            "Memcheck detects reads of uninitialised memory in C programs.".to_string(),
        );
        texts.insert(
            2,
            "Valgrind has several tools. Among them, Memcheck detects reads of uninitialised \
memory in C and C++ programs. It runs programs about 20 times slower."
                .to_string(),
        );
        texts.insert(
            3,
            "Under Memcheck, programs run about 50 times slower than natively, the manual says."
                .to_string(),
        );
        let evidence = vec![Evidence {
            id: 1,
            source_id: 1,
            source_url: sources[0].url.clone(),
            fact: texts[&1].clone(),
            quote: texts[&1].clone(),
            question: None,
            query: String::new(),
        }];
        let passages = Passages::of(&texts);
        let origins = Origins::of(&sources, &texts);
        let record = Record {
            evidence: &evidence,
            passages: &passages,
            origins: &origins,
            credibility: &[],
        };
        let entry = AuditEntry {
            sentence: "Memcheck detects reads of uninitialised memory in C programs [1].".into(),
            sources: vec![1],
            status: AuditStatus::Verified,
            evidence: vec![1],
            check: String::new(),
            written: None,
            passage: None,
            score: None,
        };
        let claim = cross_validate(&entry, &record);
        assert_eq!(claim.mark, TrustMark::Corroborated, "{claim:#?}");
        let other = claim
            .supported_by
            .iter()
            .find(|c| c.source_id == 2)
            .unwrap();
        assert_eq!(other.evidence_id, None);
        assert!(other.quote.starts_with("Among them, Memcheck"), "{other:?}");
        let slow = AuditEntry {
            sentence: "Programs run about 20 times slower under Memcheck [2].".into(),
            sources: vec![2],
            status: AuditStatus::Partly,
            evidence: vec![],
            check: "partly".into(),
            written: None,
            passage: None,
            score: None,
        };
        let claim = cross_validate(&slow, &record);
        assert_eq!(claim.mark, TrustMark::Weak);
        assert_eq!(claim.contradicted_by[0].source_id, 3, "{claim:#?}");
        assert_eq!(claim.contradicted_by[0].numbers, vec!["50".to_string()]);
    }
}
