//! What each model did in the person's runs: recorded when a run is saved, added to the
//! built-in measurements whenever a run is started, resumed or estimated — so the rules that
//! decide what a model is asked for (`research_pipeline::measured`) decide for a person's own
//! model from what it did — and shown per model in Settings.

use std::collections::BTreeMap;

use research_pipeline::measured::{key, Measured, Measurements};
use research_pipeline::ModelWork;
use research_store::{ModelCounts, ModelRunRow, ModelTotals, SessionStore};
use serde::{Deserialize, Serialize};

use crate::{ApiError, Studio};

/// One model as Settings shows it: what it did, and what that decides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelMeasurement {
    /// The model (a part of its name for a built-in one, else as the person's runs name it).
    pub model: String,
    /// What the rules read: the built-in measurement, if any, with the person's runs added.
    pub measured: Measured,
    /// Whether a built-in measurement is part of it.
    pub builtin: bool,
    /// The person's runs it took part in.
    #[ts(type = "number")]
    pub your_runs: u64,
    /// Tokens it generated a second in the person's runs (calls' time, prompt reading included).
    pub tokens_per_second: Option<f64>,
    /// What the rules decide for it, in words (empty: asked for everything).
    pub decisions: Vec<String>,
}

impl Studio {
    /// The measurements a run decides by: the built-in ones with the person's runs added. A
    /// store that cannot say leaves the built-in ones (and the log says why).
    pub(crate) fn measurements(&self) -> Measurements {
        match self.sessions().model_totals() {
            Ok(totals) => Measurements::builtin().with_runs(totals.iter().map(measured)),
            Err(e) => {
                tracing::warn!("what the models did in earlier runs could not be read: {e}");
                Measurements::builtin()
            }
        }
    }

    /// Every measured model, built-in or measured in the person's runs, for Settings.
    pub fn model_measurements(&self) -> Result<Vec<ModelMeasurement>, ApiError> {
        let totals = self.sessions().model_totals()?;
        let all = Measurements::builtin().with_runs(totals.iter().map(measured));
        Ok(all
            .all()
            .iter()
            .map(|m| {
                // The person's rows that went into this model (a built-in model under any of its
                // file names).
                let theirs: Vec<&ModelTotals> = totals
                    .iter()
                    .filter(|t| all.of(&t.model).is_some_and(|o| o.model == m.model))
                    .collect();
                let tokens: u64 = theirs.iter().map(|t| t.counts.completion_tokens).sum();
                let ms: u64 = theirs.iter().map(|t| t.counts.call_ms).sum();
                ModelMeasurement {
                    model: m.model.clone(),
                    builtin: all.is_builtin(&m.model),
                    your_runs: theirs.iter().map(|t| t.runs).sum(),
                    tokens_per_second: (ms > 0 && tokens > 0)
                        .then(|| tokens as f64 * 1000.0 / ms as f64),
                    decisions: m.decisions(),
                    measured: m.clone(),
                }
            })
            .collect())
    }

    /// Records what each model did in run `thread`, from its events (the steps' counts) and its
    /// calls (tokens and time). A scripted model is a test's stand-in, not a model: not measured.
    pub(crate) fn record_model_work(
        &self,
        sessions: &dyn SessionStore,
        thread: &str,
    ) -> Result<(), ApiError> {
        let mut by_model: BTreeMap<String, ModelCounts> = BTreeMap::new();
        for (_, kind, payload) in sessions.events(thread)? {
            let progress = &payload["payload"];
            if kind != "custom" || progress["type"] != "model_work" {
                continue;
            }
            let (Some(model), Ok(work)) = (
                progress["model"].as_str(),
                serde_json::from_value::<ModelWork>(progress["work"].clone()),
            ) else {
                continue;
            };
            by_model
                .entry(model.to_string())
                .or_default()
                .add(&ModelCounts {
                    facts: work.facts,
                    own_words: work.own_words,
                    drafts: work.drafts,
                    refused: work.refused,
                    verdicts_asked: work.verdicts_asked,
                    verdicts_given: work.verdicts_given,
                    ..Default::default()
                });
        }
        for call in sessions.calls(thread)? {
            let Ok(call) = serde_json::from_value::<research_llm::CallRecord>(call) else {
                continue;
            };
            if call.failed {
                continue;
            }
            let c = by_model.entry(call.model).or_default();
            c.completion_tokens += call.completion_tokens;
            c.call_ms += call.latency_ms;
        }
        // One row a model as its runs name it (a local model by its file name).
        let mut rows: BTreeMap<String, ModelCounts> = BTreeMap::new();
        for (spec, c) in by_model {
            if matches!(
                spec.parse::<research_llm::ModelSpec>(),
                Ok(research_llm::ModelSpec::Scripted { .. })
            ) {
                continue;
            }
            rows.entry(key(&spec)).or_default().add(&c);
        }
        let rows: Vec<ModelRunRow> = rows
            .into_iter()
            .map(|(model, counts)| ModelRunRow { model, counts })
            .collect();
        sessions.record_models(thread, self.clock.now_ms(), &rows)?;
        Ok(())
    }
}

/// A store's totals as the rules read them.
fn measured(t: &ModelTotals) -> Measured {
    let c = &t.counts;
    Measured {
        model: t.model.clone(),
        runs: t.runs,
        work: ModelWork {
            facts: c.facts,
            own_words: c.own_words,
            drafts: c.drafts,
            refused: c.refused,
            verdicts_asked: c.verdicts_asked,
            verdicts_given: c.verdicts_given,
        },
    }
}
