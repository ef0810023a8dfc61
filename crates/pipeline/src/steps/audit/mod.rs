//! The report audit, shared by every pipeline: after the writer, each sentence of the report
//! that cites sources gets the citation checker's verdict ([`research_check::check`], the one
//! owner of the sentence-level verdict: aligned to the closest window of the cited sources'
//! texts, numbers, names, negation, quantifiers and word order compared, calibrated on human
//! judgements), then the fast model's second opinion in batches, which can only lower a
//! verdict. A sentence that fails is rewritten once from its best evidence, else removed, or
//! kept with ⚠ and the reason when the next sentence leans on it; an uncited claim is cited
//! when the checker verifies it and treated like a failing one otherwise. Every audited sentence
//! is kept with its status, the passage that bears it out and the check that decided, so the
//! report can say how many of its cited sentences hold and a checker can verify the audit
//! independently.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::guard;
use crate::records::Evidence;
use crate::report::cited_ids;

mod confirm;
mod draft;
mod lines;
mod uncited;
mod verdict;
pub use confirm::{audit_findings, confirm, summary};
pub use draft::{check_draft, DraftFinding, DraftProblem};
use lines::{list_item_start, source_list_entry};
pub use uncited::CLAIM_MIN_WORDS;
use uncited::{audit_uncited, Uncited};
pub(crate) use verdict::OWN_WORDS;
use verdict::{checked, keep, Kept};
pub use verdict::{SourceTexts, PARTLY_NEW_SHARE, PARTLY_NEW_WORDS};

/// What the audit decided about a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    /// The evidence of a cited source supports it.
    Verified,
    /// The evidence shares its words and numbers, but not enough to call it supported.
    Partly,
    /// It failed and was replaced by what its best evidence says.
    Rewritten,
    /// It failed and is kept, marked, because removing it would leave nothing in its place.
    Flagged,
    /// It failed and was taken out of the report.
    Removed,
}

/// One audited sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AuditEntry {
    /// The sentence as the report has it (as the writer had it, for a removed one).
    pub sentence: String,
    /// The sources it cites.
    pub sources: Vec<u32>,
    /// What the audit decided.
    pub status: AuditStatus,
    /// The evidence items that decided it.
    pub evidence: Vec<u32>,
    /// Which check decided, in words.
    pub check: String,
    /// The writer's own sentence, when the audit rewrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub written: Option<String>,
    /// The words of the source that bear it out: the best window of one to three sentences
    /// of the source the checker aligned it to (the quote, for a sentence rewritten from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub passage: Option<String>,
    /// The checker's calibrated probability that a person finds it in its sources, 0 to 1
    /// (`None` where the checker did not judge it: a fragment, a rewrite, a quote).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub score: Option<f64>,
}

impl AuditEntry {
    /// Whether the writer's sentence, as written, is more likely than not something a person
    /// would not find in its sources: it failed the audit, or the checker found it only partly
    /// said with a calibrated probability under one half.
    pub fn unsupported_as_written(&self) -> bool {
        match self.status {
            AuditStatus::Verified => false,
            AuditStatus::Partly => self.score.is_none_or(|p| p < research_check::LIKELY),
            AuditStatus::Rewritten | AuditStatus::Flagged | AuditStatus::Removed => true,
        }
    }
}

/// The audited body and the audit of every cited sentence in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Audited {
    /// The body with failing sentences rewritten or removed.
    pub body: String,
    /// One entry per cited sentence.
    pub entries: Vec<AuditEntry>,
}

