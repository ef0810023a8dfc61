//! Which findings a report lists, and in what order: under a written body, and as the body of
//! an extractive report (the passages themselves, grouped by research question). Kept apart
//! from the writer because these are rules about the finished report, not about writing.

use std::collections::BTreeSet;

use crate::guard;
use crate::records::Evidence;
use crate::report;
use crate::text::normalize;

use super::audit::{AuditStatus, Audited};
use super::write::frame::{Frame, ABSTRACT_WORDS};
use crate::records::Coverage;

/// When a body and its findings list would read as a loop, a finding whose quote the body says
/// this much of, word for word (as a share of the quote's four-word sequences), is not listed
/// again: a summary copying a long quote, then that quote listed, read as a loop to
/// `check_usable` (distinct 4-grams under 0.6).
pub const SAID_ALREADY: f64 = 0.5;

/// Below this share of distinct four-word sequences, a body and its findings list read as one
/// text said twice (the bar `check_usable` holds a report to; the prose guard's loop bar,
/// [`guard::MIN_DISTINCT_4GRAMS`], is lower because it judges the body alone).
pub const READS_TWICE: f64 = 0.6;

/// The findings to list under the audited body: all of them, unless body and list together
/// would read as a loop because the body says findings word for word (a small model's summary
/// copying long quotes). Then a finding is left out only where the body says its quote in
/// sentences the audit verified against the same source, so no passage loses its citation, no
/// source its place, and nothing verified gives way to a flagged copy.
pub(super) fn unrepeated(
    audited: &Audited,
    evidence: &[Evidence],
    language: &str,
) -> Vec<Evidence> {
    let listed = report::findings_section(language, evidence);
    if guard::distinct_4gram_ratio(&format!("{}\n\n{listed}", audited.body)) >= READS_TWICE {
        return evidence.to_vec();
    }
    evidence
        .iter()
        .filter(|e| {
            let verified: Vec<&str> = audited
                .entries
                .iter()
                .filter(|a| a.status == AuditStatus::Verified && a.sources.contains(&e.source_id))
                .map(|a| a.sentence.as_str())
                .collect();
            verified.is_empty()
                || guard::share_said_in(&e.quote, &verified.join(" ")) < SAID_ALREADY
        })
        .cloned()
        .collect()
}

/// Which research question each evidence item answers best (by shared content words), for
/// grouping passages; `None` when it shares nothing with any.
fn question_of(e: &Evidence, questions: &[String]) -> Option<usize> {
    let words: BTreeSet<String> = guard::content_words(&format!("{} {}", e.fact, e.quote))
        .into_iter()
        .collect();
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let shared = guard::content_words(q)
                .into_iter()
                .filter(|w| words.contains(w))
                .count();
            (shared, std::cmp::Reverse(i))
        })
        .max()
        .filter(|(shared, _)| *shared > 0)
        .map(|(_, std::cmp::Reverse(i))| i)
}

/// Why a report is made of the passages, as its opening note says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhyPassages {
    /// The model's summary failed the checks.
    Refused,
    /// The model was not asked for one: the checks were measured to refuse its summaries
    /// ([`crate::steps::write::unfit_writer`]).
    NotAsked,
    /// The model could not write one (its calls failed).
    Failed,
}

impl WhyPassages {
    /// The report's opening note.
    fn note(self, ja: bool) -> &'static str {
        match (self, ja) {
            (Self::Refused, false) => "The model's summary did not pass the checks, so this report gives what the sources say, passage by passage.",
            (Self::Refused, true) => "モデルの要約は検証を通らなかったため、この報告は読んだ出典の該当箇所をそのまま示します。",
            (Self::NotAsked, false) => "This model was not asked for a summary, since the checks refused nearly all it wrote in tests: this report gives what the sources say, passage by passage.",
            (Self::NotAsked, true) => "このモデルには要約を求めていません（試験では要約のほとんどが検証を通りませんでした）。この報告は読んだ出典の該当箇所をそのまま示します。",
            (Self::Failed, false) => "The model could not write a summary, so this report gives what the sources say, passage by passage.",
            (Self::Failed, true) => "モデルが要約を書けなかったため、この報告は読んだ出典の該当箇所をそのまま示します。",
        }
    }
}

