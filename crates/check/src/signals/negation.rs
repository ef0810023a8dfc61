//! Negation: a claim that says "not" where its source does not (or the reverse) says the
//! opposite, however many words they share.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use unicode_segmentation::UnicodeSegmentation;

use crate::words::{stem, word_terms};

/// Verbs that say the same act: "does not invoke the handler" is the opposite of "calls the
/// handler" though it shares no verb with it. Each class is read as its first word.
const SAME_ACT: &[&[&str]] = &[
    &["call", "calls", "called", "invoke", "invokes", "invoked"],
    &[
        "delete",
        "deletes",
        "deleted",
        "remove",
        "removes",
        "removed",
        "erase",
        "erases",
        "erased",
        "destroy",
        "destroys",
        "destroyed",
    ],
    &[
        "keep",
        "keeps",
        "kept",
        "preserve",
        "preserves",
        "preserved",
        "retain",
        "retains",
        "retained",
        "hold",
        "holds",
        "held",
    ],
    &[
        "copy",
        "copies",
        "copied",
        "duplicate",
        "duplicates",
        "duplicated",
        "clone",
        "clones",
        "cloned",
    ],
    &[
        "prevent",
        "prevents",
        "prevented",
        "stop",
        "stops",
        "stopped",
        "block",
        "blocks",
        "blocked",
    ],
    &[
        "compact",
        "compacts",
        "compacted",
        "consolidate",
        "consolidates",
        "consolidated",
    ],
    &[
        "assume", "assumes", "assumed", "presume", "presumes", "presumed", "suppose", "supposes",
    ],
    &["suitable", "appropriate", "fitting"],
    &[
        "use", "uses", "used", "employ", "employs", "employed", "utilize", "utilizes", "utilized",
    ],
    &[
        "create",
        "creates",
        "created",
        "generate",
        "generates",
        "generated",
    ],
    &["need", "needs", "needed", "require", "requires", "required"],
    &[
        "allow",
        "allows",
        "allowed",
        "permit",
        "permits",
        "permitted",
        "let",
        "lets",
    ],
    &[
        "write", "writes", "wrote", "written", "store", "stores", "stored", "save", "saves",
        "saved",
    ],
    &[
        "change", "changes", "changed", "modify", "modifies", "modified", "alter", "alters",
        "altered",
    ],
    &[
        "return", "returns", "returned", "yield", "yields", "yielded",
    ],
    &[
        "check",
        "checks",
        "checked",
        "verify",
        "verifies",
        "verified",
        "validate",
        "validates",
        "validated",
    ],
    &[
        "ignore",
        "ignores",
        "ignored",
        "skip",
        "skips",
        "skipped",
        "disregard",
        "disregards",
    ],
    &[
        "contain",
        "contains",
        "contained",
        "include",
        "includes",
        "included",
    ],
    &["begin", "begins", "began", "start", "starts", "started"],
    &[
        "halt",
        "halts",
        "halted",
        "terminate",
        "terminates",
        "terminated",
    ],
    &[
        "show",
        "shows",
        "showed",
        "shown",
        "display",
        "displays",
        "displayed",
    ],
    &[
        "support",
        "supports",
        "supported",
        "handle",
        "handles",
        "handled",
    ],
    &[
        "acquire", "acquires", "acquired", "obtain", "obtains", "obtained", "get", "gets", "got",
    ],
    &["release", "releases", "released", "free", "frees", "freed"],
];

/// A word's stem, read as its act's first word when it is one of [`SAME_ACT`].
static ACTS: LazyLock<HashMap<String, String>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    for class in SAME_ACT {
        let first = stem(class[0]);
        for w in *class {
            map.insert(stem(w), first.clone());
        }
    }
    map
});

/// [`word_terms`] with every verb of [`SAME_ACT`] read as its class's first word.
fn act_terms(text: &str) -> HashSet<String> {
    word_terms(text)
        .into_iter()
        .map(|t| ACTS.get(&t).cloned().unwrap_or(t))
        .collect()
}

/// Words that negate what follows.
const CUES: &[&str] = &[
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without",
    "nowhere", "lacks", "lack", "lacked", "fails", "failed", "fail", "unable",
];

/// A passage is about the same thing as a claim when it has this share of the claim's words:
/// then a difference in negation is a contradiction, not a difference of topic.
pub const OPPOSITE_OVERLAP: f64 = 0.8;

