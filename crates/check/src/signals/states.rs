//! Opposed states: "the original page is left unchanged" against a page that says the original
//! is overwritten, "automatically" against "manually", "at the same time" against "one after
//! another". The two sentences share nearly every word but one, which word overlap cannot see.

/// Pairs of opposed states, each side a list of the words (or phrases) that say it.
const OPPOSED: &[(&[&str], &[&str])] = &[
    (
        &[
            "unchanged",
            "intact",
            "untouched",
            "unmodified",
            "unaltered",
            "preserved",
            "preserves",
        ],
        &[
            "overwritten",
            "overwrites",
            "overwrite",
            "modified",
            "altered",
            "changed",
            "replaced",
            "in-place",
            "in place",
        ],
    ),
    (
        &["improve", "improves", "improved", "improving"],
        &[
            "deteriorate",
            "deteriorates",
            "deteriorated",
            "degrade",
            "degrades",
            "degraded",
            "worsen",
            "worsens",
            "worsened",
        ],
    ),
    (
        &["abruptly", "abrupt"],
        &["gracefully", "graceful", "cleanly"],
    ),
    (
        &[
            "turn on",
            "turns on",
            "turned on",
            "is on",
            "remain on",
            "on by default",
            "switched on",
        ],
        &[
            "turn off",
            "turns off",
            "turned off",
            "is off",
            "remain off",
            "off by default",
            "switched off",
        ],
    ),
    (
        &["speed up", "speeds up", "accelerate", "accelerates"],
        &["slow down", "slows down", "slows"],
    ),
    (
        &["automatic", "automatically"],
        &["manual", "manually", "explicitly", "by hand"],
    ),
    (
        &[
            "simultaneous",
            "simultaneously",
            "concurrently",
            "concurrent",
            "in parallel",
            "at the same time",
        ],
        &[
            "sequentially",
            "sequential",
            "serially",
            "one after another",
            "one at a time",
            "in turn",
            "serialized",
        ],
    ),
    (
        &["synchronous", "synchronously"],
        &["asynchronous", "asynchronously"],
    ),
    (
        &["enabled", "enables", "enable"],
        &[
            "disabled",
            "disables",
            "disable",
            "turns off",
            "turned off",
            "turn off",
        ],
    ),
    (
        &["increase", "increases", "increased", "raises"],
        &[
            "decrease",
            "decreases",
            "decreased",
            "reduces",
            "reduced",
            "lowers",
        ],
    ),
    (
        &["persistent", "permanent", "permanently", "persists"],
        &["temporary", "temporarily", "transient"],
    ),
    (&["mutable"], &["immutable"]),
    (&["required", "mandatory", "compulsory"], &["optional"]),
    (
        &["allowed", "permitted"],
        &["forbidden", "prohibited", "disallowed"],
    ),
    (&["explicit", "explicitly"], &["implicit", "implicitly"]),
    (&["valid"], &["invalid"]),
    (
        &["succeeds", "successful", "successfully"],
        &["fails", "failed", "unsuccessful"],
    ),
    (&["locked"], &["unlocked"]),
    (&["visible"], &["invisible", "hidden"]),
    (&["compressed"], &["uncompressed"]),
    (&["encrypted"], &["unencrypted", "plaintext"]),
    (&["ascending"], &["descending"]),
    (&["inclusive"], &["exclusive"]),
    (&["lazily", "lazy"], &["eagerly", "eager"]),
    (&["statically", "static"], &["dynamically", "dynamic"]),
    (&["before", "prior to"], &["after"]),
    (&["local"], &["remote"]),
    (&["internal"], &["external"]),
    (&["public"], &["private"]),
    (&["read-only", "readonly"], &["writable", "read-write"]),
    (&["case-sensitive"], &["case-insensitive"]),
    (&["signed"], &["unsigned"]),
    (&["blocking"], &["non-blocking", "nonblocking"]),
    (&["true"], &["false"]),
    (&["default"], &["non-default", "optional"]),
    (&["stable"], &["unstable"]),
    (&["accepts", "accepted"], &["rejects", "rejected"]),
    (&["same"], &["different"]),
];