/// The extractive body: the evidence grouped by research question (the plan's order, each
/// question's passages best first, what answers none of them last), each passage quoted and
/// cited, with an honest line on why. The person's question `asked` heads, first, the passages
/// that bear on it and on none of the research questions: a small model's plan can miss what
/// was asked ("How does the Memcheck feature work?" for a question on `--leak-check`), and the
/// answer must not be filed under "Other findings".
pub fn extractive_body(
    language: &str,
    asked: &str,
    questions: &[String],
    evidence: &[Evidence],
    why: WhyPassages,
    frame: Frame,
) -> String {
    let ja = language == "ja";
    let headings = report::headings(language);
    let mut out = format!(
        // A note, not a claim: set apart as a quotation block, which the audit leaves alone.
        "## {}\n\n> {}\n\n",
        match frame {
            Frame::Summary => headings.summary,
            Frame::Academic => headings.r#abstract,
        },
        why.note(ja)
    );
    // A passage goes under the research question it answers best; only one that answers none
    // of them goes under the person's question, if it answers that.
    let asked = asked.trim();
    let asked: &[String] =
        if asked.is_empty() || questions.iter().any(|q| normalize(q) == normalize(asked)) {
            &[]
        } else {
            &[asked.to_string()]
        };
    let mut groups: Vec<(String, Vec<&Evidence>)> = Vec::new();
    let other = if ja { "その他" } else { "Other findings" };
    for e in evidence {
        let title = question_of(e, questions)
            .map(|i| questions[i].clone())
            .or_else(|| question_of(e, asked).map(|i| asked[i].clone()))
            .unwrap_or_else(|| other.to_string());
        match groups.iter_mut().find(|(t, _)| *t == title) {
            Some((_, items)) => items.push(e),
            None => groups.push((title, vec![e])),
        }
    }
    // What was asked first, then the research questions in the plan's order, each with its
    // passages best first against it; what answers none of them comes last.
    let place = |title: &str| {
        if asked.iter().any(|a| a == title) {
            0
        } else {
            questions
                .iter()
                .position(|q| q == title)
                .map_or(questions.len() + 1, |i| i + 1)
        }
    };
    groups.sort_by_key(|(title, _)| place(title));
    for (title, items) in groups.iter_mut() {
        if title.as_str() == other {
            continue;
        }
        // What is shown is ranked by how well it answers (the quote). One that opens with what the question names
        // comes first (it says what that is or does), then one that names it, then one that
        // shares only the question's other words ("measure", said of another tool).
        let refs: Vec<&str> = items.iter().map(|e| e.quote.as_str()).collect();
        let anchors = guard::Anchors::of(title);
        let scores = super::relevance::answers::answering(title, &refs);
        let mut order: Vec<usize> = (0..refs.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        order.sort_by_key(|&i| (!anchors.leads(refs[i]), !anchors.named_in(refs[i])));
        *items = order.into_iter().map(|i| items[i]).collect();
    }
    let mut listed: BTreeSet<String> = BTreeSet::new();
    // A passage read twice (two searches, one page) is given once.
    let mut groups: Vec<(String, Vec<&Evidence>)> = groups
        .into_iter()
        .map(|(title, items)| {
            let items = items
                .into_iter()
                .filter(|e| listed.insert(normalize(&e.quote)))
                .collect();
            (title, items)
        })
        .collect();
    if frame == Frame::Academic {
        // The abstract is the passages that answer best: each research question's best first,
        // then the next of each, as long as the abstract stays within its length.
        let said = abstract_passages(&mut groups, other);
        let paragraph: Vec<String> = said
            .iter()
            .map(|e| format!("{} [{}].", quoted(e), e.source_id))
            .collect();
        if !paragraph.is_empty() {
            out.push_str(&format!("{}\n\n", paragraph.join(" ")));
        }
        if groups.iter().any(|(_, items)| !items.is_empty()) {
            out.push_str(&format!(
                "## {}\n\n",
                if ja {
                    "出典の記述"
                } else {
                    "What the sources say"
                }
            ));
        }
    }
    for (title, items) in &groups {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("### {}\n\n", title.trim()));
        for e in items {
            out.push_str(&format!("- {} [{}]\n", quoted(e), e.source_id));
        }
        out.push('\n');
    }
    if frame == Frame::Academic {
        out.push_str(&format!(
            "## {}\n\n> {}\n",
            report::headings(language).conclusion,
            conclusion(questions, evidence, ja)
        ));
    }
    out
}

