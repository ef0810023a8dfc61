//! The sources as BibTeX and RIS, typed by kind: web page, journal article, preprint, local file.

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

/// The sources as BibTeX entries, keys `source1`, `source2`, … by citation number.
pub fn bibtex(report: &Report) -> String {
    let mut out = String::new();
    for s in &report.sources {
        let accessed = date(s.accessed_at_ms);
        let title = tex(s.title.trim());
        let entry = match kind(s) {
            Kind::Web => format!(
                "@online{{source{id},\n  title = {{{title}}},\n  url = {{{url}}},\n  urldate = {{{accessed}}},\n}}\n",
                id = s.id,
                url = tex_url(&s.url)
            ),
            Kind::Article => format!(
                "@article{{source{id},\n  title = {{{title}}},\n  url = {{{url}}},\n  urldate = {{{accessed}}},\n}}\n",
                id = s.id,
                url = tex_url(&s.url)
            ),
            Kind::Preprint => {
                let eprint = s
                    .url
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches(".pdf");
                format!(
                    "@misc{{source{id},\n  title = {{{title}}},\n  eprint = {{{eprint}}},\n  archivePrefix = {{arXiv}},\n  url = {{{url}}},\n  urldate = {{{accessed}}},\n}}\n",
                    id = s.id,
                    eprint = tex(eprint),
                    url = tex_url(&s.url)
                )
            }
            Kind::File => format!(
                "@misc{{source{id},\n  title = {{{title}}},\n  howpublished = {{Local file: {path}}},\n  note = {{Read {accessed}}},\n}}\n",
                id = s.id,
                path = tex(path_of(&s.url))
            ),
        };
        out.push_str(&entry);
        out.push('\n');
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
                // A paper with a journal is a journal article whoever found it.
                if c.container.is_some() && matches!(kind(s), Kind::Article) {
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
