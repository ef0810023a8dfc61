//! The files of a library folder: which are listed (hidden folders skipped, links not
//! followed, a Sphinx build's copies of its pages' sources left out), which may be read
//! (regular files under [`MAX_FILE_BYTES`]; a FIFO or a looping
//! link is named, never opened), and what each is called and typed as.

use std::path::{Path, PathBuf};

use research_fetch::{Extracted, Extractor};
use sha2::{Digest, Sha256};

use crate::{EXTENSIONS, MAX_FILE_BYTES};

pub(crate) fn file_url(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| format!("file://{}", path.display()))
}

/// Reads a regular file, at most [`MAX_FILE_BYTES`] of it. Opening does not wait (a FIFO put
/// in a file's place after listing would block forever) and the type is checked on the opened
/// handle, so what is read is what was checked.
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!(
            "not a regular file ({})",
            special_kind(&meta.file_type())
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file still growing is cut off at the limit rather than read without end.
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

pub(crate) fn too_large() -> String {
    format!("larger than {} MB", MAX_FILE_BYTES / (1024 * 1024))
}

/// What a file that is not a regular file is, in words.
pub(crate) fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

/// The content type a library file is extracted as.
pub(crate) fn content_type_of(path: &Path) -> &'static str {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .as_deref()
    {
        Some("pdf") => "application/pdf",
        Some("html" | "htm" | "xhtml") => "text/html",
        _ => "text/plain",
    }
}

/// The files of one folder a pass will look at, and the entries that could not be listed.
pub(crate) struct Listing {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) failed: Vec<(String, String)>,
}

/// Lists `root`'s indexable files (hidden folders skipped, links not followed).
pub(crate) fn list_files(root: &Path) -> Listing {
    let mut listing = Listing {
        files: Vec::new(),
        failed: Vec::new(),
    };
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                listing.failed.push((
                    e.path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    e.to_string(),
                ));
                continue;
            }
        };
        let ext = entry
            .path()
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let file_type = entry.file_type();
        if file_type.is_dir() {
            continue;
        }
        if file_type.is_file() {
            if EXTENSIONS.contains(&ext.as_str()) {
                listing.files.push(entry.into_path());
            }
            continue;
        }
        // Links are not followed and special files never read; those that look like documents
        // are named, so that the user sees why they are missing.
        let why = if file_type.is_symlink() {
            if !EXTENSIONS.contains(&ext.as_str()) {
                continue;
            }
            match std::fs::metadata(entry.path()) {
                Ok(_) => "a symbolic link; links are not followed".to_string(),
                Err(e) => format!("a symbolic link that loops or leads nowhere ({e})"),
            }
        } else {
            format!(
                "not a regular file ({}); it was not read",
                special_kind(&file_type)
            )
        };
        listing
            .failed
            .push((entry.path().display().to_string(), why));
    }
    listing.files = without_rendered_sources(listing.files);
    listing
}

/// The folder in which Sphinx keeps a copy of every page's source beside the HTML it rendered
/// (`_sources/faq/design.rst.txt` for `faq/design.html`), for its "Show source" links.
const SPHINX_SOURCES: &str = "_sources";

/// `files` without the copies of a page's source a Sphinx build keeps when the page it was
/// rendered into is listed too. Such a copy is the same page a second time, in markup
/// (`` :func:`sorted` ``, `` `Timsort <…>`_ ``): two of a search's few results were one page, and
/// a report quoted the markup. Python's, the Linux kernel's and pandas' packaged manuals each
/// carry hundreds. A source whose page is not there is the only copy and is kept.
fn without_rendered_sources(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let listed: std::collections::HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    let rendered = |path: &Path| -> Option<PathBuf> {
        let mut base = path.parent()?;
        let mut within = Vec::new();
        while base.file_name()? != SPHINX_SOURCES {
            within.push(base.file_name()?);
            base = base.parent()?;
        }
        let html_root = base.parent()?;
        // `design.rst.txt` (Sphinx 1.5 on) or `design.txt` (before): the page is `design.html`.
        let name = path.file_name()?.to_str()?;
        let name = name.strip_suffix(".txt").unwrap_or(name);
        let stem = match name.rsplit_once('.') {
            Some((stem, "rst" | "md" | "ipynb" | "txt")) => stem,
            _ => name,
        };
        let mut page = html_root.to_path_buf();
        page.extend(within.iter().rev());
        page.push(format!("{stem}.html"));
        Some(page)
    };
    let copy: Vec<bool> = files
        .iter()
        .map(|f| rendered(f).is_some_and(|page| listed.contains(page.as_path())))
        .collect();
    drop(listed);
    files
        .into_iter()
        .zip(copy)
        .filter_map(|(f, copy)| (!copy).then_some(f))
        .collect()
}

/// Reads one file as the library reads its files: a regular file (not a FIFO, device or
/// folder) of at most [`MAX_FILE_BYTES`], HTML and PDF parsed by `extractor`, anything else
/// read as text unless it is binary. For checking a document against files that are not in a
/// library folder (`research check --source 1=notes.md`).
pub fn read_file(
    path: &Path,
    extractor: &Extractor,
) -> Result<research_fetch::Document, research_fetch::FetchError> {
    // A name that says neither PDF nor HTML lets the bytes say what they are ("binary data").
    let content_type = match content_type_of(path) {
        "text/plain" => "",
        known => known,
    };
    document(path, &file_url(path), content_type, extractor)
}

pub(crate) fn document(
    path: &Path,
    url: &str,
    content_type: &str,
    extractor: &Extractor,
) -> Result<research_fetch::Document, research_fetch::FetchError> {
    let refused = |reason: &str| research_fetch::FetchError::NoText {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let bytes = read_regular(path).map_err(|e| refused(&e))?;
    let size = bytes.len();
    let Extracted {
        kind,
        title,
        text,
        citation,
    } = extractor
        .extract(content_type, bytes, url)
        .map_err(|e| refused(&e.to_string()))?;
    let text_sha256 = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(research_fetch::Document {
        url: url.to_string(),
        final_url: url.to_string(),
        title,
        text,
        kind,
        content_type: String::new(),
        bytes: size,
        text_sha256,
        citation,
    })
}
