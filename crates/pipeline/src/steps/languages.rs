//! Searching in the sources' language (seed 001's language-aware queries): a Japanese question
//! over English documentation finds little with its own words, and what it finds it cannot
//! cite, since a passage must share the question's words. When the first round shows that the
//! sources are in another script — the pages found are titled in Latin letters for a Japanese
//! question (or nothing was found for it), in CJK for an English one — the question's key terms are put into that language once (one
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// Whether `text` is written mostly in CJK characters (Japanese, Chinese, Korean) rather than
/// in Latin letters. Scripts are told apart reliably where languages sharing a script (a short
/// English title read as Latin or Danish) are not.
pub(crate) fn cjk(text: &str) -> bool {
    let (mut cjk, mut latin) = (0, 0);
    for c in text.chars() {
        if (c as u32) >= 0x2E80 && c.is_alphanumeric() {
            cjk += 1;
        } else if c.is_ascii_alphabetic() {
            latin += 1;
        }
    }
    // A kanji or kana counts as much as a short word.
    cjk * 3 > latin
}

/// The language the sources are in when it is written in another script than the question:
/// English for a CJK question whose pages ([`CROSS_SHARE`] of `titles`) are titled in Latin
/// letters, or when nothing was found for it; the CJK language of the titles for a question in
/// Latin letters. `None`: the sources are in the question's script, or cannot be told.
pub fn sources_language(question: &str, titles: &[&str]) -> Option<String> {
    let asked_in_cjk = cjk(question);
    if titles.is_empty() {
        return asked_in_cjk.then(|| "en".to_string());
    }
    let other: Vec<&str> = titles
        .iter()
        .copied()
        .filter(|t| cjk(t) != asked_in_cjk)
        .collect();
    if (other.len() as f64) < titles.len() as f64 * CROSS_SHARE {
        return None;
    }
    Some(if asked_in_cjk {
        "en".to_string()
    } else {
        detect_language(&other.join(" "))
    })
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
        // Refused like any model-made search (an address, an echo of the prompt), its words
        // being its own anchors: it shares none with the question, by design.
        let refused = super::relevance::refuse_search(&s, &brief.query, &s).is_some()
            || !crate::guard::usable_search(&s);
        if !s.is_empty() && plain(&s) && written_in && !refused && !searches.contains(&s) {
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
    fn the_sources_language_is_told_by_script() {
        let ja = "ファジー選択と色域選択の違いは何ですか？";
        let english = [
            "Atomic Commit In SQLite",
            "Write-Ahead Logging",
            "The SQLite Query Optimizer Overview",
        ];
        assert_eq!(sources_language(ja, &english).as_deref(), Some("en"));
        let en = "What do open source licences say about warranty?";
        // Short Latin titles are never another language of the question's script.
        let licences = [
            "GNU GENERAL PUBLIC LICENSE",
            "Apache License",
            "Mozilla Public License Version 2.0",
        ];
        assert_eq!(sources_language(en, &licences), None);
        let japanese = [
            "ファジー選択ツール",
            "色域を選択",
            "Atomic Commit In SQLite",
        ];
        assert_eq!(sources_language(ja, &japanese), None);
        assert_eq!(sources_language(en, &japanese).as_deref(), Some("ja"));
        // Nothing found for a Japanese question: try English; for an English one, nothing to try.
        assert_eq!(sources_language(ja, &[]).as_deref(), Some("en"));
        assert_eq!(sources_language(en, &[]), None);
    }
}
