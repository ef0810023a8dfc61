//! Writing: the writer is shown the evidence it may cite (the supported claims' evidence when
//! there is any), its citation markers are repaired against the evidence, quoted text no source
//! contains is unquoted, and the fixed sections (findings, caveats, sources, method) are built
//! from the record itself, not by the model.

use std::collections::BTreeSet;

use research_graph::NodeError;
use research_llm::{ChatRequest, LlmClient, Message};

use super::verify::spread;
use super::Brief;
use crate::ask::{fit_to_context, llm_error, Ctx};
use crate::prompts::{self, fill, language_name};
use crate::report::{self, Facts};
use crate::roles::Role;
use crate::records::{Claim, Evidence, Source};
use crate::text::normalize;
use crate::Progress;

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

fn writer_listing(evidence: &[Evidence], sources: &[Source]) -> String {
    let mut out = String::new();
    for e in evidence {
        let title = sources
            .iter()
            .find(|s| s.id == e.source_id)
            .map(|s| s.title.as_str())
            .unwrap_or_default();
        out.push_str(&format!(
            "[{}] ({title}) {} — \"{}\"\n",
            e.source_id,
            e.fact.replace('\n', " "),
            e.quote.replace('\n', " ")
        ));
    }
    out
}

/// The report's caveats: few supported claims, questions left uncovered, a single source.
pub fn caveats(facts: &Facts<'_>, min_coverage: f64) -> Vec<String> {
    let ja = facts.language == "ja";
    let mut out = Vec::new();
    if !facts.claims.is_empty() && facts.confidence < 0.5 {
        out.push(if ja {
            format!(
                "検証で引用により裏付けられた主張は {:.0}% にとどまります。結論は慎重に扱ってください。",
                facts.confidence * 100.0
            )
        } else {
            format!(
                "Only {:.0}% of the checked claims were supported by their quotes; treat the conclusions with care.",
                facts.confidence * 100.0
            )
        });
    }
    if facts.coverage < min_coverage && !facts.questions.is_empty() {
        out.push(if ja {
            format!(
                "調査課題の網羅度は {:.0}% です。答えきれていない点があります。",
                facts.coverage * 100.0
            )
        } else {
            format!(
                "The research questions were covered to {:.0}%; some remain partly unanswered.",
                facts.coverage * 100.0
            )
        });
    }
    if facts.sources.len() == 1 {
        out.push(if ja {
            "根拠は一つの出典のみに基づいています。".to_string()
        } else {
            "All evidence comes from a single source.".to_string()
        });
    }
    out
}

/// What the writer works from.
pub struct WriteInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The record the report's fixed sections come from.
    pub facts: Facts<'a>,
    /// A synthesis of the researchers' work (multi agent), when there is one.
    pub synthesis: Option<&'a str>,
}

/// A written report: the writer's part and the whole report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    /// The writer's part (without findings, sources, method).
    pub body: String,
    /// The whole report (Markdown).
    pub report: String,
}

async fn write_body(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    evidence: &[Evidence],
    revision: Option<(&str, &str)>,
) -> Result<String, NodeError> {
    let config = &ctx.config.config;
    let valid: BTreeSet<u32> = evidence.iter().map(|e| e.source_id).collect();
    let valid_list = valid
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let language = language_name(input.facts.language).to_string();
    let (template, extra) = match revision {
        Some((draft, feedback)) => (
            prompts::REVISE,
            format!("\nCurrent report:\n{draft}\n\nReviewer's feedback: {feedback}\n"),
        ),
        None => (prompts::WRITE, String::new()),
    };
    let mut system = fill(template, &[("valid", valid_list), ("language", language)]);
    system.push(' ');
    system.push_str(prompts::structure_rule(config.structure));
    if let Some(custom) = &config.system_prompt {
        system.push_str("\nAdditional instructions: ");
        system.push_str(custom);
    }
    let mut user = input.brief.block();
    if let Some(summary) = input.synthesis.filter(|s| !s.is_empty()) {
        user.push_str(&format!("Synthesis of the researchers' work: {summary}\n"));
    }
    user.push_str(&extra);
    user.push_str("\nEvidence (source number, title, fact, quote):\n");
    user.push_str(&writer_listing(evidence, input.facts.sources));
    let client = Role::Write.client(&ctx.config.models, ctx.node());
    let max_tokens = 1500;
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request = ChatRequest::new(vec![Message::system(system), Message::user(user)])
        .purpose(Role::Write.name());
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.3);
    let stream = |piece: &str| ctx.token(piece);
    let answer = client
        .complete(&request, Some(&stream))
        .await
        .map_err(llm_error)?;
    let body = report::strip_model_extras(&answer.text);
    // Any source with evidence may be cited, also one whose claims the writer was not shown.
    let (body, repaired, removed) = report::repair_citations(&body, input.facts.evidence);
    // Text the writer put in quotation marks must be found in a source it read.
    let texts: Vec<String> = input
        .facts
        .sources
        .iter()
        .filter_map(|s| ctx.config.documents.get(&s.sha256).ok().flatten())
        .map(|t| normalize(&t))
        .collect();
    let (body, unquoted) = report::unquote_unfound(&body, &texts);
    if unquoted > 0 {
        ctx.emit(Progress::QuotesUnquoted { count: unquoted });
    }
    if repaired + removed > 0 {
        ctx.emit(Progress::CitationsRepaired { repaired, removed });
    }
    Ok(body)
}

/// Writes the report (or revises `revision`'s draft with its feedback). Without evidence the
/// report says honestly that nothing was found, with no model call.
pub async fn write(
    ctx: &Ctx,
    input: &WriteInput<'_>,
    revision: Option<(&str, &str)>,
) -> Result<Draft, NodeError> {
    let calls = ctx.config.models.meter().totals().calls;
    if input.facts.evidence.is_empty() && revision.is_none() {
        return Ok(Draft {
            body: String::new(),
            report: report::nothing_found(&input.facts, ctx.clock.now_ms(), calls),
        });
    }
    let evidence = writer_evidence(input.facts.claims, input.facts.evidence);
    let body = write_body(ctx, input, &evidence, revision).await?;
    let report = report::assemble(
        &input.facts,
        &body,
        &evidence,
        &caveats(&input.facts, ctx.config.config.min_coverage),
        ctx.clock.now_ms(),
        ctx.config.models.meter().totals().calls,
    );
    Ok(Draft { body, report })
}
