//! Exclusives: "only", "cannot", "never", "always", "exactly". A sentence that says one its
//! passage does not allow says more than the passage — "WAL is the only way to get concurrent
//! readers" against a page that lists it as one way — however many words they share.

use unicode_segmentation::UnicodeSegmentation;

/// The kinds of exclusive, each with the words that say it; a window says a kind when it has
/// any of its words (or, for the negative kinds, any negation).
const KINDS: &[(&str, &[&str])] = &[
    ("only", &["only", "exclusively", "solely", "sole"]),
    (
        "always",
        &["always", "invariably", "every", "each", "whenever"],
    ),
    ("never", &["never", "not", "no", "none", "cannot"]),
    (
        "cannot",
        &["cannot", "not", "impossible", "unable", "never", "no"],
    ),
    ("exactly", &["exactly", "precisely"]),
];

/// Words that say a kind in a claim.
const CLAIM_WORDS: &[(&str, &[&str])] = &[
    ("only", &["only", "exclusively", "solely", "sole"]),
    ("always", &["always", "invariably"]),
    ("never", &["never"]),
    ("cannot", &["cannot", "impossible", "unable"]),
    ("exactly", &["exactly", "precisely"]),
];

fn words(text: &str) -> Vec<String> {
    text.unicode_words()
        .map(|w| {
            let w = w.to_lowercase().replace('’', "'");
            match w.as_str() {
                "can't" => "cannot".to_string(),
                w if w.ends_with("n't") => "not".to_string(),
                _ => w,
            }
        })
        .collect()
}

/// The exclusives `claim` states that `window` does not allow, by kind ("only", "cannot", …),
/// judged in the window's sentence closest to the claim. "Not only" is not an exclusive.
pub fn added(claim: &str, window: &str) -> Vec<&'static str> {
    let mine = words(claim);
    let theirs = words(super::closest_sentence(claim, window));
    let says = |ws: &[String], list: &[&str]| {
        ws.iter().enumerate().any(|(i, w)| {
            list.contains(&w.as_str())
                && !(w == "only" && i > 0 && ws[i - 1] == "not")
                && !(w == "only" && ws.get(i + 1).is_some_and(|n| n == "if" || n == "when"))
        })
    };
    CLAIM_WORDS
        .iter()
        .filter(|(_, list)| says(&mine, list))
        .filter_map(|(kind, _)| {
            let allowed = KINDS
                .iter()
                .find(|(k, _)| k == kind)
                .map(|(_, l)| *l)
                .unwrap_or(&[]);
            (!says(&theirs, allowed)).then_some(*kind)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python, "threading — Thread-based parallelism" (library/threading.html).
    const GIL: &str = "In CPython, due to the Global Interpreter Lock, only one thread can \
        execute Python code at once (even though certain performance-oriented libraries might \
        overcome this limitation).";

    /// SQLite, "Write-Ahead Logging": "WAL provides more concurrency as readers do not block
    /// writers and a writer does not block readers."
    const WAL: &str = "WAL provides more concurrency as readers do not block writers and a \
        writer does not block readers. Reading and writing can proceed concurrently.";

    #[test]
    fn an_exclusive_the_passage_does_not_allow_is_added() {
        assert_eq!(
            added(
                "WAL is the only journal mode in which readers and writers proceed concurrently.",
                WAL
            ),
            vec!["only"]
        );
        assert_eq!(
            added(
                "Reading and writing always proceed concurrently under WAL.",
                WAL
            ),
            vec!["always"]
        );
        // The passage's own exclusive is allowed.
        assert!(added(
            "Only one thread can execute Python code at once in CPython.",
            GIL
        )
        .is_empty());
        // "Not only" and "only if" are not exclusives.
        assert!(added(
            "WAL not only reads concurrently, it writes concurrently.",
            WAL
        )
        .is_empty());
    }

    #[test]
    fn a_negative_exclusive_is_allowed_by_any_negation() {
        assert!(added("Readers never block writers under WAL.", WAL).is_empty());
        assert_eq!(
            added(
                "Readers never proceed concurrently with writers.",
                "Reading and writing can proceed concurrently."
            ),
            vec!["never"]
        );
    }
}
