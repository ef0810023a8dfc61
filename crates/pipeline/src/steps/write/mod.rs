//! Writing: the writer is shown the evidence it may cite (the supported claims' evidence when
//! there is any), its citation markers are repaired against the evidence, quoted text no source
//! contains is unquoted, and the fixed sections (findings, caveats, sources, method) are built
//! from the record itself, not by the model.

use std::collections::{BTreeMap, BTreeSet};

use research_graph::NodeError;
use research_llm::{ChatRequest, LlmClient, Message};
use unicode_segmentation::UnicodeSegmentation;

use super::analyze::{self, Analysis};
use super::audit::{self, AuditEntry, AuditStatus, Audited};
pub use super::caveats::caveats;
pub use super::findings::{extractive_body, WhyPassages};
use super::revise::{self, Revision};
use super::trust::{self, TrustRecord};
use super::verify::spread;
use super::Brief;
use crate::ask::{fit_to_context, llm_error, Ctx};
use crate::guard;
use crate::prompts::{self, fill, language_name};
use crate::records::{Claim, Evidence, Warning};
use crate::report::{self, Facts};
use crate::roles::Role;
use crate::text::normalize;
use crate::Progress;

pub mod frame;
mod passages;
mod reading;
mod watch;
use passages::gate;
pub use passages::{nothing_answers, passages_report, INSTEAD_PASSAGES, MAX_PASSAGES};
use reading::{cited_texts, writer_listing, Texts};
use watch::{Judge, Watch};
pub use watch::{Stopped, EARLY_FAILED_SHARE, EARLY_JUDGED};

/// The evidence the writer gets: the supported claims' evidence when there is any.
pub fn writer_evidence(claims: &[Claim], evidence: &[Evidence]) -> Vec<Evidence> {
    let supported: BTreeSet<u32> = claims
        .iter()
        .filter(|c| c.supported)
        .map(|c| c.evidence_id)
        .collect();
    let chosen: Vec<Evidence> = evidence
        .iter()
        .filter(|e| supported.contains(&e.id))
        .cloned()
        .collect();
    if chosen.is_empty() {
        spread(evidence, 20)
    } else {
        chosen
    }
}

/// What the writer works from.
#[derive(Clone, Copy)]
pub struct WriteInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The record the report's fixed sections come from.
    pub facts: Facts<'a>,
    /// A synthesis of the researchers' work (multi agent), when there is one.
    pub synthesis: Option<&'a str>,
    /// The analyst's themes, contradictions and gaps, when the pipeline analyses.
    pub analysis: Option<&'a Analysis>,
    /// The plan's aspects: the report's sections after the summary, in this order.
    pub outline: &'a [String],
    /// The trust engine's variant, when the pipeline cross-validates the audited report.
    pub trust: Option<crate::config::TrustVariant>,
    /// The share of supported claims under which the report warns (the run's
    /// [`crate::RunConfig::min_supported`], the verification loop's threshold too).
    pub min_supported: f64,
    /// The shape the report's body takes (an abstract and a conclusion, or a summary).
    pub frame: frame::Frame,
}

/// Aspects of the plan that become sections at most.
pub const MAX_OUTLINE_SECTIONS: usize = 6;

/// What the writer is told of the plan's outline, for the structures with free sections.
fn outline_rule(
    structure: crate::Structure,
    style: crate::Style,
    outline: &[String],
) -> Option<String> {
    if outline.is_empty() || structure == crate::Structure::Concise {
        return None;
    }
    let sections: Vec<&str> = outline
        .iter()
        .take(MAX_OUTLINE_SECTIONS)
        .map(|a| a.trim())
        .collect();
    let place = if frame::Frame::of(structure, style) == frame::Frame::Academic {
        "after the abstract and before the conclusion"
    } else {
        "after the summary"
    };
    Some(format!(
        " Sections {place}, in this order, each a `##` heading named for its aspect: {}. Leave out an aspect the evidence does not cover.",
        sections.join("; ")
    ))
}

/// A written report: the writer's part and the whole report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    /// The writer's part (without findings, sources, method), as audited.
    pub body: String,
    /// The whole report (Markdown).
    pub report: String,
    /// The audit of every cited sentence (the body's and the findings').
    pub audit: Vec<AuditEntry>,
    /// Whether the body is the passages themselves because the writer's prose failed.
    pub extractive: bool,
    /// Why the writer's prose was not used, when it was not.
    pub rejected: Option<String>,
    /// Warnings (the audit's model check unavailable).
    pub warnings: Vec<Warning>,
    /// The trust engine's record, when it ran.
    pub trust: Option<TrustRecord>,
    /// Evidence made of passages cross-validation cited (to be added to the run's evidence).
    pub added: Vec<Evidence>,
}

