//! An approximate index for a library too large to scan: an HNSW graph (usearch, kept by Unum
//! and used inside ClickHouse and DuckDB) over 8-bit vectors, which adds and removes one vector
//! at a time and is saved to one file. Chosen over the pure-Rust graph crates because it removes
//! in place (a changed file's passages go without a rebuild) and stores 8-bit vectors (a million
//! 384-wide vectors in 384 MB rather than 1.5 GB); over an extension of SQLite because the team's
//! library lives on PostgreSQL, and this index serves both as a cache on each machine.
//!
//! The file is a cache: the library's index keeps every vector, and an index file that is
//! missing, cut short or written for other vectors is rebuilt from it, never trusted.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::{best_first, check_dimensions, Nearest, NearestError, Neighbour};

/// Neighbours each vector links to: usearch's default; 16 kept recall@10 at 0.99 on the
/// library's vectors (BENCHMARKS).
const CONNECTIVITY: usize = 16;
/// Candidates weighed while a vector is added (build quality).
const EXPANSION_ADD: usize = 128;
/// Candidates weighed by a search (at least the depth asked for). On 1.13 million passages of
/// documentation, recall@10 against a scan was 0.932 at 128, 0.962 at 256 and 0.979 at 384, for
/// 2.6, 3.8 and 5.2 ms a search; but a graph grown folder by folder, as a library grows it, fell
/// to 0.926 at 596,000 passages at 384, and reached 0.962 at 768 and 0.968 at 1,024, for 3.0 and
/// 4.1 ms; grown through the library at 1,024, 0.994–0.997 from 596,000 passages to a million
/// (BENCHMARKS): a few milliseconds beside a keyword search's 30.
const EXPANSION_SEARCH: usize = 1_024;
/// Threads that add a batch side by side (the machine's cores, at most).
const ADD_THREADS: usize = 4;
/// A batch smaller than this is added on one thread. Neighbouring vectors (one file's
/// passages, as an indexing pass embeds them, 32 at a time) added side by side in small
/// batches make a worse graph: on 200,000 vectors in runs of one topic, recall@10 0.967 added
/// 32 at a time on two threads, 0.983 on one, 0.982 in batches of 1,024 on two (`cargo bench
/// -p research-bench --bench graph`); at a million passages of documentation added folder by
/// folder, 0.959 against 0.985 for the same vectors added 1,024 at a time (BENCHMARKS).
const PARALLEL_FROM: usize = 1_024;
/// Searches that can run at once, each with a context of its own (past this number usearch
/// refuses a search, which then ranks by keywords): a run's parallel searches times several
/// runs.
const SEARCH_CONTEXTS: usize = 64;
/// The members file begins with this, then its version (2: vectors quantized by [`eight_bit`];
/// a graph of version 1 holds usearch's own casts and is rebuilt).
const MAGIC: &[u8; 8] = b"RSNEAR\0\x02";

/// An HNSW index over 8-bit vectors, in memory, saved and loaded whole.
pub struct Approximate {
    dimensions: usize,
    index: Index,
    /// The ids held (usearch keeps no list of its keys); the lock also keeps searches apart
    /// from adds and removals.
    members: RwLock<HashSet<i64>>,
}

impl std::fmt::Debug for Approximate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approximate")
            .field("dimensions", &self.dimensions)
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

fn failed(e: impl std::fmt::Display) -> NearestError {
    NearestError::Index(e.to_string())
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, ADD_THREADS)
}

