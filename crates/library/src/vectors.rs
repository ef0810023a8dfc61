//! The library's vectors as a search reads them, kept in step with the index that stores them.
//!
//! The index (SQLite here, PostgreSQL for a team) keeps every vector and is the truth; what a
//! search scans is a copy in memory — every vector for a library under
//! [`research_nearest::APPROXIMATE_FROM`] passages, or an approximate graph index above it,
//! saved in a file on this machine so a million passages are not read again at every start.
//! The copy learns what changed by comparing the ids it holds with the index's (passage ids
//! are never used again), reading only the vectors it lacks.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use research_nearest::{Approximate, Exact, Nearest, Neighbour, APPROXIMATE_FROM, CANDIDATES};

use crate::{LibraryError, LibraryIndex, VectorTally};

/// Passages embedded in one call and committed together.
pub(crate) const EMBED_BATCH: usize = 32;
/// Passages without a vector read from the index at once by an indexing pass (their texts are
/// held while they are embedded).
pub(crate) const PENDING_PAGE: usize = 4_096;
/// Vectors read from the index at once while the copy catches up.
const READ_BATCH: usize = 1024;
/// Vectors a search adds to the approximate index itself before it answers. More (a graph
/// built from nothing, another process's long pass) are added on a thread of their own while
/// searches rank by keywords, so no search or run waits minutes for the index.
const IN_BACKGROUND_FROM: usize = 5_000;

/// A vector as every index stores it: little-endian `f32`s.
pub(crate) fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector read back ([`to_bytes`]'s inverse): for a tool reading a library's vectors
/// straight from its database (the graph bench).
pub fn vector_from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The library's vectors as searches read them: one per database in a process, shared by every
/// [`crate::Library`] made on it ([`crate::Library::with_vector_search`]), so the copy is read
/// once, not at every search.
pub struct VectorSearch {
    /// Where the approximate index is saved; `None`: it is built in memory at each start.
    folder: Option<PathBuf>,
    approximate_from: usize,
    in_background_from: usize,
    recheck: std::time::Duration,
    copy: Mutex<Option<Copy>>,
    /// Whether a thread is bringing the copy in step (it holds the copy meanwhile).
    building: AtomicBool,
}

struct Copy {
    model: String,
    /// The records' incarnation when the copy was made ([`LibraryIndex::incarnation`]): the
    /// saved file is named by it.
    incarnation: String,
    held: Held,
    /// Whether passages may have gone since the ids were compared.
    in_step: bool,
    /// Vectors added or removed since it was saved.
    unsaved: bool,
    /// The index's tally of the model's vectors when last compared (or as this process moved
    /// it since).
    tally: VectorTally,
    /// When the tally was last compared.
    checked: Instant,
}

/// The copy a search reads, and whether it is the approximate index (whose candidates are
/// re-scored).
type Searched = (Arc<dyn Nearest>, bool);

/// How often a copy in step asks the index's tally whether another process indexed meanwhile.
const RECHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// Clears the building flag when the thread that set it ends, whether it ends well or not.
struct Building<'a>(&'a AtomicBool);

impl Drop for Building<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Saves the approximate index (logged when it cannot be: it is rebuilt at the next start).
fn save(graph: &Approximate, file: &std::path::Path) {
    if let Err(e) = graph.save(file) {
        tracing::warn!(
            error = %e, file = %file.display(),
            "the approximate vector index was not saved (it is rebuilt at the next start)"
        );
    }
}

/// Which index holds the copy.
enum Held {
    Exact(Arc<Exact>),
    Approximate(Arc<Approximate>),
}

impl Held {
    fn nearest(&self) -> Arc<dyn Nearest> {
        match self {
            Held::Exact(e) => e.clone(),
            Held::Approximate(a) => a.clone(),
        }
    }

    fn is_approximate(&self) -> bool {
        matches!(self, Held::Approximate(_))
    }
}

impl std::fmt::Debug for VectorSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSearch")
            .field("folder", &self.folder)
            .field("approximate_from", &self.approximate_from)
            .finish_non_exhaustive()
    }
}

impl Default for VectorSearch {
    fn default() -> Self {
        Self::in_memory()
    }
}

impl VectorSearch {
    /// A copy kept in memory only (built again in each process).
    pub fn in_memory() -> Self {
        Self {
            folder: None,
            approximate_from: APPROXIMATE_FROM,
            in_background_from: IN_BACKGROUND_FROM,
            recheck: RECHECK,
            copy: Mutex::new(None),
            building: Default::default(),
        }
    }

