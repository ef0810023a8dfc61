//! The user's library: folders of their own files, indexed (SQLite FTS5 with BM25 on this
//! machine, or PostgreSQL's full-text search on a server a team shares, behind [`LibraryIndex`])
//! and searched through the same `SearchProvider` seam as the web, so a research run can cite a
//! local PDF exactly as it cites a web page. It works offline with nothing configured.
//!
//! Indexing is incremental: a file whose size and modification time are unchanged is not read
//! again; a changed file whose content hash is unchanged is not extracted again; files that
//! disappeared are dropped. Files that cannot be read are counted and listed, never fatal.
//! Only regular files are read (a FIFO would block forever, a link may loop), never more than
//! [`MAX_FILE_BYTES`] of one, and HTML and PDF are parsed by the library's
//! [`research_fetch::Extractor`], a limited child process in production.
//!
//! Ranking is BM25 alone, or hybrid when an embedding model is given
//! ([`Library::with_embedder`]): each passage also gets a vector (only passages without one are
//! embedded, so re-indexing stays incremental), a search takes the passages nearest the
//! question's vector as a second list, and the two lists are fused by rank
//! ([`fuse_by_rank`]). A question then finds a passage that answers it in other words. Which
//! ranking a search used is part of its answer ([`Ranked`], [`Ranking`]), for the report's
//! method section.
#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use research_fetch::{ExtractError, Extracted, Extractor};
use research_search::Hit;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

#[cfg(feature = "conformance")]
pub mod conformance;
mod files;
mod fusion;
mod index;
mod references;
mod search;
mod sqlite;
mod text;
mod vectors;
pub use files::read_file;
use files::{
    content_type_of, document, file_url, list_files, read_regular, special_kind, too_large, Listing,
};
pub use fusion::{fuse_by_rank, RRF_K};
pub use index::{
    Counts, FileReference, FoundPassage, KnownFile, LibraryIndex, ReadFile, VectorTally,
};
pub use references::ImportReport;
pub use research_embed::Embedder;
pub use research_nearest::{Neighbour, APPROXIMATE_FROM};
pub use search::{Nearness, COMMON_WORD_PASSAGES};
pub use sqlite::SqliteIndex;
use text::unsegment_cjk;
pub use text::{is_cjk, passages, query_words, segment_cjk};
pub use vectors::{vector_from_bytes, VectorSearch};

/// Files larger than this are skipped (a library is documents, not disk images).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Characters per indexed passage: long enough to quote, short enough to rank well.
pub const PASSAGE_CHARS: usize = 1500;
pub(crate) const EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "rst", "org", "html", "htm", "xhtml", "pdf",
];

/// Why a library operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    /// The folder does not exist or is not a folder.
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
    /// The folder is not in the library.
    #[error("{0} is not in the library")]
    NotInLibrary(PathBuf),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] research_store::StoreError),
    /// The embedding model failed.
    #[error(transparent)]
    Embed(#[from] research_embed::EmbedError),
    /// The vectors could not be searched.
    #[error(transparent)]
    Nearest(#[from] research_nearest::NearestError),
    /// A reference manager's export could not be read.
    #[error("{path} could not be added as a reference manager's export: {why}")]
    Import {
        /// The export.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The approximate vector index is being built or brought in step on its own thread; this
    /// search ranks by keywords.
    #[error(
        "the library's index by meaning is being brought up to date; this search ranks by keywords"
    )]
    MeaningNotReady,
}

/// Counts of one indexing pass.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct IndexReport {
    /// Files this pass looks at (all of them, known before the first is read, so that progress
    /// can be shown as a fraction).
    pub total: usize,
    /// Files looked at.
    pub scanned: usize,
    /// Files read and indexed (new or changed).
    pub indexed: usize,
    /// Files unchanged since the last pass.
    pub unchanged: usize,
    /// Files that could not be read, with why.
    pub failed: Vec<(String, String)>,
    /// Files dropped because they are gone.
    pub removed: usize,
}

impl IndexReport {
    /// Adds what another pass over other files did (its `total` is the caller's to count: a
    /// pass over several folders knows it before the first is read).
    pub fn add(&mut self, other: &IndexReport) {
        self.scanned += other.scanned;
        self.indexed += other.indexed;
        self.unchanged += other.unchanged;
        self.removed += other.removed;
        self.failed.extend(other.failed.iter().cloned());
    }
}

