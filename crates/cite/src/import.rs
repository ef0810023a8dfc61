//! A reference manager's export read back: CSL-JSON (Zotero, Mendeley, Pandoc) or BibTeX
//! (Zotero's "Export Collection… with files", JabRef, Mendeley), each reference with its record
//! and the files attached to it.

use biblatex::{Bibliography, ChunksExt};
use serde_json::Value;

use crate::{doi, issued, Citation, Name};

/// A reference as a reference manager exported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Its key in the export (BibTeX's citation key, CSL-JSON's `id`).
    pub key: String,
    /// Its title.
    pub title: Option<String>,
    /// Who wrote it, when, where it appeared.
    pub citation: Citation,
    /// The files attached to it, as the export names them (relative to the export's folder,
    /// or absolute).
    pub files: Vec<String>,
}

/// Why an export could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The CSL-JSON is not JSON, or not a list of items.
    #[error("the CSL-JSON could not be read: {0}")]
    CslJson(String),
    /// The BibTeX could not be parsed.
    #[error("the BibTeX could not be read: {0}")]
    Bibtex(String),
}

/// The references of an export, CSL-JSON or BibTeX as its text shows.
pub fn references(text: &str) -> Result<Vec<Reference>, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    match text.trim_start().chars().next() {
        Some('[') | Some('{') => csl_json(text),
        _ => bibtex(text),
    }
}

/// The items of a CSL-JSON export (a list of items, or `{"items": […]}`). An item's attached
/// files are read from a `file` field written as BibTeX's (see [`attached`]) or a list of
/// paths, which tools that export attachments with CSL-JSON use; Zotero's own CSL-JSON has none.
pub fn csl_json(text: &str) -> Result<Vec<Reference>, ImportError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ImportError::CslJson(e.to_string()))?;
    let items = match &value {
        Value::Array(items) => items,
        Value::Object(o) => o
            .get("items")
            .and_then(Value::as_array)
            .ok_or_else(|| ImportError::CslJson("an object without a list of `items`".into()))?,
        _ => return Err(ImportError::CslJson("not a list of items".into())),
    };
    Ok(items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.is_object())
        .map(|(i, item)| {
            let key = match item.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => format!("item{}", i + 1),
            };
            let files = match item.get("file") {
                Some(Value::String(s)) => attached(s),
                Some(Value::Array(list)) => list
                    .iter()
                    .filter_map(Value::as_str)
                    .flat_map(attached)
                    .collect(),
                _ => Vec::new(),
            };
            Reference {
                key,
                title: item
                    .get("title")
                    .and_then(Value::as_str)
                    .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|t| !t.is_empty()),
                citation: Citation::from_csl(item),
                files,
            }
        })
        .collect())
}

