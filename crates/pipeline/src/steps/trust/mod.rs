//! The trust engine (seeds 002 and 004), as the report audit's last stage rather than a second
//! pass: it checks only the claims that reach the report. Before writing, each source gets a
//! [`credibility`] score, and sources under the bar are kept out of the writer's evidence. After
//! the audit, each cited sentence is cross-validated ([`corroborate`]) against every source read
//! — counting [`origins`], so a mirror or a syndicated copy is not a second witness — and gets
//! ✓✓ / ✓ / ⚠ and a confidence; a source that says it and is not cited yet is cited, and one
//! that states other numbers is named beside it. The share of the writer's claims the audit
//! could not verify as written is the run's hallucination score.
//!
//! The model is asked only to take away what the words found: in the batched variant one call
//! confirms every cross-source passage; in the full variant one call per claim judges all of
//! its passages at once (its cited ones too, so it can mark a claim ⚠).

pub mod corroborate;
pub mod credibility;
pub mod origins;

use std::collections::BTreeMap;

use research_graph::NodeError;
use serde::{Deserialize, Serialize};

use self::corroborate::{ClaimTrust, MarkMeaning, Passages, Record, TrustMark};
use self::credibility::{Credibility, Domains};
use self::origins::{Origins, SameOrigin};
use crate::ask::{warn, Ctx};
use crate::config::TrustVariant;
use crate::records::{Evidence, Source, Warning};
use crate::steps::audit::{AuditEntry, AuditStatus};
use crate::steps::verify::model_verdicts;

/// Above this share of the writer's claims not supported as written, the report carries a caveat
/// and a person is asked (when one takes part: input allowed and a review point on) (seed 004's
/// `hallucination_threshold`).
pub const HALLUCINATION_THRESHOLD: f64 = 0.3;

/// Citation markers cross-validation adds to one sentence at most.
const MAX_ADDED_CITATIONS: usize = 2;

/// The trust engine's record of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TrustRecord {
    /// The variant that ran.
    pub variant: TrustVariant,
    /// Each source's credibility, in source order.
    pub credibility: Vec<Credibility>,
    /// Sources that speak with an earlier one's voice (mirrors, copies, the same site).
    pub same_origin: Vec<SameOrigin>,
    /// Every claim of the report, cross-validated.
    pub claims: Vec<ClaimTrust>,
    /// Claims the writer made (the body's cited sentences, before the audit).
    pub writer_claims: usize,
    /// Of those, how many are not supported as written: rewritten, removed or flagged, or
    /// only partly supported and more likely than not unattributable
    /// ([`AuditEntry::unsupported_as_written`]).
    pub unsupported: usize,
    /// `unsupported / writer_claims` (0 with no claims).
    pub hallucination: f64,
    /// What each mark of the report means (a record from before the legend was kept gets
    /// today's).
    #[serde(default = "TrustMark::legend")]
    pub legend: Vec<MarkMeaning>,
}

impl TrustRecord {
    /// Claims with `mark`.
    pub fn count(&self, mark: TrustMark) -> usize {
        self.claims.iter().filter(|c| c.mark == mark).count()
    }

    /// Whether the hallucination score is over [`HALLUCINATION_THRESHOLD`].
    pub fn over_threshold(&self) -> bool {
        self.hallucination > HALLUCINATION_THRESHOLD
    }

