//! A deterministic embedder for tests: no model, no files.

use crate::{normalize, EmbedError, Embedder, Encoded, TokenEmbedder};

/// Hashes each word's character trigrams into a fixed number of dimensions. Words that share
/// most of their letters ("index", "indexes", "indexing") get close vectors, so it ranks some
/// passages that keyword search misses — enough for tests of the fusion, never for meaning.
#[derive(Debug, Clone)]
pub struct TrigramEmbedder {
    dimensions: usize,
    id: String,
}

impl TrigramEmbedder {
    /// Vectors of `dimensions` entries (at least 1).
    pub fn new(dimensions: usize) -> Self {
        let dimensions = dimensions.max(1);
        Self {
            dimensions,
            id: format!("test-trigrams-{dimensions}"),
        }
    }
}

impl Default for TrigramEmbedder {
    fn default() -> Self {
        Self::new(256)
    }
}

/// FNV-1a: stable across runs and platforms, unlike std's randomly seeded hasher.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

impl TrigramEmbedder {
    /// The words of `text`: its runs of letters and digits.
    fn split(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    }

    /// The words of `text`, each as its trigrams' vector (not normalised).
    fn words(&self, text: &str) -> Vec<Vec<f32>> {
        Self::split(text)
            .map(|word| {
                let mut v = vec![0.0f32; self.dimensions];
                let padded: Vec<char> = format!("<{}>", word.to_lowercase()).chars().collect();
                for gram in padded.windows(3) {
                    let gram: String = gram.iter().collect();
                    let h = fnv1a(gram.as_bytes());
                    let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
                    v[(h % self.dimensions as u64) as usize] += sign;
                }
                v
            })
            .collect()
    }
}

impl TokenEmbedder for TrigramEmbedder {
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<Encoded>, EmbedError> {
        let sentences = self.embed(texts)?;
        Ok(texts
            .iter()
            .zip(sentences)
            .map(|(text, sentence)| Encoded {
                sentence,
                tokens: self
                    .words(text)
                    .into_iter()
                    .map(|mut v| {
                        normalize(&mut v);
                        v
                    })
                    .collect(),
                pieces: Self::split(text).map(str::to_lowercase).collect(),
            })
            .collect())
    }
}

impl Embedder for TrigramEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut v = vec![0.0f32; self.dimensions];
                for word in self.words(text) {
                    v.iter_mut().zip(word).for_each(|(a, b)| *a += b);
                }
                normalize(&mut v);
                v
            })
            .collect())
    }
}