/// A folder in the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LibraryFolder {
    /// Absolute path.
    pub path: String,
    /// Files indexed.
    pub files: usize,
    /// Files that could not be read.
    pub failed: usize,
}

/// How a search ranked the library's passages (the report's method section says which).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ranking {
    /// Keywords alone (BM25): no embedding model is installed, it was not made for the
    /// question's language, or it failed on this question.
    Bm25,
    /// Keywords (BM25) and meaning (the embedding model's vectors), fused by rank.
    Hybrid {
        /// The embedding model.
        model: String,
    },
}

impl std::fmt::Display for Ranking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ranking::Bm25 => write!(f, "keyword ranking (BM25) alone"),
            Ranking::Hybrid { model } => write!(
                f,
                "hybrid ranking: keywords (BM25) and the {model} embedding model's vectors, fused by rank"
            ),
        }
    }
}

/// A search's hits and how they were ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The best passage per file, best first.
    pub hits: Vec<Hit>,
    /// How.
    pub ranking: Ranking,
}

/// Vector-only hits below this cosine similarity to the question are dropped: the nearest
/// passages of a library that has nothing on the question are still the nearest.
pub const MIN_SIMILARITY: f32 = 0.2;

/// The library, in the app's database.
pub struct Library {
    index: Arc<dyn LibraryIndex>,
    extractor: Extractor,
    embedder: Option<Arc<dyn Embedder>>,
    /// The stored vectors as searches read them (shared by the libraries made on one database).
    vectors: Arc<VectorSearch>,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library").finish_non_exhaustive()
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Library {
    /// Opens the library in this machine's SQLite database at `db`.
    pub fn open(db: &Path) -> Result<Self, LibraryError> {
        Ok(Self::on(Arc::new(SqliteIndex::open(db)?)))
    }

    /// The library over `index` (a shared server's, or this machine's file).
    pub fn on(index: Arc<dyn LibraryIndex>) -> Self {
        Self {
            index,
            extractor: Extractor::InProcess,
            embedder: None,
            vectors: Arc::new(VectorSearch::in_memory()),
        }
    }

    /// Searches by meaning through `vectors`, the copy of this database's vectors the process
    /// keeps (the app makes one per database and gives it to every library it makes, so the
    /// vectors are read once; a large library's approximate index is saved in its folder).
    pub fn with_vector_search(mut self, vectors: Arc<VectorSearch>) -> Self {
        self.vectors = vectors;
        self
    }

    /// Ranks by meaning too (hybrid ranking): passages are embedded as they are indexed, those
    /// indexed before now the next time the library is added to or re-indexed (or by
    /// [`Library::embed_pending`]).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// The ranking searches use now.
    pub fn ranking(&self) -> Ranking {
        match &self.embedder {
            Some(e) => Ranking::Hybrid {
                model: e.model_id().to_string(),
            },
            None => Ranking::Bm25,
        }
    }

    /// Parses HTML and PDF files with `extractor` (production uses a limited child process).
    pub fn with_extractor(mut self, extractor: Extractor) -> Self {
        self.extractor = extractor;
        self
    }

    /// Extracts a library file's text the way it is indexed and read.
    fn extract_file(&self, path: &Path, bytes: Vec<u8>) -> Result<Extracted, ExtractError> {
        self.extractor
            .extract(content_type_of(path), bytes, &file_url(path))
    }

    /// Adds a folder (and indexes it now).
    pub fn add(
        &self,
        folder: &Path,
        progress: &dyn Fn(&IndexReport),
    ) -> Result<IndexReport, LibraryError> {
        let folder = folder
            .canonicalize()
            .map_err(|_| LibraryError::NotAFolder(folder.to_path_buf()))?;
        if !folder.is_dir() {
            return Err(LibraryError::NotAFolder(folder));
        }
        self.index.add_root(&folder.to_string_lossy(), now_ms())?;
        let listing = list_files(&folder);
        self.index_folder(&folder, listing, progress)
    }

    /// Removes a folder and everything indexed from it.
    pub fn remove(&self, folder: &Path) -> Result<(), LibraryError> {
        let path = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        let gone = self.index.remove_root(&path.to_string_lossy())?;
        self.forget_vectors();
        if !gone {
            return Err(LibraryError::NotInLibrary(path));
        }
        Ok(())
    }

    /// The folders with their counts.
    pub fn folders(&self) -> Result<Vec<LibraryFolder>, LibraryError> {
        Ok(self.index.folders()?)
    }

    /// Re-indexes every folder (incrementally).
    pub fn reindex(&self, progress: &dyn Fn(&IndexReport)) -> Result<IndexReport, LibraryError> {
        let roots = self.index.roots()?;
        // Every folder is listed first, so progress counts against the whole pass.
        let listed: Vec<(String, Listing)> = roots
            .into_iter()
            .map(|root| {
                let listing = list_files(Path::new(&root));
                (root, listing)
            })
            .collect();
        let mut total = IndexReport {
            total: listed.iter().map(|(_, l)| l.files.len()).sum(),
            ..Default::default()
        };
        for (root, listing) in listed {
            let before = total.clone();
            let r = self.index_folder(Path::new(&root), listing, &|r: &IndexReport| {
                let mut sum = before.clone();
                sum.add(r);
                progress(&sum);
            })?;
            total.add(&r);
        }
        Ok(total)
    }

    fn index_folder(
        &self,
        root: &Path,
        listing: Listing,
        progress: &dyn Fn(&IndexReport),
    ) -> Result<IndexReport, LibraryError> {
        let root_key = root.to_string_lossy().to_string();
        let mut report = IndexReport {
            total: listing.files.len(),
            failed: listing.failed,
            ..Default::default()
        };
        let mut seen = std::collections::HashSet::new();
        progress(&report);
        for path in &listing.files {
            report.scanned += 1;
            let key = path.to_string_lossy().to_string();
            seen.insert(key.clone());
            match self.index_file(&root_key, path) {
                Ok(true) => report.indexed += 1,
                Ok(false) => report.unchanged += 1,
                Err(why) => report.failed.push((key, why)),
            }
            if report.scanned.is_multiple_of(20) {
                progress(&report);
            }
        }
        // Files that are gone.
        let gone: Vec<i64> = self
            .index
            .files_of(&root_key)?
            .into_iter()
            .filter(|(_, path)| !seen.contains(path))
            .map(|(id, path)| {
                tracing::debug!(%path, "dropped from the library");
                id
            })
            .collect();
        self.index.drop_files(&gone)?;
        report.removed += gone.len();
        self.forget_vectors();
        // Passages of unchanged files that have no vector yet (a model installed since). Not
        // fatal: without vectors, passages are still ranked by keywords.
        if let Err(e) = self.embed_pending() {
            tracing::warn!(error = %e, "passages not embedded");
        }
        progress(&report);
        Ok(report)
    }

    /// Indexes one file; `Ok(false)` when it had not changed. Errors are recorded on the file too.
    fn index_file(&self, root: &str, path: &Path) -> Result<bool, String> {
        let key = path.to_string_lossy().to_string();
        // Not followed: the listing kept regular files only, and a link put in one's place
        // since must not lead elsewhere.
        let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err(format!(
                "not a regular file ({})",
                special_kind(&meta.file_type())
            ));
        }
        let mtime = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        let size = meta.len() as i64;
        let previous = self.index.file(&key).map_err(|e| e.to_string())?;
        if let Some(known) = &previous {
            if known.mtime_ns == mtime && known.size == size {
                return Ok(false);
            }
        }
        if meta.len() > MAX_FILE_BYTES {
            return self.record_failure(root, &key, mtime, size, &too_large());
        }
        let bytes = match read_regular(path) {
            Ok(bytes) => bytes,
            Err(why) => return self.record_failure(root, &key, mtime, size, &why),
        };
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if let Some(known) = previous.filter(|known| known.sha256 == sha) {
            self.index
                .touch_file(known.id, mtime, size)
                .map_err(|e| e.to_string())?;
            return Ok(false);
        }
        let Extracted {
            kind, title, text, ..
        } = match self.extract_file(path, bytes) {
            Ok(extracted) if !extracted.text.trim().is_empty() => extracted,
            Ok(_) => return self.record_failure(root, &key, mtime, size, "no text in it"),
            Err(why) => return self.record_failure(root, &key, mtime, size, &why.to_string()),
        };
        let title = title.or_else(|| {
            text.lines()
                .map(|l| l.trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .map(|l| l.chars().take(120).collect())
        });
        let passages: Vec<String> = passages(&text, PASSAGE_CHARS)
            .iter()
            .map(|p| segment_cjk(p))
            .collect();
        let file_id = self
            .index
            .put_file(&ReadFile {
                root,
                path: &key,
                mtime_ns: mtime,
                size,
                sha256: &sha,
                kind: &format!("{kind:?}").to_lowercase(),
                title: title.as_deref(),
                passages: &passages,
                at_ms: now_ms(),
            })
            .map_err(|e| e.to_string())?;
        self.forget_vectors();
        // Embedded file by file, so progress moves and an interrupted pass keeps what it did;
        // a failure leaves the passages to keyword ranking and is tried again next pass.
        if let Err(e) = self.embed_passages(Some(file_id), &|_, _| {}, &|| false) {
            tracing::warn!(path = %key, error = %e, "passages not embedded");
        }
        Ok(true)
    }

    fn record_failure(
        &self,
        root: &str,
        key: &str,
        mtime: i64,
        size: i64,
        why: &str,
    ) -> Result<bool, String> {
        let recorded = self
            .index
            .put_failure(root, key, mtime, size, why, now_ms());
        self.forget_vectors();
        recorded.map_err(|e| e.to_string())?;
        Err(why.to_string())
    }

    fn forget_vectors(&self) {
        self.vectors.passages_changed();
    }

    /// Embeds every passage that has no vector from the current model (none without a model);
    /// returns how many were embedded. Adding and re-indexing do this themselves.
    pub fn embed_pending(&self) -> Result<usize, LibraryError> {
        self.embed_passages(None, &|_, _| {}, &|| false)
    }

    /// [`Library::embed_pending`], reporting (embedded so far, pending at the start) after each
    /// batch, and ending after the batch at which `stop` says so: what was embedded is kept and
    /// the next call goes on from there (a person stops it, or closes the app, and nothing is
    /// lost).
    pub fn embed_pending_with(
        &self,
        progress: &dyn Fn(usize, usize),
        stop: &dyn Fn() -> bool,
    ) -> Result<usize, LibraryError> {
        self.embed_passages(None, progress, stop)
    }

    /// The library ranking by keywords alone (its vectors stay stored).
    pub fn without_embedder(mut self) -> Self {
        self.embedder = None;
        self
    }

    /// Embeds the passages without a vector from the current model, of one file or of all,
    /// a batch at a time (each committed: an interrupted pass keeps what it did).
    fn embed_passages(
        &self,
        file: Option<i64>,
        progress: &dyn Fn(usize, usize),
        stop: &dyn Fn() -> bool,
    ) -> Result<usize, LibraryError> {
        let Some(embedder) = &self.embedder else {
            return Ok(0);
        };
        let model = embedder.model_id();
        // How many are pending, for the progress line (a file's are counted as they are read).
        let mut total = match file {
            None => {
                let counts = self.index.counts(Some(model))?;
                counts.passages.saturating_sub(counts.vectors_of_model)
            }
            Some(_) => 0,
        };
        let mut done = 0;
        let mut after = 0;
        // Every passage has a vector of this model (a vector belongs to one passage): nothing
        // to look for. Looking is a scan of every passage for one without (1.7 s at a million
        // on a server), and a pass over an unchanged library would make it each time.
        let nothing_pending = file.is_none() && total == 0;
        'pages: loop {
            if nothing_pending {
                break;
            }
            let page = self
                .index
                .pending_vectors(model, file, after, vectors::PENDING_PAGE)?;
            let Some((last, _)) = page.last() else {
                break;
            };
            after = *last;
            // Passages another process added meanwhile are embedded too.
            total = total.max(done + page.len());
            for batch in page.chunks(vectors::EMBED_BATCH) {
                let texts: Vec<String> = batch.iter().map(|(_, t)| unsegment_cjk(t)).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let embedded = embedder.embed(&refs)?;
                let rows: Vec<(i64, Vec<u8>)> = batch
                    .iter()
                    .zip(&embedded)
                    .map(|((id, _), v)| (*id, vectors::to_bytes(v)))
                    .collect();
                self.index.store_vectors(model, &rows)?;
                let added: Vec<(i64, Vec<f32>)> =
                    batch.iter().map(|(id, _)| *id).zip(embedded).collect();
                self.vectors.added(model, &added);
                done += batch.len();
                progress(done, total);
                if stop() {
                    break 'pages;
                }
            }
        }
        // A whole pass ends with the copy searches read in step (a large library's approximate
        // index built and saved), so the first search after indexing does not wait for it.
        if file.is_none() {
            self.vectors
                .prepare(&self.index, model, embedder.dimensions())?;
        }
        Ok(done)
    }

