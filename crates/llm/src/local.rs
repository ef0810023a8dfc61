//! The built-in model: a GGUF file run in-process by llama.cpp, no server needed.
//!
//! Structured output is constrained by a grammar derived from the JSON schema, so the model can
//! only emit JSON of the requested shape (it can still run out of tokens; the caller parses and
//! re-asks as with any model).

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use crate::{ChatRequest, ChatResponse, LlmClient, LlmError, Role, TokenSink, Usage};

/// Settings of the built-in model.
///
/// The sampling defaults were measured on SmolLM2-135M-Instruct (`measure_sampling` and
/// `measure_structured` in `tests/local_model.rs`): without repetition penalties a small model
/// loops one phrase for the whole answer (distinct word 4-grams 0.18 in a 1,500-token report at
/// temperature 0.3); with repetition penalty 1.1 over 128 tokens and DRY 0.8 the same reports
/// score 0.97–1.0, and grammar-constrained JSON still parses. A request's `temperature`, `top_p`
/// and `repeat_penalty` override these.
#[derive(Debug, Clone)]
pub struct LocalConfig {
    /// Context window in tokens (prompt and answer together).
    pub context_tokens: u32,
    /// Answer length when the request sets none.
    pub default_max_tokens: u32,
    /// CPU threads.
    pub threads: i32,
    /// Sampling seed, for repeatable answers.
    pub seed: u32,
    /// Temperature when the request sets none (0 = always the most likely token).
    pub temperature: f32,
    /// Sample only from this many most likely tokens (0 = no limit).
    pub top_k: i32,
    /// Nucleus sampling when the request sets none (1 = off).
    pub top_p: f32,
    /// Drop tokens less likely than this fraction of the most likely one (0 = off).
    pub min_p: f32,
    /// llama.cpp's repetition penalty when the request sets none: logits of tokens among the last
    /// `repeat_last_n` generated are divided by it (1 = off).
    pub repeat_penalty: f32,
    /// How many of the last generated tokens the repetition, frequency and presence penalties
    /// look at (0 = none).
    pub repeat_last_n: i32,
    /// Subtracted from a token's logit once per time it occurs among the last `repeat_last_n`
    /// (0 = off).
    pub frequency_penalty: f32,
    /// Subtracted from a token's logit when it occurs among the last `repeat_last_n` (0 = off).
    pub presence_penalty: f32,
    /// DRY ("don't repeat yourself") penalty: strength of the penalty on a token that would extend
    /// a sequence already seen in the answer (0 = off). It grows as `dry_base` to the power of
    /// how far the repeat runs beyond `dry_allowed_length` tokens.
    pub dry_multiplier: f32,
    /// DRY: base of the exponential penalty.
    pub dry_base: f32,
    /// DRY: repeats of up to this many tokens are not penalised.
    pub dry_allowed_length: i32,
    /// Generation stops when the last tokens are the same cycle of 3–12 tokens this many times
    /// in a row (0 = never): a backstop against loops the penalties did not prevent.
    pub loop_repeats: u32,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            context_tokens: 4096,
            default_max_tokens: 512,
            threads: 2,
            seed: 42,
            temperature: 0.7,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.1,
            repeat_last_n: 128,
            frequency_penalty: 0.0,
            presence_penalty: 0.0,
            dry_multiplier: 0.8,
            dry_base: 1.75,
            dry_allowed_length: 2,
            loop_repeats: 4,
        }
    }
}

/// Shortest and longest cycle (in tokens) the loop guard looks for.
const LOOP_PERIODS: std::ops::RangeInclusive<usize> = 3..=12;

/// DRY's default sequence breakers (llama.cpp's): a repeat does not extend across these.
const DRY_BREAKERS: [&str; 4] = ["\n", ":", "\"", "*"];

/// llama.cpp's backend may be initialised once per process.
fn backend() -> Result<&'static LlamaBackend, LlmError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(
                llama_cpp_2::LogOptions::default().with_logs_enabled(false),
            );
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Config(format!("the built-in model could not start: {e}")))
}

/// A loaded model, used by one request at a time: llama.cpp contexts must not be created
/// concurrently from one model.
type Shared = Arc<Mutex<LlamaModel>>;

