//! A comparison's sides: "WAL is faster than the rollback journal" is not what a page says
//! when it says "the rollback journal will likely be faster" — the same words, the other side
//! ahead. Word overlap, order within a window and the degree signal all pass such a sentence, so
//! the sides are read: the words before the comparative in its clause, and the words after its
//! "than".

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use crate::words::{stem, stop_word};

/// Comparatives and superlatives with their opposites: "A is faster than B" is "B is slower
/// than A", and the opposite with the same sides is the reverse.
const OPPOSITES: &[(&str, &str)] = &[
    ("faster", "slower"),
    ("quicker", "slower"),
    ("fastest", "slowest"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("greater", "smaller"),
    ("largest", "smallest"),
    ("biggest", "smallest"),
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("higher", "lower"),
    ("highest", "lowest"),
    ("better", "worse"),
    ("best", "worst"),
    ("longer", "shorter"),
    ("longest", "shortest"),
    ("earlier", "later"),
    ("older", "newer"),
    ("heavier", "lighter"),
    ("stronger", "weaker"),
    ("safer", "riskier"),
    ("cheaper", "costlier"),
    ("easier", "harder"),
    ("simpler", "harder"),
    ("wider", "narrower"),
];

/// Words of degree or hedging that sit beside a comparative and name neither side.
const HEDGES: &[&str] = &[
    "likely",
    "probably",
    "generally",
    "usually",
    "often",
    "typically",
    "much",
    "far",
    "significantly",
    "considerably",
    "somewhat",
    "slightly",
    "about",
    "approximately",
    "roughly",
    "even",
    "still",
    "will",
    "be",
    "is",
    "are",
    "traditional",
];

/// Words that start another clause: a side ends before them ("faster than B since …").
const CLAUSE_WORDS: &[&str] = &[
    "since", "because", "while", "whereas", "but", "which", "so", "although", "though", "if",
    "when", "where", "unless", "however", "thus", "hence",
];

/// One comparison of a sentence: its comparative (lower-cased) and the stems of its two sides.
#[derive(Debug, Clone, PartialEq)]
struct Comparison {
    word: String,
    /// What is compared when the comparative qualifies the word right after it ("more
    /// blood", "more slowly"): that word's stem.
    what: Option<String>,
    ahead: HashSet<String>,
    behind: HashSet<String>,
}

/// Whether `word` is a comparative this file knows, and its opposites.
fn opposites(word: &str) -> Vec<&'static str> {
    OPPOSITES
        .iter()
        .filter_map(|&(a, b)| {
            if a == word {
                Some(b)
            } else if b == word {
                Some(a)
            } else {
                None
            }
        })
        .collect()
}

fn known(word: &str) -> bool {
    OPPOSITES.iter().any(|&(a, b)| a == word || b == word)
}

/// A side's word: a content word, not a hedge, not a comparative, stemmed.
fn side_word(word: &str) -> Option<String> {
    let ok = word.chars().any(char::is_alphabetic)
        && !stop_word(word)
        && !HEDGES.contains(&word)
        && !known(word)
        && word != "than";
    ok.then(|| stem(word))
}

/// The comparisons of `sentence`: for each comparative, the content words from the start of its
/// clause (after the last comma, semicolon, colon or clause word such as "since") up to it, and
/// those after its "than" to the clause's end.
fn comparisons(sentence: &str) -> Vec<Comparison> {
    // Words and clause marks, in order (a parenthesis is read through: "an index (or table)"
    // is one side).
    let mut items: Vec<Option<String>> = Vec::new();
    for piece in sentence.split_word_bounds() {
        if piece.chars().any(char::is_alphanumeric) {
            let word = piece.to_lowercase();
            if CLAUSE_WORDS.contains(&word.as_str()) {
                items.push(None);
            } else {
                items.push(Some(word));
            }
        } else if piece.contains([',', ';', ':', '.', '!', '?']) {
            items.push(None);
        }
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(word) = item else { continue };
        if !known(word) {
            continue;
        }
        let start = items[..i]
            .iter()
            .rposition(Option::is_none)
            .map_or(0, |p| p + 1);
        let ahead: HashSet<String> = items[start..i]
            .iter()
            .flatten()
            .filter_map(|w| side_word(w))
            .collect();
        // "faster than B", "more X than B": the "than" within a few words.
        let end = items[i + 1..]
            .iter()
            .position(Option::is_none)
            .map_or(items.len(), |p| i + 1 + p);
        let than = items[i + 1..end]
            .iter()
            .take(4)
            .position(|w| w.as_deref() == Some("than"))
            .map(|p| i + 1 + p);
        let behind: HashSet<String> = than
            .map(|t| {
                items[t + 1..end]
                    .iter()
                    .flatten()
                    .filter_map(|w| side_word(w))
                    .collect()
            })
            .unwrap_or_default();
        let what = items
            .get(i + 1)
            .and_then(|w| w.as_deref())
            .and_then(side_word);
        out.push(Comparison {
            word: word.clone(),
            what,
            ahead,
            behind,
        });
    }
    out
}