/// Words a report body may run to before it counts as runaway (the writer is asked for far
/// fewer; a looping small model runs to thousands).
pub const MAX_BODY_WORDS: usize = 1_200;

/// Share of cited sentences the audit may remove before the prose is replaced by the passages:
/// when most of what the writer cited is not in its evidence, the rest is not worth reading.
pub const MAX_REMOVED_SHARE: f64 = 0.5;

/// Tokens the writer may use: enough for the target length (about 1.5 tokens a word, and room
/// for markers), never less than a short report needs.
fn max_tokens(target_words: Option<u32>) -> u32 {
    target_words.map_or(1_500, |w| (w * 2 + 200).clamp(600, 6_000))
}

/// Words past which the body counts as runaway: [`MAX_BODY_WORDS`], or twice a longer target.
fn runaway_words(target_words: Option<u32>) -> usize {
    MAX_BODY_WORDS.max(target_words.unwrap_or(0) as usize * 2)
}

/// The writer's prose with its banned words rewritten away: a word with a plain word becomes
/// it; a sentence with a word that has none (a user's own) goes, since the prompt already
/// asked for it not to be there. Returns the text and the words that took sentences with them.
fn without_banned_words(body: &str, banned: &[String]) -> (String, Vec<String>) {
    let (body, left) = guard::rewrite_banned(body, banned);
    if left.is_empty() {
        return (body, Vec::new());
    }
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        if guard::banned_uses(line, banned).is_empty() {
            out.push_str(line);
            continue;
        }
        let (text, newline) = match line.strip_suffix('\n') {
            Some(text) => (text, "\n"),
            None => (line, ""),
        };
        let kept: String = text
            .split_sentence_bounds()
            .filter(|s| guard::banned_uses(s, banned).is_empty())
            .collect();
        out.push_str(kept.trim_end());
        out.push_str(newline);
    }
    (out, left.into_iter().map(|u| u.found).collect())
}

/// A line for the method section when the body falls well short of the length asked (by more
/// than a quarter): a report is as long as its evidence, not longer.
pub fn length_note(body: &str, target_words: Option<u32>, evidence: usize) -> Option<String> {
    let target = target_words? as usize;
    let words = guard::word_count(body);
    (words * 4 < target * 3).then(|| {
        format!(
            "The report is {words} words, short of the {target} asked: the {evidence} passages read support no more."
        )
    })
}