/// The sentence without its citation markers (`[1]`, `[2][3]`).
pub fn without_markers(sentence: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in sentence.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A sentence of the body as the first pass left it.
enum Piece {
    /// Not a claim (framing, a heading's line break): kept as it is.
    Text(String),
    /// An audited claim: its text as the report would have it, and whether it stays.
    Claim {
        text: String,
        entry: AuditEntry,
        kept: bool,
    },
    /// A claim said again: dropped, and audited once, where it was first said.
    Repeat,
}

/// A line of the body: passed through (headings, quotations, code) or cut into pieces.
struct Line {
    raw: String,
    heading: bool,
    pieces: Option<Vec<Piece>>,
}

/// The sentence with a visible mark and the reason it is kept unverified.
fn flag(text: &str, entry: &AuditEntry) -> String {
    let body = text.trim_end();
    let trailing = &text[body.len()..];
    let why = entry
        .check
        .strip_prefix("unsupported: ")
        .unwrap_or(&entry.check);
    format!("{body} ⚠ *(unverified: {why})*{trailing}")
}

/// Audits every sentence of `body` that carries a citation marker against `evidence` and the
/// words of the sources' texts (the deterministic checks; [`confirm`] adds the model's). A
/// failing sentence is rewritten from its evidence, else removed — or kept with ⚠ and the
/// reason when the next sentence leans on it. A heading whose section loses every sentence
/// goes too.
pub fn audit(body: &str, evidence: &[Evidence], texts: &SourceTexts) -> Audited {
    audit_read(body, evidence, texts, &texts.for_checker())
}

/// [`audit`] with the checker's reading of `texts` made beforehand
/// ([`SourceTexts::for_checker`]), for a caller that audits several drafts against them.
pub fn audit_read(
    body: &str,
    evidence: &[Evidence],
    texts: &SourceTexts,
    whole: &research_check::SourceTexts<'_>,
) -> Audited {
    let mut lines: Vec<Line> = body
        .split_inclusive('\n')
        .map(|l| audit_line(l, evidence, texts, whole))
        .collect();
    drop_repeats(&mut lines);
    keep_what_the_text_needs(&mut lines);
    render(lines)
}

/// Words a sentence needs before a later one containing it counts as its repeat.
const REPEAT_MIN_WORDS: usize = 6;

/// A kept sentence that says again what an earlier kept one said (the same words, or the
/// earlier one inside it) is dropped — audited once, where it was first said: a small model
/// copies its best quote over and over.
fn drop_repeats(lines: &mut [Line]) {
    let mut said: Vec<String> = Vec::new();
    for line in lines.iter_mut() {
        let Some(pieces) = line.pieces.as_mut() else {
            continue;
        };
        for piece in pieces.iter_mut() {
            let Piece::Claim {
                text, kept: true, ..
            } = piece
            else {
                continue;
            };
            let words = crate::text::normalize(&without_markers(text));
            let repeat = said.iter().any(|earlier| {
                earlier == &words
                    || (earlier.split(' ').count() >= REPEAT_MIN_WORDS
                        && words.contains(earlier.as_str()))
            });
            if repeat {
                *piece = match piece {
                    // The writer's own claim failed and its rewrite says what the report already
                    // does: the writer's sentence is out of the report, and counted so.
                    Piece::Claim { entry, .. } if entry.status == AuditStatus::Rewritten => {
                        let written = entry.written.clone().unwrap_or_default();
                        Piece::Claim {
                            text: String::new(),
                            entry: AuditEntry {
                                sentence: written.clone(),
                                status: AuditStatus::Removed,
                                check: entry.check.replacen(
                                    "rewritten from its evidence",
                                    "removed: its rewrite from the evidence says what the report already says",
                                    1,
                                ),
                                written: Some(written),
                                ..entry.clone()
                            },
                            kept: false,
                        }
                    }
                    _ => Piece::Repeat,
                };
            } else {
                said.push(words);
            }
        }
    }
}

fn audit_line(
    line: &str,
    evidence: &[Evidence],
    texts: &SourceTexts,
    whole: &research_check::SourceTexts<'_>,
) -> Line {
    let trimmed = line.trim_start();
    // Headings, quotations and code are not claims of the writer's own.
    if trimmed.starts_with('#') || trimmed.starts_with('>') || trimmed.starts_with("```") {
        return Line {
            raw: line.to_string(),
            heading: trimmed.starts_with('#'),
            pieces: None,
        };
    }
    let listed = source_list_entry(line);
    let line = listed.as_deref().unwrap_or(line);
    // A list item's bullet stays with the line, whichever of its sentences go.
    let (bullet, line) = line.split_at(list_item_start(line));
    let mut pieces = vec![Piece::Text(bullet.to_string())];
    for sentence in line.split_sentence_bounds() {
        let sources = cited_ids(sentence);
        if sources.is_empty() {
            pieces.push(match audit_uncited(sentence, evidence, texts, whole) {
                Uncited::Framing => Piece::Text(sentence.to_string()),
                Uncited::Cited(text, entry) => Piece::Claim {
                    text,
                    entry,
                    kept: true,
                },
                Uncited::Removed(entry) => Piece::Claim {
                    text: sentence.to_string(),
                    entry,
                    kept: false,
                },
            });
            continue;
        }
        let text = sentence.trim();
        let claim = without_markers(text);
        let cited: Vec<u32> = sources.iter().copied().collect();
        let entry = |status, evidence: Vec<u32>, check: String| AuditEntry {
            sentence: text.to_string(),
            sources: cited.clone(),
            status,
            evidence,
            check,
            written: None,
            passage: None,
            score: None,
        };
        if guard::no_claim(text) {
            // A citation on a title, a name or a fragment ("[1] (Mozilla Public License)"): it
            // says nothing a source could bear out, however many of its words the source has.
            pieces.push(Piece::Claim {
                text: sentence.to_string(),
                entry: entry(
                    AuditStatus::Removed,
                    Vec::new(),
                    "not a statement: a title, a name or a fragment with a citation".into(),
                ),
                kept: false,
            });
            continue;
        }
        let Some((verdict, best)) = checked(&claim, &sources, evidence, whole) else {
            // It cites sources with no evidence at all: nothing can back it.
            pieces.push(Piece::Claim {
                text: sentence.to_string(),
                entry: entry(
                    AuditStatus::Removed,
                    Vec::new(),
                    "no evidence from the sources it cites".into(),
                ),
                kept: false,
            });
            continue;
        };
        let passage = Some(verdict.aligned.clone()).filter(|p| !p.is_empty());
        // The source's own words, quoted whole (the extractive report's passages): what it says
        // by definition, however short or verbless the checker finds it.
        let quoted = evidence.iter().find(|e| {
            sources.contains(&e.source_id)
                && crate::text::normalize(&e.quote) == crate::text::normalize(&claim)
        });
        if let Some(e) = quoted {
            pieces.push(Piece::Claim {
                text: sentence.to_string(),
                entry: AuditEntry {
                    passage: Some(e.quote.clone()),
                    score: Some(verdict.score),
                    ..entry(AuditStatus::Verified, vec![e.id], OWN_WORDS.into())
                },
                kept: true,
            });
            continue;
        }
        match keep(&claim, &sources, &verdict, texts) {
            Kept::Verified | Kept::Partly => {
                let status = if verdict.status == research_check::Status::Verified {
                    AuditStatus::Verified
                } else {
                    AuditStatus::Partly
                };
                pieces.push(Piece::Claim {
                    text: sentence.to_string(),
                    entry: AuditEntry {
                        passage,
                        score: Some(verdict.score),
                        ..entry(status, vec![best.id], verdict.reason.clone())
                    },
                    kept: true,
                });
            }
            Kept::Fails(why)
                if guard::fact_matches_quote(&best.fact, &best.quote)
                    && guard::degenerate(&best.fact).is_none() =>
            {
                // Rewritten from the evidence: its fact, which its quote bears out (a table row
                // read with its header, not as pipes and bare cells).
                let fact = texts.read(best.source_id, &best.fact);
                let rewritten = format!(
                    "{} [{}].",
                    fact.trim().trim_end_matches('.'),
                    best.source_id
                );
                let trailing = &sentence[sentence.trim_end().len()..];
                pieces.push(Piece::Claim {
                    text: format!(
                        "{rewritten}{}",
                        if trailing.is_empty() { " " } else { trailing }
                    ),
                    entry: AuditEntry {
                        sentence: rewritten,
                        sources: vec![best.source_id],
                        status: AuditStatus::Rewritten,
                        evidence: vec![best.id],
                        check: format!(
                            "rewritten from its evidence; the writer's sentence was {why}"
                        ),
                        written: Some(text.to_string()),
                        passage: Some(best.quote.clone()),
                        score: Some(verdict.score),
                    },
                    kept: true,
                });
            }
            Kept::Fails(why) => {
                pieces.push(Piece::Claim {
                    text: sentence.to_string(),
                    entry: AuditEntry {
                        passage,
                        score: Some(verdict.score),
                        ..entry(AuditStatus::Removed, vec![best.id], why)
                    },
                    kept: false,
                });
            }
        }
    }
    Line {
        raw: line.to_string(),
        heading: false,
        pieces: Some(pieces),
    }
}

/// A removed sentence the next kept sentence leans on ("This…", "They…") stays, flagged:
/// taking it out would leave the next one pointing at nothing.
fn keep_what_the_text_needs(lines: &mut [Line]) {
    // (line, piece) of every sentence in reading order, a heading ending the run of text.
    let mut order: Vec<Option<(usize, usize)>> = Vec::new();
    for (l, line) in lines.iter().enumerate() {
        match &line.pieces {
            None if line.heading => order.push(None),
            None => {}
            Some(pieces) => {
                for (p, piece) in pieces.iter().enumerate() {
                    // Blank text, and a rewrite dropped as a repeat (no words left), are not in
                    // the reading order: what comes after them follows what came before.
                    let blank = match piece {
                        Piece::Text(t) => t.trim().is_empty(),
                        Piece::Claim { text, kept, .. } => !kept && text.trim().is_empty(),
                        Piece::Repeat => false,
                    };
                    if !blank {
                        order.push(Some((l, p)));
                    }
                }
            }
        }
    }
    for pair in order.windows(2) {
        let (Some((l, p)), Some((nl, np))) = (pair[0], pair[1]) else {
            continue;
        };
        let next_leans = match &lines[nl].pieces.as_ref().expect("a text line")[np] {
            Piece::Claim { text, kept, .. } => *kept && guard::leans_on_previous(text),
            Piece::Text(text) => guard::leans_on_previous(text),
            Piece::Repeat => false,
        };
        if !next_leans {
            continue;
        }
        if let Piece::Claim { text, entry, kept } =
            &mut lines[l].pieces.as_mut().expect("a text line")[p]
        {
            // A rewrite dropped as a repeat has no words left to keep: what the next sentence
            // leans on is the earlier sentence that says it.
            if !*kept && !text.trim().is_empty() {
                entry.status = AuditStatus::Flagged;
                *text = flag(text, entry);
                *kept = true;
            }
        }
    }
}

fn render(lines: Vec<Line>) -> Audited {
    let mut out: Vec<(bool, String)> = Vec::new();
    let mut entries = Vec::new();
    for line in lines {
        let Some(pieces) = line.pieces else {
            out.push((line.heading, line.raw));
            continue;
        };
        let mut kept_line = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(text) => kept_line.push_str(&text),
                Piece::Claim { text, entry, kept } => {
                    if kept {
                        kept_line.push_str(&text);
                    }
                    entries.push(entry);
                }
                Piece::Repeat => {}
            }
        }
        let bare = kept_line[list_item_start(&kept_line)..]
            .trim()
            .trim_start_matches(['-', '*', '+'])
            .trim();
        if bare.is_empty() && !line.raw.trim().is_empty() {
            // Every sentence of the line went: drop the line rather than leave a bare bullet.
            continue;
        }
        if !kept_line.ends_with('\n') && line.raw.ends_with('\n') {
            kept_line = kept_line.trim_end().to_string();
            kept_line.push('\n');
        }
        out.push((false, kept_line));
    }
    // A heading with nothing left under it (before the next heading) goes too.
    let mut body = String::new();
    for (i, (heading, text)) in out.iter().enumerate() {
        if *heading {
            let level = text.trim_start().chars().take_while(|c| *c == '#').count();
            let empty = out[i + 1..]
                .iter()
                .take_while(|(h, t)| {
                    !*h || t.trim_start().chars().take_while(|c| *c == '#').count() > level
                })
                .all(|(h, t)| !*h && t.trim().is_empty());
            // The last section too: a report must not end on a heading with nothing under it.
            if empty {
                continue;
            }
        }
        body.push_str(text);
    }
    Audited { body, entries }
}

