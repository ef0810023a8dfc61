//! Comparatives and superlatives: "the largest" is not "a large", "more" is not "less". A
//! claim's comparative or superlative must be its source's.

use unicode_segmentation::UnicodeSegmentation;

/// Comparatives, superlatives and ranks written as words of their own.
const DEGREE: &[&str] = &[
    "more", "most", "less", "least", "fewer", "fewest", "better", "best", "worse", "worst",
    "greater", "larger", "bigger", "higher", "lower", "smaller", "longer", "shorter", "older",
    "younger", "faster", "slower", "earlier", "later", "first", "last", "only", "top", "leading",
];

/// Words ending in "-est" that are not superlatives.
const NOT_SUPERLATIVE: &[&str] = &[
    "interest",
    "test",
    "forest",
    "request",
    "suggest",
    "honest",
    "west",
    "rest",
    "guest",
    "digest",
    "protest",
    "invest",
    "manifest",
    "arrest",
    "contest",
    "harvest",
    "modest",
    "nest",
    "chest",
    "quest",
    "crest",
    "priest",
    "conquest",
    "southwest",
    "northwest",
    "midwest",
    "earnest",
    "ingest",
    "infest",
    "attest",
    "detest",
    "divest",
    "bequest",
    "behest",
    "inquest",
];

/// The comparatives and superlatives of `text`, lower-cased.
pub fn degrees(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.unicode_words() {
        let lower = w.to_lowercase();
        let superlative = lower.len() >= 6
            && lower.ends_with("est")
            && lower.chars().all(char::is_alphabetic)
            && !NOT_SUPERLATIVE.iter().any(|n| lower.ends_with(n));
        if (DEGREE.contains(&lower.as_str()) || superlative) && !out.contains(&lower) {
            out.push(lower);
        }
    }
    out
}

/// How many of `claim`'s comparatives and superlatives `window` does not use.
pub fn mismatch(claim: &str, window: &str) -> usize {
    let theirs = degrees(window);
    degrees(claim)
        .into_iter()
        .filter(|d| !theirs.contains(d))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wikipedia, "Amazon River".
    const AMAZON: &str = "The Amazon River in South America is the largest river by discharge \
        volume of water in the world, and the disputed longest river system in the world.";

    #[test]
    fn a_superlative_the_source_does_not_use_is_a_mismatch() {
        assert_eq!(degrees(AMAZON), vec!["largest", "longest"]);
        assert_eq!(
            mismatch("The Amazon is the largest river by discharge.", AMAZON),
            0
        );
        assert_eq!(
            mismatch("The Amazon is the deepest river in the world.", AMAZON),
            1
        );
        assert_eq!(
            mismatch("The Amazon is the only river in South America.", AMAZON),
            1
        );
        assert_eq!(mismatch("The Amazon carries water to the sea.", AMAZON), 0);
    }

    #[test]
    fn words_that_only_end_like_superlatives_are_not() {
        assert!(degrees("The forest is of interest to the west.").is_empty());
    }
}
