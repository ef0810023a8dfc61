//! What each model was measured to do in research runs, and the work a step then does not ask
//! of it. Two sources feed one rule: the built-in models' measurements (`measured.json`, from
//! `scripts/quality.py`'s questions — BENCHMARKS.md, "A tiny model's quick run, asked only for
//! what it gives") and what the person's own runs recorded ([`crate::records::ModelWork`],
//! summed per model by the api from its store). A model with too little of either is asked for
//! everything: the steps are written for larger models, and a model no one measured — a
//! person's own GGUF, a model on their server — is judged only once their runs have shown
//! enough. No model is named in code; which model a measurement is of is data.
//!
//! What a model's "no" is worth against people is measured apart
//! ([`research_check::opinion`]), since `research check` asks it too; whether it gives a usable
//! verdict at all is the person's runs' to show ([`Measured::verdicts_unusable`]).

use crate::records::ModelWork;
use serde::{Deserialize, Serialize};

/// Facts a model must have restated before its copying decides anything.
pub const ENOUGH_FACTS: u64 = 30;
/// Drafts a model must have written before their refusals decide anything.
pub const ENOUGH_DRAFTS: u64 = 5;
/// Claims a model must have been asked about before its silence decides anything.
pub const ENOUGH_VERDICTS: u64 = 40;

/// One model's measurement: what it did over a number of runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Measured {
    /// The model: a part of its name that identifies it in a model string (matched as
    /// [`research_check::opinion::names`] does), as [`key`] gives it for a person's model.
    pub model: String,
    /// Runs the measurement is over.
    #[ts(type = "number")]
    pub runs: u64,
    /// What it did in them.
    pub work: ModelWork,
}

impl Measured {
    /// Whether its facts were its quotes' words at least 95 times in a hundred, over
    /// [`ENOUGH_FACTS`]: asked to restate, it generates the sentence again, token by token under
    /// the grammar, for nothing a reader sees. It is asked for sentence numbers alone, and its
    /// fact is the quote.
    pub fn only_copies(&self) -> bool {
        let w = &self.work;
        w.facts >= ENOUGH_FACTS && w.own_words * 100 >= w.facts * 95
    }

    /// Whether the audit refused its drafts at least 9 times in 10, over [`ENOUGH_DRAFTS`]: the
    /// report is then the passages, and the draft only cost its time (and, when one got through,
    /// it was the junk that just passed the bar).
    pub fn drafts_refused(&self) -> bool {
        let w = &self.work;
        w.drafts >= ENOUGH_DRAFTS && w.refused * 10 >= w.drafts * 9
    }

    /// Whether it gave a verdict on fewer than one in four of the claims it was asked about,
    /// over [`ENOUGH_VERDICTS`]: asking it costs a call for what it does not answer.
    pub fn verdicts_unusable(&self) -> bool {
        let w = &self.work;
        w.verdicts_asked >= ENOUGH_VERDICTS && w.verdicts_given * 4 < w.verdicts_asked
    }

    /// Why it was not asked to write the report, in words.
    pub fn why_not_writing(&self) -> String {
        format!(
            "the checks refused {} of {} summaries this model wrote in {} runs, so it was not asked for one",
            self.work.refused, self.work.drafts, self.runs
        )
    }

    /// Why its verdicts are not asked for, in words.
    pub fn why_no_verdicts(&self) -> String {
        format!(
            "in {} runs it gave a verdict on {} of the {} claims it was asked about",
            self.runs, self.work.verdicts_given, self.work.verdicts_asked
        )
    }

    /// What the rules decide for it, each in words (empty: asked for everything).
    pub fn decisions(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.only_copies() {
            out.push(format!(
                "asked for sentence numbers, not facts in its own words: {} of its {} facts were its quotes' words",
                self.work.own_words, self.work.facts
            ));
        }
        if self.drafts_refused() {
            out.push(format!(
                "not asked to write reports: the checks refused {} of its {} drafts",
                self.work.refused, self.work.drafts
            ));
        }
        if self.verdicts_unusable() {
            out.push(format!(
                "not asked for second opinions: it gave a verdict on {} of {} claims",
                self.work.verdicts_given, self.work.verdicts_asked
            ));
        }
        out
    }
}