async fn write_body(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    evidence: &[Evidence],
    read_once: &Texts,
    revision: Option<&Revision<'_>>,
    retry: bool,
) -> Result<Written, NodeError> {
    let texts = &read_once.readable;
    let config = &ctx.config.config;
    let valid: BTreeSet<u32> = evidence.iter().map(|e| e.source_id).collect();
    let valid_list = valid
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let language = language_name(input.facts.language).to_string();
    let (template, extra) = match revision {
        Some(r) => (
            prompts::REVISE,
            format!(
                "\nCurrent report:\n{}\n\nReviewer's feedback: {}\n",
                r.draft, r.feedback
            ),
        ),
        None => (prompts::WRITE, String::new()),
    };
    let mut system = fill(template, &[("valid", valid_list), ("language", language)]);
    system.push(' ');
    system.push_str(&prompts::structure_rule(config.structure, config.style));
    if let Some(rule) = outline_rule(config.structure, config.style, input.outline) {
        system.push_str(&rule);
    }
    system.push(' ');
    system.push_str(config.style.rule());
    if let Some(words) = config.target_words {
        system.push_str(&format!(
            " Length: about {words} words; shorter when the evidence does not support that much."
        ));
    }
    let banned = config.banned();
    if !banned.is_empty() {
        system.push_str(&format!(" Never use these words: {}.", banned.join(", ")));
    }
    if let Some(custom) = &config.system_prompt {
        system.push_str("\nAdditional instructions: ");
        system.push_str(custom);
    }
    let mut user = input.brief.block();
    if let Some(summary) = input.synthesis.filter(|s| !s.is_empty()) {
        user.push_str(&format!("Synthesis of the researchers' work: {summary}\n"));
    }
    if let Some(a) = input.analysis {
        if !a.themes.is_empty() {
            user.push_str(&format!(
                "Themes to organise the report by: {}\n",
                a.themes.join("; ")
            ));
        }
        for c in &a.contradictions {
            user.push_str(&format!(
                "The sources disagree on {} (evidence {} and {}): say so.\n",
                c.about, c.first, c.second
            ));
        }
    }
    user.push_str(&extra);
    user.push_str("\nEvidence (source number, title, fact and quote, or the quote alone when it is the fact):\n");
    // A table row's fact is shown read with its header: the writer cannot tell an offset from a
    // size in "| 16 | 2 | … |".
    let shown: Vec<Evidence> = evidence
        .iter()
        .map(|e| {
            let read = texts
                .get(&e.source_id)
                .and_then(|t| research_check::table::reading_in(t, &e.fact));
            match read {
                Some(fact) => Evidence { fact, ..e.clone() },
                None => e.clone(),
            }
        })
        .collect();
    user.push_str(&writer_listing(&shown, input.facts.sources));
    let client = crate::ask::Fitting::new(ctx, Role::Write);
    let max_tokens = max_tokens(config.target_words);
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request = ChatRequest::new(vec![Message::system(system), Message::user(user)])
        .purpose(Role::Write.name());
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.3);
    if retry {
        crate::ask::stronger(&mut request);
    }
    let normalized: BTreeMap<u32, String> = texts
        .iter()
        .map(|(id, text)| (*id, normalize(text)))
        .collect();
    // A revision is audited after the sections its issues did not name are put back: its
    // stream alone says nothing of that, so only the guard watches it, and the audit's reading
    // of the texts is not made for it.
    let audit_texts = revision
        .is_none()
        .then(|| audit::SourceTexts::new(texts.iter().map(|(id, t)| (*id, t.as_str()))));
    let read = audit_texts.as_ref().map(audit::SourceTexts::for_checker);
    // The passages span verification would add to the evidence before the audit (the trust
    // engine), looked for as the final audit will look for them.
    let spans = |body: &str| match input.trust {
        Some(_) => trust::spans(
            &read_once.stored,
            body,
            input.facts.sources,
            input.facts.evidence,
            input.facts.credibility,
            Evidence::next_id(input.facts.evidence),
        ),
        None => Vec::new(),
    };
    let judge = audit_texts
        .as_ref()
        .zip(read.as_ref())
        .map(|(texts, read)| Judge {
            evidence: input.facts.evidence,
            normalized: &normalized,
            banned: &banned,
            texts,
            read,
            spans: &spans,
        });
    let watch = std::sync::Mutex::new(Watch::new(judge, runaway_words(config.target_words)));
    let stream = |piece: &str| {
        ctx.token(piece);
        // A poisoned lock (a panic elsewhere) only ends the watching.
        watch
            .lock()
            .map_or(research_llm::Flow::Continue, |mut w| w.push(piece))
    };
    let answer = client
        .complete(&request, Some(&stream))
        .await
        .map_err(llm_error)?;
    let body = report::strip_model_extras(&answer.text);
    let Tidied {
        body,
        repaired,
        removed,
        unquoted,
        banned,
    } = tidy(&body, input.facts.evidence, &normalized, &banned);
    if !banned.is_empty() {
        ctx.emit(Progress::BannedWordsRemoved { words: banned });
    }
    if unquoted > 0 {
        ctx.emit(Progress::QuotesUnquoted { count: unquoted });
    }
    if repaired + removed > 0 {
        ctx.emit(Progress::CitationsRepaired { repaired, removed });
    }
    let stopped = watch.into_inner().ok().and_then(|w| w.stopped().cloned());
    Ok(Written {
        body,
        warnings: client.warnings(),
        stopped,
    })
}

/// A draft's text made what the audit reads.
struct Tidied {
    body: String,
    /// Citation markers mapped to the source that says the sentence.
    repaired: usize,
    /// Citation markers dropped (no source read says the sentence).
    removed: usize,
    /// Quoted spans no cited source contains, unquoted.
    unquoted: usize,
    /// Banned words that took their sentences with them.
    banned: Vec<String>,
}

/// `draft` (its model extras taken out) with its citations repaired, unfound quotes unquoted
/// and banned words rewritten away: the same for the whole draft and for the lines of it that
/// have streamed ([`watch`]).
fn tidy(
    draft: &str,
    evidence: &[Evidence],
    normalized: &BTreeMap<u32, String>,
    banned: &[String],
) -> Tidied {
    // Any source with evidence may be cited, also one whose claims the writer was not shown.
    let (body, repaired, removed) = report::repair_citations(draft, evidence);
    // Text the writer put in quotation marks must be found in the source its sentence cites.
    let (body, unquoted) = report::unquote_unfound(&body, normalized);
    let (body, banned) = without_banned_words(&body, banned);
    Tidied {
        body,
        repaired,
        removed,
        unquoted,
        banned,
    }
}

