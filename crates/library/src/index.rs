//! The seam between the library (which lists, reads, cuts and embeds files, and fuses rankings)
//! and the database that keeps and ranks what it read: this machine's SQLite file (FTS5 with
//! BM25) or a server a team shares (PostgreSQL's `tsvector`, in `research-postgres`). Both are
//! held to one suite, [`crate::conformance`], so the ranking a person sees does not depend on
//! where the index lives.
//!
//! An index is one machine's: its folders are paths on that machine, and reading a hit's file
//! happens there. A shared server keeps each machine's folders apart, so one machine's re-index
//! never drops files another machine has and it cannot see.

use research_cite::Citation;
use research_store::StoreError;
use serde::{Deserialize, Serialize};

use crate::LibraryFolder;

/// What a reference manager says of a library file: who wrote it, when and where it appeared,
/// so it is cited as the paper it is rather than by its file name. Kept by the file's path, apart
/// from what was read of the file, so re-indexing it keeps its record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReference {
    /// Its key in the reference manager's export (BibTeX's citation key, CSL-JSON's `id`).
    pub key: String,
    /// Its title there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its record.
    #[serde(default)]
    pub citation: Citation,
    /// The export it was read from (a path on this machine).
    pub export: String,
}

/// What the index knows of a file, to tell whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownFile {
    /// The index's id of the file.
    pub id: i64,
    /// Modification time in ns since the epoch when it was last read.
    pub mtime_ns: i64,
    /// Size in bytes when it was last read.
    pub size: i64,
    /// SHA-256 of its bytes (hex; empty when it could not be read).
    pub sha256: String,
}

/// A file read and cut into passages, to be indexed (replacing what was indexed of it).
#[derive(Debug, Clone)]
pub struct ReadFile<'a> {
    /// The library folder it is in.
    pub root: &'a str,
    /// Its absolute path.
    pub path: &'a str,
    /// Modification time in ns since the epoch.
    pub mtime_ns: i64,
    /// Size in bytes.
    pub size: i64,
    /// SHA-256 of its bytes (hex).
    pub sha256: &'a str,
    /// What it was read as (`html`, `pdf`, `text`).
    pub kind: &'a str,
    /// Its title, when it has one.
    pub title: Option<&'a str>,
    /// Its passages in order, CJK characters spaced apart ([`crate::segment_cjk`]).
    pub passages: &'a [String],
    /// When it was read (ms since the epoch).
    pub at_ms: i64,
}

/// A passage a search found, with its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundPassage {
    /// The file's absolute path.
    pub path: String,
    /// The file's title.
    pub title: Option<String>,
    /// The passage as indexed (CJK characters spaced apart).
    pub text: String,
    /// What a reference manager said of the file, when it said anything.
    pub reference: Option<FileReference>,
}

/// How many passages and vectors an index holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passages.
    pub passages: usize,
    /// Vectors from any model.
    pub vectors: usize,
    /// Vectors from the model asked about.
    pub vectors_of_model: usize,
}

/// How many vectors of a model an index holds and the sum of their passage ids: as ids are never
/// used again, a tally that moved means vectors came or went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorTally {
    /// Vectors.
    pub count: u64,
    /// The sum of their passages' ids (wrapping).
    pub id_sum: i64,
}

impl VectorTally {
    /// The tally of these ids.
    pub fn of(ids: &[i64]) -> Self {
        Self {
            count: ids.len() as u64,
            id_sum: ids.iter().fold(0i64, |sum, id| sum.wrapping_add(*id)),
        }
    }
}

/// Where the library keeps what it read. Synchronous, as the library is: indexing runs on a
/// blocking thread and a search is one call.
///
/// Ids of files and passages are the index's own; a passage's id is the key of its vector, and a
/// passage deleted takes its vector with it in the same write. A passage id is never given to
/// another passage, even after its passage is deleted: an index of vectors kept elsewhere (the
/// approximate index on this machine) stays in step by learning which ids came and went. Vectors are stored as the library gives them: little-endian `f32`s of unit
/// length.
pub trait LibraryIndex: Send + Sync {
    /// Adds a folder (nothing when it is there already).
    fn add_root(&self, root: &str, at_ms: i64) -> Result<(), StoreError>;
    /// Removes a folder with every file, passage and vector indexed from it; whether it was
    /// there.
    fn remove_root(&self, root: &str) -> Result<bool, StoreError>;
    /// The folders, by path.
    fn roots(&self) -> Result<Vec<String>, StoreError>;
    /// The folders with how many files were indexed and how many could not be read, by path.
    fn folders(&self) -> Result<Vec<LibraryFolder>, StoreError>;