/// How many negations `text` has ("isn't" and "can't" count).
pub fn negations(text: &str) -> usize {
    let words: Vec<String> = text
        .unicode_words()
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    words
        .iter()
        .enumerate()
        .filter(|(i, lower)| {
            // "whether or not" and "or not" name both cases: no negation.
            let or_not = lower.as_str() == "not" && *i > 0 && words[i - 1] == "or";
            !or_not && (CUES.contains(&lower.as_str()) || lower.ends_with("n't"))
        })
        .count()
}

/// Whether one of `claim` and `window` is negated and the other is not.
pub fn mismatch(claim: &str, window: &str) -> bool {
    (negations(claim) > 0) != (negations(window) > 0)
}

/// Whether `window` says the opposite of `claim`: it has nearly all of the claim's words
/// ([`OPPOSITE_OVERLAP`], at least three) and exactly one of them is negated. Judged within
/// one sentence of the window at a time, so a "not" elsewhere in the window does not count.
pub fn opposite(claim: &str, window: &str) -> bool {
    opposite_by(claim, window, word_terms)
}

/// Whether `window` says the opposite of `claim` as [`opposite`] judges it, with verbs of the
/// same act taken for one ("does not invoke" against "calls"), and only where [`opposite`] alone
/// does not see it: a negation said with a synonym of the passage's verb.
pub fn opposite_in_other_words(claim: &str, window: &str) -> bool {
    if opposite(claim, window) {
        return false;
    }
    if opposite_by(claim, window, act_terms) {
        return true;
    }
    // "does not let readers continue … without ever writing" against "allows readers to
    // continue … without ever writing": both have a negation, the claim one more. (Not the
    // other way round: a window sentence often says more, "the developers do not think …
    // since it is never synced", than the claim it bears out, "it is never synced".)
    let mine = act_terms(claim);
    if mine.len() < 3 {
        return false;
    }
    window.split_sentence_bounds().any(|sentence| {
        let shared = mine.intersection(&act_terms(sentence)).count();
        shared >= 3
            && shared as f64 >= OPPOSITE_OVERLAP * mine.len() as f64
            && negations(claim) > negations(sentence)
    })
}

fn opposite_by(claim: &str, window: &str, terms: fn(&str) -> HashSet<String>) -> bool {
    let mine = terms(claim);
    if mine.len() < 3 {
        return false;
    }
    window.split_sentence_bounds().any(|sentence| {
        let shared = mine.intersection(&terms(sentence)).count();
        shared >= 3
            && shared as f64 >= OPPOSITE_OVERLAP * mine.len() as f64
            && mismatch(claim, sentence)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wikipedia, "Great Wall of China".
    const WALL: &str = "The Great Wall is not visible to the naked eye from low Earth orbit, \
        contrary to a popular belief.";

    #[test]
    fn a_claim_without_the_source_s_not_says_the_opposite() {
        assert!(opposite(
            "The Great Wall is visible to the naked eye from low Earth orbit.",
            WALL
        ));
        assert!(!opposite(
            "The Great Wall isn't visible to the naked eye from low Earth orbit.",
            WALL
        ));
        // Few words in common: a different topic, not the opposite.
        assert!(!opposite("The Great Wall is a tourist attraction.", WALL));
    }

    /// Written after SQLite's pages on sqlite3_busy_handler ("a callback function that might be
    /// invoked whenever an attempt is made to access a database table … when another thread or
    /// process has the table locked").
    const BUSY: &str = "When a table is locked, SQLite calls the busy handler before returning \
        SQLITE_BUSY.";

    #[test]
    fn a_negation_with_a_synonym_of_the_verb_says_the_opposite() {
        assert!(opposite_in_other_words(
            "When a table is locked, SQLite does not invoke the busy handler.",
            BUSY
        ));
        // Said with the page's own verb, the plain rule sees it; in other words and not negated,
        // it is no opposite.
        assert!(!opposite_in_other_words(
            "When a table is locked, SQLite does not call the busy handler.",
            BUSY
        ));
        assert!(opposite(
            "When a table is locked, SQLite does not call the busy handler.",
            BUSY
        ));
        assert!(!opposite_in_other_words(
            "When a table is locked, SQLite invokes the busy handler.",
            BUSY
        ));
    }

    #[test]
    fn contractions_and_verbs_of_lack_are_negations() {
        assert_eq!(negations("Penguins can't fly and lack teeth."), 2);
        assert_eq!(negations("Penguins swim well."), 0);
        // SQLite, "Atomic Commit": "whether or not the rollback journal file exists".
        assert_eq!(
            negations("It depends on whether or not the rollback journal file exists."),
            0
        );
        assert!(mismatch(
            "Penguins cannot fly.",
            "Penguins are flightless birds."
        ));
    }
}
