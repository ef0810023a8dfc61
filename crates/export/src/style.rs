//! Citation styles: a report's `[n]` markers and its sources list rewritten in a style a
//! field or journal asks for (APA, Chicago author–date, IEEE, Vancouver, MLA, Harvard), by the
//! Citation Style Language processor the typst project maintains (`hayagriva`).
//!
//! Why CSL through hayagriva: CSL is the one format in which thousands of styles are written
//! and which Zotero, Mendeley and Pandoc share, so a style here formats as it does there;
//! hayagriva is a pure-Rust CSL processor already built into this program for the PDF
//! layout (typst), and it ships the common styles and locales compiled in, so no style file
//! is fetched at export time. The sources are handed to it as the same CSL-JSON items the
//! CSL-JSON export writes ([`crate::csl_items`]), so a reference manager and a styled report
//! see one record.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::{ExportError, Report};
use hayagriva::archive::{locales, ArchivedStyle};
use hayagriva::citationberg::json::Item;
use hayagriva::citationberg::{FontStyle, FontWeight, IndependentStyle, LocaleCode, Style};
use hayagriva::{
    BibliographyDriver, BibliographyRequest, CitationItem, CitationRequest, ElemChild, ElemChildren,
};

/// A citation style a report can be exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CitationStyle {
    /// Its short name, as `research export --style` takes it (`apa`).
    pub id: &'static str,
    /// What a person calls it ("APA (7th edition)").
    pub name: &'static str,
    /// Whether its in-text citations name the author and year rather than a number.
    pub author_date: bool,
}

/// The styles offered, the default (numbered, as the report is written) first. Each is a CSL
/// style shipped inside hayagriva; the list is the one place the choice is made.
pub const STYLES: &[CitationStyle] = &[
    CitationStyle {
        id: "numbered",
        name: "Numbered, as written ([1])",
        author_date: false,
    },
    CitationStyle {
        id: "apa",
        name: "APA (7th edition)",
        author_date: true,
    },
    CitationStyle {
        id: "chicago-author-date",
        name: "Chicago (author–date, 17th edition)",
        author_date: true,
    },
    CitationStyle {
        id: "ieee",
        name: "IEEE",
        author_date: false,
    },
    CitationStyle {
        id: "vancouver",
        name: "Vancouver (NLM)",
        author_date: false,
    },
    CitationStyle {
        id: "modern-language-association",
        name: "MLA (9th edition)",
        author_date: true,
    },
    CitationStyle {
        id: "harvard-cite-them-right",
        name: "Harvard (Cite Them Right)",
        author_date: true,
    },
    CitationStyle {
        id: "sist02",
        name: "SIST 02 (科学技術情報流通技術基準, 日本語)",
        author_date: false,
    },
];

/// The short names people use for some of [`STYLES`]: (name, id).
pub const ALIASES: &[(&str, &str)] = &[
    ("mla", "modern-language-association"),
    ("chicago", "chicago-author-date"),
    ("harvard", "harvard-cite-them-right"),
    ("nlm", "vancouver"),
    ("none", "numbered"),
];

impl CitationStyle {
    /// The style a name gives: an id of [`STYLES`] or one of the [`ALIASES`], in any case;
    /// `None` for any other.
    pub fn named(name: &str) -> Option<CitationStyle> {
        let name = name.trim().to_lowercase();
        let id = ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name.as_str(), |(_, id)| id);
        STYLES.iter().copied().find(|s| s.id == id)
    }

    /// Every name a style is known by, for a help text: "apa, ieee, …, mla, chicago, …".
    pub fn names() -> String {
        STYLES
            .iter()
            .map(|s| s.id)
            .chain(ALIASES.iter().map(|(alias, _)| *alias))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether this is the report's own numbered form (nothing to rewrite).
    pub fn is_numbered(&self) -> bool {
        self.id == "numbered"
    }

    fn csl(&self) -> Result<IndependentStyle, ExportError> {
        match ArchivedStyle::by_name(self.id).map(ArchivedStyle::get) {
            Some(Style::Independent(style)) => Ok(style),
            _ => Err(ExportError::Style(format!(
                "the citation style `{}` is not built into this program",
                self.id
            ))),
        }
    }
}

