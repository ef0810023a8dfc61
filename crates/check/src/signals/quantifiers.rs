//! Quantifiers and modality: "all" is not "some", "must" is not "may". A claim that states a
//! kind of quantifier or modality its window does not is stronger (or weaker) than its source.

use unicode_segmentation::UnicodeSegmentation;

/// The kinds of quantifier and modality, each with its words.
const KINDS: &[&[&str]] = &[
    // Universal.
    &[
        "all",
        "every",
        "always",
        "each",
        "entire",
        "entirely",
        "everyone",
        "everything",
        "whole",
    ],
    // Partial.
    &[
        "some",
        "several",
        "many",
        "few",
        "sometimes",
        "often",
        "most",
        "majority",
        "partly",
        "usually",
    ],
    // Necessary.
    &[
        "must",
        "required",
        "requires",
        "require",
        "mandatory",
        "necessary",
        "necessarily",
        "definitely",
        "certainly",
        "guarantees",
        "guaranteed",
    ],
    // Possible.
    &[
        "may",
        "might",
        "could",
        "can",
        "possibly",
        "potentially",
        "likely",
        "perhaps",
        "suggests",
        "suggest",
    ],
];

/// Which kinds `text` uses, as a bit set over [`KINDS`].
pub fn kinds(text: &str) -> u8 {
    let mut set = 0u8;
    for w in text.unicode_words() {
        let lower = w.to_lowercase();
        for (i, words) in KINDS.iter().enumerate() {
            if words.contains(&lower.as_str()) {
                set |= 1 << i;
            }
        }
    }
    set
}

/// How many kinds of quantifier or modality `claim` uses that `window` does not.
pub fn mismatch(claim: &str, window: &str) -> usize {
    (kinds(claim) & !kinds(window)).count_ones() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    // CDC, "About Measles": "Measles is a highly contagious disease…"; Wikipedia, "Measles".
    const MEASLES: &str = "Measles may cause pneumonia, encephalitis and death in some \
        children.";

    #[test]
    fn a_claim_stronger_than_its_source_is_a_mismatch() {
        assert_eq!(
            mismatch("Measles always causes pneumonia in all children.", MEASLES),
            1
        );
        assert_eq!(mismatch("Measles must cause death.", MEASLES), 1);
        assert_eq!(
            mismatch("Measles may cause death in some children.", MEASLES),
            0
        );
        assert_eq!(mismatch("Measles causes pneumonia.", MEASLES), 0);
    }
}
