//! The citation checker: whether a sentence says what the passages it cites say.
//!
//! The ✓ on a sentence is the product's promise, and the audit of a run, the verify step, the
//! edited-draft check, recheck, `research check` and the MCP tool all need the same verdict
//! without the pipeline's state, a runtime or a model. So the verdict lives here, in pure,
//! synchronous text logic with one entry point, [`check`]:
//!
//! 1. the sentence is aligned to the best window of one to three consecutive sentences of the
//!    cited sources (their whole stored texts when known, else the cited passages), so the
//!    reader sees the words that bear it out rather than a whole page or only a quote;
//! 2. signals compare what people notice and bare word overlap misses — numbers and dates,
//!    names, negation, quantifiers and modality, comparatives and superlatives, who did what to
//!    whom ([`signals`], one file each);
//! 3. a logistic regression fitted on human judgements ([`Weights`], committed with how it was
//!    fitted) turns them into a probability, and the status is `verified` only above the
//!    threshold at which that probability was measured to be right.
//!
//! The words and numbers every check compares ([`words`], [`numbers`]) and the sentences of a
//! text ([`text`]) are here too, so the guard of model output reads text as the checker does.

#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::fmt;

pub mod document;
pub mod numbers;
pub mod opinion;
pub mod signals;
pub mod table;
pub mod text;
mod weights;
pub mod words;

pub use weights::{Weights, WeightsError};

pub use signals::Signals;

/// A passage a sentence cites: the words of source `source` it points at (an extracted quote,
/// a reference's text, or the whole page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passage<'a> {
    /// The source's number (the `N` of a `[N]` marker).
    pub source: usize,
    /// The cited words.
    pub text: &'a str,
}

/// The whole texts of the cited sources, by source number: the checker aligns a sentence to
/// the best window of these, not only to the passage the writer pointed at.
#[derive(Debug, Clone, Default)]
pub struct SourceTexts<'a> {
    texts: BTreeMap<usize, (&'a str, align::Prepared)>,
}

impl<'a> SourceTexts<'a> {
    /// No texts: only the cited passages are read.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the whole text of source `source`, cut into sentences and indexed
    /// once here rather than once per claim.
    pub fn insert(&mut self, source: usize, text: &'a str) {
        self.texts
            .insert(source, (text, align::Prepared::new(text)));
    }

    /// The whole text of source `source`, when known.
    pub fn get(&self, source: usize) -> Option<&'a str> {
        self.texts.get(&source).map(|(t, _)| *t)
    }

    /// The whole text of source `source` with its sentences and index.
    pub(crate) fn prepared(&self, source: usize) -> Option<(&'a str, &align::Prepared)> {
        self.texts.get(&source).map(|(t, p)| (*t, p))
    }
}

/// What the checker says of a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// A source states what the sentence says (with the measured precision of [`Weights`]).
    Verified,
    /// A source says much of it, not all, or not clearly enough to call it verified.
    Partly,
    /// No cited source says it.
    Unsupported,
    /// A source says something else about the same thing (another number, or the opposite).
    Contradicted,
}

impl Status {
    /// The status as written in reports and JSON: `verified`, `partly`, `unsupported`,
    /// `contradicted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Partly => "partly",
            Status::Unsupported => "unsupported",
            Status::Contradicted => "contradicted",
        }
    }

    /// Whether a writer's CI should fail on it.
    pub fn fails(self) -> bool {
        matches!(self, Status::Unsupported | Status::Contradicted)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict on one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What the checker says.
    pub status: Status,
    /// The source whose window bears the sentence out best (`None` when nothing was cited).
    pub source: Option<usize>,
    /// That window: one to three consecutive sentences of the source, as written.
    pub aligned: String,
    /// Why, in words.
    pub reason: String,
    /// The calibrated probability that a person would call the sentence attributable to its
    /// sources, 0 to 1.
    pub score: f64,
    /// The signals the score was computed from.
    pub signals: Signals,
}

/// Under this share of its content words in what it cites (a third), a sentence is unsupported
/// whatever its score: it says something its sources do not, not a part of what they say.
pub const PARTLY_MIN_OVERLAP: f64 = 0.34;

/// At or above this calibrated probability a person more likely than not finds a sentence in
/// its sources: a `partly` sentence under it is more likely unsupported than not.
pub const LIKELY: f64 = 0.5;

/// The most consecutive sentences of a source a sentence is aligned to.
pub const WINDOW_SENTENCES: usize = 3;

