//! The audit's second half: the findings list's own audit (each line against its quote),
//! the model's check of what the words alone could not settle (it can only lower a verdict),
//! and the summary line the method section gets.

use research_graph::NodeError;

use super::{AuditEntry, AuditStatus};
use crate::ask::{warn, Ctx};
use crate::records::{Claim, Evidence, Warning};
use crate::steps::audit::without_markers;
use crate::steps::verify::model_verdicts;

/// Why a finding needs no check: it is its quote, word for word.
const FACT_IS_QUOTE: &str = "the fact is its quote";

/// A findings line as the audit records it.
fn finding_line(e: &Evidence) -> String {
    format!("{} [{}]", e.fact.trim(), e.source_id)
}

/// The audit of the findings section: each line states an evidence item's fact, checked
/// against its own quote by the citation checker (a fact that is its quote word for word needs
/// no check). A finding is never removed: one the checker does not verify is partly supported,
/// with its reason.
pub fn audit_findings(evidence: &[Evidence]) -> Vec<AuditEntry> {
    evidence
        .iter()
        .map(|e| {
            let sentence = finding_line(e);
            let same = e.fact.trim() == e.quote.trim();
            let verdict = (!same).then(|| {
                research_check::check(
                    &e.fact,
                    &[research_check::Passage {
                        source: e.source_id as usize,
                        text: &e.quote,
                    }],
                    &research_check::SourceTexts::new(),
                )
            });
            let status = match &verdict {
                None => AuditStatus::Verified,
                Some(v) if v.status == research_check::Status::Verified => AuditStatus::Verified,
                Some(_) => AuditStatus::Partly,
            };
            AuditEntry {
                score: verdict.as_ref().map(|v| v.score),
                sentence,
                sources: vec![e.source_id],
                status,
                evidence: vec![e.id],
                check: verdict
                    .as_ref()
                    .map_or_else(|| FACT_IS_QUOTE.to_string(), |v| v.reason.clone()),
                written: None,
                passage: Some(
                    verdict
                        .map(|v| v.aligned)
                        .filter(|a| !a.is_empty())
                        .unwrap_or_else(|| e.quote.clone()),
                ),
            }
        })
        .collect()
}

/// "N of M cited sentences verified, K rewritten, J removed", for the report's method section.
pub fn summary(entries: &[AuditEntry], ja: bool) -> String {
    let count = |s: AuditStatus| entries.iter().filter(|e| e.status == s).count();
    let total = entries.len();
    let (verified, partly, rewritten, flagged, removed) = (
        count(AuditStatus::Verified),
        count(AuditStatus::Partly),
        count(AuditStatus::Rewritten),
        count(AuditStatus::Flagged),
        count(AuditStatus::Removed),
    );
    let flagged_ja = if flagged > 0 {
        format!("、{flagged} 件は未確認として ⚠ 付きで残置")
    } else {
        String::new()
    };
    let flagged_en = if flagged > 0 {
        format!(", {flagged} kept with ⚠")
    } else {
        String::new()
    };
    let precision = research_check::verified_precision().map(|p| (p * 100.0).round());
    if ja {
        let worth = precision.map_or_else(String::new, |p| {
            format!("。「確認」は人の判定と照合して {p:.0}% 正しかった判定（AttributionBench、学習に使わなかった例）")
        });
        format!(
            "引用のある文 {total} 件のうち {verified} 件を根拠と照合して確認、{partly} 件は一部のみ、{rewritten} 件は根拠から書き直し{flagged_ja}、{removed} 件は削除（引用チェッカー：出典の最も近い一節と、語・数値・名前・否定・数量の照合、続いてモデルによる確認）{worth}"
        )
    } else {
        let worth = precision.map_or_else(String::new, |p| {
            format!(". A verified sentence is one the checker was right to call verified {p:.0} times in 100 against people's judgements (AttributionBench, claims it was not fitted on); partly means much of it is said, not all")
        });
        format!(
            "Cited sentences checked against the evidence they cite by the citation checker (the source's closest passage; words, numbers, names, negation and quantifiers; then the model): {verified} of {total} verified, {partly} partly, {rewritten} rewritten{flagged_en}, {removed} removed{worth}"
        )
    }
}

/// What the fast model said of a verified sentence and its best evidence.
pub(super) fn with_verdict(entry: &mut AuditEntry, verdict: Option<bool>) {
    match verdict {
        Some(true) => entry.check.push_str("; the model agrees"),
        Some(false) => {
            // The words are there but the model does not read them as saying it: not verified.
            entry.status = AuditStatus::Partly;
            entry.check = format!(
                "the model does not find it in the quote, though {}",
                entry.check.trim_start_matches("verified: ")
            );
        }
        None => entry
            .check
            .push_str("; the model's check was unavailable, so words and numbers decided"),
    }
}

/// The model's half of the audit: every sentence the deterministic checks verified is put to
/// the fast model with its best evidence, in batches; one it does not find supported is only
/// partly verified. Findings whose evidence the verification step already put to the model
/// take that verdict (`claims`) instead of a second call, and a fact that is its own quote needs
/// no model. The model can only lower a status, never raise one.
pub async fn confirm(
    ctx: &Ctx,
    entries: &mut [AuditEntry],
    evidence: &[Evidence],
    claims: &[Claim],
) -> Result<Vec<Warning>, NodeError> {
    // A model measured to be wrong when it says "no" does not get to lower anything.
    if let Some(why) = crate::steps::verify::unhelpful_opinion(ctx, crate::roles::Role::Verify) {
        for entry in entries.iter_mut().filter(|e| {
            e.status == AuditStatus::Verified
                && e.check != FACT_IS_QUOTE
                && e.check != super::OWN_WORDS
        }) {
            entry
                .check
                .push_str(&format!("; no second opinion from {why}"));
        }
        return Ok(Vec::new());
    }
    let quote = |entry: &AuditEntry| {
        entry
            .evidence
            .first()
            .and_then(|id| evidence.iter().find(|e| e.id == *id))
    };
    let mut asked: Vec<usize> = Vec::new();
    for (i, entry) in entries.iter_mut().enumerate() {
        if entry.status != AuditStatus::Verified || entry.check == FACT_IS_QUOTE {
            continue;
        }
        let Some(item) = quote(entry) else { continue };
        let finding = entry.sentence == finding_line(item);
        match claims.iter().find(|c| c.evidence_id == item.id) {
            // The verification step's verdict: the model and the same words check agreed or not.
            Some(claim) if finding => with_verdict(entry, Some(claim.supported)),
            _ => asked.push(i),
        }
    }
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<(String, String)> = asked
        .iter()
        .map(|&i| {
            let e = &entries[i];
            (
                without_markers(&e.sentence).trim().to_string(),
                quote(e).map(|q| q.quote.clone()).unwrap_or_default(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(c, q)| (c.as_str(), q.as_str()))
        .collect();
    let (verdicts, warnings) = match model_verdicts(ctx, &pairs).await {
        Ok(answer) => answer,
        // The report is written: a failed check call leaves the words-and-numbers audit, said.
        Err(e) => (
            vec![None; pairs.len()],
            vec![warn(
                ctx,
                format!("the report audit went on without the model: {e}"),
            )],
        ),
    };
    for (&i, verdict) in asked.iter().zip(verdicts) {
        with_verdict(&mut entries[i], verdict);
    }
    Ok(warnings)
}
