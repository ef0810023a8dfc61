//! Numbers, dates, units and quantities: every number a claim states must be stated by its
//! source ("1,000" = "1000", "3.5 million" = "3,500,000", "May 2023" = "2023-05"), and a source
//! that states another number for the same thing contradicts it.

use std::collections::HashSet;

use crate::numbers::{missing_numbers, number_forms, numbers};
use crate::words::word_terms;

/// A passage is about the same thing as a claim when it has this share of the claim's content
/// words: higher than plain support, since the numbers are what differ.
pub const SAME_SUBJECT_OVERLAP: f64 = 0.75;

/// …and at least this many of them.
pub const SAME_SUBJECT_MIN_SHARED: usize = 3;

/// The claim's numbers against its window and everything cited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberCheck {
    /// How many numbers the claim states (that a source must back).
    pub stated: usize,
    /// How many of them the window does not state.
    pub missing: usize,
    /// How many of them nothing cited states.
    pub missing_cited: usize,
}

impl NumberCheck {
    /// Counts the claim's numbers, and those the window and the cited numbers lack.
    pub fn measure(claim: &str, window: &str, cited: &HashSet<String>) -> NumberCheck {
        let stated: Vec<_> = numbers(claim).into_iter().filter(|n| n.required).collect();
        let missing_cited = stated.iter().filter(|n| !cited.contains(&n.value)).count();
        NumberCheck {
            stated: stated.len(),
            missing: missing_numbers(claim, window).len(),
            missing_cited,
        }
    }
}

/// The numbers `passage` states in disagreement with `claim`, when it is about the same thing:
/// at least [`SAME_SUBJECT_OVERLAP`] of the claim's content words (and
/// [`SAME_SUBJECT_MIN_SHARED`]) are in the passage, the claim states a number the passage does
/// not, and the passage states one the claim does not ("50,000 workers" against "20,000
/// workers"; with two numbers or more, one of them agreeing). `None` when they do not disagree.
pub fn disagrees(claim: &str, passage: &str) -> Option<Vec<String>> {
    let mine = word_terms(claim);
    if mine.is_empty() {
        return None;
    }
    let shared = mine.intersection(&word_terms(passage)).count();
    if (shared as f64 / mine.len() as f64) < SAME_SUBJECT_OVERLAP
        || shared < SAME_SUBJECT_MIN_SHARED
    {
        return None;
    }
    if missing_numbers(claim, passage).is_empty() {
        return None;
    }
    // With two numbers or more, one must agree: it anchors the subject ("town 2 handles 1,074
    // ships" against "town 2 handles 1,574"), where none agreeing is another subject.
    let (ours, theirs) = (number_forms(claim), number_forms(passage));
    let required = numbers(claim).iter().filter(|n| n.required).count();
    if required >= 2 && ours.intersection(&theirs).next().is_none() {
        return None;
    }
    let other = missing_numbers(passage, claim);
    (!other.is_empty()).then_some(other)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wikipedia, "Eiffel Tower".
    const EIFFEL: &str = "The tower is 330 metres (1,083 ft) tall, about the same height as \
        an 81-storey building, and the tallest structure in Paris.";

    #[test]
    fn a_number_the_source_states_is_backed_in_any_form() {
        let cited = number_forms(EIFFEL);
        let c = NumberCheck::measure("The Eiffel Tower is 1083 feet tall.", EIFFEL, &cited);
        assert_eq!((c.stated, c.missing, c.missing_cited), (1, 0, 0));
        let c = NumberCheck::measure("The tower is 300 metres tall.", EIFFEL, &cited);
        assert_eq!((c.stated, c.missing, c.missing_cited), (1, 1, 1));
    }

    #[test]
    fn another_number_for_the_same_thing_is_a_contradiction() {
        assert_eq!(
            disagrees(
                "The tower is 300 metres tall, the tallest structure in Paris.",
                EIFFEL
            ),
            Some(vec![
                "330".to_string(),
                "1,083".to_string(),
                "81".to_string()
            ])
        );
        // About something else: no contradiction, only a number the source lacks.
        assert_eq!(
            disagrees("The Louvre received 8.7 million visitors in 2023.", EIFFEL),
            None
        );
        // The same number: no contradiction.
        assert_eq!(
            disagrees(
                "The tower is 330 metres tall, the tallest structure in Paris.",
                EIFFEL
            ),
            None
        );
    }

    #[test]
    fn dates_and_multipliers_are_numbers() {
        // Wikipedia, "World population".
        let source = "The world population reached 8 billion on 15 November 2022.";
        let cited = number_forms(source);
        let c = NumberCheck::measure(
            "World population hit 8,000,000,000 in November 2022.",
            source,
            &cited,
        );
        assert_eq!(c.missing, 0, "{c:?}");
        let c = NumberCheck::measure("World population hit 8 billion in 2021.", source, &cited);
        assert_eq!(c.missing, 1, "{c:?}");
    }
}
