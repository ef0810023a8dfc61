//! Sentence embeddings: texts in, unit vectors out, so that a question finds a passage that says
//! the same thing in other words (the library's keyword ranking cannot).
//!
//! The seam is [`Embedder`], one method wide, because what computes the vectors is a choice that
//! changes (a model file present or not, another model, another runtime) while what uses them —
//! the library's hybrid ranking — must not. Two implementations sit behind it:
//! [`TrigramEmbedder`], deterministic and dependency-free for tests, and (feature `bert`, on by
//! default) [`BertEmbedder`], the all-MiniLM-L6-v2 sentence model run locally on the CPU with
//! candle, its files installed by `scripts/fetch-embedder.sh`. The model is optional at run
//! time: [`locate_model`] says where it is, if anywhere, and callers rank by keywords alone
//! without it. [`conformance::check`] is what every implementation must pass, and
//! [`conformance::check_tokens`] what every [`TokenEmbedder`] must pass besides.
#![deny(missing_docs)]

#[cfg(feature = "bert")]
mod bert;
pub mod conformance;
#[cfg(feature = "bert")]
mod distilled;
mod language;
mod trigram;

use std::path::PathBuf;

#[cfg(feature = "bert")]
pub use bert::BertEmbedder;
#[cfg(feature = "bert")]
pub use distilled::{distilled_id, DistilledEmbedder};
pub use language::{detect_language, model_languages};
pub use trigram::TrigramEmbedder;

/// Why texts could not be embedded or a model could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// A file the model needs is missing or unreadable.
    #[error("the embedding model's {file} could not be read: {reason}")]
    ModelFile {
        /// Which file.
        file: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The model's files are there but do not describe a model this crate runs.
    #[error("the embedding model at {folder} is not usable: {reason}")]
    UnsupportedModel {
        /// The model's folder.
        folder: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Tokenizing or running the model failed.
    #[error("embedding failed: {0}")]
    Compute(String),
}

/// Turns texts into vectors whose dot product says how close their meanings are.
pub trait Embedder: Send + Sync {
    /// Names the model (and anything that changes its vectors): vectors made under different
    /// ids are never compared, and stored ones are recomputed when it changes.
    fn model_id(&self) -> &str;

    /// The length of every vector.
    fn dimensions(&self) -> usize;

    /// One unit-length vector per text, in order. The same text gives the same vector whatever
    /// else is in the batch.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// The languages the model was made for (ISO 639-1 codes, from its card); `None` when it
    /// does not say, read as every language.
    fn languages(&self) -> Option<&[String]> {
        None
    }

    /// The similarity under which a library's nearest passage to a question says the library
    /// has nothing on it (when no passage has the question's words either): each model's
    /// vectors have their own scale, so this is measured per model (`cargo bench -p
    /// research-bench --bench floor`). 0 (the default): not measured, no such judgement.
    fn unrelated_below(&self) -> f32 {
        0.0
    }
}

/// A text's vectors in one pass of the model: the sentence's, and each of its words' pieces' in
/// context (unit length each).
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    /// The text's vector, as [`Embedder::embed`] gives it.
    pub sentence: Vec<f32>,
    /// One vector per token of the text's words, in order (no markers, padding or bare
    /// punctuation).
    pub tokens: Vec<Vec<f32>>,
    /// Each token's text as the model cut it (a word or a piece of one; a piece that continues
    /// a word starts with `##`), beside `tokens`: so that a caller can weigh a token by what it
    /// is (a stop word matches anything).
    pub pieces: Vec<String>,
}

/// An [`Embedder`] that also gives each token's vector: what aligning a sentence's words to a
/// passage's by meaning needs (the citation checker's token alignment, as BERTScore's recall),
/// which one vector per text cannot give. Apart from [`Embedder`] because the library's ranking
/// needs only sentence vectors, and a model without token vectors still serves it.
pub trait TokenEmbedder: Embedder {
    /// One [`Encoded`] per text, in order; its `sentence` is what [`Embedder::embed`] gives.
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<Encoded>, EmbedError>;
}

/// The dot product of two vectors (their cosine similarity, as every [`Embedder`] gives unit
/// vectors).
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The environment variable naming the embedding model's folder (overrides the default place).
pub const MODEL_ENV: &str = "RESEARCH_STUDIO_EMBEDDER";

/// The project's cache folder, where its scripts and the app install models:
/// `RESEARCH_STUDIO_CACHE`, else `~/.cache/research-studio`.
pub fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("RESEARCH_STUDIO_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/research-studio"))
        })
}

/// The folder `scripts/fetch-embedder.sh` installs the model in, under [`cache_dir`].
pub fn default_model_dir() -> Option<PathBuf> {
    Some(cache_dir()?.join("models/all-MiniLM-L6-v2"))
}

/// Where the distilled table of the model in `model_dir` is kept ([`BertEmbedder::distilled`]):
/// beside the installed models under [`cache_dir`], named after the model's folder.
pub fn distilled_table(model_dir: &std::path::Path) -> Option<PathBuf> {
    let name = model_dir.file_name()?.to_string_lossy().to_string();
    Some(
        cache_dir()?
            .join("models")
            .join(format!("{name}.distilled")),
    )
}

/// Where the embedding model is, when it is installed: the folder named by [`MODEL_ENV`], else
/// [`default_model_dir`], whichever holds `model.safetensors`. `None` means keyword ranking only.
pub fn locate_model() -> Option<PathBuf> {
    std::env::var_os(MODEL_ENV)
        .map(PathBuf::from)
        .or_else(default_model_dir)
        .filter(|dir| dir.join("model.safetensors").is_file())
}