/// The measurements a run's steps decide by: the built-in ones, with the person's runs added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measurements {
    /// The built-in ones first (matched by a part of the model's name), then models only the
    /// person's runs measured (matched by [`key`]).
    models: Vec<Measured>,
    /// How many of `models` are built in.
    builtin: usize,
}

impl Default for Measurements {
    /// The built-in measurements alone.
    fn default() -> Self {
        Self::builtin()
    }
}

/// The built-in measurements as shipped.
#[derive(Deserialize)]
struct Shipped {
    models: Vec<Measured>,
}

impl Measurements {
    /// The built-in models' measurements (`measured.json`).
    pub fn builtin() -> Self {
        static BUILTIN: std::sync::OnceLock<Vec<Measured>> = std::sync::OnceLock::new();
        let models = BUILTIN.get_or_init(|| {
            serde_json::from_str::<Shipped>(include_str!("measured.json"))
                .map(|s| s.models)
                .expect("measured.json is checked by a unit test")
        });
        Measurements {
            models: models.clone(),
            builtin: models.len(),
        }
    }

    /// These measurements with `runs` (a person's, per model as [`key`] names it) added: to the
    /// built-in measurement of the same model, or as a model of their own.
    pub fn with_runs(mut self, runs: impl IntoIterator<Item = Measured>) -> Self {
        for run in runs {
            let at = self.find(&run.model, &run.model);
            match at.map(|i| &mut self.models[i]) {
                Some(m) => {
                    m.runs += run.runs;
                    m.work.add(&run.work);
                }
                None => self.models.push(run),
            }
        }
        self
    }

    /// The measurement of the model `spec` names (a model string such as
    /// `local:/models/SmolLM2-135M-Instruct.Q4_1.gguf`), if it has one.
    pub fn of(&self, spec: &str) -> Option<&Measured> {
        self.find(spec, &key(spec)).map(|i| &self.models[i])
    }

    /// Where the model of `spec` (recorded as `key`) is: a built-in one whose name part `spec`
    /// contains, else one measured under the same key.
    fn find(&self, spec: &str, key: &str) -> Option<usize> {
        let (builtin, theirs) = self.models.split_at(self.builtin);
        builtin
            .iter()
            .position(|m| research_check::opinion::names(spec, &m.model))
            .or_else(|| {
                theirs
                    .iter()
                    .position(|m| m.model == key)
                    .map(|i| i + self.builtin)
            })
    }

    /// Every measured model.
    pub fn all(&self) -> &[Measured] {
        &self.models
    }

    /// Whether the measurement of `model` (as [`Measurements::all`] names it) starts from a
    /// built-in one.
    pub fn is_builtin(&self, model: &str) -> bool {
        self.models[..self.builtin].iter().any(|m| m.model == model)
    }
}

/// What a person's runs record a model under: a local model's file name (the same file moved
/// to another folder is the same model), else the whole model string.
pub fn key(spec: &str) -> String {
    match spec.strip_prefix("local:") {
        Some(path) => std::path::Path::new(path)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| spec.to_string()),
        None => spec.to_string(),
    }
}

