//! A cross-encoder exported to ONNX, run by ONNX Runtime loaded from the model's folder.
//!
//! What differs between such models — the files, the sequence length, which output means
//! "entailed" — is read from the folder's card ([`ModelCard`], written by the script that
//! installs the model), not known by name here.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ort::session::Session;
use ort::value::Tensor;
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams, TruncationStrategy};

use crate::{EntailError, Entailment, CARD};

/// How to read the model of a folder: its `entailment.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCard {
    /// The model's id, as the audit names it.
    pub model_id: String,
    /// The ONNX file, relative to the folder.
    pub model: String,
    /// The tokenizer (`tokenizer.json`), relative to the folder.
    pub tokenizer: String,
    /// ONNX Runtime's shared library, relative to the folder.
    pub runtime: String,
    /// The tokens the model reads: premise and hypothesis together, padded to it.
    pub max_tokens: usize,
    /// How many classes its output has.
    pub labels: usize,
    /// The class that means "the premise entails the hypothesis".
    pub entailed: usize,
    /// The padding token.
    pub pad_token: String,
    /// The name of the token-ids input.
    pub input_ids: String,
    /// The name of the attention-mask input.
    pub attention_mask: String,
    /// The name of the logits output.
    pub logits: String,
    /// Where the model comes from and on what terms, as the installing script found it.
    #[serde(default)]
    pub provenance: String,
}

/// Pairs per run of the model: one. An int8 export quantizes its activations with one scale for
/// the whole input (dynamic quantization), so a pair read beside others gets another probability
/// (0.136 against 0.174 alone, caught by the conformance suite); a verdict must not depend on
/// what else was checked with it.
const BATCH: usize = 1;

/// The runtime library is loaded once per process; a second folder must name the same one.
static RUNTIME: OnceLock<Result<(PathBuf, ort::environment::Environment), String>> =
    OnceLock::new();

/// A cross-encoder read through ONNX Runtime.
pub struct OnnxEntailment {
    card: ModelCard,
    tokenizer: Tokenizer,
    session: Mutex<Session>,
}

impl std::fmt::Debug for OnnxEntailment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEntailment")
            .field("model", &self.card.model_id)
            .finish_non_exhaustive()
    }
}

