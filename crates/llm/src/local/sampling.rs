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

/// How one sequence draws its tokens: the request's penalties (repetition, DRY), its pick
/// (truncations, temperature, the draw) and its grammar (when the answer must follow a schema).
///
/// Two shortcuts keep a step's sampling from costing a pass over the whole vocabulary (49,152
/// tokens for SmolLM2, 262,144 for Gemma 3) per sampler, each held by the tests below to draw
/// the token a pass over the whole vocabulary draws:
/// - **The grammar checks the drawn token.** Walking the grammar with every token's text cost
///   more than the draw, while the token the model likes best is nearly always one the grammar
///   allows. So, as llama.cpp's own tools do: draw first, and only when the grammar refuses that
///   token, mask the whole vocabulary by it and draw again. A greedy draw gets the token masking
///   first would; a random one draws from nearly the same distribution (a refused draw is
///   redrawn among the allowed, though top-p and min-p first cut the whole vocabulary's).
/// - **The pick sees a shortlist.** A greedy pick chooses among the best one, a top-k pick among
///   the best k, and the penalties only ever lower a logit; so the pick is made among the best
///   k + [`SPARE`] raw logits whenever at least k of them are, after the penalties, still above
///   every logit left out — the same k as over the whole vocabulary, met in the same order. When
///   that does not hold (many of the best were just said), the pass is made over all of them.
pub(super) struct Draw {
    /// The repetition penalties and DRY, when the request has any.
    penalties: Option<LlamaSampler>,
    /// The truncations, the temperature and the draw.
    pick: LlamaSampler,
    grammar: Option<LlamaSampler>,
    /// How many of the best tokens the pick can choose among (1 greedy, k with top-k), when the
    /// penalties only lower logits; `None` when a draw may take any token.
    among: Option<usize>,
    /// Drawn when nothing is left to draw from (a grammar that allows nothing more).
    end: LlamaToken,
    /// The vocabulary's candidates, kept between steps (Gemma's are 3 MiB).
    candidates: Vec<LlamaTokenData>,
    /// Draws the grammar refused (each drawn again among the tokens it allows).
    pub(super) redrawn: usize,
    /// Draws that needed the whole vocabulary (the shortlist could not decide).
    pub(super) full: usize,
}

/// Candidates shortlisted beyond the pick's own: room for the penalties to lower some of the
/// best without the draw needing the whole vocabulary.
const SPARE: usize = 64;

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
        let (penalties, lowering) = penalties(model, config, request);
        let (pick, among) = pick(config, request);
        Ok(Self {
            penalties,
            pick,
            grammar,
            among: among.filter(|_| lowering),
            end: model.vocab().eos(),
            candidates: Vec::new(),
            redrawn: 0,
            full: 0,
        })
    }

    /// The next token from a row of logits (one per token of the vocabulary), taken into the
    /// samplers' state (the grammar's position, the penalties' counts).
    pub(super) fn next(&mut self, logits: &[f32]) -> LlamaToken {
        let mut drawn = match self.shortlisted(logits) {
            Some(drawn) => drawn,
            None => self.draw(logits, false),
        };
        if let Some(grammar) = &mut self.grammar {
            if !drawn.is_some_and(|token| allows(grammar, token)) {
                self.redrawn += 1;
                drawn = self.draw(logits, true);
            }
        }
        self.accept(drawn)
    }

    /// Takes the drawn token into every sampler's state; nothing drawn ends the answer.
    fn accept(&mut self, drawn: Option<LlamaToken>) -> LlamaToken {
        let token = drawn.unwrap_or(self.end);
        // A grammar that allowed nothing would abort llama.cpp if told of an end it does not
        // allow; the answer ends here anyway.
        if let (Some(grammar), Some(_)) = (&mut self.grammar, drawn) {
            grammar.accept(token);
        }
        if let Some(penalties) = &mut self.penalties {
            penalties.accept(token);
        }
        self.pick.accept(token);
        token
    }

    /// The next token as a chain with the grammar first, over the whole vocabulary, would draw
    /// it (the reference the tests hold `next` to).
    #[cfg(test)]
    fn next_masked_first(&mut self, logits: &[f32]) -> LlamaToken {
        let drawn = self.draw(logits, true);
        self.accept(drawn)
    }

    /// The pick among the best raw logits, when that is certainly the pick among all (see
    /// [`Draw`]); `None` when it is not (or the pick may take any token). `Some(None)`: nothing
    /// could be drawn.
    fn shortlisted(&mut self, logits: &[f32]) -> Option<Option<LlamaToken>> {
        let among = self.among?;
        let (best, left_out) = best(logits, among + SPARE)?;
        let mut data = std::mem::take(&mut self.candidates);
        data.clear();
        data.extend(best);
        let mut candidates = LlamaTokenDataArray::new(data, false);
        if let Some(penalties) = &mut self.penalties {
            penalties.apply(&mut candidates);
        }
        let above = candidates
            .data
            .iter()
            .filter(|c| c.logit() > left_out)
            .count();
        let drawn = (above >= among).then(|| {
            self.pick.apply(&mut candidates);
            selected(&candidates)
        });
        self.candidates = candidates.data;
        if drawn.is_none() {
            self.full += 1;
        }
        drawn
    }

    /// One pass over the whole vocabulary, masked by the grammar first when asked.
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
        if let Some(penalties) = &mut self.penalties {
            penalties.apply(&mut candidates);
        }
        self.pick.apply(&mut candidates);
        let token = selected(&candidates);
        self.candidates = candidates.data;
        token
    }
}