#[cfg(test)]
mod tests {
    use super::confirm::with_verdict;
    use super::*;

    fn evidence(id: u32, source_id: u32, fact: &str, quote: &str) -> Evidence {
        Evidence {
            id,
            source_id,
            source_url: format!("https://example.org/{source_id}"),
            fact: fact.into(),
            quote: quote.into(),
            question: None,
            query: String::new(),
        }
    }

    fn items() -> Vec<Evidence> {
        vec![
            evidence(
                1,
                1,
                "Memcheck tracks the definedness of every bit of memory.",
                "Memcheck tracks the definedness of every bit of memory the program uses.",
            ),
            // A fact its quote does not bear out: nothing to rewrite from.
            evidence(
                2,
                2,
                "Cachegrind is a cache profiler from 1999.",
                "The release notes list every change since the last version.",
            ),
        ]
    }

    #[test]
    fn a_supported_sentence_is_verified_and_an_unsupported_one_removed() {
        let body = "## Summary\nMemcheck tracks the definedness of every bit of memory [1]. \
Cachegrind was written on the moon in 1850 [2].\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        assert!(audited.body.contains("definedness"), "{}", audited.body);
        assert!(!audited.body.contains("moon"), "{}", audited.body);
        let statuses: Vec<_> = audited.entries.iter().map(|e| e.status).collect();
        assert_eq!(statuses, [AuditStatus::Verified, AuditStatus::Removed]);
    }

