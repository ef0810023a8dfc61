//! What each sequence of the built-in model samples with and how its answer ends: the sampler
//! chain a request asks for, its grammar checked after the draw, stop strings held back until they
//! cannot be one, and the loop guard. Pure of llama.cpp's context: the batch loop hands each
//! sequence its row of logits.

use std::path::Path;

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use super::{bad, LocalConfig, DRY_BREAKERS, LOOP_PERIODS};
use crate::{ChatRequest, LlmError};

/// How one sequence draws its tokens: the request's sampler chain, and its grammar (when the
/// answer must follow a schema) checked on the drawn token only. Checking a token against a
/// grammar means walking the grammar with its text; doing that for every token of the
/// vocabulary (49,152 for SmolLM2, 262,144 for Gemma 3) on every step cost more than the draw,
/// while the token the model likes best is nearly always one the grammar allows. So, as
/// llama.cpp's own tools do: draw first, and only when the grammar refuses that token, mask the
/// whole vocabulary by the grammar and draw again. With a greedy draw the token is the same as
/// masking first (the best allowed token is the best token whenever the best is allowed); with a
/// random draw it comes from the same distribution (a refused draw is redrawn among the allowed).
pub(super) struct Draw {
    chain: LlamaSampler,
    grammar: Option<LlamaSampler>,
    /// Drawn when nothing is left to draw from (a grammar that allows nothing more).
    end: LlamaToken,
    /// The vocabulary's candidates, kept between steps (Gemma's are 3 MiB).
    candidates: Vec<LlamaTokenData>,
    /// Draws the grammar refused (each drawn again among the tokens it allows).
    pub(super) redrawn: usize,
}

impl Draw {
    /// The draw a request asks for: the grammar of its schema, then the repetition penalties
    /// and DRY, the truncations (top-k, top-p, min-p), the temperature and the draw.
    pub(super) fn new(
        model: &LlamaModel,
        path: &Path,
        config: &LocalConfig,
        request: &ChatRequest,
    ) -> Result<Self, LlmError> {
        let grammar = match &request.schema {
            Some(schema) => {
                let grammar = llama_cpp_2::json_schema_to_grammar(&schema.schema.to_string())
                    .map_err(|e| {
                        LlmError::Config(format!(
                            "the schema `{}` cannot be turned into a grammar: {e}",
                            schema.name
                        ))
                    })?;
                Some(LlamaSampler::grammar(model, &grammar, "root").map_err(|e| bad(path, e))?)
            }
            None => None,
        };
        Ok(Self {
            chain: sampler_chain(model, config, request),
            grammar,
            end: model.vocab().eos(),
            candidates: Vec::new(),
            redrawn: 0,
        })
    }

    /// The next token from a row of logits (one per token of the vocabulary), taken into the
    /// samplers' state (the grammar's position, the penalties' counts).
    pub(super) fn next(&mut self, logits: &[f32]) -> LlamaToken {
        let mut drawn = self.draw(logits, false);
        if let Some(grammar) = &mut self.grammar {
            if !drawn.is_some_and(|token| allows(grammar, token)) {
                self.redrawn += 1;
                drawn = self.draw(logits, true);
            }
        }
        let token = drawn.unwrap_or(self.end);
        if let Some(grammar) = &mut self.grammar {
            grammar.accept(token);
        }
        self.chain.accept(token);
        token
    }

    /// The next token as a chain with the grammar first would draw it (the reference the tests
    /// hold `next` to).
    #[cfg(test)]
    fn next_masked_first(&mut self, logits: &[f32]) -> LlamaToken {
        let token = self.draw(logits, true).unwrap_or(self.end);
        if let Some(grammar) = &mut self.grammar {
            grammar.accept(token);
        }
        self.chain.accept(token);
        token
    }