/// How often the committed weights' `verified` was right on human judgements they were not
/// fitted on (held-out folds), 0 to 1: what a legend of the ✓ states. `None` only if the
/// committed file stopped saying (its test says it does).
pub fn verified_precision() -> Option<f64> {
    Weights::committed().verified_precision
}

/// Whether `passage` states what `sentence` says: [`check`] against that one passage, `true`
/// only for [`Status::Verified`]. For the pipeline's yes-or-no questions (does this quote bear
/// out its fact, does another source say this claim), so they ask what the audit asks.
pub fn states(passage: &str, sentence: &str) -> bool {
    let cited = [Passage {
        source: 1,
        text: passage,
    }];
    check(sentence, &cited, &SourceTexts::new()).status == Status::Verified
}

/// Checks `sentence` against the passages it cites, with the committed [`Weights`].
pub fn check(sentence: &str, cited: &[Passage<'_>], texts: &SourceTexts<'_>) -> Verdict {
    check_with(sentence, cited, texts, Weights::committed())
}

/// Checks `sentence` against the passages it cites, with `weights` (weights fitted on other
/// judgements: "calibrate your own").
pub fn check_with(
    sentence: &str,
    cited: &[Passage<'_>],
    texts: &SourceTexts<'_>,
    weights: &Weights,
) -> Verdict {
    let claim = words::without_citations(sentence);
    let claim = claim.trim();
    let Some((best, bag)) = align::best(claim, cited, texts) else {
        return Verdict {
            status: Status::Unsupported,
            source: None,
            aligned: String::new(),
            reason: "unsupported: it cites no source with any text".into(),
            score: 0.0,
            signals: Signals::default(),
        };
    };
    let signals = Signals::measure(claim, &best.text, &bag);
    let score = weights.probability(&signals);
    let (status, reason) = judge(claim, &best.text, &signals, score, weights);
    Verdict {
        status,
        source: Some(best.source),
        aligned: best.text,
        reason,
        score,
        signals,
    }
}

/// The status and its reason, from the signals and the calibrated score.
fn judge(
    claim: &str,
    aligned: &str,
    s: &Signals,
    score: f64,
    weights: &Weights,
) -> (Status, String) {
    if let Some(conflict) = signals::conflict(claim, aligned) {
        return (Status::Contradicted, format!("contradicted: {conflict}"));
    }
    let percent = |x: f64| format!("{:.0}%", x * 100.0);
    let mut gaps: Vec<String> = Vec::new();
    if s.missing_numbers > 0.0 {
        gaps.push(format!(
            "{} of its numbers or dates {} not in the source",
            s.missing_numbers,
            if s.missing_numbers == 1.0 {
                "is"
            } else {
                "are"
            }
        ));
    }
    if s.missing_entities > 0.0 {
        gaps.push(format!(
            "{} of its names not in the source",
            s.missing_entities
        ));
    }
    if s.negation_mismatch > 0.0 {
        gaps.push("one of them says \"not\" where the other does not".into());
    }
    if s.quantifier_mismatch > 0.0 {
        gaps.push("its quantifier or modality (all/some, may/must) differs".into());
    }
    if s.degree_mismatch > 0.0 {
        gaps.push("its comparative or superlative is not the source's".into());
    }
    if s.order_swaps > 0.0 {
        gaps.push("its words come in another order (who did what may be swapped)".into());
    }
    let words = format!(
        "{} of its content words are in the aligned passage",
        percent(s.overlap)
    );
    let likely = format!("{} likely attributable", percent(score));
    if score >= weights.verified_above {
        let extra = if gaps.is_empty() {
            String::new()
        } else {
            format!("; note: {}", gaps.join("; "))
        };
        (
            Status::Verified,
            format!("verified: {words} ({likely}){extra}"),
        )
    } else if score < weights.unsupported_below || s.overlap_cited.max(s.fuzzy) < PARTLY_MIN_OVERLAP
    {
        let why = if gaps.is_empty() {
            String::new()
        } else {
            format!("; {}", gaps.join("; "))
        };
        // "Only" where few of its words are there; with most of them there, the score or a
        // signal (a number, a name) is what fails it.
        let only = if s.overlap < 0.5 { "only " } else { "" };
        (
            Status::Unsupported,
            format!("unsupported: {only}{words} ({likely}){why}"),
        )
    } else {
        let why = if gaps.is_empty() {
            "not enough of it is said in the source's words to call it verified".to_string()
        } else {
            gaps.join("; ")
        };
        (Status::Partly, format!("partly: {words} ({likely}); {why}"))
    }
}

pub mod align;

#[cfg(test)]
mod tests {
    use super::*;

    /// Wikipedia, "Eiffel Tower" (abridged).
    const EIFFEL: &str = "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars \
        in Paris, France. It is named after the engineer Gustave Eiffel, whose company designed \
        and built the tower from 1887 to 1889.\n\nThe tower is 330 metres (1,083 ft) tall, about \
        the same height as an 81-storey building, and the tallest structure in Paris. Its base \
        is square, measuring 125 metres (410 ft) on each side.\n\nThe tower received 5,889,000 \
        visitors in 2015.";

    fn cited(text: &str) -> Vec<Passage<'_>> {
        vec![Passage { source: 1, text }]
    }

    #[test]
    fn a_sentence_a_source_states_is_verified_and_aligned_to_its_sentence() {
        let v = check(
            "The tower is 330 metres tall, about the same height as an 81-storey building [1].",
            &cited(EIFFEL),
            &SourceTexts::new(),
        );
        assert_eq!(v.status, Status::Verified, "{v:?}");
        assert_eq!(v.source, Some(1));
        assert!(v.aligned.starts_with("The tower is 330 metres"), "{v:?}");
        assert!(!v.aligned.contains("visitors"), "{v:?}");
    }

    /// SQLite's file format page (abridged), its table as the HTML extractor stores it.
    const HEADER_TABLE: &str = "The first 100 bytes of the database file comprise the database \
        file header.\n\n| Offset | Size | Description |\n| --- | --- | --- |\n\
        | 0 | 16 | The header string |\n\
        | 16 | 2 | The database page size in bytes. |\n\
        | 18 | 1 | File format write version. |\n\nAll multibyte fields are big-endian.\n";

    #[test]
    fn a_number_from_a_table_is_checked_against_its_row_and_header() {
        let mut texts = SourceTexts::new();
        texts.insert(1, HEADER_TABLE);
        let row = "| 16 | 2 | The database page size in bytes. |";
        let passage = [Passage {
            source: 1,
            text: row,
        }];
        let v = check(
            "The database page size in bytes has offset 16 and size 2 [1].",
            &passage,
            &texts,
        );
        assert_eq!(v.status, Status::Verified, "{v:?}");
        assert_eq!(
            v.aligned,
            "Offset: 16; Size: 2; Description: The database page size in bytes."
        );
        // Another row's number is not this row's: not verified.
        let v = check(
            "The database page size in bytes has offset 18 and size 2 [1].",
            &passage,
            &texts,
        );
        assert_ne!(v.status, Status::Verified, "{v:?}");
    }

    #[test]
    fn a_window_spans_the_sentences_a_claim_draws_on() {
        let v = check(
            "The tower is 330 metres tall and its square base measures 125 metres on each side.",
            &cited(EIFFEL),
            &SourceTexts::new(),
        );
        assert!(
            v.aligned.contains("125") && v.aligned.contains("330"),
            "{v:?}"
        );
        // A window does not cross a paragraph: the claim's words from two are two windows.
        let v = check(
            "Gustave Eiffel's company built the tower from 1887 to 1889, and it is 330 metres \
             tall.",
            &cited(EIFFEL),
            &SourceTexts::new(),
        );
        assert!(!v.aligned.contains("\n\n"), "{v:?}");
    }

    #[test]
    fn the_whole_text_is_read_when_the_cited_passage_is_only_part_of_it() {
        let mut texts = SourceTexts::new();
        texts.insert(1, EIFFEL);
        let v = check(
            "The tower received 5,889,000 visitors in 2015.",
            &cited("The Eiffel Tower is a wrought-iron lattice tower."),
            &texts,
        );
        assert!(v.aligned.contains("5,889,000"), "{v:?}");
        assert_eq!(v.signals.missing_numbers, 0.0);
    }

    #[test]
    fn another_number_for_the_same_thing_is_contradicted() {
        let v = check(
            "The tower received 3,000,000 visitors in 2015.",
            &cited(EIFFEL),
            &SourceTexts::new(),
        );
        assert_eq!(v.status, Status::Contradicted, "{v:?}");
        assert!(v.reason.contains("\"5,889,000\""), "{}", v.reason);
    }

    #[test]
    fn an_unrelated_sentence_is_unsupported_and_nothing_cited_is_unsupported() {
        let v = check(
            "Honey bees communicate the location of food through the waggle dance.",
            &cited(EIFFEL),
            &SourceTexts::new(),
        );
        assert_eq!(v.status, Status::Unsupported, "{v:?}");
        let v = check("Anything at all is said here.", &[], &SourceTexts::new());
        assert_eq!(v.status, Status::Unsupported);
        assert_eq!(v.source, None);
    }
}