/// The writer's draft, tidied, and why it was stopped early, if it was.
struct Written {
    body: String,
    warnings: Vec<Warning>,
    stopped: Option<Stopped>,
}

/// The analyst's section for the report (contradictions quoted from both sources, gaps) and
/// the audit of its cited lines; empty without an analysis.
fn analysis_section(input: &WriteInput<'_>, now_ms: i64) -> (String, Vec<AuditEntry>) {
    let sides = analyze::Sides {
        sources: input.facts.sources,
        credibility: input.facts.credibility,
        now_ms,
    };
    input.analysis.map_or_else(Default::default, |a| {
        analyze::section(a, input.facts.evidence, &sides, input.facts.language)
    })
}

/// The measurement that keeps a run's writer from being asked for a first draft: the checks
/// were measured to refuse its drafts ([`crate::measured::Measured::drafts_refused`]). The one
/// owner of the rule: the writing step and the pipelines' call estimates read it.
pub fn unfit_writer(config: &crate::RunConfig) -> Option<&crate::measured::Measured> {
    crate::measured::of_role(config, Role::Write).filter(|m| m.drafts_refused())
}

/// Why `body` reads as no report (a loop, one sentence over and over, runaway length for the
/// run's target), if it does.
fn degenerate(ctx: &Ctx, body: &str) -> Option<String> {
    let limit = runaway_words(ctx.config.config.target_words);
    guard::degenerate_within(body, limit).map(|d| d.to_string())
}

/// The writer's prose, with its warnings and why it is refused (`None`: kept so far): a draft
/// that loops or runs away gets one cooler try; one stopped for failing the audit would be
/// refused whole and gets none.
async fn prose(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    evidence: &[Evidence],
    read_once: &Texts,
    revision: Option<&Revision<'_>>,
) -> Result<(String, Vec<Warning>, Option<String>), NodeError> {
    let refused = |stopped: Option<Stopped>, body: &str| {
        stopped
            .map(|s| s.to_string())
            .or_else(|| degenerate(ctx, body))
    };
    let first = write_body(ctx, input, evidence, read_once, revision, false).await?;
    let audit_stopped = matches!(first.stopped, Some(Stopped::Audit { .. }));
    let (mut body, mut warnings) = (first.body, first.warnings);
    let mut rejected = refused(first.stopped, &body);
    if rejected.is_some() && !audit_stopped {
        // Once more, cooler and with stronger repetition control, before giving up on prose.
        let again = write_body(ctx, input, evidence, read_once, revision, true).await?;
        body = again.body;
        warnings.extend(again.warnings);
        rejected = refused(again.stopped, &body);
    }
    Ok((body, warnings, rejected))
}

