//! Exporting a finished report (`research export`, the app's Export menu): Markdown, PDF, Word,
//! LaTeX, or the sources as BibTeX, RIS or CSL-JSON, written atomically so a failed export never
//! leaves a half-written file.

use std::path::{Path, PathBuf};

use research_export::{
    CitationStyle, FontSet, Paper, PdfOptions, PdfRenderer, Report, SourceRef, STYLES,
};
use serde::{Deserialize, Serialize};

use research_store::SessionStatus;

use crate::{ApiError, ErrorCode, Fix, Studio};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown with linked citations.
    Md,
    /// PDF.
    Pdf,
    /// BibTeX of the sources.
    Bib,
    /// RIS of the sources.
    Ris,
    /// CSL-JSON of the sources (Zotero, Mendeley, Pandoc's citeproc).
    CslJson,
    /// A Word document (`.docx`) in Word's built-in styles.
    Docx,
    /// LaTeX (`.tex`) citing its sources with `\\citep`, their `.bib` written beside it.
    Tex,
}

impl ExportFormat {
    /// The file name's extension, and what a save dialog calls the kind of file.
    pub fn file(self) -> (&'static str, &'static str) {
        match self {
            Self::Md => ("md", "Markdown"),
            Self::Pdf => ("pdf", "PDF"),
            Self::Bib => ("bib", "BibTeX"),
            Self::Ris => ("ris", "RIS"),
            Self::CslJson => ("json", "CSL-JSON"),
            Self::Docx => ("docx", "Word document"),
            Self::Tex => ("tex", "LaTeX"),
        }
    }
}

impl std::str::FromStr for ExportFormat {
    type Err = ApiError;
    fn from_str(s: &str) -> Result<Self, ApiError> {
        match s {
            "md" | "markdown" => Ok(Self::Md),
            "pdf" => Ok(Self::Pdf),
            "bib" | "bibtex" => Ok(Self::Bib),
            "ris" => Ok(Self::Ris),
            "csl-json" | "csl_json" | "csl" | "json" => Ok(Self::CslJson),
            "docx" | "word" => Ok(Self::Docx),
            "tex" | "latex" => Ok(Self::Tex),
            other => Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "unknown export format `{other}`; use md, pdf, docx, tex, bib, ris or csl-json"
                ),
            )),
        }
    }
}

/// Where the bundled fonts are: `RESEARCH_STUDIO_FONTS`, else `fonts/` beside the executable or
/// in `../share/research-studio/` (installed layouts); `None` falls back to the system copies.
pub fn fonts_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RESEARCH_STUDIO_FONTS") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [
        dir.join("fonts"),
        dir.join("../share/research-studio/fonts"),
    ]
    .into_iter()
    .find(|d| d.is_dir())
}

/// How a report is exported, besides its format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Paper size for PDF and LaTeX.
    pub paper: Paper,
    /// The citation style, by name (`apa`, `ieee`, …); `None` for the one last chosen
    /// (Settings), numbered when none was. A style named here is remembered.
    pub style: Option<String>,
}

/// A citation style as the export dialog and `research export --style` offer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct CitationStyleChoice {
    /// Its name for `--style` and the `citation_style` setting.
    pub id: String,
    /// What a person calls it.
    pub name: String,
    /// Whether in-text citations name author and year rather than a number.
    pub author_date: bool,
    /// Whether it is the style exports use now (the last one chosen).
    pub chosen: bool,
}

/// The citation style a name gives, or why there is none.
pub(crate) fn citation_style(name: &str) -> Result<CitationStyle, ApiError> {
    CitationStyle::named(name).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "unknown citation style `{name}`; use one of {}",
                CitationStyle::names()
            ),
        )
    })
}

fn storage(path: &Path, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorCode::Storage,
        format!("could not write {}: {e}", path.display()),
    )
}

