//! The report's caveats, the same in every pipeline and in the report made of passages: what a
//! reader should weigh before trusting it — few supported claims, research questions left
//! uncovered (each named), a single source.

use super::gaps::evidence_coverage;
use crate::records::Coverage;
use crate::report::Facts;

/// The report's caveats: few supported claims, questions left uncovered (each research question
/// no passage read bears out named: [`evidence_coverage`], the rule that caps the coverage), a
/// single source.
pub fn caveats(facts: &Facts<'_>, min_coverage: f64, min_supported: f64) -> Vec<String> {
    let ja = facts.language == "ja";
    let mut out = Vec::new();
    // The run's own threshold: the one under which its verification loop researched again.
    if !facts.claims.is_empty() && facts.confidence < min_supported {
        out.push(if ja {
            format!(
                "検証で引用により裏付けられた主張は {:.0}% にとどまります。結論は慎重に扱ってください。",
                facts.confidence * 100.0
            )
        } else {
            format!(
                "Only {:.0}% of the checked claims were supported by their quotes; treat the conclusions with care.",
                facts.confidence * 100.0
            )
        });
    }
    if facts.coverage < min_coverage && !facts.questions.is_empty() {
        out.push(if ja {
            format!(
                "調査課題の網羅度は {:.0}% です。答えきれていない点があります。",
                facts.coverage * 100.0
            )
        } else {
            format!(
                "The research questions were covered to {:.0}%; some remain partly unanswered.",
                facts.coverage * 100.0
            )
        });
    }
    // Each research question no passage read bears out, named: said of the sources, so judged
    // by the evidence alone (a tiny model calls covered questions missing as readily as the
    // reverse, and the report would name a question its passages answer).
    let also = facts
        .crossing
        .map(|c| c.searches.join(" "))
        .unwrap_or_default();
    for q in facts.questions {
        let level = evidence_coverage(&super::languages::asked(q, &also), facts.evidence);
        if level == Coverage::Missing {
            let q = q.trim();
            out.push(if ja {
                format!("読んだ出典では答えが得られなかった調査課題: 「{q}」")
            } else {
                format!("Not answered by the sources read: \"{q}\"")
            });
        }
    }
    if facts.sources.len() == 1 {
        out.push(if ja {
            "根拠は一つの出典のみに基づいています。".to_string()
        } else {
            "All evidence comes from a single source.".to_string()
        });
    }
    out
}