    /// A file the index knows (read or failed), by path.
    fn file(&self, path: &str) -> Result<Option<KnownFile>, StoreError>;
    /// The files of a folder: (id, path).
    fn files_of(&self, root: &str) -> Result<Vec<(i64, String)>, StoreError>;
    /// Drops files with their passages and vectors.
    fn drop_files(&self, ids: &[i64]) -> Result<(), StoreError>;
    /// Records that a file's time or size changed but its bytes did not.
    fn touch_file(&self, id: i64, mtime_ns: i64, size: i64) -> Result<(), StoreError>;
    /// Indexes a file read, in one write: what was indexed of its path before (passages,
    /// vectors, a failure) goes. Returns the file's id.
    fn put_file(&self, file: &ReadFile<'_>) -> Result<i64, StoreError>;
    /// Records that a file could not be read, and why (its passages, if any, go).
    #[allow(clippy::too_many_arguments)]
    fn put_failure(
        &self,
        root: &str,
        path: &str,
        mtime_ns: i64,
        size: i64,
        why: &str,
        at_ms: i64,
    ) -> Result<(), StoreError>;
    /// The kind of a file indexed without error (`None`: not a readable file of the library).
    fn readable(&self, path: &str) -> Result<Option<String>, StoreError>;

    /// Keeps what a reference manager says of the file at `path` (indexed or not yet), in
    /// place of what it said before; whether it said something before.
    fn put_reference(
        &self,
        path: &str,
        reference: &FileReference,
        at_ms: i64,
    ) -> Result<bool, StoreError>;
    /// What a reference manager said of the file at `path`.
    fn reference(&self, path: &str) -> Result<Option<FileReference>, StoreError>;

    /// Passages matching `words` by their stems, best first, at most `depth`: passages with
    /// every word when `all`, else with any. A word is letters and digits only
    /// ([`crate::query_words`]); a CJK word is matched as the phrase of its characters anywhere
    /// in a sentence. When not `all`, `words` come rarest first (as
    /// [`LibraryIndex::passages_with`] counts them), and an index may rank the passages with the
    /// rarest word first, as BM25's weighing of a rare word does, reading no further down the
    /// list than `depth` passages need.
    fn keyword(&self, words: &[String], all: bool, depth: usize) -> Result<Vec<i64>, StoreError>;
    /// How many passages each of `words` matches (as [`LibraryIndex::keyword`] matches it), in
    /// the order asked, each counted no further than `at_most`: a word's cost to a search, read
    /// from as few postings as that. An index whose statistics already show a word in at least
    /// `at_most` passages may answer `at_most` from them (a team's server keeps them across
    /// every machine's passages). One call for all of a question's words: on a server each call
    /// is a round trip.
    fn passages_with(&self, words: &[String], at_most: usize) -> Result<Vec<usize>, StoreError>;
    /// Each passage's text around `words` (about 40 words of it, as indexed), for the hits found
    /// by them, as (id, snippet); a passage gone or saying none of them is left out. Asked only
    /// of the hits shown, all at once.
    fn snippets(&self, ids: &[i64], words: &[String]) -> Result<Vec<(i64, String)>, StoreError>;
    /// The passages of `ids` with their files (and what a reference manager said of each), as
    /// (id, passage) in any order; a passage gone is left out. A search reads its candidates
    /// with one call, not one each.
    fn passages(&self, ids: &[i64]) -> Result<Vec<(i64, FoundPassage)>, StoreError>;

    /// Up to `limit` passages (id, indexed text) with no vector from `model`, of one file or
    /// all, whose ids are above `after`, by id: a pass over a million passages reads them a
    /// page at a time, not all at once.
    fn pending_vectors(
        &self,
        model: &str,
        file: Option<i64>,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError>;
    /// Stores vectors of `model` (replacing another model's); a passage deleted since is skipped.
    fn store_vectors(&self, model: &str, vectors: &[(i64, Vec<u8>)]) -> Result<(), StoreError>;
    /// What tells these records apart from another copy of them under the same address. A
    /// database restored from a dump, or whose tables were made again, gives the ids this
    /// index gave before to other passages, so a vector index saved from the records as they
    /// were must not serve them: it is saved under this name. Empty where the records cannot
    /// go back under the same address unseen (a file: its restore removes the saved indexes).
    fn incarnation(&self) -> Result<String, StoreError>;
    /// The tally of `model`'s vectors (cheap: asked at searches, now and then).
    fn vector_tally(&self, model: &str) -> Result<VectorTally, StoreError>;
    /// The passages with a vector from `model`, ascending.
    fn vector_ids(&self, model: &str) -> Result<Vec<i64>, StoreError>;
    /// The vectors from `model` of these passages (those that have one): (passage id, bytes),
    /// by id.
    fn vectors_of(&self, model: &str, ids: &[i64]) -> Result<Vec<(i64, Vec<u8>)>, StoreError>;
    /// How many passages and vectors are stored (`model`'s among them).
    fn counts(&self, model: Option<&str>) -> Result<Counts, StoreError>;
}