    #[test]
    fn a_failing_sentence_the_next_one_leans_on_is_kept_flagged() {
        let body = "Cachegrind was written on the moon in 1850 [2]. \
This means Memcheck tracks the definedness of every bit of memory [1].\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        let flagged = &audited.entries[0];
        assert_eq!(flagged.status, AuditStatus::Flagged);
        assert!(
            audited.body.contains("moon in 1850 [2]. ⚠ *(unverified:"),
            "{}",
            audited.body
        );
        // The reason is said where the sentence is.
        assert!(
            audited
                .body
                .contains("1 of its numbers or dates is not in the source"),
            "{}",
            audited.body
        );
        assert!(summary(&audited.entries, false).contains("1 kept with ⚠"));
    }

    #[test]
    fn a_rewrite_dropped_as_a_repeat_is_not_brought_back_as_an_empty_flag() {
        // The second sentence fails, its rewrite from the evidence is the first sentence again
        // (dropped as a repeat), and the third leans on what came before it: the first says it.
        let body = "Memcheck tracks the definedness of every bit of memory [1]. \
Memcheck was written on the moon in 1850 [1]. \
This covers every bit of memory the program uses [1].\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        assert!(!audited.body.contains('⚠'), "{}", audited.body);
        assert!(!audited.body.contains("moon"), "{}", audited.body);
        // Every entry kept in the report is a sentence the report has.
        for e in &audited.entries {
            if e.status != AuditStatus::Removed {
                assert!(
                    audited.body.contains(&e.sentence),
                    "{e:#?}\n{}",
                    audited.body
                );
            }
        }
    }

