//! What a model's second opinion was measured to be worth against people's judgements
//! (`scripts/attribution-bench.py --llm`, BENCHMARKS.md): a model may lower the checker's
//! `verified` only where its "no" was measured to be right more often than wrong. Models not
//! measured here are asked (a larger model is what the second opinion is for); a model measured
//! to be wrong is not, and the audit says why. Which models were measured is data
//! (`opinions.json`), not code.

/// One model's measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// A part of the model's name that identifies it in a model string (matched case-blind).
    pub model: String,
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

/// The models measured so far (`opinions.json`: held-out AttributionBench rows, BENCHMARKS.md).
pub fn all() -> &'static [Measured] {
    static ALL: std::sync::OnceLock<Vec<Measured>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let shipped: serde_json::Value =
            serde_json::from_str(include_str!("opinions.json")).expect("opinions.json reads");
        let count = |m: &serde_json::Value, k: &str| m[k].as_u64().unwrap_or(0) as usize;
        shipped["models"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| Measured {
                model: m["model"].as_str().unwrap_or_default().to_string(),
                asked: count(m, "asked"),
                answered: count(m, "answered"),
                lowered: count(m, "lowered"),
                lowered_right: count(m, "lowered_right"),
            })
            .filter(|m| !m.model.is_empty())
            .collect()
    })
}

/// The measurement of the model `spec` names (a model string such as
/// `local:/models/SmolLM2-135M-Instruct.Q4_1.gguf`), if it was measured.
pub fn measured(spec: &str) -> Option<&'static Measured> {
    all().iter().find(|m| names(spec, &m.model))
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
        assert_eq!(all().len(), 2, "opinions.json reads");
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
