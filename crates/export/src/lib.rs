//! Exporting a finished report: Markdown with linked citations, PDF laid out by typst with the
//! fonts it needs bundled, a Word document in Word's own styles, LaTeX citing its own `.bib`,
//! and the sources as BibTeX, RIS and CSL-JSON for reference managers.
//!
//! The exporter works on a [`Report`] (the stored Markdown and the sources it cites), so the CLI,
//! the desktop app and the tests export the same way, and nothing here touches the database.
#![deny(missing_docs)]

mod ast;
mod bib;
mod docx;
mod html;
mod latex;
mod markdown;
mod pdf;
mod style;
mod typst_markup;

pub use bib::{bibtex, csl_items, csl_json, ris};
pub use docx::docx;
pub use html::html;
pub use latex::{latex, Latex};
pub use markdown::markdown;
pub use pdf::{FontSet, Paper, PdfOptions, PdfRenderer};
pub use research_cite::Citation;
pub use style::{styled, CitationStyle, ALIASES, STYLES};

use serde::{Deserialize, Serialize};

/// A source the report cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    /// The citation number.
    pub id: u32,
    /// URL (`file://` for library files).
    pub url: String,
    /// Title.
    pub title: String,
    /// `web`, `academic`, `news` or `local`.
    pub kind: String,
    /// When it was read (ms since the epoch).
    pub accessed_at_ms: i64,
    /// Who wrote it and where it appeared, when known (a citation style needs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<Citation>,
}

/// A report to export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The question (the report's title).
    pub question: String,
    /// The report as stored (Markdown).
    pub markdown: String,
    /// Its sources.
    pub sources: Vec<SourceRef>,
    /// When it was written (ms since the epoch).
    pub created_at_ms: i64,
    /// Models that wrote it (shown in the PDF's metadata line).
    pub models: Vec<String>,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The fonts could not be read.
    #[error("the fonts for PDF export could not be read: {0}")]
    Fonts(String),
    /// Typst could not lay the report out.
    #[error("the PDF could not be laid out: {0}")]
    Layout(String),
    /// The Word document's parts could not be written.
    #[error("the Word document could not be written: {0}")]
    Docx(String),
    /// The citation style could not be applied.
    #[error("the citations could not be written in that style: {0}")]
    Style(String),
}

pub(crate) use research_pipeline::report::{date, is_sources_heading};
