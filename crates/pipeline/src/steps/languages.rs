//! Searching in the sources' language (seed 001's language-aware queries): a Japanese question
//! over English documentation finds little with its own words, and what it finds it cannot
//! cite, since a passage must share the question's words. When the first round shows that the
//! sources are in another language — the pages found are titled in it, or nothing was found for
//! a question not in English — the question's key terms are put into that language once (one
//! model call), searched, and count as the question's words from then on. The run says so in
//! its method section.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{plain, Brief};
use crate::ask::{ask_or_as, Ctx};
use crate::prompts::language_name;
use crate::records::Warning;
use crate::roles::Role;
use crate::text::detect_language;

/// Share of the titles found that must be in one other language for the run to search in it.
pub const CROSS_SHARE: f64 = 0.6;

/// Searches in the other language at most.
pub const CROSSED_SEARCHES: usize = 2;

/// The question's key terms in the sources' language, searched and counted as the question's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Crossing {
    /// The sources' language (`en`, `ja`, …).
    pub language: String,
    /// The searches in it.
    pub searches: Vec<String>,
}

impl Crossing {
    /// What the method section says of it.
    pub fn decision(&self, question_language: &str) -> String {
        format!(
            "the sources found are in {}, the question in {}: its key terms were also searched in {} ({})",
            language_name(&self.language),
            language_name(question_language),
            language_name(&self.language),
            self.searches.join("; ")
        )
    }
}

/// What a research question asks, as passages must show it: its own words and, when the
/// question's terms were put into the sources' language (`also`), those too. The one rule for
/// the coverage of a question ([`super::gaps::evidence_coverage`]'s callers) and for the gate.
pub fn asked(question: &str, also: &str) -> String {
    if also.is_empty() {
        question.to_string()
    } else {
        format!("{question} {also}")
    }
}

/// The language the sources are in when it is not the question's: that of [`CROSS_SHARE`] of
/// `titles` (the pages found), or English when nothing was found for a question in another
/// language. `None`: the sources speak the question's language, or cannot be told.
pub fn sources_language(question_language: &str, titles: &[&str]) -> Option<String> {
    if titles.is_empty() {
        return (question_language != "en").then(|| "en".to_string());
    }
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for t in titles {
        *counts.entry(detect_language(t)).or_insert(0) += 1;
    }
    let (language, n) = counts.into_iter().max_by_key(|(_, n)| *n)?;
    (language != question_language && n as f64 >= titles.len() as f64 * CROSS_SHARE)
        .then_some(language)
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CrossOut {
    #[schemars(length(min = 1, max = 2), inner(length(min = 2, max = 80)))]
    searches: Vec<String>,
}

const CROSS: &str = "You put a research question's key terms into another language for a search \
engine. Write 1 or 2 short keyword searches in {language} that say what the question asks: names \
and technical terms as {language} documentation writes them. Keywords only, no sentence.";

/// The question's key terms as searches in `language` (one model call), as far as they can be
/// used: plain keywords written in that language, each once. Empty when the model gives none.
pub async fn cross(
    ctx: &Ctx,
    brief: &Brief,
    language: &str,
) -> Result<(Vec<String>, Vec<Warning>), NodeError> {
    let (out, warnings) = ask_or_as::<CrossOut>(
        ctx,
        Role::Plan,
        "translate",
        CROSS.replace("{language}", language_name(language)),
        brief.block(),
        120,
    )
    .await?;
    let mut searches: Vec<String> = Vec::new();
    for s in out.map(|o| o.searches).unwrap_or_default() {
        let s = s.trim().trim_matches('"').to_string();
        let written_in = detect_language(&s) == language
            // Short English keywords are too short for a reliable guess: Latin letters will do.
            || (language == "en" && s.chars().all(|c| c.is_ascii() || c.is_whitespace()));
        if !s.is_empty() && plain(&s) && written_in && !searches.contains(&s) {
            searches.push(s);
        }
    }
    searches.truncate(CROSSED_SEARCHES);
    Ok((searches, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sources_language_is_the_one_most_titles_are_in() {
        let english = [
            "Atomic Commit In SQLite",
            "Write-Ahead Logging",
            "The SQLite Query Optimizer Overview",
        ];
        assert_eq!(sources_language("ja", &english).as_deref(), Some("en"));
        assert_eq!(sources_language("en", &english), None);
        let japanese = [
            "ファジー選択ツール",
            "色域を選択",
            "Atomic Commit In SQLite",
        ];
        assert_eq!(sources_language("ja", &japanese), None);
        assert_eq!(sources_language("en", &japanese).as_deref(), Some("ja"));
        // Nothing found for a Japanese question: try English; for an English one, nothing to try.
        assert_eq!(sources_language("ja", &[]).as_deref(), Some("en"));
        assert_eq!(sources_language("en", &[]), None);
    }
}
