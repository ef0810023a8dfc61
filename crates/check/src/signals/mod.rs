//! The signals a verdict is computed from, one file each: what people notice when they judge
//! whether a passage says what a sentence says, and bare word overlap misses.
//!
//! Each signal is a number (a share, a count or a flag) so that [`crate::Weights`] can combine
//! them; each file's tests use real sentences from public sources.

use crate::align::Cited;

pub mod comparison;
pub mod degree;
pub mod entities;
pub mod exclusive;
pub mod negation;
pub mod numbers;
pub mod overlap;
pub mod quantifiers;
pub mod relations;
pub mod states;

/// The signals measured between a claim, the window it is aligned to, and everything it cites.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Signals {
    /// The share of the claim's content words in the aligned window.
    pub overlap: f64,
    /// The share of the claim's content words anywhere in what it cites.
    pub overlap_cited: f64,
    /// The share of the claim's neighbouring word pairs that are neighbours in the window.
    pub pairs: f64,
    /// The longest run of the claim's content words said in the same order in the window, as a
    /// share of the claim's content words.
    pub run: f64,
    /// ln(1 + the claim's content words): long claims say more that can be unsupported.
    pub claim_words: f64,
    /// How many numbers and dates the claim states.
    pub numbers: f64,
    /// How many of them the aligned window does not state.
    pub missing_numbers: f64,
    /// How many of them nothing cited states.
    pub missing_numbers_cited: f64,
    /// How many names (capitalised words, acronyms) the claim has.
    pub entities: f64,
    /// How many of them nothing cited has.
    pub missing_entities: f64,
    /// 1 when one of claim and window is negated and the other is not.
    pub negation_mismatch: f64,
    /// How many of the claim's kinds of quantifier or modality (all, some, must, may) the
    /// window lacks.
    pub quantifier_mismatch: f64,
    /// How many of the claim's comparatives and superlatives the window lacks.
    pub degree_mismatch: f64,
    /// The share of pairs of shared words that come in the opposite order in the window.
    pub order_swaps: f64,
    /// How many of the claim's content words the window lacks.
    pub unmatched: f64,
    /// The share of the claim's content words in the window, counting a word the window has
    /// under another ending ("acquisition" for "acquired": the same first five letters).
    pub fuzzy: f64,
    /// 1 when the window has every content word and every number of the claim.
    pub complete: f64,
    /// The share of the window's content words that are the claim's: a window that is the
    /// claim in other words scores high, a long page that mentions it low.
    pub window_share: f64,
    /// How many of the claim's long content words (seven letters or more, rarely shared by
    /// chance) nothing cited has.
    pub unmatched_long: f64,
    /// 1 when the claim is a fragment rather than a statement: no closing punctuation, or
    /// fewer than four content words (a heading, a list label).
    pub fragment: f64,
    /// How many of the claim's comparisons the window makes the other way round (sides
    /// swapped, or the opposite comparative with the same sides).
    pub comparison_reversed: f64,
    /// How many kinds of exclusive (only, always, never, cannot, exactly) the claim states that
    /// the window does not allow.
    pub exclusive_added: f64,
    /// 1 when the window says the opposite with a synonym of the claim's verb ("calls" against
    /// "does not invoke").
    pub negated_in_other_words: f64,
    /// How many of the claim's states the window states the opposite of (unchanged against
    /// overwritten, automatic against manual).
    pub opposed_states: f64,
    /// The cosine similarity of the claim's and the window's sentence vectors (0 without the
    /// sentence model).
    pub meaning: f64,
    /// How much of the claim finds a close match, token by token, in the window (BERTScore's
    /// recall; 0 without the sentence model).
    pub token_recall: f64,
    /// How well the claim's two worst-matched content tokens match the window (0 without the
    /// sentence model).
    pub token_weakest: f64,
    /// How much of the window finds a close match, token by token, in the claim (0 without the
    /// sentence model).
    pub token_precision: f64,
    /// How much of the claim finds a close match, token by token, in all the windows read with
    /// it at once (0 without the sentence model).
    pub token_recall_cited: f64,
    /// How surely the entailment reader finds that the window does not bear the claim out:
    /// `-log10` of its probability that it does, from 0 to 3 (0 without the reader, and where it
    /// was not asked because its denial could not decide: see `research_check::DENIED_CUT`). A
    /// sentence that changes one relation of its passage reads near 2, one that restates it near 1.
    pub denied: f64,
}

/// The signals' names, in the order of [`Signals::values`]: the names in the weights file and
/// in `research check --json`.
pub const NAMES: [&str; 30] = [
    "overlap",
    "overlap_cited",
    "pairs",
    "run",
    "claim_words",
    "numbers",
    "missing_numbers",
    "missing_numbers_cited",
    "entities",
    "missing_entities",
    "negation_mismatch",
    "quantifier_mismatch",
    "degree_mismatch",
    "order_swaps",
    "unmatched",
    "fuzzy",
    "complete",
    "fragment",
    "window_share",
    "unmatched_long",
    "comparison_reversed",
    "exclusive_added",
    "negated_in_other_words",
    "opposed_states",
    "meaning",
    "token_recall",
    "token_weakest",
    "token_precision",
    "token_recall_cited",
    "denied",
];

