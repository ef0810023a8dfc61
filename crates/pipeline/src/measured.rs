//! What the built-in models were measured to do in research runs, and the work a step then
//! does not ask of them. Measured on `scripts/quality.py`'s ten questions over the Valgrind
//! manual (BENCHMARKS.md, "A tiny model's quick run, asked only for what it gives"); greedy
//! runs repeat token for token, so a run repeated by a later build counts once. A model not
//! measured here is asked for everything: the steps are written for larger models. What a
//! model's second opinion is worth against people is measured apart
//! ([`research_check::opinion`]), since `research check` asks it too.

/// One model's measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// A part of the model's name (matched as [`research_check::opinion::names`] does).
    pub model: &'static str,
    /// Facts kept from its extraction, where it was asked to restate each in its own words.
    pub facts: usize,
    /// Of those, how many were the quote's own words.
    pub own_words: usize,
    /// Drafts it wrote of a report.
    pub drafts: usize,
    /// Of those, how many the audit refused (the report gave the passages instead).
    pub refused: usize,
}

impl Measured {
    /// Whether its facts were its quotes' words at least 95 times in a hundred: asked to
    /// restate, it generates the sentence again, token by token under the grammar, for nothing
    /// a reader sees. It is asked for sentence numbers alone, and its fact is the quote.
    pub fn only_copies(&self) -> bool {
        self.facts > 0 && self.own_words * 100 >= self.facts * 95
    }

    /// Whether the audit refused its drafts at least 9 times in 10: the report is then the
    /// passages, and the draft only cost its time (and, when one got through, it was the
    /// junk that just passed the bar).
    pub fn drafts_refused(&self) -> bool {
        self.drafts > 0 && self.refused * 10 >= self.drafts * 9
    }

    /// Why it was not asked to write the report, in words.
    pub fn why_not_writing(&self) -> String {
        format!(
            "the checks refused {} of {} summaries this model wrote on ten test questions, so it was not asked for one",
            self.refused, self.drafts
        )
    }
}

/// The models measured so far (2026-11-27): SmolLM2's facts on d06c973's runs, its drafts on
/// those of d713faa, d06c973 and the sentence-number extraction; Gemma's on those of 961b37b
/// and d06c973.
pub const MEASURED: &[Measured] = &[
    Measured {
        model: "SmolLM2-135M",
        facts: 107,
        own_words: 106,
        drafts: 30,
        refused: 29,
    },
    Measured {
        model: "gemma-3-270m",
        facts: 113,
        own_words: 113,
        drafts: 20,
        refused: 20,
    },
];

/// The measurement of the model a run's configuration gives `role`, if it was measured.
pub(crate) fn of_role(
    config: &crate::config::RunConfig,
    role: crate::roles::Role,
) -> Option<&'static Measured> {
    measured(role.model(&config.models))
}

/// The measurement of the model `spec` names (a model string such as
/// `local:/models/SmolLM2-135M-Instruct.Q4_1.gguf`), if it was measured.
pub fn measured(spec: &str) -> Option<&'static Measured> {
    MEASURED
        .iter()
        .find(|m| research_check::opinion::names(spec, m.model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_models_are_found_and_other_models_are_asked_for_everything() {
        for spec in [
            "local:/m/SmolLM2-135M-Instruct.Q4_1.gguf",
            "local:/m/gemma-3-270m-q4_k_m.gguf",
        ] {
            let m = measured(spec).unwrap();
            assert!(m.only_copies() && m.drafts_refused(), "{m:?}");
        }
        assert!(measured("openai:gpt-4o-mini").is_none());
        // A model that restates one fact in ten, or writes one draft in five that passes, is
        // still asked.
        let some = Measured {
            model: "m",
            facts: 100,
            own_words: 90,
            drafts: 10,
            refused: 8,
        };
        assert!(!some.only_copies() && !some.drafts_refused());
        // What was not measured is not held against it.
        let unmeasured = Measured {
            facts: 0,
            own_words: 0,
            drafts: 0,
            refused: 0,
            ..some
        };
        assert!(!unmeasured.only_copies() && !unmeasured.drafts_refused());
        assert!(measured("local:/m/SmolLM2-135M-Instruct.Q4_1.gguf")
            .unwrap()
            .why_not_writing()
            .contains("refused 29 of 30 summaries"));
    }
}
