//! The sources as BibTeX and RIS, typed by kind: web page, journal article, preprint, local file.

use research_cite::{Citation, Name};

use crate::{date, Report, SourceRef};

enum Kind {
    Web,
    Article,
    Preprint,
    File,
}

fn kind(s: &SourceRef) -> Kind {
    let host = s
        .url
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default()
        .to_lowercase();
    if s.url.starts_with("file:") || s.kind == "local" {
        Kind::File
    } else if host.ends_with("arxiv.org")
        || host.ends_with("biorxiv.org")
        || host.ends_with("medrxiv.org")
    {
        Kind::Preprint
    } else if s.kind == "academic" {
        Kind::Article
    } else {
        Kind::Web
    }
}

fn path_of(url: &str) -> &str {
    url.strip_prefix("file://").unwrap_or(url)
}

/// Escapes text for a braced BibTeX field.
fn tex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// URLs go in `url = {…}` verbatim except for the characters that would end the field.
fn tex_url(url: &str) -> String {
    url.replace('\\', "%5C")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

/// Which BibTeX a `.bib` is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// biblatex and the reference managers that read it (Zotero, JabRef): `@online` for a web
    /// page, `date` and `urldate`.
    Biblatex,
    /// Classic BibTeX styles (natbib's `plainnat`/`unsrtnat`, a journal's `.bst`): only the
    /// entry types they know, `year`, the day read in a note, titles kept as written. An
    /// undated source's year is "n.d.", as APA and Chicago write it (natbib's styles need one).
    Classic,
}

/// The sources as BibTeX entries, keys `source1`, `source2`, … by citation number, with who
/// wrote each and where it appeared when that is known (biblatex's fields).
pub fn bibtex(report: &Report) -> String {
    entries(report, Dialect::Biblatex)
}

