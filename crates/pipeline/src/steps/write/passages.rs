//! The reports made of the passages themselves, with no model call: when the writer cannot
//! be asked (or its model failed), and when nothing read answers the question. A run never
//! ends empty, and never says more than what it read.

use std::collections::BTreeSet;

use super::super::audit;
use super::super::relevance::Gate;
use super::{analysis_section, caveats, extractive_body, Draft, WhyPassages, WriteInput};
use crate::guard;
use crate::report;
use crate::text::normalize;

/// The report made of the passages themselves, with no model call: what a run delivers when
/// the writer cannot be asked (its model failed), so that it never ends empty.
pub fn passages_report(input: &WriteInput<'_>, why: &str, now_ms: i64, calls: u64) -> Draft {
    if input.facts.evidence.is_empty() {
        return Draft {
            report: report::nothing_found(&input.facts, now_ms, calls),
            ..Default::default()
        };
    }
    let gate = gate(input);
    let on_question = gate.citable(input.facts.evidence);
    if on_question.is_empty() {
        return nothing_answers(input, now_ms, calls);
    }
    let mut gated = *input;
    gated.facts.evidence = &on_question;
    let input = &gated;
    let passages = gate.best(input.facts.evidence, MAX_PASSAGES);
    if passages.is_empty() {
        // On the question by its words, but none says what it asks.
        return nothing_answers(input, now_ms, calls);
    }
    // The passages are the sources' own words: the texts around them add nothing to judge by.
    let audited = audit::audit(
        &extractive_body(
            input.facts.language,
            input.facts.query,
            input.facts.questions,
            &passages,
            WhyPassages::Failed,
            input.frame,
        ),
        input.facts.evidence,
        &audit::SourceTexts::default(),
    );
    let (analysed, quoted) = analysis_section(input, now_ms);
    let mut entries = audited.entries;
    entries.extend(quoted);
    let mut report = report::assemble(
        &input.facts,
        &format!("{}\n\n{analysed}", audited.body.trim_end()),
        &[],
        &caveats(&input.facts, 0.0, input.min_supported),
        now_ms,
        calls,
    );
    report.push_str(&format!(
        "- {}\n- The model's prose was not used: {why}\n",
        audit::summary(&entries, input.facts.language == "ja")
    ));
    if let Some(note) = super::frame::note(input.frame, &audited.body) {
        report.push_str(&format!("- {note}\n"));
    }
    Draft {
        body: audited.body,
        report,
        audit: entries,
        extractive: true,
        rejected: Some(why.to_string()),
        warnings: Vec::new(),
        trust: None,
        added: Vec::new(),
    }
}

/// Passages an extractive report gives at most.
pub const MAX_PASSAGES: usize = 20;

/// Passages shown under "what was found instead" when nothing read answers the question.
pub const INSTEAD_PASSAGES: usize = 4;

/// What evidence the report may cite must be about: the question and its research questions.
pub(super) fn gate(input: &WriteInput<'_>) -> Gate {
    Gate::new(&input.brief.topic(), input.facts.questions).within(&input.brief.focus)
}

/// The honest report when passages were read but none is on the question: nothing found that
/// answers it, what was searched, and what was found instead (the passages ranked highest
/// against the question, quoted and cited, and audited like any), with no model call.
pub fn nothing_answers(input: &WriteInput<'_>, now_ms: i64, calls: u64) -> Draft {
    let read = input.facts.read;
    let quotes: Vec<&str> = read.iter().map(|e| e.quote.as_str()).collect();
    let mut order: Vec<usize> = guard::rank_sentences(&input.brief.topic(), &quotes)
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    // One passage a source first, so "instead" shows the range of what was read.
    let mut seen_sources = BTreeSet::new();
    order.sort_by_key(|&i| !seen_sources.insert(read[i].source_id));
    let mut listed = BTreeSet::new();
    let instead: String = order
        .into_iter()
        .filter(|&i| listed.insert(normalize(&read[i].quote)))
        .take(INSTEAD_PASSAGES)
        .map(|i| {
            let e = &read[i];
            let text = e.quote.trim().replace('\n', " ");
            format!(
                "- {} [{}]\n",
                text.trim_start_matches(['-', '*', '•', ' '])
                    .trim_end_matches('.'),
                e.source_id
            )
        })
        .collect();
    let mut facts = input.facts;
    facts.evidence = &[];
    let body = report::nothing_answers_body(&facts, &instead);
    // The passages are the sources' own words: the texts around them add nothing to judge by.
    let audited = audit::audit(&body, read, &audit::SourceTexts::default());
    let mut report = report::assemble(&facts, &audited.body, &[], &[], now_ms, calls);
    let why = "nothing read answers the question";
    report.push_str(&format!(
        "- {}\n- The model's prose was not used: {why}\n",
        audit::summary(&audited.entries, facts.language == "ja")
    ));
    Draft {
        body: audited.body,
        report,
        audit: audited.entries,
        extractive: true,
        rejected: Some(why.to_string()),
        ..Default::default()
    }
}