    /// The line the method section gets.
    pub fn summary(&self, ja: bool) -> String {
        let excluded = self.credibility.iter().filter(|c| c.excluded).count();
        let (cv, v, w) = (
            self.count(TrustMark::Corroborated),
            self.count(TrustMark::Verified),
            self.count(TrustMark::Weak),
        );
        // With no claim of the writer's (no prose written, or none kept), the score has nothing
        // to count and says so rather than "0 of 0".
        let none_written = self.writer_claims == 0;
        if ja {
            let scored = if none_written {
                "本文は書かれず、報告は出典の該当箇所そのもの".to_string()
            } else {
                format!(
                    "執筆された主張 {} 件中 {} 件が書かれたままでは裏付けられず",
                    self.writer_claims, self.unsupported
                )
            };
            return format!(
                "信頼性: ✓✓ {cv} 件（独立した2つ以上の出典）、✓ {v} 件（引用元で検証）、⚠ {w} 件（一部のみ・未検証・出典間で食い違い）。幻覚スコア {:.2}（{scored}）。信頼度 {:.2} 未満で除外した出典: {excluded}。",
                self.hallucination, credibility::MIN_CREDIBILITY
            );
        }
        let scored = if none_written {
            "no prose was written: the report is the sources' passages".to_string()
        } else {
            format!(
                "{} of the {} claims the writer made were not supported as written",
                self.unsupported, self.writer_claims
            )
        };
        format!(
            "Trust: {cv} claim{} ✓✓ (said by two or more independent sources), {v} ✓ (verified by \
             its cited source), {w} ⚠ (partly supported, unverified, or contested by another \
             source); hallucination score {:.2} ({scored}); {excluded} source{} left out under \
             {:.2} credibility; mirrors and pages of one site count as one source ({}).",
            if cv == 1 { "" } else { "s" },
            self.hallucination,
            if excluded == 1 { "" } else { "s" },
            credibility::MIN_CREDIBILITY,
            self.same_origin.len(),
        )
    }

    /// The caveat a report over the threshold carries.
    pub fn caveat(&self, ja: bool) -> Option<String> {
        if !self.over_threshold() {
            return None;
        }
        Some(if ja {
            format!(
                "執筆モデルの主張 {} 件中 {} 件が出典で裏付けられませんでした（幻覚スコア {:.2}）。該当文は書き直し・削除・⚠ 表示済みですが、残りの記述も出典と照らして読んでください。",
                self.writer_claims, self.unsupported, self.hallucination
            )
        } else {
            format!(
                "{} of the {} claims the writer made were not supported by their sources as \
                 written (hallucination score {:.2}); those were rewritten, removed or marked ⚠, \
                 but read the rest against its sources too.",
                self.unsupported, self.writer_claims, self.hallucination
            )
        })
    }
}

/// The stored texts of `sources`, by source id (a source whose text is gone has none).
pub fn texts(ctx: &Ctx, sources: &[Source]) -> BTreeMap<u32, String> {
    sources
        .iter()
        .filter_map(|s| {
            let text = ctx.config.documents.get(&s.sha256).ok().flatten()?;
            Some((s.id, text))
        })
        .collect()
}

/// Scores every source's credibility (no model call).
pub fn rank(ctx: &Ctx, sources: &[Source]) -> Vec<Credibility> {
    let texts = texts(ctx, sources);
    let domains = Domains::of(&ctx.config.config);
    let now = ctx.clock.now_ms();
    sources
        .iter()
        .map(|s| {
            let text = texts
                .get(&s.id)
                .map(|t| crate::text::plain(t))
                .unwrap_or_default();
            credibility::score(s, &text, &domains, now)
        })
        .collect()
}

/// The evidence the writer may use: none from a source under the credibility bar.
pub fn credible(evidence: &[Evidence], credibility: &[Credibility]) -> Vec<Evidence> {
    evidence
        .iter()
        .filter(|e| {
            credibility
                .iter()
                .find(|c| c.source_id == e.source_id)
                .is_none_or(|c| !c.excluded)
        })
        .cloned()
        .collect()
}