    /// A copy whose approximate index is saved in `folder` (this machine's, for this database
    /// alone: a cache, rebuilt from the index whenever it is missing or cannot be trusted).
    pub fn kept_in(folder: PathBuf) -> Self {
        Self {
            folder: Some(folder),
            ..Self::in_memory()
        }
    }

    /// Searches by the approximate index from `count` vectors (tests and benchmarks; the
    /// library's own threshold is [`APPROXIMATE_FROM`]).
    pub fn approximate_from(mut self, count: usize) -> Self {
        self.approximate_from = count;
        self
    }

    /// Brings the approximate index in step on a thread of its own when it lacks `count`
    /// vectors or more (tests; the library's own number is 5,000).
    pub fn in_background_from(mut self, count: usize) -> Self {
        self.in_background_from = count;
        self
    }

    /// Asks the index whether another process indexed at most this often (tests; the
    /// library's own interval is ten seconds).
    pub fn recheck_every(mut self, every: std::time::Duration) -> Self {
        self.recheck = every;
        self
    }

    /// Whether the approximate index is being brought in step (searches rank by keywords
    /// meanwhile).
    pub fn building(&self) -> bool {
        self.building.load(Ordering::SeqCst)
    }

    /// The file the approximate index of `model` is saved in, for records of this
    /// `incarnation` (an index saved before a restore is never loaded after it).
    fn file_for(&self, model: &str, incarnation: &str) -> Option<PathBuf> {
        let name = file_stem(model);
        let name = match incarnation {
            "" => name,
            _ => format!("{name}.{incarnation}"),
        };
        self.folder
            .as_ref()
            .map(|f| f.join(format!("{name}.usearch")))
    }

