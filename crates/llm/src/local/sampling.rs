//! What each sequence of the built-in model samples with and how its answer ends: the sampler
//! chain a request asks for, stop strings held back until they cannot be one, and the loop guard.
//! Pure of llama.cpp's context: the batch loop calls them per sequence.

use std::path::Path;

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;

use super::{bad, LocalConfig, DRY_BREAKERS, LOOP_PERIODS};
use crate::{ChatRequest, LlmError};

/// The sampler chain of one request: the grammar (when the answer must follow a schema) first,
/// so every later step sees only tokens it allows; then the repetition penalties and DRY, the
/// truncations (top-k, top-p, min-p), the temperature and the draw.
pub(super) fn sampler_chain(
    model: &LlamaModel,
    path: &Path,
    config: &LocalConfig,
    request: &ChatRequest,
) -> Result<LlamaSampler, LlmError> {
    let mut samplers = Vec::new();
    if let Some(schema) = &request.schema {
        let grammar =
            llama_cpp_2::json_schema_to_grammar(&schema.schema.to_string()).map_err(|e| {
                LlmError::Config(format!(
                    "the schema `{}` cannot be turned into a grammar: {e}",
                    schema.name
                ))
            })?;
        samplers.push(LlamaSampler::grammar(model, &grammar, "root").map_err(|e| bad(path, e))?);
    }
    // llama.cpp wants a positive penalty; a request's nonsense value falls back to the default.
    let repeat = request
        .repeat_penalty
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(config.repeat_penalty);
    if config.repeat_last_n > 0
        && (repeat != 1.0 || config.frequency_penalty != 0.0 || config.presence_penalty != 0.0)
    {
        samplers.push(LlamaSampler::penalties(
            model.n_vocab(),
            config.repeat_last_n,
            repeat,
            config.frequency_penalty,
            config.presence_penalty,
        ));
    }
    if config.dry_multiplier > 0.0 {
        samplers.push(LlamaSampler::dry(
            model,
            config.dry_multiplier,
            config.dry_base,
            config.dry_allowed_length,
            config.context_tokens as i32,
            DRY_BREAKERS,
        ));
    }
    let temperature = request.temperature.unwrap_or(config.temperature);
    // The truncations never drop the most likely token: a greedy draw skips them (sorting
    // Gemma's 262,144 logits for top-p on every token costs more than the draw).
    if temperature > 0.0 {
        if config.top_k > 0 {
            samplers.push(LlamaSampler::top_k(config.top_k));
        }
        let top_p = request.top_p.unwrap_or(config.top_p);
        if top_p > 0.0 && top_p < 1.0 {
            samplers.push(LlamaSampler::top_p(top_p, 1));
        }
        if config.min_p > 0.0 {
            samplers.push(LlamaSampler::min_p(config.min_p, 1));
        }
    }
    if temperature > 0.0 {
        samplers.push(LlamaSampler::temp(temperature));
        samplers.push(LlamaSampler::dist(config.seed));
    } else {
        samplers.push(LlamaSampler::greedy());
    }
    Ok(LlamaSampler::chain_simple(samplers))
}

/// Holds back decoded text that may be the start of a stop string, so that what is streamed is
/// exactly the answer: a stop string is never sent, not even in part.
pub(super) struct StopScan {
    stops: Vec<String>,
    held: String,
}

impl StopScan {
    pub(super) fn new(stops: &[String]) -> Self {
        Self {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
        }
    }

    /// Takes the next decoded piece; returns the text that is certainly part of the answer, and
    /// whether a stop string was reached (the answer then ends before it).
    pub(super) fn push(&mut self, piece: &str) -> (String, bool) {
        self.held.push_str(piece);
        if let Some(at) = self.stops.iter().filter_map(|s| self.held.find(s)).min() {
            self.held.truncate(at);
            return (std::mem::take(&mut self.held), true);
        }
        let keep = self
            .stops
            .iter()
            .map(|stop| {
                (1..stop.len().min(self.held.len() + 1))
                    .rev()
                    .find(|&k| stop.is_char_boundary(k) && self.held.ends_with(&stop[..k]))
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        let rest = self.held.split_off(self.held.len() - keep);
        (std::mem::replace(&mut self.held, rest), false)
    }

    /// The text still held back when generation ended without reaching a stop string.
    pub(super) fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// Whether the tokens end in the same cycle of 3–12 tokens `repeats` times in a row.
pub(super) fn loops<T: PartialEq>(tokens: &[T], repeats: usize) -> bool {
    if repeats < 2 {
        return false;
    }
    LOOP_PERIODS.into_iter().any(|period| {
        let span = period * repeats;
        span <= tokens.len() && {
            let tail = &tokens[tokens.len() - span..];
            (period..span).all(|i| tail[i] == tail[i - period])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(stops: &[&str], pieces: &[&str]) -> (String, bool) {
        let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
        let mut scan = StopScan::new(&stops);
        let mut out = String::new();
        for piece in pieces {
            let (ready, hit) = scan.push(piece);
            out.push_str(&ready);
            if hit {
                return (out, true);
            }
        }
        out.push_str(&scan.finish());
        (out, false)
    }

    #[test]
    fn a_stop_string_ends_the_answer_and_is_not_part_of_it() {
        assert_eq!(
            scan(&["\n\n"], &["one", " two\n", "\nthree"]),
            ("one two".into(), true)
        );
        assert_eq!(
            scan(&["END", "##"], &["a #", "b E", "N", "Dx"]),
            ("a #b ".into(), true)
        );
        assert_eq!(scan(&["STOP"], &["ST", "OP"]), ("".into(), true));
    }

    #[test]
    fn text_that_only_starts_like_a_stop_string_is_kept() {
        assert_eq!(
            scan(&["END"], &["the E", "ND", "ING", " EN"]),
            ("the ".into(), true)
        );
        assert_eq!(
            scan(&["END"], &["the E", "nd", " EN"]),
            ("the End EN".into(), false)
        );
        assert_eq!(scan(&[], &["a", "b"]), ("ab".into(), false));
        assert_eq!(scan(&["", "é!"], &["café", "s"]), ("cafés".into(), false));
    }

    #[test]
    fn a_held_back_prefix_is_released_as_soon_as_it_cannot_be_a_stop() {
        let stops = vec!["</answer>".to_string()];
        let mut scan = StopScan::new(&stops);
        assert_eq!(scan.push("x </an"), ("x ".into(), false));
        assert_eq!(scan.push("d"), ("</and".into(), false));
    }

    #[test]
    fn a_short_cycle_repeated_four_times_is_a_loop() {
        let cycle = [7, 8, 9];
        let mut tokens: Vec<i32> = (0..20).collect();
        for _ in 0..3 {
            tokens.extend(cycle);
        }
        assert!(!loops(&tokens, 4));
        tokens.extend(cycle);
        assert!(loops(&tokens, 4));
        assert!(!loops(&tokens, 0), "0 turns the guard off");
        let long: Vec<i32> = (0..4).flat_map(|_| 100..112).collect();
        assert!(loops(&long, 4), "12-token cycles are caught");
        let longer: Vec<i32> = (0..4).flat_map(|_| 100..113).collect();
        assert!(!loops(&longer, 4), "13-token cycles are not");
        assert!(
            !loops(&[1, 2, 1, 2, 1, 2, 1, 2], 4),
            "2-token cycles are not"
        );
        assert!(!loops(&(0..200).collect::<Vec<i32>>(), 4));
    }
}