/// Span verification: the cited sentences of `body` that no evidence of their cited sources
/// bears out, looked for in those sources' stored text — the passage that supports one becomes
/// evidence (numbered from `first_id`, after every item of the run, cited or not), so the audit
/// judges the claim against what the source says, not only what the extractor happened to
/// pick. Sources under the credibility bar are not searched. `stored` holds the sources'
/// stored texts by id, read by the caller once (the draft's watch looks again and again).
pub fn spans(
    stored: &BTreeMap<u32, String>,
    body: &str,
    sources: &[Source],
    evidence: &[Evidence],
    credibility: &[Credibility],
    first_id: u32,
) -> Vec<Evidence> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut wanted: Vec<(String, std::collections::BTreeSet<u32>)> = Vec::new();
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with('#') || t.starts_with('>') || t.starts_with("```") {
            continue;
        }
        for sentence in line.split_sentence_bounds() {
            let ids = crate::report::cited_ids(sentence);
            if ids.is_empty() {
                continue;
            }
            let claim = crate::steps::audit::without_markers(sentence)
                .trim()
                .to_string();
            let backed = evidence.iter().any(|e| {
                ids.contains(&e.source_id) && crate::guard::supports(&claim, &e.quote).supported
            });
            if !backed {
                wanted.push((claim, ids));
            }
        }
    }
    if wanted.is_empty() {
        return Vec::new();
    }
    let usable = |id: u32| {
        credibility
            .iter()
            .find(|c| c.source_id == id)
            .is_none_or(|c| !c.excluded)
    };
    let needed: Vec<Source> = sources
        .iter()
        .filter(|s| usable(s.id) && wanted.iter().any(|(_, ids)| ids.contains(&s.id)))
        .cloned()
        .collect();
    let passages = Passages::of(
        stored
            .iter()
            .filter(|(id, _)| needed.iter().any(|s| s.id == **id)),
    );
    let mut next = first_id;
    let mut found: Vec<Evidence> = Vec::new();
    for (claim, ids) in wanted {
        let terms = crate::guard::claim_terms(&claim);
        for id in ids {
            let Some(passage) = passages.supporting(id, &claim, &terms) else {
                continue;
            };
            if !found
                .iter()
                .any(|e| e.source_id == id && e.quote == passage)
            {
                let mut e = Evidence::unnumbered(passage.clone(), passage);
                e.id = next;
                e.source_id = id;
                e.source_url = needed
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| s.url.clone())
                    .unwrap_or_default();
                e.query = "span verification".into();
                next += 1;
                found.push(e);
            }
            break;
        }
    }
    found
}

/// The body after cross-validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trusted {
    /// The body with marks and the citations cross-validation added.
    pub body: String,
    /// The record.
    pub record: TrustRecord,
    /// Evidence items made of passages the body now cites (numbered after `evidence`).
    pub added: Vec<Evidence>,
    /// Warnings (a confirmation call that gave no usable answer).
    pub warnings: Vec<Warning>,
}

/// The sentence with its added citations and its mark, placed before its closing punctuation.
fn marked(sentence: &str, added: &[u32], contested: &[u32], mark: TrustMark) -> String {
    let body = sentence.trim_end();
    let trailing = &sentence[body.len()..];
    let (text, stop) = match body.char_indices().last() {
        Some((i, '.' | '!' | '?' | '。' | '！' | '？')) => (&body[..i], &body[i..]),
        _ => (body, ""),
    };
    let mut out = text.trim_end().to_string();
    for id in added {
        out.push_str(&format!("[{id}]"));
    }
    // A sentence the audit kept with ⚠ and its reason already shows its mark.
    if !text.contains('⚠') || mark != TrustMark::Weak {
        out.push(' ');
        out.push_str(mark.symbol());
    }
    if !contested.is_empty() {
        let who: Vec<String> = contested.iter().map(|id| format!("[{id}]")).collect();
        out.push_str(&format!(" *(contested by {})*", who.join(" ")));
    }
    out.push_str(stop);
    out.push_str(trailing);
    out
}

/// What the trust stage works on besides the body.
#[derive(Debug, Clone, Copy)]
pub struct Stage<'a> {
    /// The engine's variant.
    pub variant: TrustVariant,
    /// Sources read.
    pub sources: &'a [Source],
    /// The evidence the body may cite.
    pub evidence: &'a [Evidence],
    /// The id the first citation cross-validation adds takes: after every item of the run,
    /// also those `evidence` leaves out (two items of one id cannot both be stored).
    pub first_id: u32,
    /// Each source's credibility.
    pub credibility: &'a [Credibility],
    /// The writer's claims and how many of them the audit could not verify, when the body is
    /// not the writer's (its prose failed and the passages replaced it): the score is the
    /// writer's, not the passages'.
    pub written: Option<(usize, usize)>,
}