    /// Saves `graph` as the index of `model` for records of `incarnation`, then removes the
    /// files saved for `model`'s earlier incarnations: after a restore they can never be loaded
    /// again, and each is as large as the library's vectors.
    fn save_for(&self, graph: &Approximate, model: &str, incarnation: &str) {
        let Some(file) = self.file_for(model, incarnation) else {
            return;
        };
        save(graph, &file);
        let Some(folder) = &self.folder else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        let stem = file_stem(model);
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let Some(earlier) = name
                .to_str()
                .and_then(|n| n.strip_prefix(stem.as_str()))
                .and_then(|n| n.strip_suffix(".usearch"))
            else {
                continue;
            };
            // `model.usearch` or `model.<incarnation>.usearch`; a longer model's name that
            // begins with this one's is not an incarnation (incarnations are digits and dashes).
            let of_this_model = earlier.is_empty()
                || earlier.strip_prefix('.').is_some_and(|i| {
                    !i.is_empty() && i.chars().all(|c| c.is_ascii_digit() || c == '-')
                });
            if of_this_model && path != file {
                if let Err(e) = std::fs::remove_file(&path) {
                    tracing::warn!(error = %e, file = %path.display(), folder = %folder.display(),
                        "a vector index saved for records since restored was not removed");
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Copy>> {
        self.copy.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Up to `depth` passages nearest `question` with their similarities, best first, from the
    /// vectors of `model` in `index` (the copy read or caught up first).
    pub(crate) fn nearest(
        self: &Arc<Self>,
        index: &Arc<dyn LibraryIndex>,
        model: &str,
        question: &[f32],
        depth: usize,
    ) -> Result<Vec<Neighbour>, LibraryError> {
        let (nearest, approximate) = self.ready(index, model, question.len(), false)?;
        if !approximate {
            return Ok(nearest.nearest(question, depth)?);
        }
        // The graph compares 8-bit vectors: re-score its candidates with the stored ones.
        let candidates = nearest.nearest(question, depth * CANDIDATES)?;
        let ids: Vec<i64> = candidates.iter().map(|n| n.id).collect();
        let mut found: Vec<Neighbour> = index
            .vectors_of(model, &ids)?
            .into_iter()
            .map(|(id, bytes)| Neighbour {
                id,
                similarity: research_embed::similarity(&vector_from_bytes(&bytes), question),
            })
            .collect();
        found.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then(a.id.cmp(&b.id)));
        found.truncate(depth);
        Ok(found)
    }

    /// The copy of `model`'s vectors, read or caught up with the index first. A catch-up of
    /// many vectors runs on its own thread: a search (`wait` false) does not wait for it and is
    /// told [`LibraryError::MeaningNotReady`]; an indexing pass (`wait`) waits for it without
    /// holding the copy, so searches go on meanwhile.
    fn ready(
        self: &Arc<Self>,
        index: &Arc<dyn LibraryIndex>,
        model: &str,
        dimensions: usize,
        wait: bool,
    ) -> Result<Searched, LibraryError> {
        loop {
            while self.building() {
                if !wait {
                    return Err(LibraryError::MeaningNotReady);
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            if let Some(ready) = self.ready_now(index, model, dimensions)? {
                return Ok(ready);
            }
            if !wait {
                return Err(LibraryError::MeaningNotReady);
            }
        }
    }

    /// The copy, caught up here when little is missing; `None` when a thread of its own was
    /// started to catch up (or one is running).
    fn ready_now(
        self: &Arc<Self>,
        index: &Arc<dyn LibraryIndex>,
        model: &str,
        dimensions: usize,
    ) -> Result<Option<Searched>, LibraryError> {
        let mut copy = self.lock();
        if self.building() {
            return Ok(None);
        }
        // Read afresh for another model, or when a scanned copy has grown past the size at
        // which the approximate index takes over.
        let usable = |c: &Copy| {
            c.model == model
                && c.held.nearest().dimensions() == dimensions
                && (c.held.is_approximate() || c.held.nearest().len() < self.approximate_from)
        };
        if let Some(c) = copy.as_mut().filter(|c| usable(c) && c.in_step) {
            // Another process (the command line beside the app) may have indexed since: its
            // tally, looked at now and then, says so.
            if c.checked.elapsed() < self.recheck {
                return Ok(Some((c.held.nearest(), c.held.is_approximate())));
            }
            // The records restored meanwhile: the ids the copy holds may be other passages',
            // whatever the tally says (the same ids may have come back).
            let restored = index.incarnation()? != c.incarnation;
            let tally = index.vector_tally(model)?;
            c.checked = Instant::now();
            if tally == c.tally && !restored {
                return Ok(Some((c.held.nearest(), c.held.is_approximate())));
            }
            c.in_step = false;
            if restored {
                *copy = None;
            }
        }
        let stored = index.vector_ids(model)?;
        let mut made = match copy.take().filter(|c| usable(c)) {
            Some(c) => c,
            None => {
                let incarnation = index.incarnation()?;
                Copy {
                    model: model.to_string(),
                    held: match stored.len() >= self.approximate_from {
                        false => Held::Exact(Arc::new(Exact::new(dimensions))),
                        true => Held::Approximate(Arc::new(
                            match self
                                .file_for(model, &incarnation)
                                .and_then(|f| Approximate::load(&f, dimensions))
                            {
                                Some(loaded) => loaded,
                                None => Approximate::new(dimensions)?,
                            },
                        )),
                    },
                    in_step: false,
                    unsaved: false,
                    tally: VectorTally::default(),
                    checked: Instant::now(),
                    incarnation,
                }
            }
        };
        let (gone, new) = difference(&made.held.nearest().ids(), &stored);
        made.tally = VectorTally::of(&stored);
        if made.held.is_approximate() && new.len() >= self.in_background_from {
            self.building.store(true, Ordering::SeqCst);
            drop(copy);
            let (me, index) = (self.clone(), index.clone());
            std::thread::spawn(move || {
                let _building = Building(&me.building);
                match me.catch_up(&mut made, index.as_ref(), gone, new) {
                    Ok(()) => {
                        if let Held::Approximate(graph) = &made.held {
                            me.save_for(graph, &made.model, &made.incarnation);
                            made.unsaved = false;
                        }
                        // Vectors stored while it ran are read at the next search.
                        made.in_step = false;
                        *me.lock() = Some(made);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "the vector index was not brought in step")
                    }
                }
            });
            return Ok(None);
        }
        self.catch_up(&mut made, index.as_ref(), gone, new)?;
        let out = (made.held.nearest(), made.held.is_approximate());
        *copy = Some(made);
        Ok(Some(out))
    }

    /// Removes from the copy the ids `gone` and reads the vectors of `new` from the index.
    fn catch_up(
        &self,
        copy: &mut Copy,
        index: &dyn LibraryIndex,
        gone: Vec<i64>,
        new: Vec<i64>,
    ) -> Result<(), LibraryError> {
        let nearest = copy.held.nearest();
        nearest.remove(&gone)?;
        let dimensions = nearest.dimensions();
        for batch in new.chunks(READ_BATCH) {
            let rows: Vec<(i64, Vec<f32>)> = index
                .vectors_of(&copy.model, batch)?
                .into_iter()
                .map(|(id, bytes)| (id, vector_from_bytes(&bytes)))
                .filter(|(id, v)| {
                    let fits = v.len() == dimensions;
                    if !fits {
                        tracing::warn!(
                            passage = id,
                            "a stored vector of the wrong length is ignored"
                        );
                    }
                    fits
                })
                .collect();
            nearest.add(&rows)?;
        }
        copy.in_step = true;
        copy.checked = Instant::now();
        copy.unsaved |= !gone.is_empty() || !new.is_empty();
        Ok(())
    }

    /// Brings the copy of `model`'s vectors in step with `index` and saves it (the end of an
    /// indexing pass).
    pub(crate) fn prepare(
        self: &Arc<Self>,
        index: &Arc<dyn LibraryIndex>,
        model: &str,
        dimensions: usize,
    ) -> Result<(), LibraryError> {
        // A small library's scan is read at its first search, not by a pass that may end the
        // process (the command line's `library add`).
        let loaded = self.lock().as_ref().is_some_and(|c| c.model == model);
        if !loaded && (index.vector_tally(model)?.count as usize) < self.approximate_from {
            return Ok(());
        }
        self.ready(index, model, dimensions, true)?;
        self.keep();
        Ok(())
    }

    /// Vectors this process just stored: added to the copy when it is read (else it reads
    /// them when it is).
    pub(crate) fn added(&self, model: &str, vectors: &[(i64, Vec<f32>)]) {
        let mut copy = self.lock();
        let Some(made) = copy.as_mut().filter(|c| c.model == model) else {
            return;
        };
        match made.held.nearest().add(vectors) {
            Ok(()) => {
                made.unsaved = true;
                // The index's tally moved by these, not by another process.
                for (id, _) in vectors {
                    made.tally.count += 1;
                    made.tally.id_sum = made.tally.id_sum.wrapping_add(*id);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the vectors are read again at the next search");
                *copy = None;
            }
        }
    }

    /// Passages may have gone (a file changed or was dropped, a folder removed): the next
    /// search compares ids first.
    pub(crate) fn passages_changed(&self) {
        if let Some(copy) = self.lock().as_mut() {
            copy.in_step = false;
        }
    }

    /// Saves the approximate index when it changed (after an indexing pass: a process killed
    /// later loses nothing it has to read again).
    pub(crate) fn keep(&self) {
        // Written without holding the copy: searches go on (the graph is only read).
        let graph = {
            let mut copy = self.lock();
            match copy.as_mut() {
                Some(made) if made.unsaved && self.folder.is_some() => match &made.held {
                    Held::Approximate(graph) => {
                        made.unsaved = false;
                        Some((graph.clone(), made.model.clone(), made.incarnation.clone()))
                    }
                    _ => None,
                },
                _ => None,
            }
        };
        if let Some((graph, model, incarnation)) = graph {
            self.save_for(&graph, &model, &incarnation);
        }
    }

    /// How many vectors the copy holds and whether it is the approximate index (`None` before a
    /// search has read it).
    pub fn held(&self) -> Option<(usize, bool)> {
        self.lock()
            .as_ref()
            .map(|c| (c.held.nearest().len(), c.held.is_approximate()))
    }
}

/// `model` as a file name: what a file system takes of it.
fn file_stem(model: &str) -> String {
    model
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// What is in `held` and not in `stored`, and what is in `stored` and not in `held` (both
/// ascending).
fn difference(held: &[i64], stored: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let (mut gone, mut new) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < held.len() || j < stored.len() {
        match (held.get(i), stored.get(j)) {
            (Some(h), Some(s)) if h == s => {
                i += 1;
                j += 1;
            }
            (Some(h), Some(s)) if h < s => {
                gone.push(*h);
                i += 1;
            }
            (Some(h), None) => {
                gone.push(*h);
                i += 1;
            }
            (_, Some(s)) => {
                new.push(*s);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (gone, new)
}

#[cfg(test)]
mod tests {
    use super::difference;

    #[test]
    fn the_difference_of_two_id_lists() {
        assert_eq!(
            difference(&[1, 2, 4, 7], &[2, 3, 4, 8, 9]),
            (vec![1, 7], vec![3, 8, 9])
        );
        assert_eq!(difference(&[], &[1]), (vec![], vec![1]));
        assert_eq!(difference(&[1], &[]), (vec![1], vec![]));
    }
}