/// The entries of a BibTeX (or biblatex) export, with their `file` fields.
pub fn bibtex(text: &str) -> Result<Vec<Reference>, ImportError> {
    let bibliography = Bibliography::parse(text).map_err(|e| ImportError::Bibtex(e.to_string()))?;
    Ok(bibliography
        .iter()
        .map(|entry| {
            let field = |key: &str| {
                entry
                    .get(key)
                    .map(|chunks| chunks.format_verbatim())
                    .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|t| !t.is_empty())
            };
            let authors = entry
                .author()
                .map(|people| {
                    people
                        .into_iter()
                        .filter_map(|p| {
                            let family = [p.prefix.trim(), p.name.trim()]
                                .iter()
                                .filter(|s| !s.is_empty())
                                .copied()
                                .collect::<Vec<_>>()
                                .join(" ");
                            let given = p.given_name.trim().to_string();
                            if family.is_empty() {
                                return None;
                            }
                            // A braced name with no given name is an organisation's, as written.
                            Some(if given.is_empty() && family.contains(' ') {
                                Name::Literal { literal: family }
                            } else {
                                Name::Person { family, given }
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let date = field("date").or_else(|| {
                field("year").map(|y| match field("month") {
                    Some(m) => format!("{m} {y}"),
                    None => y,
                })
            });
            let citation = Citation {
                kind: Some(csl_type(&entry.entry_type.to_string()).into()),
                authors,
                issued: date.as_deref().and_then(issued),
                container: field("journaltitle")
                    .or_else(|| field("journal"))
                    .or_else(|| field("booktitle")),
                publisher: field("publisher"),
                doi: field("doi").and_then(|d| doi(&d)),
                volume: field("volume"),
                issue: field("number").or_else(|| field("issue")),
                pages: field("pages").map(|p| {
                    p.split(['-', '\u{2013}'])
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .collect::<Vec<_>>()
                        .join("-")
                }),
            };
            let files = entry
                .get("file")
                .map(|chunks| attached(&chunks.format_verbatim()))
                .unwrap_or_default();
            Reference {
                key: entry.key.clone(),
                title: field("title"),
                citation,
                files,
            }
        })
        .collect())
}

/// The CSL item type of a BibTeX entry type.
fn csl_type(entry_type: &str) -> &'static str {
    match entry_type.to_lowercase().as_str() {
        "article" => "article-journal",
        "book" | "mvbook" => "book",
        "inbook" | "incollection" | "inreference" => "chapter",
        "inproceedings" | "conference" => "paper-conference",
        "proceedings" => "book",
        "phdthesis" | "mastersthesis" | "thesis" => "thesis",
        "techreport" | "report" => "report",
        "online" | "electronic" | "www" => "webpage",
        "manual" => "book",
        "patent" => "patent",
        "unpublished" => "manuscript",
        _ => "document",
    }
}

/// The paths in a `file` field as reference managers write it: attachments separated by `;`,
/// each `description:path:type` (Zotero, JabRef, Mendeley's `:C\:/x.pdf:pdf`) with `\:`, `\;`
/// and `\\` standing for themselves, or a bare path.
pub fn attached(field: &str) -> Vec<String> {
    let mut attachments: Vec<Vec<String>> = vec![vec![String::new()]];
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        let parts = attachments.last_mut().expect("one attachment at least");
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    parts.last_mut().expect("one part at least").push(next);
                }
            }
            ':' => parts.push(String::new()),
            ';' => attachments.push(vec![String::new()]),
            c => parts.last_mut().expect("one part at least").push(c),
        }
    }
    attachments
        .into_iter()
        .filter_map(|split| {
            // A Windows drive letter split off its path where the colon lost its escape (the
            // BibTeX reader drops it): "C" and "/Users/…" are one part.
            let mut parts: Vec<String> = Vec::new();
            for part in split {
                match parts.last_mut() {
                    Some(last)
                        if last.len() == 1
                            && last.chars().all(|c| c.is_ascii_alphabetic())
                            && part.starts_with(['/', '\\']) =>
                    {
                        last.push(':');
                        last.push_str(&part);
                    }
                    _ => parts.push(part),
                }
            }
            let path = match parts.len() {
                1 | 2 => parts[0].clone(),
                _ => parts[1].clone(),
            };
            let path = path.trim().to_string();
            (!path.is_empty()).then_some(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Zotero's "Export Collection…" writes BibTeX with "Export Files" ticked.
    const ZOTERO: &str = r#"
@article{hipp_sqlite_2024,
	title = {{SQLite}: {Past}, {Present}, and {Future}},
	volume = {15},
	issn = {2150-8097},
	url = {https://doi.org/10.14778/3554821.3554842},
	doi = {10.14778/3554821.3554842},
	number = {12},
	journal = {Proceedings of the VLDB Endowment},
	author = {Gaffney, Kevin P. and Prammer, Martin and Brasfield, Larry and Hipp, D. Richard and Kennedy, Dan and Patel, Jignesh M.},
	month = aug,
	year = {2022},
	pages = {3535--3547},
	file = {Full Text PDF:files/12/Gaffney et al. - 2022 - SQLite Past, Present, and Future.pdf:application/pdf;Snapshot:files/13/3554821.html:text/html},
}

@book{who_2020,
	title = {World report on hearing},
	publisher = {World Health Organization},
	author = {{World Health Organization}},
	year = {2020},
	file = {Full Text:C\:/Users/me/report.pdf:application/pdf},
}

@misc{no_file,
	title = {A note},
	author = {van der Berg, Anna},
}
"#;

    #[test]
    fn a_zotero_bibtex_export_gives_records_and_attached_files() {
        let refs = references(ZOTERO).unwrap();
        assert_eq!(refs.len(), 3);
        let sqlite = &refs[0];
        assert_eq!(sqlite.key, "hipp_sqlite_2024");
        assert_eq!(
            sqlite.title.as_deref(),
            Some("SQLite: Past, Present, and Future")
        );
        assert_eq!(
            sqlite.files,
            [
                "files/12/Gaffney et al. - 2022 - SQLite Past, Present, and Future.pdf",
                "files/13/3554821.html"
            ]
        );
        let c = &sqlite.citation;
        assert_eq!(c.authors.len(), 6);
        assert_eq!(
            c.authors[3],
            Name::Person {
                family: "Hipp".into(),
                given: "D. Richard".into()
            }
        );
        assert_eq!(c.issued.as_deref(), Some("2022-08"));
        assert_eq!(
            c.container.as_deref(),
            Some("Proceedings of the VLDB Endowment")
        );
        assert_eq!(c.doi.as_deref(), Some("10.14778/3554821.3554842"));
        assert_eq!(
            (c.volume.as_deref(), c.issue.as_deref()),
            (Some("15"), Some("12"))
        );
        assert_eq!(c.pages.as_deref(), Some("3535-3547"));

        let who = &refs[1];
        assert_eq!(
            who.citation.authors,
            [Name::Literal {
                literal: "World Health Organization".into()
            }]
        );
        assert_eq!(who.files, ["C:/Users/me/report.pdf"]);
        assert_eq!(
            who.citation.publisher.as_deref(),
            Some("World Health Organization")
        );

        let note = &refs[2];
        assert!(note.files.is_empty());
        assert_eq!(
            note.citation.authors,
            [Name::Person {
                family: "van der Berg".into(),
                given: "Anna".into()
            }]
        );
    }

    #[test]
    fn csl_json_items_with_and_without_files() {
        let refs = references(
            r#"[{"id": "a", "type": "article-journal", "title": "Waggle  dance",
                 "author": [{"family": "Seeley", "given": "Thomas D."}],
                 "issued": {"date-parts": [[2010, 5]]}, "DOI": "https://doi.org/10.1/X",
                 "file": "files/1/seeley.pdf"},
                {"id": 7, "title": "No file"}, 3]"#,
        )
        .unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].title.as_deref(), Some("Waggle dance"));
        assert_eq!(refs[0].files, ["files/1/seeley.pdf"]);
        assert_eq!(refs[0].citation.issued.as_deref(), Some("2010-05"));
        assert_eq!(refs[0].citation.doi.as_deref(), Some("10.1/X"));
        assert_eq!(refs[1].key, "7");
        assert!(refs[1].files.is_empty());
        let wrapped = references(r#"{"items": [{"id": "x", "title": "T"}]}"#).unwrap();
        assert_eq!(wrapped[0].key, "x");
    }

    #[test]
    fn what_is_not_an_export_is_refused_plainly() {
        assert!(matches!(references("[1, 2"), Err(ImportError::CslJson(_))));
        assert!(matches!(
            references(r#"{"title": "x"}"#),
            Err(ImportError::CslJson(_))
        ));
        assert!(matches!(
            references("@article{x, title = {unclosed"),
            Err(ImportError::Bibtex(_))
        ));
        assert!(references("").unwrap().is_empty());
    }

    #[test]
    fn file_fields_as_each_manager_writes_them() {
        assert_eq!(attached("files/1/a.pdf"), ["files/1/a.pdf"]);
        assert_eq!(attached(":C\\:/Users/x/a.pdf:pdf"), ["C:/Users/x/a.pdf"]);
        assert_eq!(attached("C:/Users/x/a.pdf"), ["C:/Users/x/a.pdf"]);
        assert_eq!(
            attached("PDF:a\\;b.pdf:application/pdf;:c.pdf:PDF"),
            ["a;b.pdf", "c.pdf"]
        );
        assert!(attached("").is_empty());
    }
}
