//! Dead ends and backtracking (seed 002's gap detector, third way): a search that gave no
//! results, only pages that could not be read, or pages with nothing on the question is a dead
//! end, recorded with its reason and round. The research never takes a dead end's angle again
//! (a search sharing [`SAME_ANGLE`] of its words with one, a looser bar than the
//! [`DUPLICATE_QUERY`] that skips repeats), and when a round's searches were dead ends and
//! nothing else is left to search, the angle is reformulated from the research questions still
//! open.

use serde::{Deserialize, Serialize};

use super::harvest::SearchYield;
use crate::guard;
use crate::text::{query_similarity, DUPLICATE_QUERY};

/// A search at least this similar to a dead end (Jaccard over content words) takes its angle:
/// "zorblax quantum hive" after "zorblax quantum" led nowhere.
pub const SAME_ANGLE: f64 = 0.6;

/// Why a search led nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DeadEndReason {
    /// The provider returned nothing.
    NoResults,
    /// Every new page it found could not be read (an error, a paywall, a binary file).
    Unreadable,
    /// Its pages were read and said nothing on the question.
    Irrelevant,
}

impl DeadEndReason {
    /// In words.
    pub fn words(self) -> &'static str {
        match self {
            DeadEndReason::NoResults => "no results",
            DeadEndReason::Unreadable => "its pages could not be read",
            DeadEndReason::Irrelevant => "its pages said nothing on the question",
        }
    }
}

/// A search that led nowhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DeadEnd {
    /// The query.
    pub query: String,
    /// Why.
    pub reason: DeadEndReason,
    /// The research round it was run in (1 is the first).
    pub round: u32,
}

/// The dead ends among a round's searches. A failed search is a provider problem, and a search
/// whose hits were all read before found nothing new but is no dead end.
pub fn dead_ends(yields: &[SearchYield], round: u32) -> Vec<DeadEnd> {
    yields
        .iter()
        .filter(|y| !y.failed)
        .filter_map(|y| {
            let reason = if y.hits == 0 {
                DeadEndReason::NoResults
            } else if y.picked == 0 {
                return None;
            } else if y.read == 0 {
                DeadEndReason::Unreadable
            } else if y.evidence == 0 {
                DeadEndReason::Irrelevant
            } else {
                return None;
            };
            Some(DeadEnd {
                query: y.query.clone(),
                reason,
                round,
            })
        })
        .collect()
}

/// Whether `search` takes dead end `d`'s angle: it is worded like it, or it holds every content
/// word of it ("many workers honeybee colony zorblax quantum hives" after "zorblax quantum"
/// found nothing: what matched nothing matches nothing with more words around it).
fn takes_angle(d: &DeadEnd, search: &str) -> bool {
    let dead = guard::topic_term_set(&d.query);
    query_similarity(&d.query, search) >= SAME_ANGLE
        || (!dead.is_empty() && dead.is_subset(&guard::topic_term_set(search)))
}

/// `searches` without those that take a dead end's angle: (kept, dropped).
pub fn avoiding(searches: &[String], dead: &[DeadEnd]) -> (Vec<String>, Vec<String>) {
    searches
        .iter()
        .cloned()
        .partition(|s| !dead.iter().any(|d| takes_angle(d, s)))
}

/// New angles on the `open` research questions: keyword searches built from their words (as
/// the fallback plan builds them), none like a search already run or a dead end; at most `n`.
pub fn reformulate(open: &[String], done: &[String], dead: &[DeadEnd], n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for question in open {
        for candidate in guard::fallback_plan(question, n + done.len() + dead.len()).1 {
            if out.len() >= n {
                return out;
            }
            let seen = done
                .iter()
                .chain(out.iter())
                .any(|s| query_similarity(s, &candidate) >= DUPLICATE_QUERY)
                || dead.iter().any(|d| takes_angle(d, &candidate));
            if !seen {
                out.push(candidate);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(query: &str, hits: usize, picked: usize, read: usize, evidence: usize) -> SearchYield {
        SearchYield {
            query: query.into(),
            failed: false,
            hits,
            picked,
            read,
            evidence,
        }
    }

    #[test]
    fn dead_ends_are_named_with_their_reason_and_never_searched_again() {
        let yields = [
            y("quantum bees", 0, 0, 0, 0),
            y("paywalled journal bees", 3, 2, 0, 0),
            y("bee recipes", 4, 2, 2, 0),
            y("honeybee colony size", 5, 2, 2, 3),
            y("honeybee colony", 5, 0, 0, 0),
        ];
        let dead = dead_ends(&yields, 1);
        let reasons: Vec<(&str, DeadEndReason)> =
            dead.iter().map(|d| (d.query.as_str(), d.reason)).collect();
        assert_eq!(
            reasons,
            [
                ("quantum bees", DeadEndReason::NoResults),
                ("paywalled journal bees", DeadEndReason::Unreadable),
                ("bee recipes", DeadEndReason::Irrelevant),
            ]
        );
        let (kept, dropped) = avoiding(
            &[
                "bees quantum".into(),
                "quantum bees hive".into(),
                "queen eggs per day".into(),
            ],
            &dead,
        );
        assert_eq!(kept, ["queen eggs per day"]);
        assert_eq!(dropped, ["bees quantum", "quantum bees hive"]);
        let again = reformulate(
            &["How many eggs does a honeybee queen lay in spring?".into()],
            &["honeybee queen eggs spring".into()],
            &dead,
            2,
        );
        assert_eq!(again.len(), 2, "{again:?}");
        assert!(again.iter().all(|q| q != "honeybee queen eggs spring"));
    }
}
