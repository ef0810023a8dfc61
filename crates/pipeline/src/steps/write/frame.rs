//! Seed 000's frame of an academic report: an abstract that states the answer in 150 to 250
//! words first, a conclusion that draws the sections together last. The writer is asked for it,
//! the extractive report is given it, and both are checked against it (the method section, the
//! reviewer, the evaluation's structural checks): a rule only a prompt states is a rule a small
//! model does not keep, and nothing would say so.

use std::ops::RangeInclusive;

use crate::guard;
use crate::report;
use crate::{Structure, Style};

/// How many words an abstract has (seed 000).
pub const ABSTRACT_WORDS: RangeInclusive<usize> = 150..=250;

/// The shape a report's body opens and closes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// A summary first (every structure but a detailed academic report).
    Summary,
    /// An abstract first and a conclusion last (a detailed academic report).
    Academic,
}

impl Frame {
    /// The frame a report of `structure` in `style` takes.
    pub fn of(structure: Structure, style: Style) -> Self {
        if structure == Structure::Detailed && style == Style::Academic {
            Self::Academic
        } else {
            Self::Summary
        }
    }
}

/// What a body misses of the academic frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameProblem {
    /// The first section is not an abstract.
    NoAbstract,
    /// The abstract's length is outside [`ABSTRACT_WORDS`].
    AbstractLength {
        /// Its words (CJK characters count half a word each, as everywhere).
        words: usize,
    },
    /// No conclusion after the abstract.
    NoConclusion,
}

impl std::fmt::Display for FrameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoAbstract => write!(f, "it does not open with an abstract"),
            Self::AbstractLength { words } => write!(
                f,
                "its abstract is {words} words ({}–{} asked)",
                ABSTRACT_WORDS.start(),
                ABSTRACT_WORDS.end()
            ),
            Self::NoConclusion => write!(f, "it has no conclusion"),
        }
    }
}

/// Whether `heading` (a `## ` line's text) names one of `names`, in either language the reports
/// are written in (a model writing Japanese may keep the English heading it was asked for).
fn names(heading: &str, pick: impl Fn(&report::Headings) -> &'static str) -> bool {
    let heading = heading
        .trim()
        .trim_end_matches([':', '：'])
        .trim()
        .to_lowercase();
    ["en", "ja"]
        .iter()
        .any(|l| heading == pick(&report::headings(l)).to_lowercase())
}

/// Whether `heading` is an abstract's.
pub fn is_abstract(heading: &str) -> bool {
    names(heading, |h| h.r#abstract)
}

/// What `body` (a report's body, or a whole report) misses of the academic frame: its first
/// `## ` section an abstract of [`ABSTRACT_WORDS`], and a conclusion after it. A quotation block
/// is a note, not the abstract's text. An abstract shorter than asked is missing words only when
/// the sections after it say more than it does: a report is as long as its evidence, and an
/// abstract that already gives every passage read cannot be longer.
pub fn problems(body: &str) -> Vec<FrameProblem> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in body.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            sections.push((heading, Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut() {
            lines.push(line);
        }
    }
    // The report's own sections end where the fixed ones (findings, sources, method) begin.
    let fixed = |h: &str| {
        ["en", "ja"].iter().any(|l| {
            let f = report::headings(l);
            [f.findings, f.caveats, f.sources, f.method, f.excluded].contains(&h.trim())
        })
    };
    let own = sections
        .iter()
        .position(|(h, _)| fixed(h))
        .unwrap_or(sections.len());
    let sections = &sections[..own];
    let words = |lines: &[&str]| {
        let text: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.trim_start().starts_with('>'))
            .collect();
        guard::word_count(&report::without_markers(&text.join("\n")))
    };
    let conclusion = |h: &str| names(h, |n| n.conclusion);
    let mut out = Vec::new();
    match sections.first() {
        Some((heading, lines)) if is_abstract(heading) => {
            let said = words(lines);
            let rest: usize = sections[1..]
                .iter()
                .filter(|(h, _)| !conclusion(h))
                .map(|(_, lines)| words(lines))
                .sum();
            let short = said < *ABSTRACT_WORDS.start() && said + rest >= *ABSTRACT_WORDS.start();
            if short || said > *ABSTRACT_WORDS.end() {
                out.push(FrameProblem::AbstractLength { words: said });
            }
        }
        _ => out.push(FrameProblem::NoAbstract),
    }
    if !sections.iter().skip(1).any(|(h, _)| conclusion(h)) {
        out.push(FrameProblem::NoConclusion);
    }
    out
}

/// The method section's line on a body that misses the frame it was asked for, if it does.
pub fn note(frame: Frame, body: &str) -> Option<String> {
    if frame != Frame::Academic {
        return None;
    }
    let problems = problems(body);
    (!problems.is_empty()).then(|| {
        let said: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        format!(
            "The report does not keep the academic frame asked for: {}.",
            said.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> String {
        vec!["word"; n].join(" ")
    }

    #[test]
    fn an_abstract_of_the_asked_length_and_a_conclusion_keep_the_frame() {
        let body = format!(
            "## Abstract\n\n> A note set apart.\n\n{} [1].\n\n## Details\n\nText [2].\n\n## Conclusion\n\nSo [1].\n",
            words(180)
        );
        assert_eq!(problems(&body), Vec::new());
        assert_eq!(note(Frame::Academic, &body), None);
    }

    #[test]
    fn a_summary_a_short_abstract_or_no_conclusion_is_named() {
        let summary = "## Summary\n\nText [1].\n\n## Details\n\nMore [2].\n";
        assert_eq!(
            problems(summary),
            vec![FrameProblem::NoAbstract, FrameProblem::NoConclusion]
        );
        let short = format!(
            "## Abstract\n\n{} [1].\n\n## Details\n\n{} [2].\n\n## 結論\n\n以上 [1]。\n",
            words(40),
            words(200)
        );
        assert_eq!(
            problems(&short),
            vec![FrameProblem::AbstractLength { words: 40 }]
        );
        let note = note(Frame::Academic, &short).expect("a note");
        assert!(note.contains("40 words (150–250 asked)"), "{note}");
        // An abstract that gives all there is to say is as long as it can be.
        let all = format!(
            "## Abstract\n\n{} [1].\n\n## Conclusion\n\nSo [1].\n",
            words(40)
        );
        assert_eq!(problems(&all), Vec::new());
        let long = format!(
            "## Abstract\n\n{} [1].\n\n## Conclusion\n\nSo [1].\n",
            words(300)
        );
        assert_eq!(
            problems(&long),
            vec![FrameProblem::AbstractLength { words: 300 }]
        );
        // Only the academic frame is asked for an abstract.
        assert_eq!(super::note(Frame::Summary, summary), None);
        assert!(is_abstract("要旨"));
        assert!(is_abstract("Abstract:"));
    }
}
