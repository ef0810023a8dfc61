//! A BERT sentence encoder (all-MiniLM-L6-v2 and models of its shape) run on the CPU with
//! candle: WordPiece tokens, the encoder, the mean of the token vectors, unit length — what
//! sentence-transformers computes for these models.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::{normalize, EmbedError, Embedder, Encoded, TokenEmbedder};

/// Texts embedded in one forward pass: bounds the padded batch's memory, and sorting by length
/// first keeps padding small.
const BATCH: usize = 16;

/// The part of the model's `config.json` the encoder needs.
#[derive(Debug, Deserialize)]
struct Config {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    type_vocab_size: usize,
    layer_norm_eps: f64,
    #[serde(default)]
    hidden_act: Option<String>,
    #[serde(default)]
    model_type: Option<String>,
}

/// sentence-transformers' `sentence_bert_config.json`: how many tokens the model reads.
#[derive(Debug, Deserialize)]
struct SentenceConfig {
    max_seq_length: usize,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The all-MiniLM-L6-v2 sentence model (or another BERT of its kind), loaded from a folder with
/// `config.json`, `model.safetensors` and `tokenizer.json` (`scripts/fetch-embedder.sh`).
pub struct BertEmbedder {
    tokenizer: Tokenizer,
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    hidden: usize,
    id: String,
    device: Device,
    /// What its card says it was made for (`None`: it does not say).
    languages: Option<Vec<String>>,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

fn compute(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Compute(e.to_string())
}

impl BertEmbedder {
    /// Loads the model in `folder`. The tokens read per text are the model's own
    /// `max_seq_length` (`sentence_bert_config.json`, 256 for all-MiniLM-L6-v2) when given, else
    /// its position count; longer texts are cut.
    pub fn load(folder: &Path) -> Result<Self, EmbedError> {
        let unusable = |reason: String| EmbedError::UnsupportedModel {
            folder: folder.to_path_buf(),
            reason,
        };
        let read = |name: &str| -> Result<(PathBuf, Vec<u8>), EmbedError> {
            let file = folder.join(name);
            std::fs::read(&file)
                .map(|bytes| (file.clone(), bytes))
                .map_err(|e| EmbedError::ModelFile {
                    file,
                    reason: e.to_string(),
                })
        };
        let (config_file, config) = read("config.json")?;
        let config: Config =
            serde_json::from_slice(&config).map_err(|e| EmbedError::ModelFile {
                file: config_file,
                reason: e.to_string(),
            })?;
        if config.model_type.as_deref().is_some_and(|t| t != "bert") {
            return Err(unusable(format!(
                "it is a {} model, not BERT",
                config.model_type.unwrap_or_default()
            )));
        }
        if config.hidden_act.as_deref().is_some_and(|a| a != "gelu") {
            return Err(unusable(format!(
                "its activation is {}, not gelu",
                config.hidden_act.unwrap_or_default()
            )));
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err(unusable(format!(
                "{} attention heads do not divide {} dimensions",
                config.num_attention_heads, config.hidden_size
            )));
        }
        let max_tokens = read("sentence_bert_config.json")
            .ok()
            .and_then(|(_, bytes)| serde_json::from_slice::<SentenceConfig>(&bytes).ok())
            .map(|c| c.max_seq_length)
            .unwrap_or(config.max_position_embeddings)
            .min(config.max_position_embeddings);

        let tokenizer_file = folder.join("tokenizer.json");
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_file).map_err(|e| EmbedError::ModelFile {
                file: tokenizer_file.clone(),
                reason: e.to_string(),
            })?;
        // The file's own settings pad every text to a fixed length; pad a batch to its longest.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..Default::default()
            }))
            .map_err(|e| unusable(e.to_string()))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));

        let weights_file = folder.join("model.safetensors");
        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load(&weights_file, &device).map_err(|e| {
            EmbedError::ModelFile {
                file: weights_file.clone(),
                reason: e.to_string(),
            }
        })?;
        // Some exports prefix every name with the architecture.
        let prefixed = tensors.keys().any(|k| k.starts_with("bert."));
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let vb = if prefixed { vb.pp("bert") } else { vb };
        let weights = |e: candle_core::Error| unusable(format!("its weights: {e}"));
        let h = config.hidden_size;
        let eps = config.layer_norm_eps;
        let emb = vb.pp("embeddings");
        let words = embedding(config.vocab_size, h, emb.pp("word_embeddings")).map_err(weights)?;
        let positions = embedding(
            config.max_position_embeddings,
            h,
            emb.pp("position_embeddings"),
        )
        .map_err(weights)?;
        let token_types = embedding(config.type_vocab_size, h, emb.pp("token_type_embeddings"))
            .map_err(weights)?;
        let embeddings_norm = layer_norm(h, eps, emb.pp("LayerNorm")).map_err(weights)?;
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let l = vb.pp(format!("encoder.layer.{i}"));
                Ok(Layer {
                    query: linear(h, h, l.pp("attention.self.query"))?,
                    key: linear(h, h, l.pp("attention.self.key"))?,
                    value: linear(h, h, l.pp("attention.self.value"))?,
                    attention_out: linear(h, h, l.pp("attention.output.dense"))?,
                    attention_norm: layer_norm(h, eps, l.pp("attention.output.LayerNorm"))?,
                    intermediate: linear(h, config.intermediate_size, l.pp("intermediate.dense"))?,
                    output: linear(config.intermediate_size, h, l.pp("output.dense"))?,
                    output_norm: layer_norm(h, eps, l.pp("output.LayerNorm"))?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()
            .map_err(weights)?;
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "bert".into());
        Ok(Self {
            tokenizer,
            words,
            positions,
            token_types,
            embeddings_norm,
            layers,
            heads: config.num_attention_heads,
            hidden: h,
            id: format!("{name}/{max_tokens}"),
            device,
            languages: crate::model_languages(folder),
        })
    }

    /// The encoder on one padded batch: `ids`, `types` and `mask` are `(batch, tokens)`; the
    /// last layer's token vectors, `(batch, tokens, hidden)`.
    fn forward(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (batch, tokens) = ids.dims2()?;
        let head_dim = self.hidden / self.heads;
        let positions = Tensor::arange(0u32, tokens as u32, &self.device)?.unsqueeze(0)?;
        let mut x = self
            .words
            .forward(ids)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .add(&self.token_types.forward(types)?)?;
        x = self.embeddings_norm.forward(&x)?;
        // Padding is never attended to: a large negative score before the softmax.
        let mask_f = mask.to_dtype(DType::F32)?;
        let attention_bias =
            ((mask_f.clone() - 1.0)? * 10_000.0)?.reshape((batch, 1, 1, tokens))?;
        let scale = 1.0 / (head_dim as f64).sqrt();
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((batch, tokens, self.heads, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        for layer in &self.layers {
            let q = split(layer.query.forward(&x)?)?;
            let k = split(layer.key.forward(&x)?)?;
            let v = split(layer.value.forward(&x)?)?;
            let scores =
                (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&attention_bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((
                batch,
                tokens,
                self.hidden,
            ))?;
            let attended = layer
                .attention_norm
                .forward(&(layer.attention_out.forward(&context)? + &x)?)?;
            let inner = layer.intermediate.forward(&attended)?.gelu_erf()?;
            x = layer
                .output_norm
                .forward(&(layer.output.forward(&inner)? + &attended)?)?;
        }
        Ok(x)
    }

    /// The mean of the real tokens' vectors of `hidden` (`(batch, tokens, hidden)`).
    fn pool(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let weights = mask.to_dtype(DType::F32)?.unsqueeze(D::Minus1)?;
        let summed = hidden.broadcast_mul(&weights)?.sum(1)?;
        let counts = weights.sum(1)?.clamp(1e-9, f64::MAX)?;
        summed.broadcast_div(&counts)
    }

    /// Every text of `texts` through the encoder, a batch at a time, shortest first so that
    /// each batch pads to about its own length; `each` gets the text's index, its encoding and
    /// its token vectors `(tokens, hidden)` with its pooled vector.
    fn run(
        &self,
        texts: &[&str],
        mut each: impl FnMut(usize, &tokenizers::Encoding, Tensor, Vec<f32>) -> Result<(), EmbedError>,
    ) -> Result<(), EmbedError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let encodings = self.tokenizer.encode_batch(batch, true).map_err(compute)?;
            let tokens = encodings.first().map(|e| e.len()).unwrap_or(0);
            let flat = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
                encodings
                    .iter()
                    .flat_map(|e| f(e).iter().copied())
                    .collect()
            };
            let shape = (chunk.len(), tokens);
            let tensor = |data: Vec<u32>| Tensor::from_vec(data, shape, &self.device);
            let ids = tensor(flat(&|e| e.get_ids())).map_err(compute)?;
            let types = tensor(flat(&|e| e.get_type_ids())).map_err(compute)?;
            let mask = tensor(flat(&|e| e.get_attention_mask())).map_err(compute)?;
            let hidden = self.forward(&ids, &types, &mask).map_err(compute)?;
            let pooled = Self::pool(&hidden, &mask)
                .and_then(|t| t.to_vec2::<f32>())
                .map_err(compute)?;
            for (row, ((&i, encoding), mut v)) in
                chunk.iter().zip(&encodings).zip(pooled).enumerate()
            {
                normalize(&mut v);
                let tokens = hidden.get(row).map_err(compute)?;
                each(i, encoding, tokens, v)?;
            }
        }
        Ok(())
    }
}

