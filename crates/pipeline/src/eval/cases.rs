//! Seed 004's evaluation case set: questions of the kinds a person asks, each with what a
//! reader of a good report expects in it, scored on a run's result with the structural checks
//! and those expectations. `research eval --live` runs a set; `--from-snapshots` re-scores the
//! results a live run kept, without a model call — so a change to the checks is measured on the
//! same reports.

use serde::{Deserialize, Serialize};

use super::{check, structural_checks, Check, RunResult};
use crate::report::cited_ids;

/// A set of cases, as a case file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseSet {
    /// What the set is for and how its expectations were written.
    #[serde(default)]
    pub about: String,
    /// The cases, each with an id of its own.
    pub cases: Vec<EvalCase>,
}

/// One question and what its report must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    /// A name for the case, unique in its set (the snapshot's file name).
    pub id: String,
    /// The question asked.
    pub question: String,
    /// Where the expectations come from (what was read to write them).
    #[serde(default)]
    pub why: String,
    /// What the report must hold.
    #[serde(default)]
    pub expect: Expectations,
}

/// What a reader expects of a case's report, beyond the structural checks every report passes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Expectations {
    /// Words or phrases the report's text must contain (ignoring case), written by reading
    /// what answers the question.
    pub mentions: Vec<String>,
    /// Sources the run must read at least.
    pub min_sources: usize,
    /// The report's language, when the case asks in one.
    pub language: Option<String>,
    /// Words the report must have at least.
    pub min_words: Option<usize>,
}

/// Why a case file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaseSetError {
    /// Not a case set.
    #[error("not a case set: {0}")]
    Parse(#[from] serde_json::Error),
    /// No case in it.
    #[error("the case set has no case")]
    Empty,
    /// Two cases with one id (their snapshots would overwrite each other).
    #[error("two cases are named {0:?}")]
    Duplicate(String),
    /// A case without its question or id.
    #[error("case {0:?} has no question or no id")]
    Incomplete(String),
}

impl CaseSet {
    /// Reads a case file's text.
    pub fn parse(text: &str) -> Result<Self, CaseSetError> {
        let set: CaseSet = serde_json::from_str(text)?;
        if set.cases.is_empty() {
            return Err(CaseSetError::Empty);
        }
        let mut seen = std::collections::BTreeSet::new();
        for c in &set.cases {
            if c.id.trim().is_empty() || c.question.trim().is_empty() {
                return Err(CaseSetError::Incomplete(c.id.clone()));
            }
            if !seen.insert(c.id.as_str()) {
                return Err(CaseSetError::Duplicate(c.id.clone()));
            }
        }
        Ok(set)
    }

    /// The set shipped with the product: eight questions of seed 004's kinds (a simple fact, a
    /// mechanism, a comparison, a cause, a definition, a broad question, an ambiguous one and
    /// one in Japanese), for runs that search the web.
    pub fn builtin() -> Self {
        Self::parse(include_str!("cases.json")).expect("the built-in case set parses")
    }

    /// The cases named in `only` (all when it is empty); an unknown name is an error that
    /// lists the set's names.
    pub fn only(&self, only: &[String]) -> Result<Vec<&EvalCase>, String> {
        if only.is_empty() {
            return Ok(self.cases.iter().collect());
        }
        only.iter()
            .map(|id| {
                self.cases.iter().find(|c| &c.id == id).ok_or_else(|| {
                    let names: Vec<&str> = self.cases.iter().map(|c| c.id.as_str()).collect();
                    format!("no case is named {id:?} (the set has {})", names.join(", "))
                })
            })
            .collect()
    }
}

/// A case's score: every check on its result, and whether all passed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseScore {
    /// The case's id.
    pub id: String,
    /// Whether every check passed.
    pub passed: bool,
    /// The structural checks, then the case's own.
    pub checks: Vec<Check>,
}