/// A passage as a report quotes it: the source's own words, never the model's paraphrase of
/// them (a fact that shares most of its words with its quote can still add one, "a colony is a
/// social insect"), on one line, without a list item's marker or a closing full stop.
fn quoted(e: &Evidence) -> String {
    let text = e.quote.trim().replace('\n', " ");
    text.trim_start_matches(['-', '*', '•', ' '])
        .trim_end_matches('.')
        .to_string()
}

/// Takes from `groups` (each best first) the passages an extractive abstract quotes: round by
/// round the next best of each research question's group (what answers none of them, `other`,
/// never), each only if the abstract stays within [`ABSTRACT_WORDS`]'s upper bound, until it
/// reaches the lower one.
fn abstract_passages<'e>(
    groups: &mut [(String, Vec<&'e Evidence>)],
    other: &str,
) -> Vec<&'e Evidence> {
    let mut said = Vec::new();
    let mut words = 0;
    while words < *ABSTRACT_WORDS.start() {
        let mut any = false;
        for (title, items) in groups.iter_mut() {
            if title == other || words >= *ABSTRACT_WORDS.start() {
                continue;
            }
            // Passages too long for what is left are skipped, and stay in their group; so is one
            // that opens leaning on a sentence before it ("This provides better compatibility…"),
            // which the abstract would set after another source's passage.
            let fits = items.iter().position(|e| {
                words + guard::word_count(&e.quote) <= *ABSTRACT_WORDS.end()
                    && !guard::leans_on_previous(&e.quote)
            });
            if let Some(at) = fits {
                let e = items.remove(at);
                words += guard::word_count(&e.quote);
                said.push(e);
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    said
}

/// An extractive report's conclusion: how far the passages answer each research question, by
/// the measure its coverage uses — the sources' words are the report, so it draws no conclusion
/// of its own from them.
fn conclusion(questions: &[String], evidence: &[Evidence], ja: bool) -> String {
    // Levels only: the share of a complete answer is the method section's one figure (read over
    // the run's evidence, each question with the person's), not stated twice.
    let coverage: Vec<Coverage> = questions
        .iter()
        .map(|q| super::gaps::evidence_coverage(q, evidence))
        .collect();
    let count = |c: Coverage| coverage.iter().filter(|x| **x == c).count();
    let open: Vec<String> = questions
        .iter()
        .zip(&coverage)
        .filter(|(_, c)| **c == Coverage::Missing)
        .map(|(q, _)| format!("\"{}\"", q.trim()))
        .collect();
    let (well, partly, total) = (
        count(Coverage::WellCovered),
        count(Coverage::Partial),
        questions.len(),
    );
    let mut said = if ja {
        format!(
            "調査課題{total}件のうち、引用した箇所が十分に答えるもの{well}件、一部答えるもの{partly}件。"
        )
    } else {
        format!(
            "Of the {total} research question{}, the passages quoted answer {well} well and {partly} in part.",
            if total == 1 { "" } else { "s" }
        )
    };
    if !open.is_empty() {
        said.push_str(&if ja {
            format!(" 読んだ出典で答えられなかったもの: {}。", open.join("、"))
        } else {
            format!(" None read answers {}.", open.join(", "))
        });
    }
    said.push_str(if ja {
        " 出典の言葉をそのまま示したため、それを超える結論は引き出していません。"
    } else {
        " The report gives the sources' own words and draws no conclusion beyond them."
    });
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::audit::AuditEntry;

    const WARRANTY: &str = "The software is provided as is, without warranty of any kind, express or \
implied, including but not limited to the warranties of merchantability and fitness for a particular purpose.";
    const LIABILITY: &str = "In no event shall the authors or copyright holders be liable for any claim, \
damages or other liability, whether in an action of contract, tort or otherwise, arising from the software.";
    const COPYLEFT: &str =
        "Copyleft licences require that changed versions are shared under the same terms.";

    fn found(source_id: u32, quote: &str) -> Evidence {
        let mut e = Evidence::unnumbered(quote.to_string(), quote.to_string());
        e.source_id = source_id;
        e
    }

    fn said(sentence: &str, source: u32, status: AuditStatus) -> AuditEntry {
        AuditEntry {
            sentence: format!("{sentence} [{source}]"),
            sources: vec![source],
            status,
            evidence: Vec::new(),
            check: String::new(),
            written: None,
            passage: None,
            score: None,
        }
    }

    /// A summary made of two licence passages, each cited, the second with `second`'s verdict.
    fn copied(second: AuditStatus) -> Audited {
        Audited {
            body: format!("## Summary\n{WARRANTY} [1] {LIABILITY} [2]\n"),
            entries: vec![
                said(WARRANTY, 1, AuditStatus::Verified),
                said(LIABILITY, 2, second),
            ],
        }
    }

    fn evidence() -> Vec<Evidence> {
        vec![found(1, WARRANTY), found(2, LIABILITY), found(3, COPYLEFT)]
    }

    #[test]
    fn a_list_that_would_say_the_body_again_leaves_out_what_the_body_verified() {
        let audited = copied(AuditStatus::Verified);
        let listed = unrepeated(&audited, &evidence(), "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [3]);
        let report = format!(
            "{}\n{}",
            audited.body,
            report::findings_section("en", &listed)
        );
        assert!(
            guard::distinct_4gram_ratio(&report) >= READS_TWICE,
            "{report}"
        );
    }

    #[test]
    fn a_finding_the_body_says_only_in_a_flagged_sentence_stays_listed() {
        let listed = unrepeated(&copied(AuditStatus::Flagged), &evidence(), "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [2, 3]);
    }

    #[test]
    fn the_same_passage_from_another_source_stays_listed() {
        let mut evidence = evidence();
        evidence.push(found(4, WARRANTY));
        let listed = unrepeated(&copied(AuditStatus::Verified), &evidence, "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [3, 4], "source 4 keeps its citation");
    }

    #[test]
    fn an_extractive_body_gives_the_answers_first_and_the_best_of_them_first() {
        let question = "What does Cachegrind measure?".to_string();
        let read = [
            (5, "It measures how much heap memory your program uses."),
            (2, "This is very useful if you want to measure how a change to a program affected its performance."),
            (4, "Callgrind's cache simulation is based on that of Cachegrind."),
            (2, "Cachegrind gathers the following statistics: instruction cache reads, data cache reads and writes, and mispredicted branches."),
        ];
        let evidence: Vec<Evidence> = read.iter().map(|(s, q)| found(*s, q)).collect();
        let body = extractive_body(
            "en",
            &question,
            std::slice::from_ref(&question),
            &evidence,
            WhyPassages::Refused,
            Frame::Summary,
        );
        let at = |text: &str| {
            body.find(text)
                .unwrap_or_else(|| panic!("{text} in {body}"))
        };
        assert!(
            at("### What does Cachegrind measure?") < at("### Other findings"),
            "{body}"
        );
        assert!(at("Cachegrind gathers") < at("Callgrind's cache"), "{body}");
        assert!(
            at("Callgrind's cache") < at("This is very useful"),
            "{body}"
        );
        assert!(
            at("### Other findings") < at("It measures how much heap"),
            "{body}"
        );
    }

    /// Seed 000 (row 000-19): an academic report made of the passages opens with an abstract of
    /// the best of them within 150–250 words and closes with a conclusion that says how far they
    /// answer, which the frame's check accepts; a summary report keeps its summary.
    #[test]
    fn an_extractive_academic_report_has_an_abstract_of_its_length_and_a_conclusion() {
        let questions = vec![
            "How does a rollback journal make a commit atomic?".to_string(),
            "What does write-ahead logging change for readers?".to_string(),
            "Which filesystems break file locking?".to_string(),
        ];
        let long = |topic: &str, n: u32| {
            format!(
                "The rollback journal {topic} keeps a copy of each original page before the \
database file is changed, so that an interrupted commit is undone when the database is next \
opened, and this is repeated for sentence {n} with enough words to count toward the length"
            )
        };
        let mut evidence: Vec<Evidence> = (0..8)
            .map(|n| found(1 + n % 2, &long("of a commit", n)))
            .collect();
        evidence.push(found(
            3,
            "With write-ahead logging readers do not block writers and a writer does not block readers.",
        ));
        // Opens leaning on a sentence it is not quoted with: never in the abstract, where it
        // would follow another source's passage.
        evidence.push(found(
            4,
            "This lets write-ahead logging readers go on reading while a writer commits.",
        ));
        let body = extractive_body(
            "en",
            &questions[0],
            &questions,
            &evidence,
            WhyPassages::NotAsked,
            Frame::Academic,
        );
        assert!(body.starts_with("## Abstract\n"), "{body}");
        assert_eq!(
            crate::steps::write::frame::problems(&body),
            Vec::new(),
            "{body}"
        );
        let at = |text: &str| {
            body.find(text)
                .unwrap_or_else(|| panic!("{text} in {body}"))
        };
        // The abstract takes each research question's best first.
        assert!(
            at("readers do not block writers") < at("## What the sources say"),
            "{body}"
        );
        assert!(
            at("## What the sources say") < at("## Conclusion"),
            "{body}"
        );
        assert!(
            at("This lets write-ahead logging readers") > at("## What the sources say"),
            "{body}"
        );
        let conclusion = &body[at("## Conclusion")..];
        assert!(
            conclusion.contains("None read answers \"Which filesystems break file locking?\""),
            "{conclusion}"
        );
        // Every passage is given once, in the abstract or under its question.
        for e in &evidence {
            assert_eq!(body.matches(quoted(e).as_str()).count(), 1, "{body}");
        }
        let summary = extractive_body(
            "en",
            &questions[0],
            &questions,
            &evidence,
            WhyPassages::NotAsked,
            Frame::Summary,
        );
        assert!(summary.starts_with("## Summary\n"), "{summary}");
        assert!(!summary.contains("## Conclusion"), "{summary}");
    }

    #[test]
    fn the_question_asked_heads_its_answer_when_the_plan_missed_it() {
        // A small model's plan asked about the tool in general; the answer to the option asked
        // about shares no word with it and comes first under the person's own question.
        let asked = "What does the --leak-check option do in Memcheck?";
        let planned = "How does the feature work?".to_string();
        let read = [
            (2, "This feature is described in the chapter on the core."),
            (
                1,
                "The --leak-check option turns on the detailed memory leak detector.",
            ),
            (
                3,
                "Valgrind is an instrumentation framework for building dynamic analysis tools.",
            ),
        ];
        let evidence: Vec<Evidence> = read.iter().map(|(s, q)| found(*s, q)).collect();
        let body = extractive_body(
            "en",
            asked,
            std::slice::from_ref(&planned),
            &evidence,
            WhyPassages::NotAsked,
            Frame::Summary,
        );
        let at = |text: &str| {
            body.find(text)
                .unwrap_or_else(|| panic!("{text} in {body}"))
        };
        assert!(
            at(&format!("### {asked}")) < at("The --leak-check option"),
            "{body}"
        );
        assert!(
            at("The --leak-check option") < at(&format!("### {planned}")),
            "{body}"
        );
        assert!(
            at("This feature is described") < at("### Other findings"),
            "{body}"
        );
        assert!(at("### Other findings") < at("Valgrind is an"), "{body}");
        // Asked as planned, the question heads its passages once.
        let once = extractive_body(
            "en",
            asked,
            &[asked.to_string()],
            &evidence,
            WhyPassages::Refused,
            Frame::Summary,
        );
        assert_eq!(once.matches(&format!("### {asked}")).count(), 1, "{once}");
    }

    #[test]
    fn a_list_that_reads_well_after_the_body_is_left_whole() {
        // The body quoting one passage among its own words is how a report cites: kept whole.
        let body = format!(
            "## Summary\nMost open source licences disclaim every warranty, often in capitals, and \
             several add a limitation of liability for any damages arising from use. {WARRANTY} [1] \
             Copyleft licences add conditions on sharing changed versions, while permissive ones \
             ask only that the notice is kept with every copy of the code [3].\n"
        );
        let audited = Audited {
            body,
            entries: vec![said(WARRANTY, 1, AuditStatus::Verified)],
        };
        let evidence = vec![found(1, WARRANTY), found(3, COPYLEFT)];
        assert_eq!(unrepeated(&audited, &evidence, "en").len(), 2);
    }
}