impl BertEmbedder {
    /// This model distilled to one vector per token ([`crate::DistilledEmbedder`]): each token of
    /// the vocabulary through the whole model on its own, between the markers every text has, as
    /// the model reads a one-word text. About a minute of the model's time, once per model.
    pub fn distil(&self) -> Result<crate::DistilledEmbedder, EmbedError> {
        // The markers a text is read between, as the tokenizer adds them to an empty text.
        let markers = self.tokenizer.encode("", true).map_err(compute)?;
        let (open, close) = match markers.get_ids() {
            [open, close] => (*open, *close),
            other => {
                return Err(compute(format!(
                    "an empty text is {} tokens, not two markers",
                    other.len()
                )))
            }
        };
        let vocab = self.tokenizer.get_vocab_size(true) as u32;
        let mut rows = Vec::with_capacity(vocab as usize);
        let ids: Vec<u32> = (0..vocab).collect();
        for chunk in ids.chunks(DISTIL_BATCH) {
            let flat: Vec<u32> = chunk.iter().flat_map(|&id| [open, id, close]).collect();
            let shape = (chunk.len(), 3);
            let ids = Tensor::from_vec(flat, shape, &self.device).map_err(compute)?;
            let types = ids.zeros_like().map_err(compute)?;
            let mask = ids.ones_like().map_err(compute)?;
            let hidden = self.forward(&ids, &types, &mask).map_err(compute)?;
            let pooled = Self::pool(&hidden, &mask)
                .and_then(|t| t.to_vec2::<f32>())
                .map_err(compute)?;
            for mut v in pooled {
                normalize(&mut v);
                rows.push(v);
            }
        }
        Ok(
            crate::DistilledEmbedder::new(self.tokenizer.clone(), rows, &self.id)?
                .made_for(self.languages.clone()),
        )
    }
}