/// Cross-validates the body's audited sentences (`entries`, the body's part of the audit, which
/// get the marked sentences and added citations), confirms with the model per the variant, and
/// marks the body.
pub async fn apply(
    ctx: &Ctx,
    stage: Stage<'_>,
    body: &str,
    entries: &mut [AuditEntry],
) -> Result<Trusted, NodeError> {
    let Stage {
        variant,
        sources,
        evidence,
        first_id,
        credibility,
        written,
    } = stage;
    let stored = texts(ctx, sources);
    let origins = Origins::of(sources, &stored);
    let passages = Passages::of(&stored);
    let record = Record {
        evidence,
        passages: &passages,
        origins: &origins,
        credibility,
    };
    let (writer_claims, unsupported) = written.unwrap_or_else(|| unverified(entries));
    let mut claims: Vec<(usize, ClaimTrust)> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.status != AuditStatus::Removed && body.contains(&e.sentence))
        .map(|(i, e)| (i, corroborate::cross_validate(e, &record)))
        .collect();
    let warnings = confirm(ctx, variant, &mut claims, entries, &record).await?;
    // Mark the body and cite what cross-validation found.
    let mut body = body.to_string();
    let mut added: Vec<Evidence> = Vec::new();
    let mut next_id = first_id.max(Evidence::next_id(evidence));
    let mut cite = |source_id: u32, quote: &str, existing: Option<u32>| -> u32 {
        if let Some(id) = existing {
            return id;
        }
        if let Some(e) = added
            .iter()
            .find(|e| e.source_id == source_id && e.quote == quote)
        {
            return e.id;
        }
        let url = sources
            .iter()
            .find(|s| s.id == source_id)
            .map(|s| s.url.clone())
            .unwrap_or_default();
        let mut e = Evidence::unnumbered(quote.to_string(), quote.to_string());
        e.id = next_id;
        e.source_id = source_id;
        e.source_url = url;
        e.query = "cross-validation".into();
        next_id += 1;
        added.push(e);
        next_id - 1
    };
    for (i, claim) in &mut claims {
        let entry = &mut entries[*i];
        let mut seen: Vec<u32> = entry.sources.iter().map(|&s| origins.origin(s)).collect();
        let mut new_ids = Vec::new();
        for c in claim.supported_by.iter_mut().filter(|c| !c.cited) {
            let origin = origins.origin(c.source_id);
            if new_ids.len() >= MAX_ADDED_CITATIONS || seen.contains(&origin) {
                continue;
            }
            seen.push(origin);
            let id = cite(c.source_id, &c.quote, c.evidence_id);
            c.evidence_id = Some(id);
            c.cited = true;
            new_ids.push(c.source_id);
            entry.sources.push(c.source_id);
            entry.evidence.push(id);
        }
        let mut contested = Vec::new();
        for c in claim.contradicted_by.iter_mut() {
            c.evidence_id = Some(cite(c.source_id, &c.quote, c.evidence_id));
            if !contested.contains(&c.source_id) {
                contested.push(c.source_id);
            }
        }
        let sentence = marked(&entry.sentence, &new_ids, &contested, claim.mark);
        if let Some(at) = body.find(&entry.sentence) {
            body.replace_range(at..at + entry.sentence.len(), &sentence);
        }
        entry.sentence = sentence.clone();
        claim.sentence = sentence;
    }
    let hallucination = if writer_claims == 0 {
        0.0
    } else {
        ((unsupported as f64 / writer_claims as f64) * 100.0).round() / 100.0
    };
    Ok(Trusted {
        body,
        record: TrustRecord {
            variant,
            credibility: credibility.to_vec(),
            same_origin: origins.same.clone(),
            claims: claims.into_iter().map(|(_, c)| c).collect(),
            writer_claims,
            unsupported,
            hallucination,
            legend: TrustMark::legend(),
        },
        added,
        warnings,
    })
}

/// How many of `entries` there are, and how many are not supported as written
/// ([`AuditEntry::unsupported_as_written`]: failed, or only partly said and more likely than not
/// unattributable by the checker's calibrated score). A partly supported sentence is not counted
/// whole: on people's judgements about half of them are attributable (AttributionBench dev,
/// held-out: 53%), so its own probability decides.
pub fn unverified(entries: &[AuditEntry]) -> (usize, usize) {
    let failed = entries
        .iter()
        .filter(|e| e.unsupported_as_written())
        .count();
    (entries.len(), failed)
}