/// Loaded models, shared by every client of the same file. The map's lock is held only to find
/// or add a file's slot; the load itself (seconds for a multi-GB file) holds only that file's
/// slot, so runs on other models — or on this one once loaded — are not held up by it.
fn load(path: &Path) -> Result<Shared, LlmError> {
    type Slot = Arc<Mutex<Option<Shared>>>;
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();
    let slot = MODELS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(path.to_path_buf())
        .or_default()
        .clone();
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(model) = slot.as_ref() {
        return Ok(model.clone());
    }
    if !path.is_file() {
        return Err(LlmError::Config(format!(
            "there is no model file at {}",
            path.display()
        )));
    }
    let model = LlamaModel::load_from_file(backend()?, path, &LlamaModelParams::default())
        .map_err(|e| {
            LlmError::Config(format!(
                "{} is not a GGUF model this build can load: {e}",
                path.display()
            ))
        })?;
    let model = Arc::new(Mutex::new(model));
    *slot = Some(model.clone());
    Ok(model)
}

/// A GGUF model run in-process.
pub struct LocalLlm {
    spec: String,
    path: PathBuf,
    config: LocalConfig,
    model: Shared,
}

impl LocalLlm {
    /// Whether a request is using the model right now (it holds the model while it generates).
    pub fn busy(&self) -> bool {
        self.model.try_lock().is_err()
    }

    /// Loads the model at `path` (once per process).
    pub fn open(path: &Path, config: LocalConfig) -> Result<Self, LlmError> {
        let model = load(path)?;
        Ok(Self {
            spec: format!("local:{}", path.display()),
            path: path.to_path_buf(),
            config,
            model,
        })
    }
}

enum Piece {
    Text(String),
    Done(Result<(String, Usage), LlmError>),
}

fn bad(path: &Path, detail: impl std::fmt::Display) -> LlmError {
    LlmError::BadResponse {
        provider: format!("the built-in model ({})", path.display()),
        detail: detail.to_string(),
    }
}

/// The sampler chain of one request: the grammar (when the answer must follow a schema) first,
/// so every later step sees only tokens it allows; then the repetition penalties and DRY, the
/// truncations (top-k, top-p, min-p), the temperature and the draw.
fn sampler_chain(
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
    let temperature = request.temperature.unwrap_or(config.temperature);
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
struct StopScan<'a> {
    stops: Vec<&'a str>,
    held: String,
}

impl<'a> StopScan<'a> {
    fn new(stops: &'a [String]) -> Self {
        Self {
            stops: stops
                .iter()
                .map(String::as_str)
                .filter(|s| !s.is_empty())
                .collect(),
            held: String::new(),
        }
    }

