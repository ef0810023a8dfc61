//! What a source is cited as: who wrote it, when and where it appeared, its DOI.
//!
//! The seam exists because these facts are found in one place and used in another. They are
//! gathered where a source is found — a paper provider's record, the `<meta>` tags a page
//! carries about itself, a reference manager's export — and read where the source is cited,
//! when a report is exported in a citation style ("(Hipp, 2024)" needs the author and the
//! year). Between the two they travel with the run's sources and are stored with them. This
//! crate owns the record ([`Citation`]) and the rules that read it from those places, so a
//! search provider, the page reader, the library and the exporter agree on one shape and on
//! one mapping to CSL-JSON, the shared language of citation processors and reference managers.
//! It also reads a reference manager's export back ([`references`]): its records, and the files
//! attached to them, for the library.
#![deny(missing_docs)]

mod date;
mod import;
mod meta;
mod name;

pub use date::issued;
pub use import::{attached, bibtex, csl_json, references, ImportError, Reference};
pub use name::Name;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Who wrote a source and where it appeared, as far as it is known. Every field may be
/// missing: a citation style writes what there is ("n.d." for no date, the title first for no
/// author).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Citation {
    /// Its authors, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<Name>,
    /// When it was published: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (see [`issued`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub issued: Option<String>,
    /// The journal, proceedings, book or web site it appeared in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub container: Option<String>,
    /// Its publisher.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub publisher: Option<String>,
    /// Its DOI, bare (`10.1145/…`, no resolver address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub doi: Option<String>,
    /// The volume of the journal or series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub volume: Option<String>,
    /// The issue of the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub issue: Option<String>,
    /// Its pages (`12-19`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pages: Option<String>,
    /// What it is, as a CSL item type (`article-journal`, `book`, `chapter`,
    /// `paper-conference`, `thesis`, `report`…), when a record says so (a reference manager's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub kind: Option<String>,
}

impl Citation {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == Citation::default()
    }

    /// This record with what it lacks taken from `other`: the first place that knows a field
    /// wins (a paper provider's record before the page's own tags, say), and the authors are
    /// taken as a whole, never mixed.
    pub fn or(mut self, other: Citation) -> Citation {
        if self.authors.is_empty() {
            self.authors = other.authors;
        }
        let fill = |mine: &mut Option<String>, theirs: Option<String>| {
            if mine.is_none() {
                *mine = theirs;
            }
        };
        fill(&mut self.issued, other.issued);
        fill(&mut self.container, other.container);
        fill(&mut self.publisher, other.publisher);
        fill(&mut self.doi, other.doi);
        fill(&mut self.volume, other.volume);
        fill(&mut self.issue, other.issue);
        fill(&mut self.pages, other.pages);
        fill(&mut self.kind, other.kind);
        self
    }

    /// What a page says about itself in its `<meta name=… content=…>` (and `property=`) tags:
    /// the Highwire tags Google Scholar reads (`citation_author`, `citation_publication_date`,
    /// `citation_doi`, `citation_journal_title`, …) first, then Dublin Core (`DC.creator`,
    /// `DC.date`), then Open Graph and the plain `author` tag. `pairs` are (name, content) in
    /// page order; names are matched without regard to case.
    pub fn from_meta<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Citation {
        meta::read(pairs)
    }

    /// The record as CSL-JSON fields (`author`, `issued`, `container-title`, `publisher`, `DOI`,
    /// `volume`, `issue`, `page`, and `type` when the record says what the source is), to add to
    /// an item that has its `id`, `title` and a `type` from how it was found.
    pub fn csl_fields(&self) -> Map<String, Value> {
        let mut out = Map::new();
        if !self.authors.is_empty() {
            let names: Vec<Value> = self.authors.iter().map(Name::csl).collect();
            out.insert("author".into(), Value::Array(names));
        }
        if let Some(parts) = self.issued.as_deref().and_then(date::parts) {
            out.insert("issued".into(), json!({ "date-parts": [parts] }));
        }
        let mut text = |key: &str, value: &Option<String>| {
            if let Some(v) = value {
                out.insert(key.into(), Value::String(v.clone()));
            }
        };
        text("container-title", &self.container);
        text("publisher", &self.publisher);
        text("DOI", &self.doi);
        text("volume", &self.volume);
        text("issue", &self.issue);
        text("page", &self.pages);
        text("type", &self.kind);
        out
    }

    /// The record a CSL-JSON item carries (what Zotero, Mendeley and Pandoc write): the
    /// inverse of [`Citation::csl_fields`], reading `issued` as date parts or a raw string.
    pub fn from_csl(item: &Value) -> Citation {
        let text = |key: &str| {
            item.get(key)
                .and_then(|v| match v {
                    Value::String(s) => Some(s.trim().to_string()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .filter(|s| !s.is_empty())
        };
        let authors = item
            .get("author")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Name::from_csl).collect())
            .unwrap_or_default();
        let issued = item.get("issued").and_then(date::from_csl);
        Citation {
            authors,
            issued,
            container: text("container-title"),
            publisher: text("publisher"),
            doi: text("DOI").and_then(|d| doi(&d)),
            volume: text("volume"),
            issue: text("issue"),
            pages: text("page"),
            kind: text("type"),
        }
    }
}

