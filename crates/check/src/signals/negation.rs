//! Negation: a claim that says "not" where its source does not (or the reverse) says the
//! opposite, however many words they share.

use unicode_segmentation::UnicodeSegmentation;

use crate::words::word_terms;

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
    text.unicode_words()
        .filter(|w| {
            let lower = w.to_lowercase().replace('’', "'");
            CUES.contains(&lower.as_str()) || lower.ends_with("n't")
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
    let mine = word_terms(claim);
    if mine.len() < 3 {
        return false;
    }
    window.split_sentence_bounds().any(|sentence| {
        let shared = mine.intersection(&word_terms(sentence)).count();
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

    #[test]
    fn contractions_and_verbs_of_lack_are_negations() {
        assert_eq!(negations("Penguins can't fly and lack teeth."), 2);
        assert_eq!(negations("Penguins swim well."), 0);
        assert!(mismatch(
            "Penguins cannot fly.",
            "Penguins are flightless birds."
        ));
    }
}