/// Writes the report (or revises `revision`'s draft with its feedback). Without evidence the
/// report says honestly that nothing was found, with no model call. The writer's prose must
/// pass the guard (not degenerate, not runaway: one retry, cooler) and the audit (failing cited
/// sentences rewritten from their evidence or removed); prose that fails either, or loses most
/// of its cited sentences to the audit, is replaced by the passages themselves. Both are
/// applied to the draft as it streams too ([`watch`]): a draft known to fail is stopped there.
pub async fn write(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    revision: Option<Revision<'_>>,
) -> Result<Draft, NodeError> {
    let revision = revision.as_ref();
    let calls = ctx.config.models.meter().totals().calls;
    if input.facts.evidence.is_empty() && revision.is_none() {
        return Ok(Draft {
            report: report::nothing_found(&input.facts, ctx.clock.now_ms(), calls),
            ..Default::default()
        });
    }
    // Only evidence on the question may be cited; when none of what was read is, the report
    // says so instead of presenting verified passages about something else.
    let gate = gate(input);
    // What the engine adds is numbered after all the run's evidence, not only what is cited.
    let first_id = Evidence::next_id(input.facts.evidence);
    let on_question = gate.citable(input.facts.evidence);
    if on_question.is_empty() && revision.is_none() {
        return Ok(nothing_answers(input, ctx.clock.now_ms(), calls));
    }
    let mut gated = *input;
    gated.facts.evidence = &on_question;
    let input = &gated;
    let evidence = writer_evidence(input.facts.claims, input.facts.evidence);
    let read_once = Texts::of(ctx, input.facts.sources);
    let texts = &read_once.readable;
    // A model whose drafts the checks were measured to refuse is not asked for one: the report
    // is the passages, as it would have been, without the draft's time. A revision is asked
    // for as ever (the review pipeline's loop is about it).
    let unfit = revision
        .is_none()
        .then(|| unfit_writer(&ctx.config.config))
        .flatten();
    let (mut body, mut warnings, mut rejected) = match unfit {
        Some(m) => (String::new(), Vec::new(), Some(m.why_not_writing())),
        None => prose(ctx, input, &evidence, &read_once, revision).await?,
    };
    // A revision changes what its issues name and no verified wording (checked, not only asked).
    let mut notes = Vec::new();
    if let (Some(r), None) = (revision, &rejected) {
        let (kept_body, kept) = revise::keep(r, &body);
        body = kept_body;
        if kept.sections + kept.sentences > 0 {
            notes.push(format!(
                "The revision was held to its issues: {} section{} they did not name and {} verified sentence{} kept as they were.",
                kept.sections,
                if kept.sections == 1 { "" } else { "s" },
                kept.sentences,
                if kept.sentences == 1 { "" } else { "s" },
            ));
        }
    }
    // Span verification (trust pipeline): what the evidence does not bear out is looked for in
    // the cited source's stored text before the audit judges it.
    let spans = match input.trust {
        Some(_) => trust::spans(
            &read_once.stored,
            &body,
            input.facts.sources,
            input.facts.evidence,
            input.facts.credibility,
            first_id,
        ),
        None => Vec::new(),
    };
    let with_spans: Vec<Evidence> = input.facts.evidence.iter().chain(&spans).cloned().collect();
    let mut spanned = *input;
    if !spans.is_empty() {
        spanned.facts.evidence = &with_spans;
    }
    let input = &spanned;
    let mut audited = audit::audit(&body, input.facts.evidence, &cited_texts(texts, &body));
    let removed = audited
        .entries
        .iter()
        .filter(|e| matches!(e.status, AuditStatus::Removed | AuditStatus::Flagged))
        .count();
    if rejected.is_none()
        && !audited.entries.is_empty()
        && removed as f64 / audited.entries.len() as f64 > MAX_REMOVED_SHARE
    {
        rejected = Some(format!(
            "the audit removed {removed} of its {} cited sentences",
            audited.entries.len()
        ));
    }
    if rejected.is_none() {
        // What the audit kept must read as prose too (a copied quote said five times is a loop).
        rejected = degenerate(ctx, &audited.body);
    }
    if rejected.is_none() && audited.entries.len() == removed {
        // Prose that cites nothing it read (chat-template tokens, an apology, a title) is not
        // a report of the research.
        rejected = Some("it cited none of the evidence".into());
    }
    let extractive = rejected.is_some();
    if revision.is_none() && unfit.is_none() {
        // A first draft the model was asked for, and whether the checks took it: what decides
        // whether it is asked again ([`unfit_writer`]).
        ctx.emit(crate::env::Progress::ModelWork {
            model: Role::Write.model(&ctx.config.config.models).to_string(),
            work: crate::records::ModelWork {
                drafts: 1,
                refused: u64::from(extractive),
                ..Default::default()
            },
        });
    }
    // When the passages replace the prose, the writer's claims are still what it is scored on.
    let writers = extractive.then(|| trust::unverified(&audited.entries));
    if extractive {
        // The passages ranked highest against the question and each research question, not
        // only the writer's share: the passages are the report now.
        let passages = gate.best(input.facts.evidence, MAX_PASSAGES);
        if passages.is_empty() {
            // On the question by its words, but none says what it asks.
            return Ok(nothing_answers(input, ctx.clock.now_ms(), calls));
        }
        let why = if unfit.is_some() {
            WhyPassages::NotAsked
        } else {
            WhyPassages::Refused
        };
        let body = extractive_body(
            input.facts.language,
            input.facts.query,
            input.facts.questions,
            &passages,
            why,
            input.frame,
        );
        audited = audit::audit(&body, input.facts.evidence, &cited_texts(texts, &body));
    }
    // The extractive body already quotes and cites every passage: no findings list after it.
    let findings: Vec<Evidence> = if extractive {
        Vec::new()
    } else {
        // The key findings are the passages that answer, best first: what the writer read but
        // does not answer the question is not listed as a finding.
        let answering = gate.best(&evidence, MAX_PASSAGES);
        super::findings::unrepeated(&audited, &answering, input.facts.language)
    };
    let findings = &findings[..];
    let mut draft = finish(
        ctx,
        input,
        first_id,
        audited,
        findings,
        rejected.as_deref(),
        &notes,
        writers,
    )
    .await?;
    draft.extractive = extractive;
    warnings.append(&mut draft.warnings);
    draft.warnings = warnings;
    let mut added = spans;
    added.append(&mut draft.added);
    draft.added = added;
    Ok(draft)
}