impl Studio {
    /// Why `id` (a session, or its run `thread`) has no report to export, with what to do that
    /// will work: a run that failed or stopped is resumed (saying why it failed when that was
    /// kept); one cancelled at a review point or whose report was rejected has nothing to
    /// resume, so its question is asked again.
    fn no_report(&self, id: &str, session_id: &str, thread: Option<&str>) -> ApiError {
        let sessions = self.sessions();
        let runs = sessions.runs(session_id).unwrap_or_default();
        let run = match thread {
            Some(t) => runs.iter().find(|r| r.0 == t).cloned(),
            None => runs.last().cloned(),
        };
        let Some((thread, question)) = run else {
            return ApiError::new(ErrorCode::Conflict, format!("{id} has no run yet"));
        };
        // The session's status is its latest run's; an earlier run of it is judged as unfinished.
        let latest = runs.last().is_some_and(|r| r.0 == thread);
        let status = sessions
            .get(session_id)
            .ok()
            .flatten()
            .map(|s| s.status)
            .filter(|_| latest);
        let resume = Fix::ResumeRun {
            thread: thread.clone(),
        };
        match status {
            Some(SessionStatus::Cancelled | SessionStatus::Rejected) => ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "{id} has no report: its run was {} and there is nothing to resume",
                    if status == Some(SessionStatus::Cancelled) {
                        "cancelled at a review point"
                    } else {
                        "ended with its report rejected"
                    }
                ),
            )
            .fix(Fix::AskAgain {
                session: session_id.to_string(),
                question,
            }),
            Some(SessionStatus::Failed) => {
                let why = self
                    .failure(&thread)
                    .ok()
                    .flatten()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                ApiError::new(
                    ErrorCode::Conflict,
                    format!("{id} has no report: its run failed{why}; put the cause right first"),
                )
                .fix(resume)
            }
            _ => ApiError::new(
                ErrorCode::Conflict,
                format!("{id} has no finished report yet; its run must finish first"),
            )
            .fix(resume),
        }
    }

    /// The latest report of a session or run, ready to export.
    pub fn report_for_export(&self, id: &str) -> Result<Report, ApiError> {
        let sessions = self.sessions();
        let (session_id, thread) = if sessions.get(id)?.is_some() {
            (id.to_string(), None)
        } else if let Some(session) = sessions.session_of(id)? {
            (session, Some(id.to_string()))
        } else {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no session or run with id {id}"),
            ));
        };
        let report = sessions
            .reports(&session_id)?
            .into_iter()
            .rfind(|r| thread.as_deref().is_none_or(|t| r.thread_id == t))
            .ok_or_else(|| self.no_report(id, &session_id, thread.as_deref()))?;
        let models: Vec<String> = report.provenance["models"]
            .as_object()
            .map(|m| {
                let mut v: Vec<String> = m
                    .values()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect();
                v.sort();
                v.dedup();
                v
            })
            .unwrap_or_default();
        let session = sessions.get(&session_id)?.expect("the session exists");
        let sources = sessions
            .sources(&report.thread_id)?
            .into_iter()
            .map(|s| SourceRef {
                id: s.source_id,
                url: s.url,
                title: s.title,
                kind: s.kind,
                accessed_at_ms: s.accessed_at_ms,
                citation: s.citation,
            })
            .collect();
        Ok(Report {
            question: session.question,
            markdown: report.markdown,
            sources,
            created_at_ms: report.created_at_ms,
            models,
        })
    }

    /// The citation styles reports can be exported in, the one in use marked.
    pub fn citation_styles(&self) -> Result<Vec<CitationStyleChoice>, ApiError> {
        let chosen = self.chosen_style(None)?;
        Ok(STYLES
            .iter()
            .map(|s| CitationStyleChoice {
                id: s.id.into(),
                name: s.name.into(),
                author_date: s.author_date,
                chosen: s.id == chosen.id,
            })
            .collect())
    }

    /// The style an export uses: the one named, else the one last chosen, else numbered.
    fn chosen_style(&self, named: Option<&str>) -> Result<CitationStyle, ApiError> {
        match named {
            Some(name) => citation_style(name),
            None => Ok(self
                .settings()?
                .citation_style
                .as_deref()
                .and_then(CitationStyle::named)
                .unwrap_or(STYLES[0])),
        }
    }

    /// Exports the latest report of a session or run to `out`. The report's citations and its
    /// sources list are written in the citation style (Markdown, PDF, Word); LaTeX cites by
    /// number or by author and year as the style does, its `.bib` beside it; the sources' own
    /// formats (BibTeX, RIS, CSL-JSON) are the same in any style.
    pub fn export(
        &self,
        id: &str,
        format: ExportFormat,
        options: &ExportOptions,
        out: &Path,
    ) -> Result<(), ApiError> {
        let style = self.chosen_style(options.style.as_deref())?;
        let report = self.report_for_export(id)?;
        let report = match format {
            ExportFormat::Md | ExportFormat::Pdf | ExportFormat::Docx => {
                research_export::styled(&report, style)
                    .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?
            }
            _ => report,
        };
        let paper = options.paper;
        let bytes = match format {
            ExportFormat::Md => research_export::markdown(&report).into_bytes(),
            ExportFormat::Bib => research_export::bibtex(&report).into_bytes(),
            ExportFormat::Ris => research_export::ris(&report).into_bytes(),
            ExportFormat::CslJson => research_export::csl_json(&report).into_bytes(),
            ExportFormat::Docx => research_export::docx(&report)
                .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?,
            ExportFormat::Tex => {
                // Two files, and BibTeX formats the sources: written on their own.
                self.export_latex(&report, style, paper, out)?;
                return self.remember_style(options, style);
            }
            ExportFormat::Pdf => {
                let fonts = FontSet::locate(fonts_dir().as_deref())
                    .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
                PdfRenderer::new(&fonts)
                    .and_then(|r| r.render(&report, PdfOptions { paper }))
                    .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?
            }
        };
        write_atomically(out, &bytes)?;
        self.remember_style(options, style)
    }

    /// A report as LaTeX at `out` (`.tex`) and its bibliography beside it (the same name,
    /// `.bib`): BibTeX formats the sources, so the style only chooses numbered or author–date
    /// citations. When the `.tex` cannot be written the `.bib` is taken away again.
    fn export_latex(
        &self,
        report: &Report,
        style: CitationStyle,
        paper: Paper,
        out: &Path,
    ) -> Result<(), ApiError> {
        let bib = out.with_extension("bib");
        if bib == out {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} would be both the LaTeX document and its bibliography; name it .tex",
                    out.display()
                ),
            ));
        }
        let stem = bib
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "report".into());
        let latex = research_export::latex(report, style, paper, &stem);
        write_atomically(&bib, latex.bib.as_bytes())?;
        if let Err(e) = write_atomically(out, latex.tex.as_bytes()) {
            let _ = std::fs::remove_file(&bib);
            return Err(e);
        }
        Ok(())
    }

    /// Remembers the style an export named, once the export worked, as the dialog's choice is.
    fn remember_style(
        &self,
        options: &ExportOptions,
        style: CitationStyle,
    ) -> Result<(), ApiError> {
        if options.style.is_some() {
            let path = self.settings_path();
            let mut settings = self.settings()?;
            if settings.citation_style.as_deref() != Some(style.id) {
                settings.citation_style = Some(style.id.to_string());
                settings.save(&path)?;
            }
        }
        Ok(())
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ApiError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if path.is_dir() {
        return Err(storage(path, "it is a folder"));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "export".into());
    let tmp = dir.join(format!(".{name}.part-{}", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(storage(path, e));
    }
    Ok(())
}

/// A file name from a question or a title: letters, digits and dashes, at most 60 characters;
/// `fallback` when none is left.
pub fn file_stem(text: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        fallback.into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn file_names_come_from_the_question() {
        assert_eq!(
            file_stem("How do honeybees communicate?", "report"),
            "how-do-honeybees-communicate"
        );
        assert_eq!(file_stem("???", "report"), "report");
        assert_eq!(file_stem("ミツバチの言語", "report"), "ミツバチの言語");
    }
}