/// The report with its citations written in `style`: every run of `[n]` markers outside code
/// becomes one in-text citation ("(Hipp, 2024; Kennedy, n.d.)" or "[1], [3]"), and the sources
/// list becomes the style's bibliography, ordered and numbered by the style. The report's
/// source numbers no longer appear in it, so the returned report lists no sources for the
/// renderers to link (its `sources` are empty); export the sources themselves from the
/// original report.
pub fn styled(report: &Report, style: CitationStyle) -> Result<Report, ExportError> {
    if style.is_numbered() {
        return Ok(report.clone());
    }
    // The processor asserts on records it does not expect (a date range, say): a source's
    // odd record must fail this export with a reason, not take the app down.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| in_style(report, style)))
        .unwrap_or_else(|_| {
            Err(ExportError::Style(
                "the citation processor failed on one of the sources' records".into(),
            ))
        })
}

fn in_style(report: &Report, style: CitationStyle) -> Result<Report, ExportError> {
    let csl = style.csl()?;
    let locale_files = locales();
    let japanese = report.markdown.lines().any(|l| {
        l.starts_with("## ") && l[3..].trim() == research_pipeline::report::sources_heading("ja")
    });
    let locale = japanese.then(|| LocaleCode("ja-JP".into()));
    let items: Vec<Item> = crate::bib::csl_items(report)
        .into_iter()
        .zip(&report.sources)
        .map(|(mut item, source)| {
            // Titles are written as the page wrote them: a style's title or sentence casing
            // would make "SQLite" "Sqlite" (CSL applies it only to English items; an item in
            // no stated language is left as it is, as citeproc-js leaves it).
            item["language"] = "und".into();
            // A local file is found by its address: without one a style lists its title
            // alone, and the reader cannot tell which file it was. One a reference manager
            // describes (it says what the work is) or with a DOI is found by that.
            let described = source
                .citation
                .as_ref()
                .is_some_and(|c| c.kind.is_some() || c.doi.is_some());
            if item.get("URL").is_none() && !described {
                item["URL"] = source.url.clone().into();
            }
            item
        })
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(|e| ExportError::Style(format!("a source's record is not CSL-JSON: {e}")))?;
    let index_of = |id: u32| report.sources.iter().position(|s| s.id == id);

    // The clusters of markers, in reading order, each one citation.
    let known: BTreeSet<u32> = report.sources.iter().map(|s| s.id).collect();
    let lines = Lines::read(&report.markdown, &known);
    let mut driver: BibliographyDriver<'_, Item> = BibliographyDriver::new();
    let mut cited = BTreeSet::new();
    for cluster in lines.clusters() {
        let cite: Vec<CitationItem<'_, Item>> = cluster
            .iter()
            .filter_map(|n| index_of(*n))
            .map(|i| CitationItem::with_entry(&items[i]))
            .collect();
        cited.extend(cluster.iter().copied());
        driver.citation(CitationRequest::new(
            cite,
            &csl,
            locale.clone(),
            &locale_files,
            None,
        ));
    }
    // Sources the list has but no sentence cites still belong in the bibliography.
    let listed: Vec<CitationItem<'_, Item>> = lines
        .listed
        .iter()
        .filter(|n| !cited.contains(n))
        .filter_map(|n| index_of(*n))
        .map(|i| CitationItem::new(&items[i], None, None, true, None))
        .collect();
    if !listed.is_empty() {
        driver.citation(CitationRequest::new(
            listed,
            &csl,
            locale.clone(),
            &locale_files,
            None,
        ));
    }
    let rendered = driver.finish(BibliographyRequest {
        style: &csl,
        locale: locale.clone(),
        locale_files: &locale_files,
    });
    let citations: Vec<String> = rendered
        .citations
        .iter()
        .map(|c| mend(markdown_of(&c.citation)))
        .collect();
    let bibliography: Vec<String> = rendered
        .bibliography
        .map(|b| {
            b.items
                .iter()
                .map(|item| {
                    let first = item
                        .first_field
                        .as_ref()
                        .map(|f| {
                            let mut s = String::new();
                            child_markdown(f, &mut s);
                            format!("{} ", s.trim())
                        })
                        .unwrap_or_default();
                    mend(format!("{first}{}", markdown_of(&item.content).trim()))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Report {
        markdown: lines.write(&citations, &bibliography),
        sources: Vec::new(),
        ..report.clone()
    })
}

/// A date's group closed after its year alone keeps the delimiter hayagriva 0.10 writes before
/// the month and day it did not have: APA's "(1970,)" and "(2021年,)" are "(1970)".
fn mend(text: String) -> String {
    text.replace(",)", ")")
}

/// The report's lines, with where its citation markers and its sources list are.
struct Lines<'a> {
    lines: Vec<Line<'a>>,
    /// Source numbers the sources list holds, in its order.
    listed: Vec<u32>,
}

enum Line<'a> {
    /// Text to keep, with its marker clusters: (start, end, numbers).
    Text(&'a str, Vec<(usize, usize, Vec<u32>)>),
    /// An entry of the sources list (replaced by the bibliography).
    Listed,
}

impl<'a> Lines<'a> {
    fn read(markdown: &'a str, known: &BTreeSet<u32>) -> Self {
        let (mut lines, mut listed) = (Vec::new(), Vec::new());
        let (mut in_code, mut in_sources) = (false, false);
        for line in markdown.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with("## ") {
                in_sources = crate::is_sources_heading(line);
            }
            if in_code {
                lines.push(Line::Text(line, Vec::new()));
                continue;
            }
            if in_sources {
                let n = line
                    .strip_prefix('[')
                    .and_then(|rest| rest.split_once(']'))
                    .and_then(|(n, _)| n.parse::<u32>().ok())
                    .filter(|n| known.contains(n));
                if let Some(n) = n {
                    listed.push(n);
                    lines.push(Line::Listed);
                    continue;
                }
            }
            let mut clusters: Vec<(usize, usize, Vec<u32>)> = Vec::new();
            for (start, end, n) in crate::markdown::markers(line, |n| known.contains(&n)) {
                match clusters.last_mut() {
                    // "[1][3]" and "[1] [3]" are one citation.
                    Some(last) if line[last.1..start].trim().is_empty() => {
                        last.1 = end;
                        if !last.2.contains(&n) {
                            last.2.push(n);
                        }
                    }
                    _ => clusters.push((start, end, vec![n])),
                }
            }
            lines.push(Line::Text(line, clusters));
        }
        Lines { lines, listed }
    }

    fn clusters(&self) -> impl Iterator<Item = &Vec<u32>> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::Text(_, clusters) => Some(clusters),
                Line::Listed => None,
            })
            .flatten()
            .map(|c| &c.2)
    }

    /// The report again, each cluster replaced by its citation and the sources list by the
    /// bibliography (one paragraph an entry, where the list began).
    fn write(&self, citations: &[String], bibliography: &[String]) -> String {
        let mut out = String::new();
        let mut next = citations.iter();
        let mut bibliography_written = false;
        let mut last_listed = false;
        for line in &self.lines {
            match line {
                Line::Text(text, clusters) => {
                    // The list's entries are separated by blank lines; those go with them.
                    if last_listed && text.trim().is_empty() {
                        continue;
                    }
                    last_listed = false;
                    let mut at = 0;
                    for (start, end, _) in clusters {
                        out.push_str(&text[at..*start]);
                        out.push_str(next.next().map(String::as_str).unwrap_or_default());
                        at = *end;
                    }
                    out.push_str(&text[at..]);
                    out.push('\n');
                }
                Line::Listed => {
                    last_listed = true;
                    if !bibliography_written {
                        for entry in bibliography {
                            let _ = write!(out, "{entry}\n\n");
                        }
                        bibliography_written = true;
                    }
                }
            }
        }
        out
    }
}

