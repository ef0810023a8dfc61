//! Whether a passage entails a sentence.
//!
//! The citation checker reads words and, with the sentence model, closeness of meaning; neither
//! reads *entailment*. A sentence that reverses one relation of its passage shares nearly every
//! word with it and sits close to it in meaning, and a true sentence in a writer's own words
//! shares few. A cross-encoder trained on natural-language inference reads the passage and the
//! sentence together and says whether the one follows from the other, which is the question the
//! ✓ answers. It is its own seam, apart from `research-embed`'s [`Embedder`]s, because it reads
//! pairs, not texts, and a program may have either model without the other.
//!
//! [`Entailment`] is the seam; [`WordEntailment`] is a deterministic reader for tests; the
//! `onnx` feature adds [`OnnxEntailment`], a cross-encoder exported to ONNX and run by ONNX
//! Runtime, loaded from a folder that says how to read it ([`ModelCard`]). Every implementation
//! passes [`conformance::check`].
//!
//! [`Embedder`]: https://docs.rs/research-embed

#![deny(missing_docs)]

use std::path::PathBuf;

pub mod conformance;
#[cfg(feature = "onnx")]
mod onnx;

#[cfg(feature = "onnx")]
pub use onnx::{ModelCard, OnnxEntailment};

/// Why entailment could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EntailError {
    /// A file of the model's folder is missing or unreadable.
    #[error("could not read {path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The folder's model card is not what [`OnnxEntailment`] reads.
    #[error("the model card {path} is not valid: {message}")]
    Card {
        /// The card's path.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The tokenizer failed on a text.
    #[error("the tokenizer failed: {0}")]
    Tokenizer(String),
    /// The runtime could not load or run the model.
    #[error("the model could not be run: {0}")]
    Runtime(String),
}

/// A reader of entailment: for each pair of a premise (a source's passage) and a hypothesis (a
/// sentence that cites it), the probability that the premise entails the hypothesis.
pub trait Entailment: Send + Sync {
    /// The model's id, as the checker's audit names it.
    fn model_id(&self) -> &str;

    /// One probability per `(premise, hypothesis)` pair, in order, each from 0 to 1; the same
    /// for a pair whatever else the batch holds. A premise too long for the model is read from
    /// its start as far as the model reads.
    fn entailment(&self, pairs: &[(&str, &str)]) -> Result<Vec<f32>, EntailError>;
}

/// The environment variable naming the entailment model's folder (overrides the default place).
pub const MODEL_ENV: &str = "RESEARCH_STUDIO_ENTAILMENT";

/// The folder `scripts/fetch-entailment.sh` installs the model in, under the project's cache
/// folder ([`research_embed::cache_dir`], the one rule for it).
pub fn default_model_dir() -> Option<PathBuf> {
    Some(research_embed::cache_dir()?.join("models/entailment"))
}

/// The file a model folder holds to be read: what [`locate_model`] looks for.
pub const CARD: &str = "entailment.json";

/// Where the entailment model is, when it is installed: the folder named by [`MODEL_ENV`], else
/// [`default_model_dir`], whichever holds a [`CARD`]. `None`: the checker reads without it.
pub fn locate_model() -> Option<PathBuf> {
    std::env::var_os(MODEL_ENV)
        .map(PathBuf::from)
        .or_else(default_model_dir)
        .filter(|dir| dir.join(CARD).is_file())
}

/// A deterministic reader for tests: the share of the hypothesis's content words the premise
/// has, a tenth of it when one of them says "not" and the other does not. It reads words, as
/// the checker without a model does; it is here so that code that asks for entailment can be
/// tested without the model, never to decide a verdict in a program.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordEntailment;

fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 2)
        .map(str::to_lowercase)
        .collect()
}

fn negated(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| matches!(w.as_str(), "not" | "never" | "none" | "cannot"))
}

impl Entailment for WordEntailment {
    fn model_id(&self) -> &str {
        "words"
    }

    fn entailment(&self, pairs: &[(&str, &str)]) -> Result<Vec<f32>, EntailError> {
        Ok(pairs
            .iter()
            .map(|(premise, hypothesis)| {
                let p = content_words(premise);
                let h = content_words(hypothesis);
                if h.is_empty() {
                    return 0.0;
                }
                let found = h.iter().filter(|w| p.contains(w)).count() as f32 / h.len() as f32;
                if negated(&p) != negated(&h) {
                    found * 0.1
                } else {
                    found
                }
            })
            .collect())
    }
}