/// A DOI, bare: `https://doi.org/10.1/x`, `doi:10.1/x` and `10.1/x` all give `10.1/x`; text
/// that holds none gives `None`.
pub fn doi(text: &str) -> Option<String> {
    let start = text.find("10.")?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '"' || c == '<' || c == '>')
        .unwrap_or(rest.len());
    let found = rest[..end].trim_end_matches(['.', ',', ';']);
    // `10.<registrant>/<suffix>`, the registrant all digits and dots.
    let (registrant, suffix) = found.split_once('/')?;
    (registrant.len() > 3
        && registrant[3..]
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
        && !suffix.is_empty())
    .then(|| found.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_fills_only_what_it_lacks_and_takes_authors_whole() {
        let provider = Citation {
            authors: vec![Name::parse("Hipp, D. Richard").unwrap()],
            issued: Some("2024".into()),
            ..Default::default()
        };
        let page = Citation {
            authors: vec![
                Name::parse("Someone Else").unwrap(),
                Name::parse("Another").unwrap(),
            ],
            issued: Some("2023-05-01".into()),
            container: Some("SQLite".into()),
            ..Default::default()
        };
        let merged = provider.clone().or(page);
        assert_eq!(merged.authors, provider.authors);
        assert_eq!(merged.issued.as_deref(), Some("2024"));
        assert_eq!(merged.container.as_deref(), Some("SQLite"));
        assert!(Citation::default().is_empty());
        assert!(!merged.is_empty());
    }

    #[test]
    fn csl_fields_and_back() {
        let c = Citation {
            authors: vec![
                Name::parse("Hipp, D. Richard").unwrap(),
                Name::parse("World Health Organization").unwrap(),
            ],
            issued: Some("2024-03".into()),
            container: Some("Journal of Things".into()),
            publisher: Some("ACM".into()),
            doi: Some("10.1145/3318464".into()),
            volume: Some("12".into()),
            issue: Some("3".into()),
            pages: Some("10-19".into()),
            kind: Some("article-journal".into()),
        };
        let fields = Value::Object(c.csl_fields());
        assert_eq!(
            fields["author"],
            json!([{"family": "Hipp", "given": "D. Richard"}, {"literal": "World Health Organization"}])
        );
        assert_eq!(fields["issued"], json!({"date-parts": [[2024, 3]]}));
        assert_eq!(fields["DOI"], "10.1145/3318464");
        assert_eq!(Citation::from_csl(&fields), c);
        // What Zotero writes for a date it could not split.
        let raw = json!({"issued": {"raw": "March 2019"}, "DOI": "https://doi.org/10.1/ab"});
        let read = Citation::from_csl(&raw);
        assert_eq!(read.issued.as_deref(), Some("2019-03"));
        assert_eq!(read.doi.as_deref(), Some("10.1/ab"));
    }

    #[test]
    fn dois_are_found_bare() {
        assert_eq!(
            doi("https://doi.org/10.1145/3318464.3389753").as_deref(),
            Some("10.1145/3318464.3389753")
        );
        assert_eq!(
            doi("doi:10.48550/arXiv.2401.01234.").as_deref(),
            Some("10.48550/arXiv.2401.01234")
        );
        assert_eq!(doi("no doi here"), None);
        assert_eq!(doi("version 10.2 of it"), None);
        assert_eq!(doi("10./x"), None);
    }
}