fn read_error(path: &Path, e: impl std::fmt::Display) -> EntailError {
    EntailError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn runtime(e: impl std::fmt::Display) -> EntailError {
    EntailError::Runtime(e.to_string())
}

impl OnnxEntailment {
    /// Loads the model of `dir`, as its [`CARD`] describes it.
    pub fn load(dir: &Path) -> Result<Self, EntailError> {
        let card_path = dir.join(CARD);
        let text = std::fs::read_to_string(&card_path).map_err(|e| read_error(&card_path, e))?;
        let card: ModelCard = serde_json::from_str(&text).map_err(|e| EntailError::Card {
            path: card_path.clone(),
            message: e.to_string(),
        })?;
        if card.entailed >= card.labels || card.max_tokens < 8 {
            return Err(EntailError::Card {
                path: card_path,
                message: format!(
                    "class {} of {} labels, {} tokens",
                    card.entailed, card.labels, card.max_tokens
                ),
            });
        }
        let tokenizer_path = dir.join(&card.tokenizer);
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| read_error(&tokenizer_path, e))?;
        let pad_id = tokenizer
            .token_to_id(&card.pad_token)
            .ok_or_else(|| EntailError::Card {
                path: dir.join(CARD),
                message: format!("the tokenizer has no {:?}", card.pad_token),
            })?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: card.max_tokens,
                // The sentence is read whole; a long passage loses its end.
                strategy: TruncationStrategy::OnlyFirst,
                ..TruncationParams::default()
            }))
            .map_err(|e| EntailError::Tokenizer(e.to_string()))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::Fixed(card.max_tokens),
            pad_id,
            pad_token: card.pad_token.clone(),
            ..PaddingParams::default()
        }));

        let lib = dir.join(&card.runtime);
        if !lib.is_file() {
            return Err(read_error(&lib, "no such file"));
        }
        let loaded = RUNTIME.get_or_init(|| {
            ort::init_from(&lib)
                .map_err(|e| e.to_string())
                .and_then(|b| b.build().map_err(|e| e.to_string()))
                .map(|env| (lib.clone(), env))
        });
        let environment = match loaded {
            Ok((first, env)) if *first == lib => env,
            Ok((first, _)) => {
                return Err(EntailError::Runtime(format!(
                    "ONNX Runtime was loaded from {} already; this model names {}",
                    first.display(),
                    lib.display()
                )))
            }
            Err(e) => return Err(EntailError::Runtime(e.clone())),
        };
        let model_path = dir.join(&card.model);
        if !model_path.is_file() {
            return Err(read_error(&model_path, "no such file"));
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let session = Session::builder(environment)
            .map_err(runtime)?
            .with_intra_threads(threads)
            .map_err(runtime)?
            .commit_from_file(&model_path)
            .map_err(runtime)?;
        Ok(Self {
            card,
            tokenizer,
            session: Mutex::new(session),
        })
    }

    /// The folder's card.
    pub fn card(&self) -> &ModelCard {
        &self.card
    }

    fn encode(&self, pairs: &[(&str, &str)]) -> Result<(Vec<i64>, Vec<i64>), EntailError> {
        let n = self.card.max_tokens;
        let mut ids = Vec::with_capacity(pairs.len() * n);
        let mut mask = Vec::with_capacity(pairs.len() * n);
        for (premise, hypothesis) in pairs {
            let encoding = match self.tokenizer.encode((*premise, *hypothesis), true) {
                Ok(e) => e,
                // A sentence longer than the model reads: both sides are cut.
                Err(_) => {
                    let mut t = self.tokenizer.clone();
                    t.with_truncation(Some(TruncationParams {
                        max_length: n,
                        strategy: TruncationStrategy::LongestFirst,
                        ..TruncationParams::default()
                    }))
                    .map_err(|e| EntailError::Tokenizer(e.to_string()))?;
                    t.encode((*premise, *hypothesis), true)
                        .map_err(|e| EntailError::Tokenizer(e.to_string()))?
                }
            };
            let (i, m) = (encoding.get_ids(), encoding.get_attention_mask());
            ids.extend(i.iter().take(n).map(|&x| x as i64));
            mask.extend(m.iter().take(n).map(|&x| x as i64));
            // Fixed padding fills to `n`; a tokenizer that ignores it is padded here.
            for _ in i.len().min(n)..n {
                ids.push(0);
                mask.push(0);
            }
        }
        Ok((ids, mask))
    }
}

impl Entailment for OnnxEntailment {
    fn model_id(&self) -> &str {
        &self.card.model_id
    }

    fn entailment(&self, pairs: &[(&str, &str)]) -> Result<Vec<f32>, EntailError> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(BATCH) {
            let (ids, mask) = self.encode(chunk)?;
            let shape = [chunk.len(), self.card.max_tokens];
            let ids = Tensor::from_array((shape, ids)).map_err(runtime)?;
            let mask = Tensor::from_array((shape, mask)).map_err(runtime)?;
            let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let outputs = session
                .run(ort::inputs![
                    self.card.input_ids.as_str() => ids,
                    self.card.attention_mask.as_str() => mask,
                ])
                .map_err(runtime)?;
            let (_, logits) = outputs[self.card.logits.as_str()]
                .try_extract_tensor::<f32>()
                .map_err(runtime)?;
            let k = self.card.labels;
            if logits.len() != chunk.len() * k {
                return Err(EntailError::Runtime(format!(
                    "{} logits for {} pairs of {k} classes",
                    logits.len(),
                    chunk.len()
                )));
            }
            for row in logits.chunks(k) {
                let top = row.iter().copied().fold(f32::MIN, f32::max);
                let sum: f32 = row.iter().map(|x| (x - top).exp()).sum();
                out.push((row[self.card.entailed] - top).exp() / sum);
            }
        }
        Ok(out)
    }
}
