//! `research export`: a finished report as Markdown, PDF, a Word document or LaTeX, or its
//! sources as BibTeX, RIS or CSL-JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use research_api::{ExportFormat, ExportOptions, Paper};

use super::DbArg;

/// `--format`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum FormatArg {
    Md,
    Pdf,
    /// A Word document in Word's own styles
    Docx,
    /// LaTeX citing its sources, their BibTeX (.bib) written beside it
    Tex,
    Bib,
    Ris,
    /// CSL-JSON of the sources (Zotero, Mendeley, Pandoc)
    CslJson,
}

impl From<FormatArg> for ExportFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Md => ExportFormat::Md,
            FormatArg::Pdf => ExportFormat::Pdf,
            FormatArg::Docx => ExportFormat::Docx,
            FormatArg::Tex => ExportFormat::Tex,
            FormatArg::Bib => ExportFormat::Bib,
            FormatArg::Ris => ExportFormat::Ris,
            FormatArg::CslJson => ExportFormat::CslJson,
        }
    }
}

/// `--paper`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum PaperArg {
    A4,
    Letter,
}

impl From<PaperArg> for Paper {
    fn from(paper: PaperArg) -> Self {
        match paper {
            PaperArg::A4 => Paper::A4,
            PaperArg::Letter => Paper::Letter,
        }
    }
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The session id, or the run (thread) id printed by `research run`
    id: String,
    /// The format
    #[arg(long, value_enum)]
    format: FormatArg,
    /// Where to write it
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Paper size for PDF and LaTeX
    #[arg(long, value_enum, default_value_t = PaperArg::A4)]
    paper: PaperArg,
    /// The citation style of the report's citations and sources list (Markdown, PDF, Word;
    /// numbered or author–date for LaTeX); remembered for the next export, the last one chosen
    /// when left out
    #[arg(long, value_name = "STYLE", long_help = style_help())]
    style: Option<String>,
    #[command(flatten)]
    db: DbArg,
}

/// `--style`'s long help, with the styles the exporter has.
fn style_help() -> String {
    format!(
        "The citation style of the report's citations and sources list (Markdown, PDF, Word; \
         LaTeX cites by number or by author and year as the style does): {}. Remembered for the next export; the last one chosen when left out",
        research_api::CitationStyle::names()
    )
}

/// `research export`.
pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let options = ExportOptions {
        paper: args.paper.into(),
        style: args.style,
    };
    studio.export(&args.id, args.format.into(), &options, &args.out)?;
    eprintln!("exported to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