fn markdown_of(children: &ElemChildren) -> String {
    let mut out = String::new();
    for child in &children.0 {
        child_markdown(child, &mut out);
    }
    out
}

fn child_markdown(child: &ElemChild, out: &mut String) {
    match child {
        ElemChild::Text(f) => {
            let text = escape(&f.text);
            let (italic, bold) = (
                f.formatting.font_style == FontStyle::Italic,
                f.formatting.font_weight == FontWeight::Bold,
            );
            // Emphasis marks must touch words: spaces stay outside them.
            let core = text.trim();
            if core.is_empty() || !(italic || bold) {
                out.push_str(&text);
                return;
            }
            let lead = &text[..text.len() - text.trim_start().len()];
            let trail = &text[text.trim_end().len()..];
            let mark = match (italic, bold) {
                (true, true) => "***",
                (true, false) => "*",
                _ => "**",
            };
            let _ = write!(out, "{lead}{mark}{core}{mark}{trail}");
        }
        ElemChild::Elem(e) => {
            for c in &e.children.0 {
                child_markdown(c, out);
            }
        }
        ElemChild::Markup(m) => out.push_str(&escape(m)),
        ElemChild::Link { text, url } => {
            if text.text == *url {
                let _ = write!(out, "<{url}>");
            } else {
                let _ = write!(out, "[{}](<{url}>)", escape(&text.text));
            }
        }
        ElemChild::Transparent { .. } => {}
    }
}

