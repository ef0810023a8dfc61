//! A reference manager's export added to the library: Zotero's "Export Collection… with files"
//! (BibTeX, its PDFs in `files/` beside it), JabRef's or Mendeley's BibTeX with `file` fields,
//! CSL-JSON with them. The attached files are indexed as any library file is, so a run finds
//! them by their text; what the reference manager says of each (authors, year, journal, DOI)
//! is kept by the file's path, so a report cites the paper, not its file name. Importing the
//! same export again, updated, replaces each file's record: nothing is added twice.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::read_regular;
use crate::{now_ms, FileReference, IndexReport, Library, LibraryError, EXTENSIONS};

/// What adding a reference manager's export did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportReport {
    /// References in the export.
    pub references: usize,
    /// Attached files found and added to the library with their reference's record.
    pub files: usize,
    /// Of those, the files whose record is new; the others' records were updated (the same
    /// export imported again).
    pub new: usize,
    /// Attached files that could not be added: (reference key, path, why).
    pub missing: Vec<(String, String, String)>,
    /// Keys of the references with no file attached: their text cannot be searched.
    pub without_files: Vec<String>,
    /// The folders the files are in, added to the library and indexed.
    pub folders: Vec<String>,
    /// What indexing those folders did, summed.
    pub indexed: IndexReport,
}

impl Library {
    /// Adds a reference manager's export (BibTeX or CSL-JSON) to the library: the folders of
    /// its attached files are added and indexed, and each file keeps its reference's record.
    /// Attached paths are read relative to the export's folder unless absolute.
    pub fn import(
        &self,
        export: &Path,
        progress: &dyn Fn(&IndexReport),
    ) -> Result<ImportReport, LibraryError> {
        let refused = |why: String| LibraryError::Import {
            path: export.to_path_buf(),
            why,
        };
        let export = export
            .canonicalize()
            .map_err(|e| refused(format!("it cannot be opened: {e}")))?;
        let bytes = read_regular(&export).map_err(|e| refused(e.to_string()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| refused("it is not text (an export is BibTeX or CSL-JSON)".into()))?;
        let references = research_cite::references(&text).map_err(|e| refused(e.to_string()))?;
        let base = export
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));

        let mut report = ImportReport {
            references: references.len(),
            ..ImportReport::default()
        };
        let mut found: Vec<(PathBuf, FileReference)> = Vec::new();
        let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
        for reference in &references {
            if reference.files.is_empty() {
                report.without_files.push(reference.key.clone());
                continue;
            }
            for file in &reference.files {
                match attached_file(&base, file) {
                    Ok(path) => {
                        // Files in the export's folder are indexed with it; others with theirs.
                        let folder = if path.starts_with(&base) {
                            base.clone()
                        } else {
                            path.parent().map(Path::to_path_buf).unwrap_or_default()
                        };
                        folders.insert(folder);
                        found.push((
                            path,
                            FileReference {
                                key: reference.key.clone(),
                                title: reference.title.clone(),
                                citation: reference.citation.clone(),
                                export: export.to_string_lossy().to_string(),
                            },
                        ));
                    }
                    Err(why) => report
                        .missing
                        .push((reference.key.clone(), file.clone(), why)),
                }
            }
        }
        let at_ms = now_ms();
        for (path, reference) in &found {
            if !self
                .index
                .put_reference(&path.to_string_lossy(), reference, at_ms)?
            {
                report.new += 1;
            }
        }
        report.files = found.len();
        for folder in &folders {
            let indexed = self.add(folder, progress)?;
            report.indexed.total += indexed.total;
            report.indexed.add(&indexed);
            report.folders.push(folder.to_string_lossy().to_string());
        }
        Ok(report)
    }
}

/// An attached file as the library keys it (its canonical path), or why it cannot be added.
fn attached_file(base: &Path, file: &str) -> Result<PathBuf, String> {
    let named = Path::new(file);
    let path = if named.is_absolute() {
        named.to_path_buf()
    } else if file.as_bytes().get(1) == Some(&b':') {
        return Err("a Windows path, not a file on this machine".into());
    } else {
        base.join(named)
    };
    let path = path.canonicalize().map_err(|_| "not found".to_string())?;
    if !path.is_file() {
        return Err("not a file".into());
    }
    let readable = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .is_some_and(|e| EXTENSIONS.contains(&e.as_str()));
    if !readable {
        return Err(format!(
            "not a kind of file the library reads ({})",
            EXTENSIONS.join(", ")
        ));
    }
    Ok(path)
}