/// The token a pick selected; none when every candidate was masked out.
fn selected(candidates: &LlamaTokenDataArray) -> Option<LlamaToken> {
    candidates
        .selected
        .and_then(|at| candidates.data.get(at))
        .filter(|c| c.logit() > f32::NEG_INFINITY)
        .map(|c| c.id())
}

/// A logit ranked by value (ties: the lower token first, as a pass over the vocabulary meets
/// them).
struct Ranked(f32, i32);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

/// The `size` best of `logits` as candidates, and the best logit left out; `None` when nothing
/// would be left out.
fn best(logits: &[f32], size: usize) -> Option<(Vec<LlamaTokenData>, f32)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if logits.len() <= size {
        return None;
    }
    // The size + 1 best, worst on top: a logit enters only when it beats that worst one.
    let mut heap = BinaryHeap::with_capacity(size + 1);
    for (id, &logit) in (0_i32..).zip(logits) {
        if heap.len() <= size {
            heap.push(Reverse(Ranked(logit, id)));
        } else if let Some(mut worst) = heap.peek_mut() {
            if Ranked(logit, id) > worst.0 {
                *worst = Reverse(Ranked(logit, id));
            }
        }
    }
    let Reverse(Ranked(left_out, _)) = heap.pop()?;
    // In the vocabulary's order, as a pass over it meets them: among equal logits a greedy
    // pick takes the first.
    let mut best: Vec<LlamaTokenData> = heap
        .into_iter()
        .map(|Reverse(Ranked(logit, id))| LlamaTokenData::new(LlamaToken(id), logit, 0.0))
        .collect();
    best.sort_unstable_by_key(|c| c.id().0);
    Some((best, left_out))
}

/// Whether the grammar, where it stands, allows `token` next.
fn allows(grammar: &mut LlamaSampler, token: LlamaToken) -> bool {
    let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 0.0, 0.0)], false);
    grammar.apply(&mut one);
    one.data
        .first()
        .is_some_and(|c| c.logit() > f32::NEG_INFINITY)
}

