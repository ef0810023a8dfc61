//! PDF export: the report converted to Typst markup and laid out by typst, in-process, with the
//! fonts loaded from files the application ships (DejaVu for Latin text, Noto Sans CJK for
//! Japanese and Chinese), so the output never depends on the fonts of the reader's machine.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use typst_as_lib::TypstEngine;

use crate::typst_markup::{convert, escape, string};
use crate::{date, ExportError, Report};

/// Paper size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Paper {
    /// ISO A4.
    #[default]
    A4,
    /// US Letter.
    Letter,
}

/// Layout choices.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PdfOptions {
    /// Paper size.
    pub paper: Paper,
}

/// The font files for PDF export.
#[derive(Debug, Clone)]
pub struct FontSet {
    files: Vec<PathBuf>,
}

/// Font files looked for, in order, under each font folder.
const FONT_FILES: &[&str] = &[
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansMono.ttf",
    "NotoSansCJK-Regular.ttc",
    "NotoSansCJK-Bold.ttc",
];

/// Where Debian and Ubuntu keep the same files (fonts-dejavu-core, fonts-noto-cjk), used when
/// the application's own font folder is absent (a development checkout).
const SYSTEM_DIRS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/opentype/noto",
];

impl FontSet {
    /// The fonts in `dir` (the application's bundled font folder), else the system copies of
    /// the same files. Fails when no Latin or no CJK font can be found.
    pub fn locate(dir: Option<&Path>) -> Result<Self, ExportError> {
        let mut files = Vec::new();
        for name in FONT_FILES {
            let candidates = dir
                .map(|d| d.join(name))
                .into_iter()
                .chain(SYSTEM_DIRS.iter().map(|d| Path::new(d).join(name)));
            if let Some(found) = candidates.into_iter().find(|p| p.is_file()) {
                files.push(found);
            }
        }
        let has = |prefix: &str| {
            files.iter().any(|f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
        };
        if !has("DejaVuSans") || !has("NotoSansCJK") {
            return Err(ExportError::Fonts(format!(
                "DejaVu Sans and Noto Sans CJK are needed (looked in {}); scripts/install-deps.sh installs them",
                dir.map(|d| d.display().to_string())
                    .into_iter()
                    .chain(SYSTEM_DIRS.iter().map(|s| s.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(Self { files })
    }

    /// The font files found.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

/// Lays reports out as PDF. Fonts are read once, when it is made.
pub struct PdfRenderer {
    fonts: Vec<Vec<u8>>,
}

impl PdfRenderer {
    /// Reads the fonts of `set`.
    pub fn new(set: &FontSet) -> Result<Self, ExportError> {
        let fonts = set
            .files
            .iter()
            .map(|f| {
                std::fs::read(f).map_err(|e| ExportError::Fonts(format!("{}: {e}", f.display())))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { fonts })
    }

    /// The Typst source of `report` (kept for debugging and tests).
    pub fn source(&self, report: &Report, options: PdfOptions) -> String {
        let ids: BTreeSet<u32> = report.sources.iter().map(|s| s.id).collect();
        // The stored report starts with "# question": the title block replaces it.
        let body = report
            .markdown
            .trim_start()
            .strip_prefix("# ")
            .and_then(|rest| rest.split_once('\n').map(|(_, b)| b))
            .unwrap_or(&report.markdown);
        let paper = match options.paper {
            Paper::A4 => "a4",
            Paper::Letter => "us-letter",
        };
        let models = if report.models.is_empty() {
            String::new()
        } else {
            format!(" · {}", report.models.join(", "))
        };
        format!(
            r##"#set document(title: {title})
#set page(paper: "{paper}", margin: (x: 2.2cm, y: 2.4cm), numbering: "1 / 1")
#set text(font: ("DejaVu Sans", "Noto Sans CJK JP"), size: 10pt, lang: "en")
#set par(justify: false, leading: 0.7em)
#show raw: set text(font: ("DejaVu Sans Mono", "Noto Sans CJK JP"), size: 9pt)
#show heading.where(level: 2): set block(above: 1.4em, below: 0.8em)
#show link: set text(fill: rgb("#1a5fb4"))
#show quote.where(block: true): it => block(above: 0.5em, below: 0.7em, inset: (left: 1em), stroke: (left: 1.5pt + luma(200)), text(style: "italic", fill: luma(60), it.body))
#text(size: 17pt, weight: "bold")[{title_markup}]

#text(size: 8.5pt, fill: gray)[{meta}]

#line(length: 100%, stroke: 0.5pt + gray)

{body}"##,
            title = string(report.question.trim()),
            title_markup = escape(report.question.trim()),
            meta = escape(&format!(
                "Research Studio · {}{models}",
                date(report.created_at_ms)
            )),
            body = convert(body, &ids),
        )
    }

    /// The PDF of `report`.
    pub fn render(&self, report: &Report, options: PdfOptions) -> Result<Vec<u8>, ExportError> {
        let source = self.source(report, options);
        let engine = TypstEngine::builder()
            .main_file(source)
            .fonts(self.fonts.iter().map(|f| f.as_slice()))
            .build();
        let compiled = engine.compile::<typst_layout::PagedDocument>();
        let document = compiled
            .output
            .map_err(|e| ExportError::Layout(format!("{e:?}")))?;
        typst_pdf::pdf(&document, &typst_pdf::PdfOptions::default()).map_err(|errors| {
            ExportError::Layout(
                errors
                    .iter()
                    .map(|e| e.message.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })
    }
}