/// A person's own edit of the draft, through the same audit as the writer's prose: a sentence
/// that cites a source which does not say it is rewritten from its evidence or removed, and
/// listed; the report's findings, sources and method are rebuilt around it. Their words stay
/// theirs otherwise (no banned-word rewrite, no prose guard).
pub async fn edited(ctx: &Ctx, input: &WriteInput<'_>, body: &str) -> Result<Draft, NodeError> {
    let evidence = writer_evidence(input.facts.claims, input.facts.evidence);
    let body = report::strip_model_extras(body);
    let texts = cited_texts(&Texts::of(ctx, input.facts.sources).readable, &body);
    let audited = audit::audit(&body, input.facts.evidence, &texts);
    finish(
        ctx,
        input,
        Evidence::next_id(input.facts.evidence),
        audited,
        &evidence,
        None,
        &["The report's text was edited by hand and audited again.".to_string()],
        None,
    )
    .await
}

/// The report around an audited body: the findings list, the analyst's section, the audit's
/// model check of what the words alone could not settle, sources and the method section.
/// `first_id` numbers what the trust engine adds after all the run's evidence (`input` holds
/// only what may be cited).
#[allow(clippy::too_many_arguments)]
async fn finish(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    first_id: u32,
    audited: Audited,
    findings: &[Evidence],
    rejected: Option<&str>,
    notes: &[String],
    written: Option<(usize, usize)>,
) -> Result<Draft, NodeError> {
    let ja = input.facts.language == "ja";
    let in_body = audited.entries.len();
    let mut entries = audited.entries;
    entries.extend(audit::audit_findings(findings));
    let mut warnings =
        audit::confirm(ctx, &mut entries, input.facts.evidence, input.facts.claims).await?;
    let mut body = audited.body;
    let mut caveats = caveats(
        &input.facts,
        ctx.config.config.min_coverage,
        input.min_supported,
    );
    let (mut trust, mut added) = (None, Vec::new());
    if let Some(variant) = input.trust {
        // The trust engine is the audit's last stage: the claims that reach the report only.
        let stage = trust::Stage {
            variant,
            sources: input.facts.sources,
            evidence: input.facts.evidence,
            first_id,
            credibility: input.facts.credibility,
            written,
        };
        let trusted = trust::apply(ctx, stage, &body, &mut entries[..in_body]).await?;
        body = trusted.body;
        added = trusted.added;
        warnings.extend(trusted.warnings);
        caveats.extend(trusted.record.caveat(ja));
        trust = Some(trusted.record);
    }
    let (analysed, quoted) = analysis_section(input, ctx.clock.now_ms());
    entries.extend(quoted);
    let mut report = report::assemble(
        &input.facts,
        &format!("{}\n\n{analysed}", body.trim_end()),
        findings,
        &caveats,
        ctx.clock.now_ms(),
        ctx.config.models.meter().totals().calls,
    );
    // The method section ends the report: say how its cited sentences were checked.
    report.push_str(&format!("- {}\n", audit::summary(&entries, ja)));
    if let Some(t) = &trust {
        report.push_str(&format!("- {}\n", t.summary(ja)));
    }
    if let Some(why) = rejected {
        report.push_str(&format!("- The model's prose was not used: {why}\n"));
    }
    for note in notes {
        report.push_str(&format!("- {note}\n"));
    }
    if let Some(note) = frame::note(input.frame, &body) {
        report.push_str(&format!("- {note}\n"));
    }
    if let Some(note) = length_note(
        &body,
        ctx.config.config.target_words,
        input.facts.evidence.len(),
    ) {
        report.push_str(&format!("- {note}\n"));
    }
    Ok(Draft {
        body,
        report,
        audit: entries,
        extractive: false,
        rejected: rejected.map(str::to_string),
        warnings,
        trust,
        added,
    })
}