    /// One pass of the chain over the whole vocabulary, masked by the grammar first when asked.
    fn draw(&mut self, logits: &[f32], masked: bool) -> Option<LlamaToken> {
        let mut data = std::mem::take(&mut self.candidates);
        data.clear();
        data.extend(
            (0_i32..)
                .zip(logits)
                .map(|(id, &logit)| LlamaTokenData::new(LlamaToken(id), logit, 0.0)),
        );
        let mut candidates = LlamaTokenDataArray::new(data, false);
        if masked {
            if let Some(grammar) = &mut self.grammar {
                grammar.apply(&mut candidates);
            }
        }
        self.chain.apply(&mut candidates);
        // A draw among candidates all masked out is no draw.
        let token = candidates
            .selected
            .and_then(|at| candidates.data.get(at))
            .filter(|c| c.logit() > f32::NEG_INFINITY)
            .map(|c| c.id());
        self.candidates = candidates.data;
        token
    }
}

/// Whether the grammar, where it stands, allows `token` next.
fn allows(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 0.0, 0.0)], false);
    grammar.apply(&mut one);
    one.data
        .first()
        .is_some_and(|c| c.logit() > f32::NEG_INFINITY)
}

/// The request's sampler chain without its grammar: the repetition penalties and DRY, the
/// truncations, the temperature and the draw.
fn sampler_chain(model: &LlamaModel, config: &LocalConfig, request: &ChatRequest) -> LlamaSampler {
    let mut samplers = Vec::new();
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
    LlamaSampler::chain_simple(samplers)
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

    /// On a real model's logits (RS_TEST_MODEL; required in CI), a greedy draw checked by the
    /// grammar afterwards is, token for token, the draw of a chain masked by the grammar first,
    /// with the default penalties and DRY in the chain and the grammar refusing some draws.
    #[test]
    fn a_greedy_draw_checked_after_is_the_draw_masked_first() {
        use llama_cpp_2::context::params::LlamaContextParams;
        use llama_cpp_2::llama_batch::LlamaBatch;
        let Some(path) = std::env::var_os("RS_TEST_MODEL")
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_file())
        else {
            assert!(
                std::env::var_os("CI").is_none(),
                "RS_TEST_MODEL does not name the test model (scripts/fetch-model.sh)"
            );
            eprintln!("skipped: set RS_TEST_MODEL to a GGUF file");
            return;
        };
        let backend = super::super::backend().unwrap();
        let model = LlamaModel::load_from_file(backend, &path, &Default::default()).unwrap();
        let mut request = ChatRequest::new(vec![crate::Message::user("What do bees eat?")]);
        request.temperature = Some(0.0);
        request.schema = Some(crate::OutputSchema {
            name: "facts".into(),
            schema: serde_json::json!({"type": "object", "required": ["facts"], "properties": {
                "facts": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 80}}}}),
        });
        let config = LocalConfig::default();
        let mut after = Draw::new(&model, &path, &config, &request).unwrap();
        let mut first = Draw::new(&model, &path, &config, &request).unwrap();
        let params = LlamaContextParams::default()
            .with_n_ctx(std::num::NonZeroU32::new(1024))
            .with_n_threads(2)
            .with_n_threads_batch(2);
        let mut ctx = model.new_context(backend, params).unwrap();
        // Prose first, as a small model likes to answer: the grammar must refuse it.
        let prompt =
            model
                .vocab()
                .tokenize(b"Question: What do bees eat?\nAnswer: Bees", true, false);
        let mut batch = LlamaBatch::new(512, 1);
        batch.add_sequence(&prompt, 0, false).unwrap();
        let mut answer = Vec::new();
        for pos in (prompt.len() as i32..).take(120) {
            ctx.decode(&mut batch).unwrap();
            let logits = ctx.get_logits_ith(batch.n_tokens() - 1);
            let token = after.next(logits);
            assert_eq!(token, first.next_masked_first(logits), "after {answer:?}");
            if model.vocab().is_eog(token) {
                break;
            }
            answer.push(token);
            batch.clear();
            batch.add(token, pos, &[0], true).unwrap();
        }
        eprintln!("{} tokens, {} redrawn", answer.len(), after.redrawn);
        assert!(
            after.redrawn > 0,
            "the grammar never refused a draw: the test proves nothing"
        );
        assert!(answer.len() > 5, "{answer:?}");
    }

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
