//! The reviewer's checks that need no model: what the audit flagged, banned words, research
//! questions and the plan's aspects the draft leaves out, the academic frame, the length — each
//! an issue with the highest score its criterion may get, so no model can approve past them.

use std::collections::BTreeSet;

use super::*;

/// The checks' findings on a draft, and the highest score each criterion may get.
pub fn check(input: &ReviewInput<'_>, config: &crate::RunConfig) -> (Vec<Issue>, [f64; 6]) {
    let mut issues = Vec::new();
    let mut caps = [10.0f64; 6];
    let cap = |caps: &mut [f64; 6], c: Criterion, v: f64| {
        let i = Criterion::ALL.iter().position(|x| *x == c).unwrap_or(0);
        caps[i] = caps[i].min(v);
    };
    let issue = |category, severity, location: &str, description: String, fix: &str| Issue {
        category,
        severity,
        location: location.to_string(),
        description,
        fix: fix.to_string(),
        found_by: FoundBy::Check,
    };
    // The audit: a sentence kept with ⚠ is an unverified claim in the report.
    let audited = input.audit.len();
    let mut verified = 0.0;
    for a in input.audit {
        match a.status {
            AuditStatus::Verified => verified += 1.0,
            AuditStatus::Partly => verified += 0.5,
            AuditStatus::Flagged => issues.push(issue(
                Criterion::Accuracy,
                Severity::Critical,
                &short(&a.sentence),
                format!("the sources it cites do not support it ({})", a.check),
                "say only what the cited passages say, or remove the sentence",
            )),
            AuditStatus::Removed | AuditStatus::Rewritten => issues.push(issue(
                Criterion::Accuracy,
                Severity::Minor,
                &short(&a.sentence),
                format!(
                    "the audit {} it: its sources did not support it ({})",
                    if a.status == AuditStatus::Removed {
                        "removed"
                    } else {
                        "rewrote"
                    },
                    a.check
                ),
                "write only what the evidence states",
            )),
        }
    }
    if audited > 0 {
        cap(
            &mut caps,
            Criterion::Accuracy,
            (10.0 * verified / audited as f64).max(2.0),
        );
    }
    // Markers must name sources that were read; the body must cite at all.
    let known: BTreeSet<u32> = input.sources.iter().map(|s| s.id).collect();
    let cited = cited_ids(input.body);
    let unknown: Vec<u32> = cited.difference(&known).copied().collect();
    if !unknown.is_empty() {
        issues.push(issue(
            Criterion::Citation,
            Severity::Critical,
            "general",
            format!("markers name sources that were not read: {unknown:?}"),
            "cite only the numbered sources given",
        ));
        cap(&mut caps, Criterion::Citation, 3.0);
    }
    if cited.is_empty() && !input.evidence.is_empty() {
        issues.push(issue(
            Criterion::Citation,
            Severity::Critical,
            "general",
            "the draft cites no source".into(),
            "cite every statement with its source number",
        ));
        cap(&mut caps, Criterion::Citation, 2.0);
    }
    // Banned words left in the writer's own words.
    let banned = guard::banned_uses(input.body, &config.banned());
    if !banned.is_empty() {
        let words: Vec<String> = banned.iter().map(|b| b.found.clone()).collect();
        issues.push(issue(
            Criterion::Style,
            Severity::Major,
            "general",
            format!("banned words: {}", words.join(", ")),
            "use plain words instead",
        ));
        cap(&mut caps, Criterion::Style, 6.0);
    }
    // Prose that failed its checks and was replaced by the passages.
    if let Some(why) = input.rejected {
        issues.push(issue(
            Criterion::Coherence,
            Severity::Major,
            "general",
            format!("the writer's prose failed the checks ({why}); the report is the passages"),
            "write short, cited prose from the evidence",
        ));
        cap(&mut caps, Criterion::Coherence, 5.0);
    }
    // Research questions the draft never touches.
    let body_words: BTreeSet<String> = guard::content_words(input.body).into_iter().collect();
    let mut missed = 0;
    for (n, q) in input.questions.iter().enumerate() {
        let words = guard::content_words(q);
        let shared = words.iter().filter(|w| body_words.contains(*w)).count();
        if !words.is_empty() && shared * 3 < words.len() {
            missed += 1;
            // A question no passage speaks to is a gap of the research, not of the draft: a
            // revision cannot answer it (the report lists it among the gaps).
            let answerable = input
                .evidence
                .iter()
                .any(|e| guard::shares_content(q, &e.quote));
            issues.push(issue(
                Criterion::Completeness,
                if answerable {
                    Severity::Major
                } else {
                    Severity::Minor
                },
                &format!("research question {}", n + 1),
                if answerable {
                    format!("the draft does not address \"{}\"", q.trim())
                } else {
                    format!("no source read answers \"{}\"", q.trim())
                },
                if answerable {
                    "answer it from the evidence"
                } else {
                    "say that the sources read do not answer it"
                },
            ));
        }
    }
    if !input.questions.is_empty() {
        let addressed = (input.questions.len() - missed) as f64 / input.questions.len() as f64;
        cap(
            &mut caps,
            Criterion::Completeness,
            (10.0 * addressed).max(2.0),
        );
    }
    // The plan's aspects the evidence speaks to, each expected as a section.
    let headings: Vec<&str> = input
        .body
        .lines()
        .filter(|l| l.trim_start().starts_with("##"))
        .collect();
    if config.structure != crate::Structure::Concise {
        for aspect in input
            .outline
            .iter()
            .take(crate::steps::write::MAX_OUTLINE_SECTIONS)
        {
            let covered = input
                .evidence
                .iter()
                .any(|e| guard::shares_content(aspect, &e.quote));
            if covered && !headings.iter().any(|h| guard::shares_content(aspect, h)) {
                issues.push(issue(
                    Criterion::Completeness,
                    Severity::Minor,
                    "outline",
                    format!("the plan's aspect \"{}\" has no section", aspect.trim()),
                    "give it a section from its evidence",
                ));
            }
        }
    }
    // Seed 000's frame of an academic report, checked like the sections: an abstract of its
    // length first, a conclusion last.
    use crate::steps::write::frame::{self, Frame, FrameProblem};
    if Frame::of(config.structure, config.style) == Frame::Academic {
        for problem in frame::problems(input.body) {
            let (severity, fix) = match problem {
                FrameProblem::NoAbstract => (
                    Severity::Major,
                    "open with a section `## Abstract` that states the answer",
                ),
                FrameProblem::AbstractLength { .. } => (
                    Severity::Minor,
                    "give the abstract the length asked where the evidence allows",
                ),
                FrameProblem::NoConclusion => (
                    Severity::Major,
                    "end with a section `## Conclusion` that draws the sections together",
                ),
            };
            issues.push(issue(
                Criterion::Coherence,
                severity,
                "structure",
                format!("the report's frame: {problem}"),
                fix,
            ));
            if severity == Severity::Major {
                cap(&mut caps, Criterion::Coherence, 7.0);
            }
        }
    }
    if let Some(note) =
        crate::steps::write::length_note(input.body, config.target_words, input.evidence.len())
    {
        issues.push(issue(
            Criterion::Completeness,
            Severity::Minor,
            "general",
            note,
            "write more where the evidence allows",
        ));
    }
    (issues, caps)
}

fn short(sentence: &str) -> String {
    let s: String = sentence.chars().take(80).collect();
    if s.len() < sentence.len() {
        format!("\"{s}…\"")
    } else {
        format!("\"{s}\"")
    }
}