/// The request's repetition penalties and DRY (`None` when it has neither), and whether they
/// only ever lower a logit (a repeat penalty under 1 or a negative frequency or presence
/// penalty raises some).
fn penalties(
    model: &LlamaModel,
    config: &LocalConfig,
    request: &ChatRequest,
) -> (Option<LlamaSampler>, bool) {
    let mut samplers = Vec::new();
    // llama.cpp wants a positive penalty; a request's nonsense value falls back to the default.
    let repeat = request
        .repeat_penalty
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(config.repeat_penalty);
    let mut lowering = true;
    if config.repeat_last_n > 0
        && (repeat != 1.0 || config.frequency_penalty != 0.0 || config.presence_penalty != 0.0)
    {
        lowering =
            repeat >= 1.0 && config.frequency_penalty >= 0.0 && config.presence_penalty >= 0.0;
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
    let penalties = (!samplers.is_empty()).then(|| LlamaSampler::chain_simple(samplers));
    (penalties, lowering)
}

/// The request's truncations, temperature and draw, and how many of the best tokens it can
/// choose among (`None`: any).
fn pick(config: &LocalConfig, request: &ChatRequest) -> (LlamaSampler, Option<usize>) {
    let mut samplers = Vec::new();
    let temperature = request.temperature.unwrap_or(config.temperature);
    // The truncations never drop the most likely token: a greedy draw skips them (sorting
    // Gemma's 262,144 logits for top-p on every token costs more than the draw).
    if temperature <= 0.0 {
        return (LlamaSampler::greedy(), Some(1));
    }
    let among = (config.top_k > 0).then_some(config.top_k as usize);
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
    samplers.push(LlamaSampler::temp(temperature));
    samplers.push(LlamaSampler::dist(config.seed));
    (LlamaSampler::chain_simple(samplers), among)
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

    /// On real models' logits (SmolLM2's 49,152 tokens and Gemma 3's 262,144: RS_TEST_MODEL
    /// and RS_TEST_MODEL_GEMMA, both required in CI), a draw with both shortcuts is, token for
    /// token, the draw over the whole vocabulary: greedy with a grammar masking first (the
    /// grammar refusing some draws), and sampled at a pipeline's temperature (one seed for both),
    /// the default penalties and DRY in the chain each time.
    #[test]
    fn a_draw_with_its_shortcuts_is_the_draw_over_the_whole_vocabulary() {
        for variable in ["RS_TEST_MODEL", "RS_TEST_MODEL_GEMMA"] {
            match std::env::var_os(variable)
                .map(std::path::PathBuf::from)
                .filter(|p| p.is_file())
            {
                Some(path) => {
                    let model = LlamaModel::load_from_file(
                        super::super::backend().unwrap(),
                        &path,
                        &Default::default(),
                    )
                    .unwrap();
                    let config = LocalConfig::default();
                    let greedy = draws_alike(&model, &path, &config, 0.0, true);
                    assert!(
                        greedy.redrawn > 0,
                        "the grammar never refused a draw: the test proves nothing"
                    );
                    let sampled = draws_alike(&model, &path, &config, 0.2, false);
                    assert!(
                        sampled.full < 10,
                        "{} of 120 draws needed it all",
                        sampled.full
                    );
                }
                None => {
                    assert!(
                        std::env::var_os("CI").is_none(),
                        "{variable} does not name a test model (scripts/fetch-model.sh)"
                    );
                    eprintln!("skipped: set {variable} to a GGUF file");
                }
            }
        }
    }

    /// When the penalties push the best below the best left out of the shortlist, the draw
    /// takes the whole vocabulary, and draws what a pass over it draws.
    #[test]
    fn a_shortlist_that_cannot_decide_gives_way_to_the_whole_vocabulary() {
        let config = LocalConfig {
            repeat_penalty: 8.0,
            dry_multiplier: 0.0,
            ..LocalConfig::default()
        };
        let mut request = ChatRequest::new(Vec::new());
        request.temperature = Some(0.2);
        let draw = || {
            let (pick, among) = pick(&config, &request);
            Draw {
                penalties: Some(LlamaSampler::penalties(5000, 128, 8.0, 0.0, 0.0)),
                pick,
                grammar: None,
                among,
                end: LlamaToken(0),
                candidates: Vec::new(),
                redrawn: 0,
                full: 0,
            }
        };
        let (mut shortcut, mut whole) = (draw(), draw());
        assert_eq!(shortcut.among, Some(40));
        // The 100 best tokens were just said: only 4 of the 104 shortlisted stay above the
        // 105th, fewer than the 40 a top-k pick chooses among.
        for token in 0..100 {
            shortcut.accept(Some(LlamaToken(token)));
            whole.accept(Some(LlamaToken(token)));
        }
        let logits: Vec<f32> = (0..5000).map(|i| 10.0 - i as f32 * 0.001).collect();
        for _ in 0..20 {
            let expected = whole.draw(&logits, false);
            let token = shortcut.next(&logits);
            assert_eq!(Some(token), expected);
            whole.accept(expected);
        }
        assert_eq!(shortcut.full, 20);
        // Without the penalties' reach, the shortlist decides, and draws the same.
        let (mut shortcut, mut whole) = (draw(), draw());
        for _ in 0..20 {
            let expected = whole.draw(&logits, false);
            assert_eq!(Some(shortcut.next(&logits)), expected);
            whole.accept(expected);
        }
        assert_eq!(shortcut.full, 0);
    }

    /// Up to 120 tokens after a prompt that starts an answer in prose, drawn by `next` and by
    /// the reference over the whole vocabulary (masked by the grammar first, when there is
    /// one); they must agree at every step. Returns the draw with the shortcuts.
    fn draws_alike(
        model: &LlamaModel,
        path: &Path,
        config: &LocalConfig,
        temperature: f32,
        grammar: bool,
    ) -> Draw {
        use llama_cpp_2::context::params::LlamaContextParams;
        use llama_cpp_2::llama_batch::LlamaBatch;
        let backend = super::super::backend().unwrap();
        let mut request = ChatRequest::new(vec![crate::Message::user("What do bees eat?")]);
        request.temperature = Some(temperature);
        request.schema = grammar.then(|| crate::OutputSchema {
            name: "facts".into(),
            schema: serde_json::json!({"type": "object", "required": ["facts"], "properties": {
                "facts": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 80}}}}),
        });
        let mut shortcut = Draw::new(model, path, config, &request).unwrap();
        let mut whole = Draw::new(model, path, config, &request).unwrap();
        let params = LlamaContextParams::default()
            .with_n_ctx(std::num::NonZeroU32::new(1024))
            .with_n_threads(2)
            .with_n_threads_batch(2);
        let mut ctx = model.new_context(backend, params).unwrap();
        // Prose first, as a small model likes to answer: a grammar must refuse it.
        let prompt = model.vocab().tokenize(
            b"Question: What do bees eat? Answer at length.\nAnswer: Bees",
            true,
            false,
        );
        let mut batch = LlamaBatch::new(512, 1);
        batch.add_sequence(&prompt, 0, false).unwrap();
        let mut answer = Vec::new();
        for pos in (prompt.len() as i32..).take(120) {
            ctx.decode(&mut batch).unwrap();
            let logits = ctx.get_logits_ith(batch.n_tokens() - 1);
            let token = shortcut.next(logits);
            assert_eq!(
                token,
                whole.next_masked_first(logits),
                "{} at temperature {temperature}, penalty {}, after {answer:?}",
                path.display(),
                config.repeat_penalty
            );
            if model.vocab().is_eog(token) {
                break;
            }
            answer.push(token);
            batch.clear();
            batch.add(token, pos, &[0], true).unwrap();
        }
        eprintln!(
            "{} at temperature {temperature}, penalty {}: {} tokens, {} redrawn, {} over the whole vocabulary",
            path.display(),
            config.repeat_penalty,
            answer.len(),
            shortcut.redrawn,
            shortcut.full
        );
        assert!(answer.len() > 5, "{answer:?}");
        shortcut
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