/// What a report states from its sources: its cited lines before the sources list, without
/// headings — a report's title and headings repeat the question, and its method section the
/// searches, so a word found there says nothing of the answer.
fn stated(report: &str) -> String {
    let ends = |line: &str| {
        line.strip_prefix("## ").is_some_and(|h| {
            ["en", "ja"].iter().any(|l| {
                let f = crate::report::headings(l);
                [f.sources, f.method].contains(&h.trim())
            })
        })
    };
    report
        .lines()
        .take_while(|l| !ends(l))
        .filter(|l| !l.starts_with('#') && !cited_ids(l).is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Scores `result` as the report of `case`: the structural checks, then what the case expects.
pub fn score(case: &EvalCase, result: &RunResult) -> CaseScore {
    let mut checks = structural_checks(result);
    let e = &case.expect;
    let text = stated(&result.report).to_lowercase();
    let missing: Vec<String> = e
        .mentions
        .iter()
        .filter(|m| !text.contains(&m.to_lowercase()))
        .map(|m| format!("does not mention {m:?}"))
        .collect();
    checks.push(check("case_mentions", missing));
    checks.push(check(
        "case_sources",
        if result.sources.len() < e.min_sources {
            vec![format!(
                "{} sources read, {} expected",
                result.sources.len(),
                e.min_sources
            )]
        } else {
            Vec::new()
        },
    ));
    if let Some(language) = &e.language {
        checks.push(check(
            "case_language",
            if &result.metadata.language != language {
                vec![format!(
                    "written in {:?}, {language:?} expected",
                    result.metadata.language
                )]
            } else {
                Vec::new()
            },
        ));
    }
    if let Some(min) = e.min_words {
        let words = crate::guard::word_count(&result.report);
        checks.push(check(
            "case_length",
            if words < min {
                vec![format!("{words} words, {min} expected")]
            } else {
                Vec::new()
            },
        ));
    }
    CaseScore {
        id: case.id.clone(),
        passed: checks.iter().all(|c| c.passed),
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_set_has_seed_004s_kinds_and_a_bad_set_is_refused() {
        let set = CaseSet::builtin();
        assert_eq!(set.cases.len(), 8);
        assert!(set
            .cases
            .iter()
            .any(|c| c.expect.language.as_deref() == Some("ja")));
        assert!(set.only(&["comparison".into()]).is_ok());
        let unknown = set.only(&["nope".into()]).unwrap_err();
        assert!(unknown.contains("factual_simple"), "{unknown}");
        assert!(matches!(
            CaseSet::parse(r#"{"cases": []}"#),
            Err(CaseSetError::Empty)
        ));
        let twice = r#"{"cases": [{"id": "a", "question": "q?"}, {"id": "a", "question": "r?"}]}"#;
        assert!(matches!(
            CaseSet::parse(twice),
            Err(CaseSetError::Duplicate(_))
        ));
        let typo = r#"{"cases": [{"id": "a", "question": "q?", "expect": {"mention": ["x"]}}]}"#;
        assert!(matches!(CaseSet::parse(typo), Err(CaseSetError::Parse(_))));
    }

    #[test]
    fn a_report_that_misses_what_the_case_expects_fails_it() {
        let case = EvalCase {
            id: "c".into(),
            question: "Why do honeybees dance?".into(),
            why: String::new(),
            expect: Expectations {
                mentions: vec!["direction".into(), "Food".into()],
                min_sources: 2,
                language: Some("en".into()),
                min_words: None,
            },
        };
        let mut result = RunResult {
            report: "# Bees\n\n## Summary\n\nThe dance shows where food is [1].\n\n## More\n\nIt \
                     is done on the comb [1].\n\n## Sources\n\n[1] x\n"
                .into(),
            ..Default::default()
        };
        result.metadata.language = "en".into();
        let scored = score(&case, &result);
        assert!(!scored.passed);
        let failed: Vec<&str> = scored
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name)
            .collect();
        assert!(failed.contains(&"case_mentions"), "{failed:?}");
        assert!(failed.contains(&"case_sources"), "{failed:?}");
        assert!(!failed.contains(&"case_language"), "{failed:?}");
        let mentions = scored
            .checks
            .iter()
            .find(|c| c.name == "case_mentions")
            .unwrap();
        assert_eq!(mentions.detail, "does not mention \"direction\"");
    }
}