    #[test]
    fn a_heading_whose_sentences_all_went_goes_too() {
        let body = "## History\nCachegrind was written on the moon in 1850 [2].\n\n## Notes\n\
### Detail\nMemcheck tracks the definedness of every bit of memory [1].\n\n## Last\n\
Cachegrind was written on the moon in 1850 [2].\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        assert!(!audited.body.contains("## History"), "{}", audited.body);
        // A heading over a kept sub-section stays.
        assert!(
            audited.body.contains("## Notes\n### Detail"),
            "{}",
            audited.body
        );
        // The last section too goes when all its sentences did.
        assert!(!audited.body.contains("## Last"), "{}", audited.body);
    }

    #[test]
    fn a_copied_sentence_said_again_and_run_together_letters_go() {
        let body = "Memcheck tracks the definedness of every bit of memory [1].\n\
Manual) Memcheck tracks the definedness of every bit of memory [1].\n\
Usingandunderstandingthevalgrendcoreallothertools. (10.\n\
Memcheck tracks the definedness of every bit of memory [1].\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        assert_eq!(
            audited.body.matches("definedness").count(),
            1,
            "{}",
            audited.body
        );
        assert!(!audited.body.contains("Usingand"), "{}", audited.body);
        assert!(!audited.body.contains("(10"), "{}", audited.body);
        // Audited once, where it was first said.
        let audited_copies = audited
            .entries
            .iter()
            .filter(|e| e.sentence.contains("definedness"))
            .count();
        assert_eq!(audited_copies, 1, "{:#?}", audited.entries);
    }

    #[test]
    fn a_partly_supported_sentence_with_words_its_source_never_uses_is_not_kept() {
        let evidence = [evidence(
            1,
            1,
            "Honeybees feed the queen royal jelly.",
            "Worker honeybees feed the queen royal jelly throughout her life.",
        )];
        let page = "Worker honeybees feed the queen royal jelly throughout her life. \
The queen lays up to two thousand eggs a day, and nurse bees report to the brood.";
        let texts = SourceTexts::new([(1, page)]);
        // Two of its five words are in the quote: partly, by the words of the evidence alone,
        // but more likely than not unsupported, so not kept as written.
        let invented = "Honeybees report radio broadcasts to the queen [1].\n";
        let alone = audit(invented, &evidence, &SourceTexts::default());
        assert_eq!(alone.entries[0].status, AuditStatus::Rewritten);
        assert!(
            alone.entries[0].check.contains("more likely than not"),
            "{}",
            alone.entries[0].check
        );
        // The page never mentions radio or broadcasts: the sentence goes, rewritten from its
        // evidence, and says why.
        let audited = audit(invented, &evidence, &texts);
        let entry = &audited.entries[0];
        assert_eq!(entry.status, AuditStatus::Rewritten, "{entry:#?}");
        assert!(
            entry.check.contains("\"broadcast\", \"radio\""),
            "{}",
            entry.check
        );
        assert!(!audited.body.contains("radio"), "{}", audited.body);
        // A sentence drawing on the rest of the page stays partly supported.
        let drawn = "Honeybees feed the queen, who lays eggs for the brood [1].\n";
        let kept = audit(drawn, &evidence, &texts);
        assert_eq!(
            kept.entries[0].status,
            AuditStatus::Partly,
            "{:#?}",
            kept.entries
        );
    }

    #[test]
    fn each_part_of_the_writers_own_source_list_is_audited_on_its_own() {
        // SmolLM2 lists its sources in the body; read as one sentence, the line's true part
        // carried the invented one through as partly supported.
        let body = "## Sources\n- [1] (Memcheck manual) Memcheck tracks the definedness of every \
bit of memory — it was written on the moon in 1850\n";
        let audited = audit(body, &items(), &SourceTexts::default());
        let statuses: Vec<_> = audited
            .entries
            .iter()
            .map(|e| (e.sentence.as_str(), e.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("(Memcheck manual) [1].", AuditStatus::Removed),
                (
                    "Memcheck tracks the definedness of every bit of memory [1].",
                    AuditStatus::Verified
                ),
                (
                    "It was written on the moon in 1850 [1].",
                    AuditStatus::Removed
                ),
            ]
        );
        assert_eq!(
            audited.body,
            "## Sources\n- Memcheck tracks the definedness of every bit of memory [1].\n"
        );
        // Prose that merely starts with a marker-free word, or a numbered list item without a
        // marker, is not a source list.
        assert_eq!(source_list_entry("1. Memcheck tracks memory [1].\n"), None);
        assert_eq!(source_list_entry("[x] a task list item\n"), None);
        assert_eq!(
            source_list_entry("[1][2]: tracks memory | reports leaks\n").as_deref(),
            Some("Tracks memory [1][2]. Reports leaks [1][2].\n")
        );
        // Each sentence of a part is cited; a question keeps its mark; a range stays whole.
        assert_eq!(
            source_list_entry("[1] Built on the moon. Tracks memory — why? — in 1990 - 2000\n")
                .as_deref(),
            Some("Built on the moon [1]. Tracks memory [1]. Why [1]? In 1990 - 2000 [1].\n")
        );
        // A numbered item whose every sentence went leaves no bare number behind.
        let gone = audit(
            "3. Cachegrind was written on the moon in 1850 [2].\n",
            &items(),
            &SourceTexts::default(),
        );
        assert_eq!(gone.body.trim(), "", "{}", gone.body);
    }

    #[test]
    fn a_no_from_the_model_lowers_verified_to_partly_and_nothing_raises() {
        let mut entries = audit(
            "Memcheck tracks the definedness of every bit of memory [1]. \
Cachegrind was written on the moon in 1850 [2].\n",
            &items(),
            &SourceTexts::default(),
        )
        .entries;
        with_verdict(&mut entries[0], Some(false));
        assert_eq!(entries[0].status, AuditStatus::Partly);
        assert!(entries[0].check.starts_with("the model does not find it"));
        let before = entries[1].clone();
        with_verdict(&mut entries[1], Some(true));
        assert_eq!(entries[1].status, before.status);
    }
}