/// `text` lower-cased with its words between single spaces (hyphens kept), padded with a space
/// on each side, so that a phrase is found as " phrase ".
fn padded(text: &str) -> String {
    let mut out = String::from(" ");
    for c in text.chars() {
        if c.is_alphanumeric() || c == '-' {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

fn says(padded: &str, words: &[&str]) -> bool {
    words.iter().any(|w| padded.contains(&format!(" {w} ")))
}

/// Prefixes that make a word its opposite ("locked" and "unlocked", "daemon" and
/// "non-daemon", "synchronous" and "asynchronous").
const NEGATING_PREFIXES: &[&str] = &["non-", "non", "un", "in", "im", "dis", "a"];

/// The words of `claim` whose prefixed (or unprefixed) opposite `sentence` has while it lacks
/// the word itself (and the claim does not name the opposite too): "non-daemon" against
/// "daemon", "asynchronous" against "synchronous". A stem of five letters or more, and "a"
/// only before eight.
fn prefixed(claim: &str, sentence: &str) -> Vec<String> {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let mine = words(claim);
    let theirs = words(sentence);
    let mut out = Vec::new();
    for m in &mine {
        if theirs.contains(m) {
            continue;
        }
        for t in &theirs {
            // A claim that has both ("not indexed … non-indexed websites") names both cases.
            if mine.contains(t) {
                continue;
            }
            let opposite = NEGATING_PREFIXES.iter().any(|p| {
                let min = if *p == "a" { 8 } else { 5 };
                let of = |longer: &str, shorter: &str| {
                    shorter.chars().count() >= min && longer.strip_prefix(p) == Some(shorter)
                };
                of(m, t) || of(t, m)
            });
            if opposite {
                out.push(format!("{m} / {t}"));
            }
        }
    }
    out
}

/// The states `claim` states whose opposite the window's closest sentence
/// ([`super::closest_sentence`]) states instead (and not the claim's own), as "claim's word /
/// window's word": from the pairs above, or a word against its prefixed opposite.
pub fn opposed(claim: &str, window: &str) -> Vec<String> {
    let sentence = super::closest_sentence(claim, window);
    let mine = padded(claim);
    let theirs = padded(sentence);
    let mut out = Vec::new();
    for (a, b) in OPPOSED {
        for (own, other) in [(a, b), (b, a)] {
            if says(&mine, own) && !says(&theirs, own) && !says(&mine, other) {
                if let Some(w) = other.iter().find(|w| theirs.contains(&format!(" {w} "))) {
                    let m = own
                        .iter()
                        .find(|w| mine.contains(&format!(" {w} ")))
                        .copied()
                        .unwrap_or_default();
                    out.push(format!("{m} / {w}"));
                }
            }
        }
    }
    for pair in prefixed(claim, sentence) {
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite, "Atomic Commit In SQLite" (atomiccommit.html), section 3.5.
    const JOURNAL: &str = "Before making changes to the database file, SQLite first creates a \
        separate rollback journal file and writes into the rollback journal the original content \
        of the database pages that are to be altered.";

    /// Python, "asyncio — Asynchronous I/O": "asyncio is a library to write concurrent code
    /// using the async/await syntax."
    const ASYNCIO: &str = "Tasks are used to schedule coroutines concurrently.";

    #[test]
    fn a_state_the_window_states_the_opposite_of_is_opposed() {
        assert_eq!(
            opposed(
                "SQLite writes the original content into the rollback journal after making \
                 changes to the database file.",
                JOURNAL
            ),
            vec!["after / before"]
        );
        assert_eq!(
            opposed(
                "Tasks are used to schedule coroutines one after another.",
                ASYNCIO
            ),
            vec!["one after another / concurrently"]
        );
        // The window's own state, or no state at all, is not opposed.
        assert!(opposed("Tasks schedule coroutines concurrently.", ASYNCIO).is_empty());
        assert!(opposed("Tasks are used to schedule coroutines.", ASYNCIO).is_empty());
    }

    #[test]
    fn a_word_against_its_prefixed_opposite_is_opposed() {
        // Python, "threading — Thread-based parallelism".
        let daemon = "The significance of this flag is that the entire Python program exits \
            when only daemon threads are left.";
        assert_eq!(
            opposed(
                "The significance of this flag is that the entire Python program exits when \
                 only non-daemon threads are left.",
                daemon
            ),
            vec!["non-daemon / daemon"]
        );
        // AttributionBench (dev): a claim that names both cases is not opposed.
        assert!(opposed(
            "The deep web is not indexed by search engines and includes non-indexed websites.",
            "The deep web is anything on the internet that is not indexed by a search engine."
        )
        .is_empty());
        // A short word and its look-alike are not opposites ("a" + "part" is not "apart").
        assert!(opposed("The parts are apart.", "The parts are in part.").is_empty());
    }

    #[test]
    fn a_state_both_say_is_not_opposed() {
        assert_eq!(
            opposed(
                "They may also experience increased stress, anxiety, and feelings of social \
                 isolation due to societal attitudes and a lack of support.",
                "Social isolation has been linked to cognitive impairment, reduced immunity, \
                 increased risk of cardiovascular disease, and ultimately, mortality (Cohen et \
                 al., 1997; Bassuk et al., 1999)."
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_sentence_naming_both_states_is_not_opposed() {
        assert!(opposed("Tasks run concurrently, not one after another.", ASYNCIO).is_empty());
    }
}