/// The model's confirmation: it can only take a corroboration away (batched: one call for every
/// passage cross-validation added), or in the full variant judge each claim against all its
/// passages (a cited one it rejects makes the claim ⚠).
async fn confirm(
    ctx: &Ctx,
    variant: TrustVariant,
    claims: &mut [(usize, ClaimTrust)],
    entries: &[AuditEntry],
    record: &Record<'_>,
) -> Result<Vec<Warning>, NodeError> {
    let claim_text = |c: &ClaimTrust| {
        crate::steps::audit::without_markers(&c.sentence)
            .trim()
            .to_string()
    };
    let mut warnings = Vec::new();
    let mut groups: Vec<Vec<(usize, usize)>> = Vec::new();
    match variant {
        TrustVariant::Batched => groups.push(
            claims
                .iter()
                .enumerate()
                .flat_map(|(k, (_, c))| {
                    c.supported_by
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| !s.cited)
                        .map(move |(j, _)| (k, j))
                })
                .collect(),
        ),
        TrustVariant::Full => {
            for (k, (_, c)) in claims.iter().enumerate() {
                groups.push((0..c.supported_by.len()).map(|j| (k, j)).collect());
            }
        }
    }
    for group in groups.into_iter().filter(|g| !g.is_empty()) {
        let texts: Vec<(String, String)> = group
            .iter()
            .map(|&(k, j)| {
                let c = &claims[k].1;
                (claim_text(c), c.supported_by[j].quote.clone())
            })
            .collect();
        let pairs: Vec<(&str, &str)> = texts
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (verdicts, mut problems) = match model_verdicts(ctx, &pairs).await {
            Ok(v) => v,
            Err(e) => (
                vec![None; pairs.len()],
                vec![warn(
                    ctx,
                    format!("cross-validation went on without the model: {e}"),
                )],
            ),
        };
        warnings.append(&mut problems);
        // Drop what the model rejects, last first so the indices hold.
        let mut rejected: Vec<(usize, usize)> = group
            .iter()
            .zip(verdicts)
            .filter(|(_, v)| *v == Some(false))
            .map(|(&kj, _)| kj)
            .collect();
        rejected.sort_by(|a, b| b.cmp(a));
        for (k, j) in rejected {
            claims[k].1.supported_by.remove(j);
        }
    }
    for (i, claim) in claims.iter_mut() {
        let (supported_by, contradicted_by) = (
            std::mem::take(&mut claim.supported_by),
            std::mem::take(&mut claim.contradicted_by),
        );
        // A claim whose cited passage the model rejected (full variant) is no longer verified.
        *claim = corroborate::judge(&entries[*i], supported_by, contradicted_by, record);
    }
    Ok(warnings)
}

/// A web source for the trust engine's tests: `id` at `url`, its text stored as `sha{id}`.
#[cfg(test)]
pub(crate) fn a_source(id: u32, url: &str) -> Source {
    Source {
        id,
        url: url.into(),
        title: String::new(),
        kind: "web".into(),
        provider: "p".into(),
        published: None,
        sha256: format!("sha{id}"),
        accessed_at_ms: 0,
        citation: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_go_before_the_closing_stop_with_added_citations() {
        assert_eq!(
            marked("Bees dance [1].", &[4], &[], TrustMark::Corroborated),
            "Bees dance [1][4] ✓✓."
        );
        assert_eq!(
            marked("Bees dance [1]", &[], &[], TrustMark::Verified),
            "Bees dance [1] ✓"
        );
        assert_eq!(
            marked("A colony has 50,000 bees [1].", &[], &[3], TrustMark::Weak),
            "A colony has 50,000 bees [1] ⚠ *(contested by [3])*."
        );
        // The audit's own ⚠ is not said twice.
        let flagged = "Bees fly 90 km [2] ⚠ *(unverified: no quote states 90)*.";
        assert_eq!(marked(flagged, &[], &[], TrustMark::Weak), flagged);
    }
}