impl Signals {
    /// Measures every signal of `claim` (without citation markers) against its aligned window
    /// and against everything it cites.
    pub fn measure(claim: &str, aligned: &str, cited: &Cited) -> Signals {
        let words = overlap::Overlap::measure(claim, aligned, &cited.terms);
        let numbers = numbers::NumberCheck::measure(claim, aligned, &cited.numbers);
        let names = entities::names(claim);
        let missing_entities = entities::missing(&names, &cited.terms);
        Signals {
            overlap: words.share,
            overlap_cited: words.share_cited,
            pairs: words.pairs,
            run: words.run,
            claim_words: (1.0 + words.total as f64).ln(),
            numbers: numbers.stated as f64,
            missing_numbers: numbers.missing as f64,
            missing_numbers_cited: numbers.missing_cited as f64,
            entities: names.len() as f64,
            missing_entities: missing_entities as f64,
            negation_mismatch: f64::from(u8::from(negation::mismatch(claim, aligned))),
            quantifier_mismatch: quantifiers::mismatch(claim, aligned) as f64,
            degree_mismatch: degree::mismatch(claim, aligned) as f64,
            order_swaps: relations::swaps(claim, aligned),
            unmatched: words.total as f64 * (1.0 - words.share),
            fuzzy: words.fuzzy,
            complete: f64::from(u8::from(
                words.total > 0 && words.share >= 1.0 && numbers.missing == 0,
            )),
            fragment: f64::from(u8::from(overlap::fragment(claim, words.total))),
            window_share: words.window_share,
            unmatched_long: words.unmatched_long as f64,
            comparison_reversed: comparison::reversed(claim, aligned) as f64,
            exclusive_added: exclusive::added(claim, aligned).len() as f64,
            negated_in_other_words: f64::from(u8::from(negation::opposite_in_other_words(
                claim, aligned,
            ))),
            opposed_states: states::opposed(claim, aligned).len() as f64,
            meaning: 0.0,
            token_recall: 0.0,
            token_weakest: 0.0,
            token_precision: 0.0,
            token_recall_cited: 0.0,
            denied: 0.0,
        }
    }

    /// The signals' values, in the order of [`NAMES`].
    pub fn values(&self) -> [f64; NAMES.len()] {
        [
            self.overlap,
            self.overlap_cited,
            self.pairs,
            self.run,
            self.claim_words,
            self.numbers,
            self.missing_numbers,
            self.missing_numbers_cited,
            self.entities,
            self.missing_entities,
            self.negation_mismatch,
            self.quantifier_mismatch,
            self.degree_mismatch,
            self.order_swaps,
            self.unmatched,
            self.fuzzy,
            self.complete,
            self.fragment,
            self.window_share,
            self.unmatched_long,
            self.comparison_reversed,
            self.exclusive_added,
            self.negated_in_other_words,
            self.opposed_states,
            self.meaning,
            self.token_recall,
            self.token_weakest,
            self.token_precision,
            self.token_recall_cited,
            self.denied,
        ]
    }

    /// The signals with their names.
    pub fn named(&self) -> Vec<(&'static str, f64)> {
        NAMES.iter().copied().zip(self.values()).collect()
    }
}

/// Why the window says something else about what the claim is about, when it does: another
/// number for the same thing, or the opposite on the same words.
pub fn conflict(claim: &str, aligned: &str) -> Option<String> {
    if let Some(theirs) = numbers::disagrees(claim, aligned) {
        let quoted: Vec<String> = theirs.iter().map(|n| format!("\"{n}\"")).collect();
        return Some(format!(
            "the source states {} where the sentence states {}",
            quoted.join(", "),
            crate::numbers::missing_numbers(claim, aligned)
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if negation::opposite(claim, aligned) {
        return Some("the source says the opposite (one of them says \"not\")".into());
    }
    None
}

/// Why the window says the claim the other way round, when it does in a way the words alone do
/// not show: a comparison whose sides or direction are reversed, a negation said with a synonym
/// of the window's verb, or an opposed state in a window that says most of the claim. Each was
/// measured to fire rarely on claims people call attributable (BENCHMARKS.md).
pub fn reversal(claim: &str, aligned: &str, s: &Signals) -> Option<String> {
    if s.comparison_reversed > 0.0 {
        return Some("the source makes the comparison the other way round".into());
    }
    if s.negated_in_other_words > 0.0 {
        return Some(
            "the source says the opposite in other words (one of them says \"not\")".into(),
        );
    }
    if s.opposed_states > 0.0 && s.overlap >= OPPOSED_OVERLAP {
        let pairs = states::opposed(claim, aligned);
        return Some(format!(
            "the source states the opposite ({})",
            pairs
                .iter()
                .map(|p| {
                    let (mine, theirs) = p.split_once(" / ").unwrap_or((p, ""));
                    format!("\"{theirs}\" where the sentence says \"{mine}\"")
                })
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    None
}

/// An opposed state contradicts only in a window that has this share of the claim's words:
/// below it, the window may be about something else in the same state words.
pub const OPPOSED_OVERLAP: f64 = 0.5;

/// The sentence of `window` that shares most of `claim`'s words: states and exclusives are
/// judged there, so a state said of something else elsewhere in the window does not count.
pub fn closest_sentence<'w>(claim: &str, window: &'w str) -> &'w str {
    use unicode_segmentation::UnicodeSegmentation;
    let mine = crate::words::word_terms(claim);
    window
        .split_sentence_bounds()
        .filter(|s| !s.trim().is_empty())
        .max_by_key(|s| {
            (
                mine.intersection(&crate::words::word_terms(s)).count(),
                std::cmp::Reverse(s.len()),
            )
        })
        .unwrap_or(window)
}
