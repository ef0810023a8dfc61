//! The library's passage vectors searched by meaning: which stored vectors are nearest a
//! question's.
//!
//! The seam exists because the answer's cost decides whether a library answers by meaning at
//! all. A scan of every vector ([`Exact`]) is exact and needs nothing kept in step, and for
//! the libraries most people keep (thousands to tens of thousands of passages) it takes a few
//! milliseconds. At a million passages it reads 1.5 GB per question; there an approximate
//! graph index ([`Approximate`], HNSW with 8-bit vectors) answers in about a millisecond from
//! under half that memory, and is kept in a file on this machine so it is built once and
//! updated as files change. The library chooses by size ([`APPROXIMATE_FROM`]); both are held
//! to one suite, [`conformance`], so what a search finds does not depend on which one ran.
//!
//! Vectors are given as `f32`s of unit length, and similarity is their dot product (cosine).
//! Ids are the library index's passage ids, which are never used again for another passage:
//! an index only has to learn which ids came and went.
#![deny(missing_docs)]

mod approximate;
#[cfg(feature = "conformance")]
pub mod conformance;
mod exact;

pub use approximate::Approximate;
pub use exact::Exact;

/// From this many vectors a library is searched by the approximate index: below it a scan
/// takes under 10 ms and is exact.
pub const APPROXIMATE_FROM: usize = 20_000;

/// Candidates to ask an index for per result kept, to re-score with the stored vectors: the
/// approximate index compares 8-bit vectors, which order near neighbours only roughly; the
/// exact similarities of three times as many put the true nearest first.
pub const CANDIDATES: usize = 3;

/// Why a vector search or its file failed.
#[derive(Debug, thiserror::Error)]
pub enum NearestError {
    /// A vector of another length than the index's.
    #[error("a vector of {got} dimensions given to an index of {want}")]
    Dimensions {
        /// The index's.
        want: usize,
        /// The vector's.
        got: usize,
    },
    /// The approximate index refused an operation.
    #[error("the approximate vector index failed: {0}")]
    Index(String),
    /// Its file could not be read or written.
    #[error("the vector index file {path}: {source}")]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// A stored vector near a question's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    /// The passage's id.
    pub id: i64,
    /// Cosine similarity to the question (approximate: from the 8-bit vectors).
    pub similarity: f32,
}

/// Vectors searched by meaning. Every method takes `&self`: one index serves the searches of
/// every run while indexing adds to it.
pub trait Nearest: Send + Sync {
    /// Vectors' length.
    fn dimensions(&self) -> usize;
    /// Adds vectors, replacing any kept under the same id.
    fn add(&self, vectors: &[(i64, Vec<f32>)]) -> Result<(), NearestError>;
    /// Removes vectors (ids it does not hold are ignored).
    fn remove(&self, ids: &[i64]) -> Result<(), NearestError>;
    /// Up to `depth` ids nearest `query`, most similar first (ties by id).
    fn nearest(&self, query: &[f32], depth: usize) -> Result<Vec<Neighbour>, NearestError>;
    /// The ids it holds, ascending.
    fn ids(&self) -> Vec<i64>;
    /// How many vectors it holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn check_dimensions(want: usize, vector: &[f32]) -> Result<(), NearestError> {
    match vector.len() == want {
        true => Ok(()),
        false => Err(NearestError::Dimensions {
            want,
            got: vector.len(),
        }),
    }
}

fn best_first(found: &mut [Neighbour]) {
    found.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then(a.id.cmp(&b.id)));
}
