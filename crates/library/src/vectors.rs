//! The in-memory index of passage vectors searched by meaning, read from the library's index
//! (one vector per passage with the model that made it: vectors of another model are pending
//! again).

/// Passages embedded in one call and committed together.
pub(crate) const EMBED_BATCH: usize = 32;

/// A vector as every index stores it: little-endian `f32`s.
pub(crate) fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Every stored vector of one model, in one matrix, searched by brute force: for the libraries
/// a person keeps (thousands to tens of thousands of passages) a scan is a few milliseconds and
/// needs no index to keep in step.
#[derive(Debug)]
pub(crate) struct VectorIndex {
    pub(crate) model: String,
    passages: Vec<i64>,
    dimensions: usize,
    data: Vec<f32>,
}

impl VectorIndex {
    pub(crate) fn from_rows(model: &str, rows: Vec<(i64, Vec<u8>)>) -> Self {
        let mut index = VectorIndex {
            model: model.to_string(),
            passages: Vec::new(),
            dimensions: 0,
            data: Vec::new(),
        };
        for (id, bytes) in rows {
            let dims = bytes.len() / 4;
            if index.dimensions == 0 {
                index.dimensions = dims;
            }
            if dims != index.dimensions || dims == 0 {
                tracing::warn!(
                    passage = id,
                    "a stored vector of the wrong length is ignored"
                );
                continue;
            }
            index.passages.push(id);
            index.data.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
        }
        index
    }

    /// Up to `depth` passages most similar to `question`, best first, none below `floor`.
    pub(crate) fn nearest(&self, question: &[f32], depth: usize, floor: f32) -> Vec<i64> {
        if self.dimensions == 0 || question.len() != self.dimensions {
            return Vec::new();
        }
        let mut scored: Vec<(f32, i64)> = self
            .data
            .chunks_exact(self.dimensions)
            .zip(&self.passages)
            .map(|(v, id)| (research_embed::similarity(v, question), *id))
            .filter(|(s, _)| *s >= floor)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(depth);
        scored.into_iter().map(|(_, id)| id).collect()
    }
}
