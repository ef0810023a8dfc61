//! What the writer reads, made once per draft: the evidence listing of its prompt, and the
//! sources' texts its quotes and the audit are checked against.

use std::collections::BTreeMap;

use super::super::audit;
use super::super::trust;
use crate::ask::Ctx;
use crate::records::{Evidence, Source};
use crate::report;

/// The evidence as the writer reads it: source number, title, fact and quote, or the quote
/// alone when the fact is the quote's own words (as a passage taken verbatim is: every item
/// of the built-in models' runs measured), which would otherwise fill half the listing twice.
pub(super) fn writer_listing(evidence: &[Evidence], sources: &[Source]) -> String {
    let mut out = String::new();
    for e in evidence {
        let title = sources
            .iter()
            .find(|s| s.id == e.source_id)
            .map(|s| s.title.as_str())
            .unwrap_or_default();
        let quote = e.quote.replace('\n', " ");
        let line = if e.reads_as_its_quote() {
            format!("[{}] ({title}) \"{quote}\"\n", e.source_id)
        } else {
            let fact = e.fact.replace('\n', " ");
            format!("[{}] ({title}) {fact} — \"{quote}\"\n", e.source_id)
        };
        out.push_str(&line);
    }
    out
}

/// The sources' texts by source id, read from the store once per draft. A text the store
/// cannot give is left out.
pub(super) struct Texts {
    /// As stored: span verification looks for passages in them (the trust engine), at every
    /// look of the draft's watch too, so they are not read again for each.
    pub(super) stored: BTreeMap<u32, String>,
    /// As the checker reads a source (its words as a person sees them, paragraphs and table
    /// rows kept: [`research_check::text::readable`], as `research check` reads them): the
    /// writer's quotes and the audit are checked against them.
    pub(super) readable: BTreeMap<u32, String>,
}

impl Texts {
    pub(super) fn of(ctx: &Ctx, sources: &[Source]) -> Self {
        let stored = trust::texts(ctx, sources);
        let readable = stored
            .iter()
            .map(|(id, text)| (*id, research_check::text::readable(text)))
            .collect();
        Self { stored, readable }
    }
}

/// The words of the texts of the sources `body` cites, for the audit.
pub(super) fn cited_texts(texts: &BTreeMap<u32, String>, body: &str) -> audit::SourceTexts {
    let cited = report::cited_ids(body);
    audit::SourceTexts::new(
        texts
            .iter()
            .filter(|(id, _)| cited.contains(id))
            .map(|(id, t)| (*id, t.as_str())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passage_taken_verbatim_is_listed_once() {
        let source = Source {
            id: 1,
            url: "https://valgrind.org/ms".into(),
            title: "Massif".into(),
            kind: "web".into(),
            provider: "local".into(),
            published: None,
            sha256: String::new(),
            accessed_at_ms: 0,
            citation: None,
        };
        let item = |fact: &str, quote: &str| Evidence {
            source_id: 1,
            ..Evidence::unnumbered(fact.into(), quote.into())
        };
        let listing = writer_listing(
            &[
                item("Massif is a heap\nprofiler.", "Massif is a heap profiler."),
                item("Massif profiles the heap.", "Massif is a heap profiler."),
            ],
            &[source],
        );
        assert_eq!(
            listing,
            "[1] (Massif) \"Massif is a heap profiler.\"\n\
             [1] (Massif) Massif profiles the heap. — \"Massif is a heap profiler.\"\n"
        );
    }
}
