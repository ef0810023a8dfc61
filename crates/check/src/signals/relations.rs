//! Who did what to whom: a claim that uses the source's words in another order may have swapped
//! subject and object ("Google acquired YouTube" against "YouTube acquired Google").

use std::collections::HashMap;

use super::overlap::stems;

/// The share of pairs of words shared by `claim` and `window` that come in the opposite order
/// in the window (0 when fewer than two are shared). Each word is placed at its first
/// occurrence.
pub fn swaps(claim: &str, window: &str) -> f64 {
    let mut at: HashMap<String, usize> = HashMap::new();
    for (i, s) in stems(window).into_iter().enumerate() {
        at.entry(s).or_insert(i);
    }
    let mut seen = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    for s in stems(claim) {
        if seen.contains(&s) {
            continue;
        }
        if let Some(&i) = at.get(&s) {
            order.push(i);
        }
        seen.push(s);
    }
    if order.len() < 2 {
        return 0.0;
    }
    let (mut pairs, mut discordant) = (0usize, 0usize);
    for i in 0..order.len() {
        for j in i + 1..order.len() {
            pairs += 1;
            discordant += usize::from(order[i] > order[j]);
        }
    }
    discordant as f64 / pairs as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wikipedia, "YouTube": "In October 2006, YouTube was bought by Google for $1.65 billion."
    const YOUTUBE: &str = "Google acquired YouTube in November 2006 for $1.65 billion.";

    #[test]
    fn swapped_subject_and_object_come_in_the_opposite_order() {
        assert_eq!(
            swaps("Google acquired YouTube for $1.65 billion.", YOUTUBE),
            0.0
        );
        let swapped = swaps("YouTube acquired Google for $1.65 billion.", YOUTUBE);
        assert!(swapped >= 0.3, "{swapped}");
        // Too few shared words to say anything.
        assert_eq!(swaps("Google is a company.", YOUTUBE), 0.0);
    }
}