/// A window sentence is about the same statement as the claim when it has this share of the
/// claim's content words: a comparison elsewhere on the page is not the claim's.
const SAME_STATEMENT: f64 = 0.5;

/// Whether `t` (a window's comparison) has `mine`'s sides the other way round: the words only
/// on one side of the claim's comparison (its "than" side first: a short noun phrase, the
/// surest sign) are on the other side of the window's.
fn swapped(mine: &Comparison, t: &Comparison) -> bool {
    let only = |a: &HashSet<String>, b: &HashSet<String>| -> HashSet<String> {
        a.difference(b).cloned().collect()
    };
    let (x, y) = (
        only(&mine.ahead, &mine.behind),
        only(&mine.behind, &mine.ahead),
    );
    let (x2, y2) = (only(&t.ahead, &t.behind), only(&t.behind, &t.ahead));
    let moved = |side: &HashSet<String>, other: &HashSet<String>, same: &HashSet<String>| {
        !side.is_empty() && side.intersection(other).count() > side.intersection(same).count()
    };
    moved(&y, &x2, &y2) || moved(&y2, &x, &y)
}

/// How many of `claim`'s comparisons `window` makes the other way round: the same comparative
/// with the sides swapped, or its opposite with the same sides, in a window sentence about the
/// same statement ([`SAME_STATEMENT`]), comparing the same thing ("more blood" is not "fewer
/// beats"). A comparison the window also makes the claim's way, or a claim that names both
/// directions ("worse or better"), is not reversed.
pub fn reversed(claim: &str, window: &str) -> usize {
    let mine_terms: HashSet<String> = claim
        .unicode_words()
        .filter_map(|w| side_word(&w.to_lowercase()))
        .collect();
    if mine_terms.is_empty() {
        return 0;
    }
    let theirs: Vec<Comparison> = window
        .split_sentence_bounds()
        .filter(|sentence| {
            let terms: HashSet<String> = sentence
                .unicode_words()
                .filter_map(|w| side_word(&w.to_lowercase()))
                .collect();
            mine_terms.intersection(&terms).count() as f64
                >= SAME_STATEMENT * mine_terms.len() as f64
        })
        .flat_map(comparisons)
        .collect();
    if theirs.is_empty() {
        return 0;
    }
    let mine_all = comparisons(claim);
    let words: HashSet<&str> = mine_all.iter().map(|c| c.word.as_str()).collect();
    let mut count = 0;
    for mine in &mine_all {
        let others = opposites(&mine.word);
        if others.iter().any(|o| words.contains(o)) {
            continue;
        }
        let same_thing = |t: &&Comparison| t.what == mine.what;
        let shares = |t: &Comparison| {
            mine.ahead.intersection(&t.ahead).count() + mine.behind.intersection(&t.behind).count()
                > 0
                || mine.what.is_some()
        };
        // The window's verdict on each of its comparisons of the same thing: the claim's way
        // (Some(false)) or the other way round (Some(true)).
        let verdicts: Vec<bool> = theirs
            .iter()
            .filter(same_thing)
            .filter_map(|t| {
                let swap = swapped(mine, t);
                if t.word == mine.word {
                    Some(swap)
                } else if others.contains(&t.word.as_str()) {
                    (swap || shares(t)).then_some(!swap)
                } else {
                    None
                }
            })
            .collect();
        count += usize::from(!verdicts.is_empty() && verdicts.iter().all(|&v| v));
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite, "Write-Ahead Logging" (wal.html), its list of WAL's disadvantages.
    const WAL: &str = "WAL works best with smaller transactions. WAL does not work well for very \
        large transactions. For transactions larger than about 100 megabytes, traditional rollback \
        journal modes will likely be faster.";

    #[test]
    fn the_other_side_ahead_is_reversed() {
        assert_eq!(
            reversed(
                "For transactions larger than about 100 megabytes, WAL mode is likely to be \
                 faster than the rollback journal modes.",
                WAL
            ),
            1
        );
        // The page's own comparison, in other words, is not.
        assert_eq!(
            reversed(
                "For transactions larger than about 100 megabytes, rollback journal modes are \
                 likely to be faster than WAL.",
                WAL
            ),
            0
        );
    }

    /// SQLite, "Write-Ahead Logging": "WAL is significantly faster in most scenarios."
    const FASTER: &str = "WAL is significantly faster in most scenarios.";

    #[test]
    fn the_opposite_comparative_with_the_same_sides_is_reversed_and_with_swapped_sides_is_not() {
        assert_eq!(reversed("WAL is slower in most scenarios.", FASTER), 1);
        assert_eq!(reversed("WAL is faster in most scenarios.", FASTER), 0);
        let page = "Reading from a WAL database is faster than reading from a rollback journal.";
        assert_eq!(
            reversed(
                "Reading from a rollback journal is slower than reading from a WAL database.",
                page
            ),
            0
        );
        assert_eq!(
            reversed(
                "Reading from a rollback journal is faster than reading from a WAL database.",
                page
            ),
            1
        );
        // No comparative in the window: nothing to reverse.
        assert_eq!(reversed("WAL is slower.", "WAL uses a separate file."), 0);
    }

    #[test]
    fn sides_read_through_parentheses_and_shared_words() {
        // SQLite, "The SQLite Query Optimizer Overview" (optoverview.html).
        let page = "Advancing to the next row of an index (or table) is much less costly than \
            doing a binary search since the next row is often located on the same database page \
            as the current row.";
        assert_eq!(
            reversed(
                "Doing a binary search is much less costly than advancing to the next row of an \
                 index (or table), since the next row is often on the same page.",
                page
            ),
            1
        );
        // PostgreSQL, "Concurrency Control" (mvcc-intro.html).
        let mvcc = "However, proper use of MVCC will generally provide better performance than \
            locks.";
        assert_eq!(
            reversed(
                "Proper use of locks will generally provide better performance than MVCC.",
                mvcc
            ),
            1
        );
        assert_eq!(
            reversed(
                "Using MVCC properly generally performs better than locks.",
                mvcc
            ),
            0
        );
        // Python, "heapq": "perform best for smaller values of n".
        let heapq = "The latter two functions perform best for smaller values of n. For larger \
            values, it is more efficient to use the sorted() function.";
        assert_eq!(
            reversed(
                "The latter two functions perform best for larger values of n.",
                heapq
            ),
            1
        );
    }

    #[test]
    fn another_thing_compared_or_both_directions_are_not_reversed() {
        // AttributionBench (dev), a Harvard Health page: "more blood" is not "fewer beats".
        let heart = "Exercise strengthens the heart muscle. More oxygen gets delivered to the \
            muscles, so the heart needs to beat fewer times than it would in a less-fit person.";
        assert_eq!(
            reversed(
                "The heart needs to pump more blood with each beat during exercise.",
                heart
            ),
            0
        );
        // The same words in the same order, both ends of a range.
        let pareto = "A Pareto chart is a bar chart sorted in descending order from the highest \
            frequency to the lowest frequency from left to right";
        assert_eq!(
            reversed(
                "Pareto Charts are bar charts sorted in descending order from the highest \
                 frequency to the lowest frequency from left to right.",
                pareto
            ),
            0
        );
        assert_eq!(
            reversed(
                "Patients with MS may get worse or better over time.",
                "Patients with this rare form of MS get progressively and steadily worse."
            ),
            0
        );
    }
}