    /// Takes the next decoded piece; returns the text that is certainly part of the answer, and
    /// whether a stop string was reached (the answer then ends before it).
    fn push(&mut self, piece: &str) -> (String, bool) {
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
    fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// Whether the tokens end in the same cycle of 3–12 tokens `repeats` times in a row.
fn loops<T: PartialEq>(tokens: &[T], repeats: usize) -> bool {
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

/// Runs one generation on the calling (blocking) thread, sending pieces as they are decoded.
fn generate_blocking(
    model: &LlamaModel,
    path: &Path,
    config: &LocalConfig,
    request: &ChatRequest,
    send: &dyn Fn(Piece),
    wanted: &dyn Fn() -> bool,
) -> Result<(String, Usage), LlmError> {
    let backend = backend()?;
    let template = model.chat_template(None).or_else(|_| {
        // A GGUF without a template (a base model such as Gemma 3 270M): llama.cpp's built-in
        // one for its family, so the model sees the turn markers it was trained on.
        let family = model
            .meta_val_str("general.architecture")
            .unwrap_or_default();
        let name = if family.starts_with("gemma") {
            "gemma"
        } else {
            "chatml"
        };
        LlamaChatTemplate::new(name).map_err(|e| bad(path, format!("no chat template: {e}")))
    })?;
    let messages = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            LlamaChatMessage::new(role.into(), m.content.clone()).map_err(|e| bad(path, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let prompt = model
        .apply_chat_template(&template, &messages, true)
        .map_err(|e| bad(path, e))?;
    let vocab = model.vocab();
    let tokens = vocab.tokenize(prompt.as_bytes(), false, true);
    let max_tokens = request.max_tokens.unwrap_or(config.default_max_tokens) as usize;
    let n_ctx = config.context_tokens as usize;
    if tokens.len() + max_tokens > n_ctx {
        return Err(LlmError::ContextOverflow {
            provider: "the built-in model".into(),
            message: format!(
                "{} prompt tokens + {max_tokens} answer tokens exceed the {n_ctx}-token context",
                tokens.len()
            ),
        });
    }
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(config.context_tokens))
        .with_n_batch(config.context_tokens)
        .with_n_threads(config.threads)
        .with_n_threads_batch(config.threads);
    let mut ctx = model
        .new_context(backend, params)
        .map_err(|e| bad(path, e))?;
    let mut batch = LlamaBatch::new(n_ctx, 1);
    let last = tokens.len() as i32 - 1;
    for (i, token) in tokens.iter().enumerate() {
        batch
            .add(*token, i as i32, &[0], i as i32 == last)
            .map_err(|e| bad(path, e))?;
    }
    ctx.decode(&mut batch).map_err(|e| bad(path, e))?;

    let mut sampler = sampler_chain(model, path, config, request)?;
    let mut stops = StopScan::new(&request.stop);
    let emit = |piece: String, text: &mut String| {
        if !piece.is_empty() {
            send(Piece::Text(piece.clone()));
            text.push_str(&piece);
        }
    };

    let mut decoder = encoding_rs::UTF_8.new_decoder();
    let mut text = String::new();
    let mut pos = tokens.len() as i32;
    let mut generated = Vec::with_capacity(max_tokens);
    let mut stopped = false;
    while generated.len() < max_tokens {
        if !wanted() {
            // The caller went away (a cancelled run): stop now and give the model back.
            tracing::debug!(tokens = generated.len(), "the answer is no longer wanted");
            break;
        }
        let token = sampler.sample(&ctx, batch.n_tokens() - 1);
        if vocab.is_eog(token) {
            break;
        }
        generated.push(token);
        let bytes = vocab.token_to_piece(token, false, None);
        let mut piece = String::with_capacity(bytes.len() + 4);
        let _ = decoder.decode_to_string(&bytes, &mut piece, false);
        let (ready, hit) = stops.push(&piece);
        emit(ready, &mut text);
        if hit {
            stopped = true;
            break;
        }
        if loops(&generated, config.loop_repeats as usize) {
            tracing::debug!(
                tokens = generated.len(),
                "the built-in model repeats itself; generation stopped"
            );
            break;
        }
        if generated.len() == max_tokens {
            break;
        }
        batch.clear();
        batch
            .add(token, pos, &[0], true)
            .map_err(|e| bad(path, e))?;
        pos += 1;
        ctx.decode(&mut batch).map_err(|e| bad(path, e))?;
    }
    if !stopped {
        emit(stops.finish(), &mut text);
    }
    let generated = generated.len();
    Ok((
        text,
        Usage {
            prompt_tokens: tokens.len() as u64,
            completion_tokens: generated as u64,
        },
    ))
}

#[async_trait]
impl LlmClient for LocalLlm {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn context_tokens(&self) -> Option<usize> {
        Some(self.config.context_tokens as usize)
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Piece>();
        let model = self.model.clone();
        let path = self.path.clone();
        let config = self.config.clone();
        let request = request.clone();
        // Generation is CPU work: keep it off the async threads.
        let worker = tokio::task::spawn_blocking(move || {
            let model = model.lock().unwrap_or_else(|p| p.into_inner());
            let send = |piece: Piece| {
                let _ = tx.send(piece);
            };
            // Dropping `complete`'s future (a cancelled run) closes the channel.
            let wanted = || !tx.is_closed();
            let result = generate_blocking(&model, &path, &config, &request, &send, &wanted);
            send(Piece::Done(result));
        });
        let mut outcome = None;
        while let Some(piece) = rx.recv().await {
            match piece {
                Piece::Text(t) => {
                    if let Some(sink) = on_token {
                        sink(&t);
                    }
                }
                Piece::Done(result) => outcome = Some(result),
            }
        }
        worker
            .await
            .map_err(|e| bad(&self.path, format!("the generation thread failed: {e}")))?;
        let (text, usage) =
            outcome.ok_or_else(|| bad(&self.path, "the generation ended without a result"))??;
        Ok(ChatResponse {
            text,
            model: self.spec.clone(),
            usage,
            latency: started.elapsed().max(Duration::from_nanos(1)),
        })
    }
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
