//! Named entities: the people, places, organisations and products a claim names (capitalised
//! words after its first, acronyms) must be named by what it cites.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use crate::words::{stem, stop_word};

/// The names in `claim`, lower-cased and stemmed as the cited terms are: capitalised words
/// that do not open the sentence, and words in capitals ("NASA") anywhere. Stop words
/// ("The", "It") are not names.
pub fn names(claim: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut first = true;
    for word in claim.unicode_words() {
        let opening = first;
        first = false;
        let mut chars = word.chars();
        let Some(c) = chars.next() else { continue };
        if !c.is_uppercase() {
            continue;
        }
        let capitals = word.chars().count() >= 2 && word.chars().all(|c| !c.is_lowercase());
        if opening && !capitals {
            continue;
        }
        let lower = word.to_lowercase();
        if stop_word(&lower) || lower.chars().count() < 2 {
            continue;
        }
        let s = stem(&lower);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// How many of `names` are not among the cited terms.
pub fn missing(names: &[String], cited: &HashSet<String>) -> usize {
    names.iter().filter(|n| !cited.contains(*n)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::word_terms;

    // Wikipedia, "Baby (Justin Bieber song)".
    const BABY: &str = "\"Baby\" is a song by Canadian singer Justin Bieber, alongside American \
        rapper Ludacris. It was released as the lead single on Bieber's debut album, My World 2.0.";

    #[test]
    fn names_are_capitalised_words_after_the_first_and_acronyms() {
        assert_eq!(
            names("Ludacris sings the rap in 'Baby' by Justin Bieber."),
            vec!["baby", "justin", "bieb"]
        );
        assert_eq!(names("NASA launched it."), vec!["nasa"]);
        assert!(names("It was released in the spring.").is_empty());
    }

    #[test]
    fn a_name_the_source_does_not_have_is_missing() {
        let cited = word_terms(BABY);
        assert_eq!(
            missing(
                &names("The rap in Baby is sung by Ludacris, with Justin Bieber."),
                &cited
            ),
            0
        );
        assert_eq!(
            missing(
                &names("The rap in Baby is sung by Drake, with Justin Bieber."),
                &cited
            ),
            1
        );
    }
}
