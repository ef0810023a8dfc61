//! How strong each piece of evidence is (seed 000's strong / moderate / weak), in every
//! pipeline, from what the checks found rather than a model's say: strong when its quote bears
//! out its fact and another source says the same, moderate when its quote bears it out alone,
//! weak when the quote does not bear it out (or it was never checked). The trust pipeline's
//! marks go further (cross-validation of the report's sentences); this grades what was read.

use serde::{Deserialize, Serialize};

use crate::guard;
use crate::records::{Claim, Evidence};

/// How strong one piece of evidence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    /// Its quote bears out its fact, and another source says the same.
    Strong,
    /// Its quote bears out its fact; no other source read says it.
    Moderate,
    /// Its quote does not bear out its fact, or it was not checked.
    Weak,
}

/// Each evidence item's grade, in the order given: `claims` are the verifier's checks of the
/// facts (one per evidence item it checked).
pub fn grades(evidence: &[Evidence], claims: &[Claim]) -> Vec<Grade> {
    evidence
        .iter()
        .map(|e| {
            let supported = claims.iter().any(|c| c.evidence_id == e.id && c.supported);
            if !supported {
                return Grade::Weak;
            }
            // Another source's passage that bears out this fact too.
            let corroborated = evidence.iter().any(|o| {
                o.source_id != e.source_id && guard::supports(&e.fact, &o.quote).supported
            });
            if corroborated {
                Grade::Strong
            } else {
                Grade::Moderate
            }
        })
        .collect()
}

/// The method section's line: how many of each grade, and what each means.
pub fn summary(grades: &[Grade], ja: bool) -> Option<String> {
    if grades.is_empty() {
        return None;
    }
    let n = |g: Grade| grades.iter().filter(|x| **x == g).count();
    let (s, m, w) = (n(Grade::Strong), n(Grade::Moderate), n(Grade::Weak));
    Some(if ja {
        format!("証拠の強さ: 強 {s}（引用が裏付け、別の出典も同じことを述べる）、中 {m}（引用が裏付ける、出典は一つ）、弱 {w}（引用が裏付けない）")
    } else {
        format!(
            "Evidence graded: {s} strong (its quote bears it out and another source says the same), \
             {m} moderate (its quote bears it out; one source), {w} weak (its quote does not bear it out)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u32, source_id: u32, text: &str) -> Evidence {
        Evidence {
            id,
            source_id,
            ..Evidence::unnumbered(text.into(), text.into())
        }
    }

    #[test]
    fn evidence_said_by_two_sources_is_strong_by_one_moderate_unsupported_weak() {
        let evidence = vec![
            item(
                1,
                1,
                "The waggle dance tells nestmates the direction of food.",
            ),
            item(
                2,
                2,
                "The waggle dance tells nestmates the direction of food sources.",
            ),
            item(3, 1, "Queens lay up to two thousand eggs a day."),
            item(4, 3, "Drones do not forage."),
        ];
        let claim = |id: u32, supported: bool| Claim {
            evidence_id: id,
            text: String::new(),
            supported,
        };
        let claims = vec![
            claim(1, true),
            claim(2, true),
            claim(3, true),
            claim(4, false),
        ];
        assert_eq!(
            grades(&evidence, &claims),
            vec![Grade::Strong, Grade::Strong, Grade::Moderate, Grade::Weak]
        );
        let line = summary(&grades(&evidence, &claims), false).unwrap();
        assert!(line.starts_with("Evidence graded: 2 strong"), "{line}");
        assert!(
            line.contains("1 moderate") && line.contains("1 weak"),
            "{line}"
        );
        assert_eq!(summary(&[], false), None);
    }
}