/// A vector as the graph keeps it: scaled so that its largest component is ±127, then rounded.
/// usearch's own cast scales a unit vector by 127, and a sentence model's 384 components are
/// mostly within ±0.05 of zero: a handful of levels each, and recall@10 against a scan of 0.87
/// on 100,000 of the library's vectors. Scaled by its own largest component each vector uses
/// the whole range (0.95 on the same vectors); the cosine the graph measures does not change
/// with a vector's scale.
fn eight_bit(vector: &[f32]) -> Vec<i8> {
    let largest = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    if largest == 0.0 || !largest.is_finite() {
        return vec![0; vector.len()];
    }
    let scale = 127.0 / largest;
    vector
        .iter()
        .map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

fn options(dimensions: usize) -> IndexOptions {
    IndexOptions {
        dimensions,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    }
}

/// The file beside the index that lists its members.
fn members_path(path: &Path) -> PathBuf {
    with_suffix(path, ".ids")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl Approximate {
    /// An empty index of vectors of `dimensions`.
    pub fn new(dimensions: usize) -> Result<Self, NearestError> {
        let index = Index::new(&options(dimensions)).map_err(failed)?;
        index
            .reserve_capacity_and_threads(1024, SEARCH_CONTEXTS)
            .map_err(failed)?;
        Ok(Self {
            dimensions,
            index,
            members: RwLock::new(HashSet::new()),
        })
    }

    /// The index saved at `path` for vectors of `dimensions`; `None` (logged) when there is no
    /// such file or it cannot be trusted: missing its members, cut short, of other vectors.
    pub fn load(path: &Path, dimensions: usize) -> Option<Self> {
        match Self::try_load(path, dimensions) {
            Ok(index) => Some(index),
            Err(why) => {
                if path.exists() {
                    tracing::warn!(path = %path.display(), %why, "a vector index file is rebuilt");
                }
                None
            }
        }
    }

    fn try_load(path: &Path, dimensions: usize) -> Result<Self, String> {
        let mut file = std::fs::File::open(members_path(path)).map_err(|e| e.to_string())?;
        let mut header = [0u8; 8 + 4 + 8 + 8];
        file.read_exact(&mut header).map_err(|e| e.to_string())?;
        if &header[..8] != MAGIC {
            return Err("not a members file of this version".into());
        }
        let word = |at: usize, n: usize| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&header[at..at + n]);
            u64::from_le_bytes(b)
        };
        let (dims, count, graph_len) = (word(8, 4) as usize, word(12, 8), word(20, 8));
        if dims != dimensions {
            return Err(format!("made for {dims} dimensions, not {dimensions}"));
        }
        let on_disk = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if on_disk != graph_len {
            return Err(format!(
                "the graph is {on_disk} bytes, its members say {graph_len}"
            ));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        if bytes.len() as u64 != count * 8 {
            return Err("the members list is cut short".into());
        }
        let members: HashSet<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("eight bytes")))
            .collect();
        let index = Index::new(&options(dimensions)).map_err(|e| e.to_string())?;
        let text = path.to_str().ok_or("a path that is not UTF-8")?;
        index.load(text).map_err(|e| e.to_string())?;
        if index.size() != members.len() || index.dimensions() != dimensions {
            return Err(format!(
                "the graph holds {} vectors, its members say {}",
                index.size(),
                members.len()
            ));
        }
        // As many and every one held: the same ids (a graph of equal size saved by another
        // process, or before a crash, holds others).
        if let Some(id) = members.iter().find(|id| !index.contains(**id as u64)) {
            return Err(format!("member {id} is not in the graph"));
        }
        index
            .reserve_capacity_and_threads(index.capacity().max(1024), SEARCH_CONTEXTS)
            .map_err(|e| e.to_string())?;
        Ok(Self {
            dimensions,
            index,
            members: RwLock::new(members),
        })
    }

    /// Saves the index at `path` (and its members beside it, `path.ids`), each written whole
    /// and then renamed into place: a crash leaves the old files or files [`Approximate::load`]
    /// refuses, never one it trusts wrongly.
    pub fn save(&self, path: &Path) -> Result<(), NearestError> {
        let file_error = |p: &Path| {
            let p = p.to_path_buf();
            move |source| NearestError::File { path: p, source }
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(file_error(dir))?;
        }
        // Held for reading: no add or removal between the graph and its members.
        let members = self.members.read().unwrap_or_else(|p| p.into_inner());
        // Names of this save alone: two processes saving at once never swap halves.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let unique = format!(
            ".{}-{}.tmp",
            std::process::id(),
            SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let graph_tmp = with_suffix(path, &unique);
        let text = graph_tmp
            .to_str()
            .ok_or_else(|| failed("a path that is not UTF-8"))?;
        self.index.save(text).map_err(failed)?;
        let graph_len = std::fs::metadata(&graph_tmp)
            .map_err(file_error(&graph_tmp))?
            .len();
        let ids_path = members_path(path);
        let ids_tmp = with_suffix(&ids_path, &unique);
        let mut out = Vec::with_capacity(28 + members.len() * 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.dimensions as u32).to_le_bytes());
        out.extend_from_slice(&(members.len() as u64).to_le_bytes());
        out.extend_from_slice(&graph_len.to_le_bytes());
        let mut sorted: Vec<i64> = members.iter().copied().collect();
        sorted.sort_unstable();
        for id in sorted {
            out.extend_from_slice(&id.to_le_bytes());
        }
        let mut file = std::fs::File::create(&ids_tmp).map_err(file_error(&ids_tmp))?;
        file.write_all(&out).map_err(file_error(&ids_tmp))?;
        file.sync_all().map_err(file_error(&ids_tmp))?;
        std::fs::File::open(&graph_tmp)
            .and_then(|f| f.sync_all())
            .map_err(file_error(&graph_tmp))?;
        std::fs::rename(&ids_tmp, &ids_path).map_err(file_error(&ids_path))?;
        std::fs::rename(&graph_tmp, path).map_err(file_error(path))?;
        Ok(())
    }

    /// Weighs `expansion` candidates in each search from now on (`EXPANSION_SEARCH` unless
    /// changed; never fewer than the depth asked): wider finds more of the true nearest and
    /// takes longer. For measuring what a width gives; the library searches at the default.
    pub fn set_search_expansion(&self, expansion: usize) {
        self.index.change_expansion_search(expansion);
    }

    /// Bytes of memory the index holds.
    pub fn memory(&self) -> usize {
        self.index.memory_usage()
    }

    /// Room for `more` vectors beyond those held (doubling, so adds one at a time stay cheap).
    fn make_room(&self, held: usize, more: usize) -> Result<(), NearestError> {
        let need = held + more;
        let capacity = self.index.capacity();
        if need > capacity {
            let grown = need.max(capacity * 2).max(1024);
            self.index
                .reserve_capacity_and_threads(grown, SEARCH_CONTEXTS)
                .map_err(failed)?;
        }
        Ok(())
    }
}

