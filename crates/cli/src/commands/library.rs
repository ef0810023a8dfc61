//! `research library`: your own folders, indexed and searchable.

use std::cell::Cell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use research_api::{ApiError, ImportReport, IndexReport};

use super::DbArg;

#[derive(clap::Args)]
pub struct LibraryArgs {
    #[command(subcommand)]
    action: LibraryAction,
    #[command(flatten)]
    db: DbArg,
}

#[derive(clap::Subcommand)]
enum LibraryAction {
    /// Add a folder and index it (Markdown, text, HTML and PDF files): by keywords, then by
    /// meaning where the sentence model is installed (Ctrl-C stops that part and keeps what
    /// was done; `research library embed` goes on)
    Add {
        /// The folder
        dir: PathBuf,
        /// Index by keywords only; runs rank the library by keywords until `research library
        /// embed`
        #[arg(long)]
        keywords_only: bool,
    },
    /// Add a reference manager's export: BibTeX or CSL-JSON whose `file` fields name the
    /// attached PDFs (Zotero: File › Export Collection…, BibTeX, "Export Files" ticked). The
    /// files are indexed by their text and cited with the export's authors, year and DOI;
    /// importing an updated export again updates them, never adds them twice
    Import {
        /// The export (.bib or .json)
        export: PathBuf,
        /// Index by keywords only (see `add`)
        #[arg(long)]
        keywords_only: bool,
        /// Print what was imported as JSON
        #[arg(long)]
        json: bool,
    },
    /// Remove a folder and what was indexed from it
    Remove {
        /// The folder
        dir: PathBuf,
    },
    /// List the folders
    List {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Index new and changed files again (by meaning too, as `add` does)
    Reindex {
        /// Index by keywords only
        #[arg(long)]
        keywords_only: bool,
    },
    /// Index the library by meaning too: embed every passage that has no vector from the
    /// installed sentence model yet (scripts/fetch-embedder.sh installs it); runs and searches
    /// then rank by keywords and meaning. Stopping it keeps what was done
    Embed,
    /// Search the library
    Search {
        /// The query
        query: String,
        /// Results at most
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

/// A line of progress: rewritten in place on a terminal; written to a log or a pipe as a line
/// at most every [`LOGGED_EVERY`], so the log of a long indexing pass is not one line of a
/// thousand updates run together.
struct ProgressLine {
    terminal: bool,
    logged: Cell<Option<Instant>>,
}

const LOGGED_EVERY: Duration = Duration::from_secs(10);

impl ProgressLine {
    fn new() -> Self {
        Self {
            terminal: std::io::stderr().is_terminal(),
            logged: Cell::new(None),
        }
    }

    fn show(&self, line: &str) {
        if self.terminal {
            eprint!("\r{line}");
            return;
        }
        let now = Instant::now();
        if self
            .logged
            .get()
            .is_some_and(|then| now.duration_since(then) < LOGGED_EVERY)
        {
            return;
        }
        self.logged.set(Some(now));
        // The spaces that blank a longer line on a terminal are not kept in a log.
        eprintln!("{}", line.trim_end());
    }

    /// The last line, whole: on a terminal it ends the line being rewritten.
    fn end(&self, line: &str) {
        match self.terminal {
            true => eprintln!("\r{line}"),
            false => eprintln!("{line}"),
        }
    }
}

fn scanned(r: &IndexReport) -> String {
    format!(
        "scanned {} files: {} indexed, {} unchanged, {} unreadable",
        r.scanned,
        r.indexed,
        r.unchanged,
        r.failed.len()
    )
}

/// Indexes with `index`, its progress on one line, and says what it did (`files` is the
/// indexing's part of what `index` returns).
fn indexed<R, E>(
    index: impl FnOnce(&dyn Fn(&IndexReport)) -> Result<R, E>,
    files: impl Fn(&R) -> &IndexReport,
) -> anyhow::Result<R>
where
    ApiError: From<E>,
{
    let line = ProgressLine::new();
    let report = index(&|r| line.show(&scanned(r))).map_err(ApiError::from)?;
    line.end(&scanned(files(&report)));
    summary(files(&report));
    Ok(report)
}

fn summary(r: &IndexReport) {
    for (path, why) in r.failed.iter().take(20) {
        eprintln!("skipped {path}: {why}");
    }
    if r.failed.len() > 20 {
        eprintln!("… and {} more unreadable files", r.failed.len() - 20);
    }
    if r.removed > 0 {
        eprintln!(
            "{} files are no longer indexed: removed, or a copy of a page the library holds",
            r.removed
        );
    }
}

/// What an import did, in words: what was added or updated, and what could not be.
fn imported(r: &ImportReport) {
    eprintln!(
        "{} references: {} attached files in the library with their records ({} new, {} updated)",
        r.references,
        r.files,
        r.new,
        r.files - r.new
    );
    for (key, path, why) in r.missing.iter().take(20) {
        eprintln!("not added: {path} ({key}): {why}");
    }
    if r.missing.len() > 20 {
        eprintln!(
            "… and {} more attached files not added",
            r.missing.len() - 20
        );
    }
    if !r.without_files.is_empty() {
        eprintln!(
            "{} references have no file attached, so their text cannot be searched: {}",
            r.without_files.len(),
            r.without_files
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Indexes the library by meaning when it is due ([`research_api::LibraryMeaning::due`]; always
/// when `asked`, which says why not), with progress and the time left. Each batch is kept as it
/// is done, so Ctrl-C (or a closed terminal) loses at most one batch.
fn by_meaning(studio: &research_api::Studio, asked: bool) -> anyhow::Result<()> {
    let meaning = studio.library_meaning()?;
    if !meaning.due && !asked {
        if !meaning.installed && meaning.passages > 0 {
            eprintln!(
                "searched by keywords: no sentence model is installed (scripts/fetch-embedder.sh \
                 installs it; then research library embed)"
            );
        }
        return Ok(());
    }
    if meaning.due {
        eprintln!(
            "indexing by meaning: {} of {} passages to go (Ctrl-C stops and keeps what is done; \
             research library embed goes on)",
            meaning.passages - meaning.vectors,
            meaning.passages
        );
    }
    let started = Instant::now();
    let line = ProgressLine::new();
    let done = studio.embed_library(
        &|p| {
            if !p.preparing.is_empty() {
                line.show(&format!("{}…   ", p.preparing));
                return;
            }
            line.show(&format!(
                "embedded {} of {} passages, {} a second, {} left   ",
                p.done, p.total, p.per_second, p.left
            ));
        },
        &|| false,
    )?;
    line.end(&format!(
        "{done} passages embedded in {:.1} s; runs now rank the library by keywords and meaning",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `research library …`.
pub fn library(args: LibraryArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let library = studio.library()?;
    match args.action {
        LibraryAction::Add { dir, keywords_only } => {
            indexed(|progress| library.add(&dir, progress), |r| r)?;
            if !keywords_only {
                by_meaning(&studio, false)?;
            }
        }
        LibraryAction::Import {
            export,
            keywords_only,
            json,
        } => {
            let report = indexed(|progress| library.import(&export, progress), |r| &r.indexed)?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                imported(&report);
            }
            if !keywords_only {
                by_meaning(&studio, false)?;
            }
        }
        LibraryAction::Reindex { keywords_only } => {
            indexed(|progress| library.reindex(progress), |r| r)?;
            if !keywords_only {
                by_meaning(&studio, false)?;
            }
        }
        LibraryAction::Embed => by_meaning(&studio, true)?,
        LibraryAction::Remove { dir } => {
            library.remove(&dir).map_err(ApiError::from)?;
            eprintln!("removed {} from the library", dir.display());
        }
        LibraryAction::List { json } => {
            let folders = library.folders().map_err(ApiError::from)?;
            if json {
                println!("{}", serde_json::to_string(&folders)?);
            } else if folders.is_empty() {
                eprintln!("the library is empty; add a folder with: research library add DIR");
            } else {
                for f in folders {
                    println!("{}  ({} files, {} unreadable)", f.path, f.files, f.failed);
                }
            }
        }
        LibraryAction::Search { query, limit, json } => {
            let (library, ranking) = studio.library_for_search(&query)?;
            let hits = library.search(&query, limit).map_err(ApiError::from)?;
            if !json {
                eprintln!("{ranking}");
            }
            if json {
                println!("{}", serde_json::to_string(&hits)?);
            } else {
                for (i, hit) in hits.iter().enumerate() {
                    println!(
                        "{}. {}\n   {}\n   {}\n",
                        i + 1,
                        hit.title,
                        hit.url,
                        hit.snippet
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
