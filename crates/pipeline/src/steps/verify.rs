//! Verification: each claim is checked against its own quote by a model and by the
//! deterministic check (shared content words, every number present); it is supported only when
//! both agree. A claim the model skipped is not counted as supported, and an unusable answer
//! means "not checked", not "0%".

use std::collections::BTreeMap;

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::ask::{ask_or, Ctx};
use crate::guard;
use crate::prompts;
use crate::records::{Claim, Evidence, Warning};
use crate::roles::Role;

#[derive(Debug, Deserialize, JsonSchema)]
struct Verdict {
    #[schemars(range(min = 1, max = 20))]
    claim: i64,
    supported: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct VerifyOut {
    #[schemars(length(max = 20))]
    verdicts: Vec<Verdict>,
}

/// Up to `max` evidence items, taken round-robin over sources so one page cannot crowd out the
/// rest.
pub fn spread(evidence: &[Evidence], max: usize) -> Vec<Evidence> {
    let mut by_source: BTreeMap<u32, Vec<&Evidence>> = BTreeMap::new();
    for e in evidence {
        by_source.entry(e.source_id).or_default().push(e);
    }
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < max {
        let mut any = false;
        for items in by_source.values() {
            if let Some(e) = items.get(round) {
                out.push((*e).clone());
                any = true;
                if out.len() >= max {
                    break;
                }
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    out.sort_by_key(|e| e.id);
    out
}

/// The checked claims, the share supported, and warnings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verification {
    /// Checked claims (none when the check could not be made).
    pub claims: Vec<Claim>,
    /// Supported / checked, 0 when none.
    pub confidence: f64,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// Checks up to 20 claims, spread over the sources, against their quotes.
pub async fn verify(ctx: &Ctx, evidence: &[Evidence]) -> Result<Verification, NodeError> {
    let chosen = spread(evidence, 20);
    if chosen.is_empty() {
        return Ok(Verification::default());
    }
    let listing: String = chosen
        .iter()
        .enumerate()
        .map(|(i, e)| {
            format!(
                "Claim {}: {}\nQuote: \"{}\"\n\n",
                i + 1,
                e.fact.replace('\n', " "),
                e.quote.replace('\n', " ")
            )
        })
        .collect();
    let (out, warnings) =
        ask_or::<VerifyOut>(ctx, Role::Verify, prompts::VERIFY.to_string(), listing, 600).await?;
    let Some(out) = out.filter(|_| warnings.is_empty()) else {
        // Unchecked is not the same as unsupported: report no verification rather than 0%.
        return Ok(Verification {
            warnings,
            ..Default::default()
        });
    };
    let verdicts: BTreeMap<usize, bool> = out
        .verdicts
        .into_iter()
        .map(|v| (v.claim.clamp(0, 1_000) as usize, v.supported))
        .collect();
    // A claim counts as supported only when the model and the deterministic check agree: the
    // model cannot call a claim supported whose words or numbers its quote does not have, and
    // a claim the model skipped is not counted.
    let claims: Vec<Claim> = chosen
        .iter()
        .enumerate()
        .map(|(i, e)| Claim {
            evidence_id: e.id,
            text: e.fact.clone(),
            supported: verdicts.get(&(i + 1)).copied().unwrap_or(false)
                && guard::supports(&e.fact, &e.quote).supported,
        })
        .collect();
    let supported = claims.iter().filter(|c| c.supported).count();
    let confidence = supported as f64 / claims.len() as f64;
    Ok(Verification {
        claims,
        confidence,
        warnings: Vec::new(),
    })
}
