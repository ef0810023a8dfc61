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
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            context_tokens: 4096,
            default_max_tokens: 512,
            threads: 2,
            seed: 42,
        }
    }
}

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

/// Loaded models, shared by every client of the same file. Each is used by one request at a time:
/// llama.cpp contexts must not be created concurrently from one model.
fn load(path: &Path) -> Result<Arc<Mutex<LlamaModel>>, LlmError> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<LlamaModel>>>>> = OnceLock::new();
    let mut models = MODELS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(model) = models.get(path) {
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
    models.insert(path.to_path_buf(), model.clone());
    Ok(model)
}

/// A GGUF model run in-process.
pub struct LocalLlm {
    spec: String,
    path: PathBuf,
    config: LocalConfig,
    model: Arc<Mutex<LlamaModel>>,
}

impl LocalLlm {
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

/// Runs one generation on the calling (blocking) thread, sending pieces as they are decoded.
fn generate_blocking(
    model: &LlamaModel,
    path: &Path,
    config: &LocalConfig,
    request: &ChatRequest,
    send: &dyn Fn(Piece),
) -> Result<(String, Usage), LlmError> {
    let backend = backend()?;
    let template = model.chat_template(None).or_else(|_| {
        LlamaChatTemplate::new("chatml").map_err(|e| bad(path, format!("no chat template: {e}")))
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
    samplers.push(LlamaSampler::top_k(40));
    samplers.push(LlamaSampler::top_p(0.95, 1));
    samplers.push(LlamaSampler::temp(request.temperature.unwrap_or(0.7)));
    samplers.push(LlamaSampler::dist(config.seed));
    let mut sampler = LlamaSampler::chain_simple(samplers);

    let mut decoder = encoding_rs::UTF_8.new_decoder();
    let mut text = String::new();
    let mut pos = tokens.len() as i32;
    let mut generated = 0usize;
    while generated < max_tokens {
        let token = sampler.sample(&ctx, batch.n_tokens() - 1);
        if vocab.is_eog(token) {
            break;
        }
        let bytes = vocab.token_to_piece(token, false, None);
        let mut piece = String::with_capacity(bytes.len() + 4);
        let _ = decoder.decode_to_string(&bytes, &mut piece, false);
        if !piece.is_empty() {
            send(Piece::Text(piece.clone()));
            text.push_str(&piece);
        }
        generated += 1;
        batch.clear();
        batch
            .add(token, pos, &[0], true)
            .map_err(|e| bad(path, e))?;
        pos += 1;
        ctx.decode(&mut batch).map_err(|e| bad(path, e))?;
    }
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
            let result = generate_blocking(&model, &path, &config, &request, &send);
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
