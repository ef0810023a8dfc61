//! The verdict on one claim: the citation checker's ([`research_check::check`]) against the
//! evidence and the whole texts of the sources it cites, and what the audit does with it —
//! kept verified, kept partly, or failing with the reason. Apart from the audit's walk over the
//! report's lines, because the edited-draft check and the uncited-sentence path ask the same.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::guard;
use crate::records::Evidence;

/// Words a partly supported sentence may bring in that no source it cites uses anywhere (a
/// connective or a synonym of the writer's) …
pub const PARTLY_NEW_WORDS: usize = 1;

/// … or, with more of them, the share of its content words they may be: from a third on, the
/// sentence says something nothing read says.
pub const PARTLY_NEW_SHARE: f64 = 0.3;

/// The whole stored texts of the cited sources and their words, by source id. The evidence is
/// a few passages of a page: the checker aligns a sentence to the best window of the whole text
/// ([`research_check::check`]), and a sentence only partly supported may draw on the rest of the
/// page, but not on words the page never uses: "Honeybees report radio broadcasts to the queen
/// [1]" shares "honeybees" and "queen" with its quote, and no source it cites mentions radio.
#[derive(Debug, Clone, Default)]
pub struct SourceTexts(BTreeMap<u32, (String, HashSet<String>)>);

impl SourceTexts {
    /// The texts given as (source id, stored text).
    pub fn new<'a>(texts: impl IntoIterator<Item = (u32, &'a str)>) -> Self {
        Self(
            texts
                .into_iter()
                .map(|(id, text)| (id, (text.to_string(), guard::claim_terms(text))))
                .collect(),
        )
    }

    /// The whole text of source `id`, when known.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.0.get(&id).map(|(t, _)| t.as_str())
    }

    /// `fact` as a reader takes it: a table row (an extractor's fallback takes the row as it
    /// stands) read with its header in source `id`'s text; anything else as it is.
    pub fn read(&self, id: u32, fact: &str) -> String {
        self.text(id)
            .and_then(|t| research_check::table::reading_in(t, fact))
            .unwrap_or_else(|| fact.to_string())
    }

    /// The texts as the checker reads them (cut into sentences and indexed once per audit).
    /// The texts as the checker reads them (split into sentences and indexed): made once for
    /// a caller that audits many drafts against the same texts ([`super::audit_read`]).
    pub fn for_checker(&self) -> research_check::SourceTexts<'_> {
        let mut texts = research_check::SourceTexts::new();
        for (id, (text, _)) in &self.0 {
            texts.insert(*id as usize, text);
        }
        texts
    }

    /// The words of `claim` that no source of `sources` uses, sorted, when they are too many
    /// ([`PARTLY_NEW_WORDS`], [`PARTLY_NEW_SHARE`]); `None` when they are not, or when the text
    /// of a cited source is not known (nothing to judge by).
    pub(super) fn unsaid(&self, claim: &str, sources: &BTreeSet<u32>) -> Option<Vec<String>> {
        let texts = sources
            .iter()
            .map(|id| self.0.get(id).map(|(_, words)| words))
            .collect::<Option<Vec<_>>>()?;
        let terms = guard::claim_terms(claim);
        let mut words: Vec<String> = terms
            .iter()
            .filter(|w| !texts.iter().any(|t| t.contains(*w)))
            .cloned()
            .collect();
        words.sort();
        let share = words.len() as f64 / terms.len().max(1) as f64;
        (words.len() > PARTLY_NEW_WORDS && share >= PARTLY_NEW_SHARE).then_some(words)
    }
}

/// Why a sentence is verified whatever the checker's signals: it is its source's words, quoted
/// whole (the model's second opinion may still lower it).
pub(crate) const OWN_WORDS: &str = "verified: the sentence is its source's own words, quoted whole";

/// The best evidence of `sources` for `claim`: the item whose quote supports it most.
fn best_evidence<'a>(
    claim: &str,
    sources: &BTreeSet<u32>,
    evidence: &'a [Evidence],
) -> Option<(&'a Evidence, guard::Support)> {
    evidence
        .iter()
        .filter(|e| sources.contains(&e.source_id))
        .map(|e| (e, guard::supports(claim, &e.quote)))
        .max_by(|a, b| {
            (a.1.supported, a.1.numbers_ok)
                .cmp(&(b.1.supported, b.1.numbers_ok))
                .then(a.1.overlap.total_cmp(&b.1.overlap))
        })
}

/// The citation checker's verdict on `claim` ([`research_check::check`], the one owner of the
/// sentence-level verdict) against the evidence of `sources` and the sources' whole texts, with
/// the evidence item of the source it aligned to that bears the claim out best.
pub(super) fn checked<'a>(
    claim: &str,
    sources: &BTreeSet<u32>,
    evidence: &'a [Evidence],
    texts: &research_check::SourceTexts<'_>,
) -> Option<(research_check::Verdict, &'a Evidence)> {
    let passages: Vec<research_check::Passage<'_>> = evidence
        .iter()
        .filter(|e| sources.contains(&e.source_id))
        .map(|e| research_check::Passage {
            source: e.source_id as usize,
            text: &e.quote,
        })
        .collect();
    if passages.is_empty() {
        return None;
    }
    let verdict = research_check::check(claim, &passages, texts);
    let aligned: BTreeSet<u32> = verdict
        .source
        .map(|s| BTreeSet::from([s as u32]))
        .filter(|s| s.iter().all(|id| sources.contains(id)))
        .unwrap_or_else(|| sources.clone());
    let (best, _) = best_evidence(claim, &aligned, evidence)
        .or_else(|| best_evidence(claim, sources, evidence))?;
    Some((verdict, best))
}

/// How the audit treats a checked claim.
pub(super) enum Kept {
    /// ✓: the checker verified it.
    Verified,
    /// Kept and marked partly: much of it is said, every number is there, and it brings in no
    /// words its sources never use.
    Partly,
    /// Not kept as written, for this reason.
    Fails(String),
}

/// What the audit does with a claim the checker judged: a partly supported claim stays only
/// when a reader more likely than not finds it in its sources ([`research_check::LIKELY`]),
/// its numbers are all in them and it brings in no words they never use.
pub(super) fn keep(
    claim: &str,
    sources: &BTreeSet<u32>,
    verdict: &research_check::Verdict,
    texts: &SourceTexts,
) -> Kept {
    use research_check::Status;
    if let Some(d) = guard::degenerate(claim) {
        return Kept::Fails(format!("unsupported: the claim is degenerate ({d})"));
    }
    match verdict.status {
        Status::Verified => Kept::Verified,
        Status::Partly if verdict.signals.missing_numbers > 0.0 => Kept::Fails(format!(
            "unsupported: a number or date of it is not in its sources ({})",
            verdict.reason
        )),
        Status::Partly => match texts.unsaid(claim, sources) {
            Some(words) => Kept::Fails(format!(
                "unsupported: no source it cites uses the words {}",
                words
                    .iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            // Partly said, but more likely than not a reader would not find it in its sources:
            // not a sentence to leave in a report unmarked.
            None if !verdict.kept() => Kept::Fails(format!(
                "unsupported: more likely than not, a reader would not find it in its sources ({})",
                verdict
                    .reason
                    .strip_prefix("partly: ")
                    .unwrap_or(&verdict.reason)
            )),
            None => Kept::Partly,
        },
        Status::Unsupported | Status::Contradicted => Kept::Fails(verdict.reason.clone()),
    }
}