impl BertEmbedder {
    /// The distilled model kept in `table`: read when it is this model's, else made
    /// ([`BertEmbedder::distil`]) and written there for next time (a table that cannot be
    /// written is only made again next time).
    pub fn distilled(&self, table: &Path) -> Result<crate::DistilledEmbedder, EmbedError> {
        if let Some(kept) = crate::DistilledEmbedder::read(table, self.tokenizer.clone(), &self.id)
        {
            return Ok(kept.made_for(self.languages.clone()));
        }
        let made = self.distil()?;
        let _ = made.write(table);
        Ok(made)
    }
}

/// Tokens distilled at once (three positions each).
const DISTIL_BATCH: usize = 512;

/// [`Embedder::unrelated_below`] for the model's own vectors. Measured on all-MiniLM-L6-v2, the
/// model the project installs (BENCHMARKS.md, "A library that has nothing on the question"):
/// chosen on the SQLite manual, between the nearest passage to 27 questions it answers (0.59 at
/// least) and to 20 it has nothing on (0.29 at most); held out, on Python's and PostgreSQL's
/// manuals, it keeps all 16 answered questions (0.47 at least) and drops all 40 others (0.34 at
/// most).
pub const MODEL_UNRELATED_BELOW: f32 = 0.44;

impl Embedder for BertEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn unrelated_below(&self) -> f32 {
        MODEL_UNRELATED_BELOW
    }

    fn languages(&self) -> Option<&[String]> {
        self.languages.as_deref()
    }

    fn dimensions(&self) -> usize {
        self.hidden
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        self.run(texts, |i, _, _, v| {
            out[i] = Some(v);
            Ok(())
        })?;
        Ok(out.into_iter().flatten().collect())
    }
}

impl TokenEmbedder for BertEmbedder {
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<Encoded>, EmbedError> {
        let mut out: Vec<Option<Encoded>> = (0..texts.len()).map(|_| None).collect();
        self.run(texts, |i, encoding, hidden, sentence| {
            let rows = hidden.to_vec2::<f32>().map_err(compute)?;
            // The words' pieces only: not [CLS], [SEP], padding or bare punctuation, which
            // every text has and which would match whatever the words say.
            let (tokens, pieces) = rows
                .into_iter()
                .zip(encoding.get_special_tokens_mask())
                .zip(encoding.get_attention_mask())
                .zip(encoding.get_tokens())
                .filter(|(((_, &special), &real), piece)| {
                    special == 0 && real == 1 && piece.chars().any(char::is_alphanumeric)
                })
                .map(|(((mut v, _), _), piece)| {
                    normalize(&mut v);
                    (v, piece.clone())
                })
                .unzip();
            out[i] = Some(Encoded {
                sentence,
                tokens,
                pieces,
            });
            Ok(())
        })?;
        Ok(out.into_iter().flatten().collect())
    }
}