    /// How many passages the library holds.
    pub fn passage_count(&self) -> Result<usize, LibraryError> {
        Ok(self.index.counts(None)?.passages)
    }

    /// How many passage vectors are stored, from any model (none: the library has not been
    /// indexed by meaning, and no model need be loaded to search it).
    pub fn vectors_stored(&self) -> Result<usize, LibraryError> {
        Ok(self.index.counts(None)?.vectors)
    }

    /// How many passages have a vector from the model `model_id` (without loading it).
    pub fn vectors_of(&self, model_id: &str) -> Result<usize, LibraryError> {
        Ok(self.index.counts(Some(model_id))?.vectors_of_model)
    }

    /// How many passages have a vector from the current model, of how many.
    pub fn embedded_share(&self) -> Result<(usize, usize), LibraryError> {
        let counts = self
            .index
            .counts(self.embedder.as_ref().map(|e| e.model_id()))?;
        Ok((counts.vectors_of_model, counts.passages))
    }
}

impl Library {
    /// Reads an indexed file by its `file://` URL, with the same extraction the index used.
    /// Only files inside the library's folders can be read: a `file://` URL from a search
    /// result cannot be used to read anything else on the disk.
    pub fn read(&self, url: &str) -> Result<research_fetch::Document, research_fetch::FetchError> {
        let refused = |reason: &str| research_fetch::FetchError::NoText {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let path = url::Url::parse(url)
            .ok()
            .filter(|u| u.scheme() == "file")
            .and_then(|u| u.to_file_path().ok())
            .ok_or_else(|| refused("it is not a file:// URL"))?;
        let key = path.to_string_lossy().to_string();
        let indexed = self
            .index
            .readable(&key)
            .map_err(|e| refused(&e.to_string()))?;
        if indexed.is_none() {
            return Err(refused("it is not a file of the library"));
        }
        let mut doc = document(&path, url, content_type_of(&path), &self.extractor)?;
        if let Ok(Some(reference)) = self.index.reference(&key) {
            doc.title = reference.title.or(doc.title);
            doc.citation = reference.citation.or(std::mem::take(&mut doc.citation));
        }
        Ok(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_looping_link_are_named_and_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::write(docs.join("ok.md"), "# Fine\n\nAn ordinary note.").unwrap();
        let fifo = std::ffi::CString::new(docs.join("fifo.txt").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        std::os::unix::fs::symlink("loop.md", docs.join("loop.md")).unwrap();
        let lib = Library::open(&dir.path().join("db.sqlite")).unwrap();
        let report = lib.add(&docs, &|_| {}).unwrap();
        assert_eq!(report.indexed, 1, "{report:?}");
        let why = |name: &str| {
            report
                .failed
                .iter()
                .find(|(p, _)| p.ends_with(name))
                .map(|(_, w)| w.clone())
                .unwrap_or_default()
        };
        assert!(why("fifo.txt").contains("a FIFO"), "{report:?}");
        assert!(
            why("loop.md").contains("loops or leads nowhere"),
            "{report:?}"
        );
        // Opening never waits for a writer, even when asked to read a FIFO directly.
        assert!(read_regular(&docs.join("fifo.txt"))
            .unwrap_err()
            .contains("a FIFO"));
    }
}