impl Nearest for Approximate {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn add(&self, vectors: &[(i64, Vec<f32>)]) -> Result<(), NearestError> {
        for (_, v) in vectors {
            check_dimensions(self.dimensions, v)?;
        }
        let mut members = self.members.write().unwrap_or_else(|p| p.into_inner());
        // The last vector given for an id is the one kept.
        let mut last: std::collections::HashMap<i64, &[f32]> = Default::default();
        for (id, v) in vectors {
            last.insert(*id, v);
        }
        for id in last.keys() {
            if members.contains(id) {
                self.index.remove(*id as u64).map_err(failed)?;
                members.remove(id);
            }
        }
        self.make_room(members.len(), last.len())?;
        let batch: Vec<(i64, &[f32])> = last.into_iter().collect();
        let threads = match batch.len() < PARALLEL_FROM {
            true => 1,
            false => threads().min(batch.len()),
        };
        let index = &self.index;
        let results: Vec<Result<(), NearestError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let batch = &batch;
                    s.spawn(move || {
                        for (id, v) in batch.iter().skip(t).step_by(threads) {
                            index.add(*id as u64, &eight_bit(v)).map_err(failed)?;
                        }
                        Ok(())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(failed("a thread adding vectors panicked")))
                })
                .collect()
        });
        // Members are what the graph holds, whatever failed.
        for (id, _) in &batch {
            if self.index.contains(*id as u64) {
                members.insert(*id);
            }
        }
        results.into_iter().collect()
    }

    fn remove(&self, ids: &[i64]) -> Result<(), NearestError> {
        let mut members = self.members.write().unwrap_or_else(|p| p.into_inner());
        for id in ids {
            if members.remove(id) {
                self.index.remove(*id as u64).map_err(failed)?;
            }
        }
        Ok(())
    }

    fn nearest(&self, query: &[f32], depth: usize) -> Result<Vec<Neighbour>, NearestError> {
        check_dimensions(self.dimensions, query)?;
        let members = self.members.read().unwrap_or_else(|p| p.into_inner());
        if members.is_empty() || depth == 0 {
            return Ok(Vec::new());
        }
        let found = self
            .index
            .search(&eight_bit(query), depth)
            .map_err(failed)?;
        let mut found: Vec<Neighbour> = found
            .keys
            .iter()
            .zip(&found.distances)
            .map(|(key, distance)| Neighbour {
                id: *key as i64,
                similarity: 1.0 - distance,
            })
            .filter(|n| members.contains(&n.id))
            .collect();
        best_first(&mut found);
        Ok(found)
    }

    fn ids(&self) -> Vec<i64> {
        let members = self.members.read().unwrap_or_else(|p| p.into_inner());
        let mut ids: Vec<i64> = members.iter().copied().collect();
        ids.sort_unstable();
        ids
    }

    fn len(&self) -> usize {
        self.members.read().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph read back from its file searches and adds as widely as a new one: usearch keeps
    /// the expansions in memory, not in the file.
    #[test]
    fn a_loaded_graph_keeps_its_expansions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph");
        let graph = Approximate::new(4).unwrap();
        graph.add(&[(1, vec![1.0, 0.0, 0.0, 0.0])]).unwrap();
        graph.save(&path).unwrap();
        let loaded = Approximate::load(&path, 4).unwrap();
        assert_eq!(
            (
                loaded.index.expansion_search(),
                loaded.index.expansion_add()
            ),
            (EXPANSION_SEARCH, EXPANSION_ADD)
        );
    }
}