/// The measurement of the model a run's configuration gives `role`, if it has one.
pub(crate) fn of_role(
    config: &crate::config::RunConfig,
    role: crate::roles::Role,
) -> Option<&Measured> {
    config.measured.of(role.model(&config.models))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(facts: u64, own_words: u64, drafts: u64, refused: u64) -> ModelWork {
        ModelWork {
            facts,
            own_words,
            drafts,
            refused,
            ..Default::default()
        }
    }

    #[test]
    fn the_built_in_models_are_found_and_other_models_are_asked_for_everything() {
        let builtin = Measurements::builtin();
        assert_eq!(builtin.all().len(), 2, "measured.json reads");
        for spec in [
            "local:/m/SmolLM2-135M-Instruct.Q4_1.gguf",
            "local:/m/gemma-3-270m-q4_k_m.gguf",
        ] {
            let m = builtin.of(spec).unwrap();
            assert!(m.only_copies() && m.drafts_refused(), "{m:?}");
        }
        assert!(builtin.of("openai:gpt-4o-mini").is_none());
        assert!(builtin
            .of("local:/m/SmolLM2-135M-Instruct.Q4_1.gguf")
            .unwrap()
            .why_not_writing()
            .contains("refused 29 of 30 summaries"));
    }

    #[test]
    fn a_model_is_judged_only_on_enough_of_what_it_did() {
        let m = |work| Measured {
            model: "m".into(),
            runs: 3,
            work,
        };
        // A model that restates one fact in ten, or writes one draft in five that passes, is
        // still asked.
        let some = m(work(100, 90, 10, 8));
        assert!(!some.only_copies() && !some.drafts_refused());
        assert!(some.decisions().is_empty());
        // Copying every fact, every draft refused — but too little of it to tell.
        let little = m(work(
            ENOUGH_FACTS - 1,
            ENOUGH_FACTS - 1,
            ENOUGH_DRAFTS - 1,
            4,
        ));
        assert!(!little.only_copies() && !little.drafts_refused());
        let enough = m(work(
            ENOUGH_FACTS,
            ENOUGH_FACTS,
            ENOUGH_DRAFTS,
            ENOUGH_DRAFTS,
        ));
        assert!(enough.only_copies() && enough.drafts_refused());
        assert_eq!(enough.decisions().len(), 2);
        // Silence on most claims, once it has been asked enough.
        let quiet = m(ModelWork {
            verdicts_asked: ENOUGH_VERDICTS,
            verdicts_given: ENOUGH_VERDICTS / 4 - 1,
            ..Default::default()
        });
        assert!(quiet.verdicts_unusable());
        assert!(quiet.decisions()[0].contains("9 of 40 claims"));
        let answers = m(ModelWork {
            verdicts_asked: ENOUGH_VERDICTS,
            verdicts_given: ENOUGH_VERDICTS / 4,
            ..Default::default()
        });
        assert!(!answers.verdicts_unusable());
    }

    #[test]
    fn a_persons_runs_add_to_the_built_in_measurement_or_stand_as_their_own() {
        let spec = "ollama:qwen2.5:0.5b";
        let theirs = Measured {
            model: key(spec),
            runs: 6,
            work: work(0, 0, 6, 6),
        };
        let both = Measurements::builtin().with_runs([
            theirs,
            Measured {
                model: key("local:/home/me/SmolLM2-135M-Instruct.Q4_1.gguf"),
                runs: 2,
                work: work(10, 10, 2, 2),
            },
        ]);
        let qwen = both.of(spec).unwrap();
        assert!(qwen.drafts_refused() && !qwen.only_copies());
        let smol = both
            .of("local:/elsewhere/SmolLM2-135M-Instruct.Q4_1.gguf")
            .unwrap();
        assert_eq!(
            (smol.runs, smol.work.facts, smol.work.drafts),
            (32, 117, 32)
        );
        assert_eq!(both.all().len(), 3);
        assert!(both.of("ollama:qwen2.5:7b").is_none());
        // A person's model is its own file, not every name that ends like it.
        let mine = Measurements::builtin().with_runs([Measured {
            model: key("local:/a/model.gguf"),
            runs: 1,
            work: work(1, 1, 1, 1),
        }]);
        assert!(mine.of("local:/b/model.gguf").is_some());
        assert!(mine.of("local:/b/mymodel.gguf").is_none());
        assert_eq!(key("local:/a/b/model.gguf"), "model.gguf");
        assert_eq!(key(spec), spec);
    }
}