/// Text made literal in Markdown: the punctuation Markdown reads as markup is escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '`' | '#' | '|' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceRef;
    use research_cite::{Citation, Name};

    fn report() -> Report {
        let source =
            |id: u32, url: &str, title: &str, kind: &str, citation: Option<Citation>| SourceRef {
                id,
                url: url.into(),
                title: title.into(),
                kind: kind.into(),
                accessed_at_ms: 1_795_000_000_000,
                citation,
            };
        Report {
            question: "How does SQLite commit?".into(),
            markdown: "# How does SQLite commit?\n\n## Summary\n\nA commit is atomic [2][1]. The journal is deleted at the end [2]. Code keeps `[1]` and\n\n```\nlog [2]\n```\n\n## Sources\n\n[1] Atomic Commit In SQLite — <https://sqlite.org/atomiccommit.html> (accessed 2026-11-18)\n\n[2] Write-Ahead Logging — <https://doi.org/10.1/wal> (accessed 2026-11-18)\n\n[3] Not cited — <https://example.org/x> (accessed 2026-11-18)\n\n[4] My notes — </home/me/notes.md> (accessed 2026-11-18)\n\n## Method and verification\n\n- Iterations: 1\n".into(),
            sources: vec![
                source(
                    1,
                    "https://sqlite.org/atomiccommit.html",
                    "Atomic Commit In SQLite",
                    "web",
                    Some(Citation {
                        container: Some("SQLite".into()),
                        ..Default::default()
                    }),
                ),
                source(
                    2,
                    "https://doi.org/10.1/wal",
                    "Write-ahead logging",
                    "academic",
                    Some(Citation {
                        authors: vec![
                            Name::parse("Hipp, D. Richard").unwrap(),
                            Name::parse("Kennedy, Dan").unwrap(),
                        ],
                        issued: Some("2022-08".into()),
                        container: Some("Proceedings of the VLDB Endowment".into()),
                        volume: Some("15".into()),
                        issue: Some("12".into()),
                        pages: Some("3535-3547".into()),
                        doi: Some("10.1/wal".into()),
                        ..Default::default()
                    }),
                ),
                source(3, "https://example.org/x", "Not cited", "web", None),
                source(4, "file:///home/me/notes.md", "My notes", "local", None),
            ],
            created_at_ms: 0,
            models: vec![],
        }
    }

    /// Issue 55, item 1: APA's in-text citations name authors and years, one citation for a
    /// run of markers; the list is APA's, alphabetical, the journal in italics; code is left
    /// as written.
    #[test]
    fn apa_cites_by_author_and_year() {
        let out = styled(&report(), CitationStyle::named("apa").unwrap()).unwrap();
        let md = &out.markdown;
        assert!(
            md.contains(
                "A commit is atomic (*Atomic Commit In SQLite*, n.d.; Hipp & Kennedy, 2022)."
            ),
            "{md}"
        );
        assert!(
            md.contains("deleted at the end (Hipp & Kennedy, 2022)."),
            "{md}"
        );
        assert!(
            md.contains("Code keeps `[1]`") && md.contains("log [2]"),
            "{md}"
        );
        assert!(
            !md.contains("— <https://sqlite.org"),
            "the numbered list is gone: {md}"
        );
        let hipp = md.find("Hipp, D. R., & Kennedy, D. (2022).").expect(md);
        let atomic = md.find("*Atomic Commit In SQLite*. (n.d.)").expect(md);
        assert!(atomic < hipp, "APA orders by the first word: {md}");
        assert!(
            md.contains("*Proceedings of the VLDB Endowment*, *15*(12), 3535–3547"),
            "{md}"
        );
        assert!(md.contains("https://doi.org/10.1/wal"), "{md}");
        assert!(
            md.contains("Not cited"),
            "an uncited listed source stays: {md}"
        );
        assert!(
            md.contains("<file:///home/me/notes.md>"),
            "a local file says where it is: {md}"
        );
        assert!(
            md.contains("## Method and verification\n\n- Iterations: 1"),
            "{md}"
        );
        assert!(out.sources.is_empty());
    }

    /// IEEE numbers by first citation, so the report's [2] is the style's [1].
    #[test]
    fn ieee_numbers_in_order_of_citation() {
        let out = styled(&report(), CitationStyle::named("ieee").unwrap()).unwrap();
        let md = &out.markdown;
        assert!(md.contains("A commit is atomic \\[1\\], \\[2\\]."), "{md}");
        assert!(md.contains("deleted at the end \\[1\\]."), "{md}");
        let first = md.find("\\[1\\] D. R. Hipp and D. Kennedy").expect(md);
        let second = md.find("\\[2\\] ").expect(md);
        assert!(first < second, "{md}");
    }

    /// A Japanese report is styled with the style's Japanese terms, and a Japanese name keeps
    /// its family name first.
    #[test]
    fn a_japanese_report_in_apa() {
        let report = Report {
            question: "ミツバチはどう伝えるか".into(),
            markdown: "# ミツバチはどう伝えるか\n\n## 要約\n\n8の字ダンスで伝える[1]。\n\n## 出典\n\n[1] ミツバチの生態 — <https://example.jp/bees> (閲覧日 2026-11-18)\n".into(),
            sources: vec![SourceRef {
                id: 1,
                url: "https://example.jp/bees".into(),
                title: "ミツバチの生態".into(),
                kind: "web".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: Some(Citation {
                    authors: vec![Name::parse("山田 太郎").unwrap()],
                    issued: Some("2021".into()),
                    ..Default::default()
                }),
            }],
            created_at_ms: 0,
            models: vec![],
        };
        let md = styled(&report, CitationStyle::named("apa").unwrap())
            .unwrap()
            .markdown;
        assert!(md.contains("8の字ダンスで伝える(山田, 2021年)。"), "{md}");
        // A year alone closes its parentheses (hayagriva left "(2021年,)").
        assert!(md.contains("## 出典\n\n山田太郎. (2021年). "), "{md}");
        assert!(!md.contains(",)"), "{md}");
        // Japan's own standard numbers in order of citation and quotes the title.
        let md = styled(&report, CitationStyle::named("sist02").unwrap())
            .unwrap()
            .markdown;
        assert!(md.contains("8の字ダンスで伝える(1)。"), "{md}");
        assert!(md.contains("(1) 山田太郎. “ミツバチの生態”."), "{md}");
    }

    #[test]
    fn every_offered_style_is_built_in_and_names_are_forgiving() {
        for style in STYLES {
            let out = styled(&report(), *style).unwrap();
            assert!(out.markdown.contains("## Sources"), "{}", style.id);
        }
        assert_eq!(
            CitationStyle::named("MLA").unwrap().id,
            "modern-language-association"
        );
        assert!(CitationStyle::named("nonsense").is_none());
        let same = styled(&report(), CitationStyle::named("numbered").unwrap()).unwrap();
        assert_eq!(same, report());
    }
}
