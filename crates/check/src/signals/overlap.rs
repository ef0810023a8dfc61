//! Word overlap: how much of the claim the aligned window says in its words, in pairs and in
//! runs (a paraphrase keeps words; a copied sentence keeps their order too).

use std::collections::HashSet;

use crate::words::{bigrams, stem, tokens, word_terms, Kind};

/// The overlap of a claim with its window and with everything cited.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlap {
    /// The share of the claim's content words in the window.
    pub share: f64,
    /// The share of the claim's content words anywhere cited.
    pub share_cited: f64,
    /// The share of the claim's neighbouring word pairs that are near each other (at most two
    /// words apart) in the window.
    pub pairs: f64,
    /// The longest run of claim words found in order in the window, as a share of the claim's.
    pub run: f64,
    /// The share of the claim's content words in the window under the same first
    /// [`FUZZY_PREFIX`] letters.
    pub fuzzy: f64,
    /// The share of the window's content words that are the claim's.
    pub window_share: f64,
    /// How many of the claim's content words of [`LONG_WORD`] letters or more nothing cited
    /// has.
    pub unmatched_long: usize,
    /// How many distinct content words the claim has.
    pub total: usize,
}

/// A word of this many letters or more is rarely shared by chance.
pub const LONG_WORD: usize = 7;

/// Words that share this many first letters are taken for one word under another ending.
pub const FUZZY_PREFIX: usize = 5;

/// A claim with fewer content words than this is a label, not a statement.
pub const STATEMENT_MIN_WORDS: usize = 4;

/// Whether `claim` (without markers) is a fragment: no closing punctuation, or fewer than
/// [`STATEMENT_MIN_WORDS`] content words.
pub fn fragment(claim: &str, content_words: usize) -> bool {
    let closed = claim
        .trim_end()
        .trim_end_matches(['"', '\'', '”', '’', ')', ']', '*', '_'])
        .ends_with(['.', '!', '?', '。', '！', '？']);
    !closed || content_words < STATEMENT_MIN_WORDS
}

/// The first [`FUZZY_PREFIX`] characters of a word.
fn prefix(word: &str) -> &str {
    match word.char_indices().nth(FUZZY_PREFIX) {
        Some((i, _)) => &word[..i],
        None => word,
    }
}

/// The content words of `text` in order, stemmed (kanji runs as bigrams; numbers left out,
/// they have their own signal).
pub fn stems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens(text) {
        match t.kind {
            Kind::Word => out.push(stem(&t.text)),
            Kind::Han => out.extend(bigrams(&t.text)),
            Kind::Katakana => out.push(t.text),
            Kind::Number => {}
        }
    }
    out
}

impl Overlap {
    /// Measures `claim` against `window` and the terms of everything cited.
    pub fn measure(claim: &str, window: &str, cited: &HashSet<String>) -> Overlap {
        let mine = word_terms(claim);
        let theirs = word_terms(window);
        let total = mine.len();
        let share = |set: &HashSet<String>| {
            if total == 0 {
                0.0
            } else {
                mine.intersection(set).count() as f64 / total as f64
            }
        };
        let (a, b) = (stems(claim), stems(window));
        let prefixes: HashSet<&str> = theirs.iter().map(|w| prefix(w)).collect();
        let fuzzy = mine
            .iter()
            .filter(|w| theirs.contains(*w) || prefixes.contains(prefix(w)))
            .count();
        Overlap {
            window_share: if theirs.is_empty() {
                0.0
            } else {
                theirs.intersection(&mine).count() as f64 / theirs.len() as f64
            },
            unmatched_long: mine
                .iter()
                .filter(|w| w.chars().count() >= LONG_WORD && !cited.contains(*w))
                .count(),
            fuzzy: if total == 0 {
                0.0
            } else {
                fuzzy as f64 / total as f64
            },
            share: share(&theirs),
            share_cited: share(cited),
            pairs: pairs(&a, &b),
            run: if a.is_empty() {
                0.0
            } else {
                longest_run(&a, &b) as f64 / a.len() as f64
            },
            total,
        }
    }
}

/// The share of neighbouring pairs of `a` found within two words of each other in `b`.
fn pairs(a: &[String], b: &[String]) -> f64 {
    if a.len() < 2 {
        return 0.0;
    }
    let mut near: HashSet<(&str, &str)> = HashSet::new();
    for i in 0..b.len() {
        for j in i + 1..(i + 3).min(b.len()) {
            near.insert((&b[i], &b[j]));
        }
    }
    let found = a
        .windows(2)
        .filter(|w| near.contains(&(w[0].as_str(), w[1].as_str())))
        .count();
    found as f64 / (a.len() - 1) as f64
}

/// The longest run of consecutive words of `a` that is also consecutive in `b`.
fn longest_run(a: &[String], b: &[String]) -> usize {
    let mut best = 0;
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            if x == y {
                cur[j + 1] = prev[j] + 1;
                best = best.max(cur[j + 1]);
            }
        }
        prev = cur;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wikipedia, "Go Outside in the Rain" (as cited in AttributionBench's AttributedQA rows).
    const MILIRA: &str = "\"Go Outside in the Rain\" is a R&B song by Milira released in 1990. \
        The track is from her debut album, Milira, and reached number thirty-six on \
        Billboard's Hot R&B Singles chart.";

    #[test]
    fn a_paraphrase_keeps_words_and_an_unrelated_sentence_does_not() {
        let cited = word_terms(MILIRA);
        let said = Overlap::measure(
            "Milira released the song Go Outside in the Rain in 1990.",
            MILIRA,
            &cited,
        );
        assert!(said.share >= 0.8, "{said:?}");
        let other = Overlap::measure(
            "The Beatles recorded Abbey Road at EMI Studios in London.",
            MILIRA,
            &cited,
        );
        assert!(other.share < 0.2, "{other:?}");
        assert!(said.pairs > other.pairs);
    }

    #[test]
    fn a_copied_phrase_is_a_long_run_and_shuffled_words_are_not() {
        let copied = Overlap::measure(
            "It reached number thirty-six on Billboard's Hot R&B Singles chart.",
            MILIRA,
            &HashSet::new(),
        );
        let shuffled = Overlap::measure(
            "Chart singles on Billboard's hot number reached thirty-six.",
            MILIRA,
            &HashSet::new(),
        );
        assert!(copied.run > 0.8, "{copied:?}");
        assert!(shuffled.run < 0.5, "{shuffled:?}");
    }
}
