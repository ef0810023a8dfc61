//! The built-in model: a GGUF file run in-process by llama.cpp, no server needed.
//!
//! Structured output is constrained by a grammar derived from the JSON schema, so the model can
//! only emit JSON of the requested shape (it can still run out of tokens; the caller parses and
//! re-asks as with any model). Requests made at once are decoded together, in one batch
//! ([`engine`]); how each samples and ends is [`sampling`]'s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;

use crate::{ChatRequest, ChatResponse, Flow, LlmClient, LlmError, Role, TokenSink, Usage};

mod engine;
mod sampling;

use engine::{Engine, Piece};

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
    /// Requests decoded together in one batch, at most (fewer when memory is short; 1 = one
    /// at a time). Each has its own `context_tokens` of cache. One by default: on two cores
    /// with the small test models, decoding a run's calls together was not faster overall, and
    /// one report came out degenerate (BENCHMARKS.md, "requests served together"); a machine
    /// where it pays sets `RESEARCH_STUDIO_LOCAL_SEQUENCES`.
    pub max_sequences: u32,
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
            max_sequences: 1,
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

/// A loaded model, shared by the engines that serve it.
type Shared = Arc<LlamaModel>;

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
    if let Some(missing) = (crate::ModelSpec::Local {
        path: path.to_path_buf(),
    })
    .missing_file()
    {
        return Err(missing);
    }
    let model = LlamaModel::load_from_file(backend()?, path, &LlamaModelParams::default())
        .map_err(|e| {
            LlmError::Config(format!(
                "{} is not a GGUF model this build can load: {e}",
                path.display()
            ))
        })?;
    let model = Arc::new(model);
    *slot = Some(model.clone());
    Ok(model)
}

/// A GGUF model run in-process.
pub struct LocalLlm {
    spec: String,
    path: PathBuf,
    config: LocalConfig,
    model: Shared,
    engine: Arc<Engine>,
}

impl LocalLlm {
    /// Whether a request to this model is waiting or being answered.
    pub fn busy(&self) -> bool {
        self.engine.busy()
    }

    /// How many requests this model decodes together at most (see [`LocalConfig::max_sequences`]).
    pub fn sequences(&self) -> u32 {
        self.engine.sequences()
    }

    /// Prompt tokens the model did not evaluate because its cache held them from an earlier
    /// request with the same beginning, in all requests to this model (of this shape) so far.
    pub fn prompt_tokens_reused(&self) -> u64 {
        self.engine.reused()
    }

    /// Loads the model at `path` (once per process).
    pub fn open(path: &Path, config: LocalConfig) -> Result<Self, LlmError> {
        let model = load(path)?;
        let engine = Engine::of(&model, path, &config);
        Ok(Self {
            spec: format!("local:{}", path.display()),
            path: path.to_path_buf(),
            config,
            model,
            engine,
        })
    }

    /// The request's conversation in the model's chat format, in tokens; refused when it and
    /// the answer asked for do not fit the context.
    fn prompt(&self, request: &ChatRequest) -> Result<(Vec<LlamaToken>, usize), LlmError> {
        let (model, path) = (&*self.model, self.path.as_path());
        let template = model.chat_template(None).or_else(|_| {
            // A GGUF without a template (a base model such as Gemma 3 270M): llama.cpp's
            // built-in one for its family, so the model sees the turn markers it was trained on.
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
        let tokens = model.vocab().tokenize(prompt.as_bytes(), false, true);
        let max_tokens = request.max_tokens.unwrap_or(self.config.default_max_tokens) as usize;
        let n_ctx = self.config.context_tokens as usize;
        if tokens.len() + max_tokens > n_ctx {
            return Err(LlmError::ContextOverflow {
                provider: "the built-in model".into(),
                message: format!(
                    "{} prompt tokens + {max_tokens} answer tokens exceed the {n_ctx}-token context",
                    tokens.len()
                ),
            });
        }
        if tokens.is_empty() {
            return Err(bad(path, "the prompt has no tokens"));
        }
        Ok((tokens, max_tokens))
    }
}

fn bad(path: &Path, detail: impl std::fmt::Display) -> LlmError {
    LlmError::BadResponse {
        provider: format!("the built-in model ({})", path.display()),
        detail: detail.to_string(),
    }
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
        let (prompt, max_tokens) = self.prompt(request)?;
        let prompt_len = prompt.len() as u64;
        // Dropping `complete`'s future (a cancelled run) drops `rx`: the sequence stops.
        let mut rx =
            self.engine
                .submit(request.clone(), self.config.clone(), prompt, max_tokens)?;
        let mut outcome = None;
        let (mut streamed, mut pieces) = (String::new(), 0u64);
        while let Some(piece) = rx.recv().await {
            match piece {
                Piece::Text(t) => {
                    if let Some(sink) = on_token {
                        streamed.push_str(&t);
                        pieces += 1;
                        if sink(&t) == Flow::Stop {
                            // Dropping `rx` below stops the sequence at its next step. A
                            // piece is about a token (a stop string's held-back text and a
                            // character's partial bytes aside).
                            let usage = Usage {
                                prompt_tokens: prompt_len,
                                completion_tokens: pieces,
                            };
                            outcome = Some(Ok((streamed, usage)));
                            break;
                        }
                    }
                }
                Piece::Done(result) => {
                    outcome = Some(result);
                    break;
                }
            }
        }
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
