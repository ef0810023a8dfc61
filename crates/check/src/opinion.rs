//! What a model's second opinion was measured to be worth against people's judgements
//! (`scripts/attribution-bench.py --llm`, BENCHMARKS.md): a model may lower the checker's
//! `verified` only where its "no" was measured to be right more often than wrong. Models not
//! measured here are asked (a larger model is what the second opinion is for); a model measured
//! to be wrong is not, and the audit says why.

/// One model's measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// A part of the model's name that identifies it in a model string (matched case-blind).
    pub model: &'static str,
    /// Held-out claims it was asked about.
    pub asked: usize,
    /// Of those, how many it gave a verdict on (a small model often answers with no usable
    /// verdict at all).
    pub answered: usize,
    /// Of the claims the checker verified, how many its "no" lowered.
    pub lowered: usize,
    /// Of those, how many people judged not attributable (the "no" was right).
    pub lowered_right: usize,
}

impl Measured {
    /// Whether its "no" was right more often than wrong (a model that never said no on a
    /// verified claim has not shown it: asking it costs time for nothing measured).
    pub fn lowers_right(&self) -> bool {
        self.lowered_right * 2 > self.lowered
    }

    /// Why it is not asked, in words.
    pub fn why_not(&self) -> String {
        if self.lowered == 0 {
            format!(
                "measured against people, it gave a verdict on {} of {} claims and lowered none",
                self.answered, self.asked
            )
        } else {
            format!(
                "measured against people, its \"no\" was right {} of {} times",
                self.lowered_right, self.lowered
            )
        }
    }
}

/// The models measured so far (2026-11-26, held-out AttributionBench rows: SmolLM2 on 150,
/// Gemma on 120; BENCHMARKS.md).
pub const MEASURED: &[Measured] = &[
    Measured {
        model: "SmolLM2-135M",
        asked: 150,
        answered: 105,
        lowered: 20,
        lowered_right: 0,
    },
    Measured {
        model: "gemma-3-270m",
        asked: 120,
        answered: 10,
        lowered: 0,
        lowered_right: 0,
    },
];

/// The measurement of the model `spec` names (a model string such as
/// `local:/models/SmolLM2-135M-Instruct.Q4_1.gguf`), if it was measured.
pub fn measured(spec: &str) -> Option<&'static Measured> {
    MEASURED.iter().find(|m| names(spec, m.model))
}

/// Whether the model string `spec` names the model `model` (a part of its name, matched
/// case-blind): how every measurement of a model is found for a run's model string.
pub fn names(spec: &str, model: &str) -> bool {
    spec.to_lowercase().contains(&model.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_found_by_its_name_in_any_model_string() {
        let m = measured("local:/home/me/models/SmolLM2-135M-Instruct.Q4_1.gguf").unwrap();
        assert!(
            !m.lowers_right(),
            "its no was wrong on all {} claims it lowered",
            m.lowered
        );
        assert!(measured("ollama:qwen2.5:7b").is_none());
        let gemma = measured("local:/m/gemma-3-270m-q4_k_m.gguf").unwrap();
        assert!(!gemma.lowers_right());
        assert!(gemma
            .why_not()
            .contains("10 of 120 claims and lowered none"));
    }
}