/// A BibTeX name list: people "Family, Given", organisations braced whole so no style splits
/// or abbreviates them.
fn authors(names: &[Name]) -> String {
    names
        .iter()
        .map(|n| match n {
            Name::Person { family, given } if given.is_empty() => format!("{{{}}}", tex(family)),
            Name::Person { family, given } => format!("{}, {}", tex(family), tex(given)),
            Name::Literal { literal } => format!("{{{}}}", tex(literal)),
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The sources' entries in `dialect`.
pub(crate) fn entries(report: &Report, dialect: Dialect) -> String {
    let classic = dialect == Dialect::Classic;
    let mut out = String::new();
    for s in &report.sources {
        let accessed = date(s.accessed_at_ms);
        let none = Citation::default();
        let c = s.citation.as_ref().unwrap_or(&none);
        let title = tex(s.title.trim());
        let mut fields: Vec<(&str, String)> = Vec::new();
        // With no author the title takes the author's place, as APA and Chicago cite such a
        // source ("(Write-Ahead Logging, n.d.)"); natbib's styles read it from `author` (braced
        // whole, never split into names), and it is not repeated as the title.
        let anonymous = classic && c.authors.is_empty();
        if anonymous {
            fields.push(("author", format!("{{{title}}}")));
        } else if !c.authors.is_empty() {
            fields.push(("author", authors(&c.authors)));
        }
        if !anonymous {
            // Classic styles change a title's case; it is kept as the source wrote it.
            fields.push((
                "title",
                if classic {
                    format!("{{{title}}}")
                } else {
                    title
                },
            ));
        }
        let kind = kind(s);
        let ty = match kind {
            Kind::Web if classic => "misc",
            Kind::Web => "online",
            // An article of unknown authorship is a `misc` for classic styles, which insist on
            // an article's title.
            Kind::Article if anonymous => "misc",
            Kind::Article => "article",
            Kind::Preprint | Kind::File => "misc",
        };
        if let Some(container) = &c.container {
            let key = if matches!(kind, Kind::Article) {
                "journal"
            } else {
                "howpublished"
            };
            fields.push((key, tex(container)));
        }
        let mut push = |key: &'static str, value: &Option<String>| {
            if let Some(v) = value {
                fields.push((key, tex(v)));
            }
        };
        push("publisher", &c.publisher);
        push("volume", &c.volume);
        push("number", &c.issue);
        if let Some(pages) = &c.pages {
            let ends: Vec<&str> = pages
                .split(['-', '\u{2013}'])
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect();
            fields.push(("pages", tex(&ends.join("--"))));
        }
        if let Some(issued) = &c.issued {
            if classic {
                let year = issued.get(..4).unwrap_or(issued);
                fields.push(("year", year.to_string()));
            } else {
                fields.push(("date", issued.clone()));
            }
        }
        if c.issued.is_none() && classic {
            fields.push(("year", "n.d.".into()));
        }
        if let Some(doi) = &c.doi {
            fields.push(("doi", tex_url(doi)));
        }
        match kind {
            Kind::File => {
                // A long path may break after any of its slashes in a classic style's list.
                let path = if classic {
                    let path = tex(path_of(&s.url)).replace('/', "/\\allowbreak{}");
                    format!("Local file: {path}")
                } else {
                    format!("Local file: {}", tex(path_of(&s.url)))
                };
                if c.container.is_some() {
                    fields.push(("note", format!("{path}. Read {accessed}")));
                } else {
                    fields.push(("howpublished", path));
                    fields.push(("note", format!("Read {accessed}")));
                }
            }
            _ => {
                if let Kind::Preprint = kind {
                    let eprint = s
                        .url
                        .rsplit('/')
                        .next()
                        .unwrap_or_default()
                        .trim_end_matches(".pdf");
                    fields.push(("eprint", tex(eprint)));
                    fields.push(("archivePrefix", "arXiv".into()));
                }
                fields.push(("url", tex_url(&s.url)));
                if classic {
                    fields.push(("note", format!("Accessed {accessed}")));
                } else {
                    fields.push(("urldate", accessed));
                }
            }
        }
        out.push_str(&format!("@{ty}{{source{},\n", s.id));
        for (key, value) in fields {
            out.push_str(&format!("  {key} = {{{value}}},\n"));
        }
        out.push_str("}\n\n");
    }
    out
}

/// The sources as CSL-JSON, the items Zotero, Mendeley and Pandoc's citeproc import: see
/// [`csl_items`].
pub fn csl_json(report: &Report) -> String {
    let mut out = serde_json::to_string_pretty(&csl_items(report)).expect("JSON values serialize");
    out.push('\n');
    out
}

/// The sources as CSL-JSON items: ids `source1`, `source2`, … as BibTeX's keys, typed by kind
/// (web page, journal article, preprint with its arXiv number, local document), with the date
/// each was read and what is known of who wrote it and where it appeared.
pub fn csl_items(report: &Report) -> Vec<serde_json::Value> {
    report
        .sources
        .iter()
        .map(|s| {
            let read = date(s.accessed_at_ms);
            let parts: Vec<i64> = read.split('-').filter_map(|p| p.parse().ok()).collect();
            let mut item = serde_json::json!({
                "id": format!("source{}", s.id),
                "title": s.title.trim(),
                "accessed": {"date-parts": [parts]},
            });
            let fields = item.as_object_mut().expect("an object");
            let set =
                |fields: &mut serde_json::Map<String, serde_json::Value>, k: &str, v: &str| {
                    fields.insert(k.into(), v.into());
                };
            match kind(s) {
                Kind::Web => {
                    set(fields, "type", "webpage");
                    set(fields, "URL", &s.url);
                }
                Kind::Article => {
                    set(fields, "type", "article-journal");
                    set(fields, "URL", &s.url);
                }
                Kind::Preprint => {
                    set(fields, "type", "article");
                    set(fields, "URL", &s.url);
                    set(fields, "archive", "arXiv");
                    let number = s
                        .url
                        .rsplit('/')
                        .next()
                        .unwrap_or_default()
                        .trim_end_matches(".pdf");
                    set(fields, "number", number);
                }
                Kind::File => {
                    set(fields, "type", "document");
                    set(fields, "note", &format!("Local file: {}", path_of(&s.url)));
                }
            }
            if let Some(c) = &s.citation {
                fields.extend(c.csl_fields());
                // The record's own type stands (a reference manager's book or chapter); else a
                // paper with a journal is a journal article whoever found it.
                if c.kind.is_none() && c.container.is_some() && matches!(kind(s), Kind::Article) {
                    set(fields, "type", "article-journal");
                }
            }
            item
        })
        .collect()
}

/// The sources as RIS records.
pub fn ris(report: &Report) -> String {
    let mut out = String::new();
    for s in &report.sources {
        let ty = match kind(s) {
            Kind::Web => "ELEC",
            Kind::Article => "JOUR",
            Kind::Preprint => "UNPB",
            Kind::File => "GEN",
        };
        let clean = |t: &str| t.replace(['\n', '\r'], " ");
        out.push_str(&format!("TY  - {ty}\r\n"));
        out.push_str(&format!("ID  - source{}\r\n", s.id));
        out.push_str(&format!("TI  - {}\r\n", clean(s.title.trim())));
        if let Some(c) = &s.citation {
            for name in &c.authors {
                let name = match name {
                    Name::Person { family, given } if given.is_empty() => family.clone(),
                    Name::Person { family, given } => format!("{family}, {given}"),
                    Name::Literal { literal } => literal.clone(),
                };
                out.push_str(&format!("AU  - {}\r\n", clean(&name)));
            }
            if let Some(issued) = &c.issued {
                out.push_str(&format!("PY  - {}\r\n", issued.get(..4).unwrap_or(issued)));
                out.push_str(&format!("DA  - {}\r\n", issued.replace('-', "/")));
            }
            let mut tag = |t: &str, v: &Option<String>| {
                if let Some(v) = v {
                    out.push_str(&format!("{t}  - {}\r\n", clean(v)));
                }
            };
            tag("T2", &c.container);
            tag("PB", &c.publisher);
            tag("VL", &c.volume);
            tag("IS", &c.issue);
            if let Some((first, last)) = c.pages.as_deref().map(|p| {
                let mut ends = p
                    .split(['-', '\u{2013}'])
                    .map(str::trim)
                    .filter(|e| !e.is_empty());
                (
                    ends.next().map(String::from),
                    ends.next_back().map(String::from),
                )
            }) {
                tag("SP", &first);
                tag("EP", &last);
            }
            tag("DO", &c.doi);
        }
        match kind(s) {
            Kind::File => {
                out.push_str(&format!("M1  - Local file: {}\r\n", clean(path_of(&s.url))))
            }
            _ => out.push_str(&format!("UR  - {}\r\n", clean(&s.url))),
        }
        out.push_str(&format!(
            "Y2  - {}\r\n",
            date(s.accessed_at_ms).replace('-', "/")
        ));
        out.push_str("ER  - \r\n\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn report() -> Report {
        Report {
            question: "How do bees dance?".into(),
            markdown: String::new(),
            sources: vec![
                SourceRef {
                    id: 1,
                    url: "https://example.org/bees?a=1&b=2".into(),
                    title: "Bees & {dances} 100%".into(),
                    kind: "web".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
                SourceRef {
                    id: 2,
                    url: "https://arxiv.org/abs/2401.01234".into(),
                    title: "A preprint".into(),
                    kind: "academic".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
                SourceRef {
                    id: 3,
                    url: "https://www.semanticscholar.org/paper/x".into(),
                    title: "An article".into(),
                    kind: "academic".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
                SourceRef {
                    id: 4,
                    url: "file:///home/me/notes/bees_2024.md".into(),
                    title: "My notes".into(),
                    kind: "local".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
            ],
            created_at_ms: 1_795_000_000_000,
            models: vec![],
        }
    }

    /// Issue 55, item 4 (its export half): the sources as CSL-JSON items, typed, with the day
    /// each was read, ids matching BibTeX's keys.
    #[test]
    fn csl_json_items_are_typed_and_dated() {
        let items: Vec<serde_json::Value> = serde_json::from_str(&csl_json(&report())).unwrap();
        let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["webpage", "article", "article-journal", "document"]);
        assert_eq!(items[0]["id"], "source1");
        assert_eq!(items[0]["title"], "Bees & {dances} 100%");
        assert_eq!(items[0]["URL"], "https://example.org/bees?a=1&b=2");
        assert_eq!(
            items[0]["accessed"],
            serde_json::json!({"date-parts": [[2026, 11, 18]]})
        );
        assert_eq!(
            (items[1]["archive"].as_str(), items[1]["number"].as_str()),
            (Some("arXiv"), Some("2401.01234"))
        );
        assert_eq!(items[3]["note"], "Local file: /home/me/notes/bees_2024.md");
        assert!(items[3].get("URL").is_none());
    }

    #[test]
    fn bibtex_golden() {
        assert_eq!(
            bibtex(&report()),
            "@online{source1,\n  title = {Bees \\& \\{dances\\} 100\\%},\n  url = {https://example.org/bees?a=1&b=2},\n  urldate = {2026-11-18},\n}\n\n\
@misc{source2,\n  title = {A preprint},\n  eprint = {2401.01234},\n  archivePrefix = {arXiv},\n  url = {https://arxiv.org/abs/2401.01234},\n  urldate = {2026-11-18},\n}\n\n\
@article{source3,\n  title = {An article},\n  url = {https://www.semanticscholar.org/paper/x},\n  urldate = {2026-11-18},\n}\n\n\
@misc{source4,\n  title = {My notes},\n  howpublished = {Local file: /home/me/notes/bees\\_2024.md},\n  note = {Read 2026-11-18},\n}\n\n"
        );
    }

    /// Who wrote a source travels into every reference manager's format: BibTeX names as
    /// "Family, Given", an organisation braced whole, pages with an en dash, the DOI; RIS
    /// one `AU` per author.
    #[test]
    fn the_sources_record_is_in_bibtex_and_ris() {
        let mut r = report();
        r.sources.truncate(3);
        r.sources[2].citation = Some(Citation {
            authors: vec![
                Name::Person {
                    family: "van Rossum".into(),
                    given: "Guido".into(),
                },
                Name::Literal {
                    literal: "Python Software Foundation".into(),
                },
            ],
            issued: Some("2024-03-05".into()),
            container: Some("Journal of Snakes & Ladders".into()),
            volume: Some("7".into()),
            issue: Some("2".into()),
            pages: Some("12\u{2013}19".into()),
            doi: Some("10.1000/a_b".into()),
            publisher: None,
            kind: None,
        });
        let bib = bibtex(&r);
        assert!(
            bib.contains("@article{source3,\n  author = {van Rossum, Guido and {Python Software Foundation}},\n  title = {An article},\n  journal = {Journal of Snakes \\& Ladders},\n  volume = {7},\n  number = {2},\n  pages = {12--19},\n  date = {2024-03-05},\n  doi = {10.1000/a_b},\n"),
            "{bib}"
        );
        // Classic BibTeX: a year, and an anonymous source cited by its title.
        let classic = entries(&r, Dialect::Classic);
        assert!(classic.contains("  year = {2024},\n"), "{classic}");
        assert!(
            classic.starts_with(
                "@misc{source1,\n  author = {{Bees \\& \\{dances\\} 100\\%}},\n  year = {n.d.},\n"
            ),
            "{classic}"
        );
        let ris = ris(&r);
        assert!(
            ris.contains("AU  - van Rossum, Guido\r\nAU  - Python Software Foundation\r\nPY  - 2024\r\nDA  - 2024/03/05\r\nT2  - Journal of Snakes & Ladders\r\nVL  - 7\r\nIS  - 2\r\nSP  - 12\r\nEP  - 19\r\nDO  - 10.1000/a_b\r\n"),
            "{ris}"
        );
    }

    #[test]
    fn ris_golden() {
        let text = ris(&report());
        assert!(text.starts_with("TY  - ELEC\r\nID  - source1\r\nTI  - Bees & {dances} 100%\r\nUR  - https://example.org/bees?a=1&b=2\r\nY2  - 2026/11/18\r\nER  - \r\n"));
        assert!(text.contains("TY  - UNPB\r\n"));
        assert!(text.contains("TY  - JOUR\r\n"));
        assert!(text.contains("TY  - GEN\r\nID  - source4\r\nTI  - My notes\r\nM1  - Local file: /home/me/notes/bees_2024.md\r\n"));
        assert_eq!(text.matches("ER  - ").count(), 4);
    }
}
