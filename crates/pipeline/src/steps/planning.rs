//! Planning: research questions, aspects and the first searches; and the plan review point.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::relevance;
use super::{clean_list, distinct_searches, plain, runnable_searches, Brief};
use crate::ask::{ask_or, warn, Ctx};
use crate::guard;
use crate::prompts::{self, fill};
use crate::records::{Answer, Decision, Plan, Question, Warning};
use crate::roles::Role;

#[derive(Debug, Deserialize, JsonSchema)]
struct PlanOut {
    #[schemars(length(min = 1, max = 5), inner(length(min = 3, max = 160)))]
    questions: Vec<String>,
    #[schemars(length(max = 6), inner(length(max = 60)))]
    aspects: Vec<String>,
    #[schemars(length(min = 1, max = 6), inner(length(min = 3, max = 80)))]
    searches: Vec<String>,
    /// How the research will answer the question, in a sentence or two.
    #[schemars(length(max = 300))]
    methodology: Option<String>,
    /// How sure the planner is that the plan answers the question.
    #[schemars(range(min = 0.0, max = 1.0))]
    confidence: Option<f64>,
    /// Concerns about the question's scope.
    #[schemars(length(max = 3), inner(length(max = 160)))]
    concerns: Option<Vec<String>>,
}

/// Plans the research of `brief`: at least one question and one search (the question itself
/// when the model offers nothing usable).
pub async fn plan(ctx: &Ctx, brief: &Brief) -> Result<(Plan, Vec<Warning>), NodeError> {
    let l = ctx.config.config.limits();
    let (out, warnings) = ask_or::<PlanOut>(
        ctx,
        Role::Plan,
        fill(
            prompts::PLAN,
            &[
                ("questions", l.questions.to_string()),
                ("searches", l.initial_searches.to_string()),
            ],
        ),
        format!("{}{}", brief.block(), ctx.config.config.background.block()),
        700,
    )
    .await?;
    let out = out.unwrap_or_else(|| PlanOut {
        questions: Vec::new(),
        aspects: Vec::new(),
        searches: Vec::new(),
        methodology: None,
        confidence: None,
        concerns: None,
    });
    let (mut plan, mut more) = guarded(ctx, brief, out.questions, out.aspects, out.searches);
    // The planner's own view, as far as it reads as one: a tiny model's filler is dropped.
    let note = |text: &str| plain(text) && guard::usable_note(text);
    plan.methodology = out
        .methodology
        .map(|m| m.trim().to_string())
        .filter(|m| note(m))
        .unwrap_or_default();
    plan.confidence = out
        .confidence
        .filter(|c| c.is_finite())
        .map(|c| c.clamp(0.0, 1.0));
    plan.concerns = clean_list(
        out.concerns
            .unwrap_or_default()
            .into_iter()
            .filter(|c| note(c))
            .collect(),
        3,
    );
    let mut warnings = warnings;
    warnings.append(&mut more);
    Ok((plan, warnings))
}

/// A plan from a model's questions, aspects and searches, as far as they can be used: a small
/// model's plan may be list numbers, fragments or loops, so what does not read as a question or
/// a keyword query about the research goes, and the question's own words fill in (with a
/// warning saying so). Questions keep their order; at least one question and one search.
pub fn guarded(
    ctx: &Ctx,
    brief: &Brief,
    questions: Vec<String>,
    aspects: Vec<String>,
    searches: Vec<String>,
) -> (Plan, Vec<Warning>) {
    let l = ctx.config.config.limits();
    let (fallback_questions, fallback_searches) =
        guard::fallback_plan(&brief.query, l.initial_searches);
    let mut warnings = Vec::new();
    let user = brief.topic();
    // What a research question must share a word with: the question as `Brief::topic` reads
    // it (a follow-up that names something of its own, its own words; otherwise with the
    // session's focus). "How can you access the source code form?" is not research on "what do
    // they say about liability?" because the session was about open source licences.
    let anchors = user.clone();
    let mut refuse = |what: &str, text: &str, why: &str| {
        warnings.push(relevance::refused(ctx, what, text, why));
    };
    let mut kept_questions = Vec::new();
    for q in questions {
        if q.trim().is_empty() {
            continue;
        }
        let why = if !plain(&q) {
            Some("it is markup or JSON, not words".to_string())
        } else if !guard::usable_question(&q) {
            Some("it is not a usable question (a fragment, list numbers or digits)".to_string())
        } else {
            relevance::refuse_question(&q, &brief.query, &anchors)
        };
        match why {
            Some(why) => refuse("research question", &q, &why),
            None => kept_questions.push(q),
        }
    }
    let mut questions = clean_list(kept_questions, l.questions);
    if questions.is_empty() {
        questions = fallback_questions;
        warnings.push(warn(
            ctx,
            "the model's research questions were unusable; the question itself is researched"
                .into(),
        ));
    }
    // An aspect becomes a section heading: it must read as one.
    let mut kept_aspects = Vec::new();
    for a in aspects {
        if !(plain(&a) && guard::usable_aspect(&a)) {
            continue;
        }
        match relevance::refuse_aspect(&a, &brief.query) {
            Some(why) => warnings.push(relevance::refused(ctx, "aspect", &a, &why)),
            None => kept_aspects.push(a),
        }
    }
    let aspects = kept_aspects;
    let mut context: Vec<&str> = vec![user.as_str()];
    context.extend(questions.iter().map(String::as_str));
    context.extend(aspects.iter().map(String::as_str));
    // A search may also take its words from an accepted research question: each shares a word
    // with the question, and a search for its other words ("queen eggs" for "How many eggs does
    // the queen lay?") is on the research.
    let search_anchors = format!("{anchors} {}", questions.join(" "));
    let mut kept = Vec::new();
    let asked = searches.iter().filter(|q| !q.trim().is_empty()).count();
    for q in searches {
        if q.trim().is_empty() {
            continue;
        }
        let runnable = !runnable_searches(vec![q.clone()], &context).is_empty();
        let why = relevance::refuse_search(&q, &brief.query, &search_anchors).or_else(|| {
            (!runnable).then(|| {
                "it is not a keyword query about the research (markup, a sentence or a fragment)"
                    .to_string()
            })
        });
        match why {
            Some(why) => warnings.push(relevance::refused(ctx, "search", &q, &why)),
            None => kept.push(q),
        }
    }
    // The question's own terms are always searched first; the model's searches are additions,
    // and the question's other searches fill what they leave.
    let first = relevance::question_searches(&brief.query, l.initial_searches);
    let model_usable = !kept.is_empty();
    // As many searches as the model asked for (one more for the question's own), or the
    // plan's count when none of its were usable.
    let wanted = if model_usable {
        l.initial_searches.min(asked.max(kept.len() + first.len()))
    } else {
        l.initial_searches
    };
    let mut searches = distinct_searches(
        first
            .iter()
            .cloned()
            .chain(kept)
            .chain(fallback_searches.iter().cloned())
            .collect(),
        &[],
        wanted,
    );
    if !model_usable {
        warnings.push(warn(
            ctx,
            "the model's searches were unusable; searches were made from the question's words"
                .into(),
        ));
    }
    if searches.is_empty() {
        searches.push(brief.query.clone());
    }
    let plan = Plan {
        questions,
        aspects: clean_list(aspects, 8),
        searches,
        ..Default::default()
    };
    (plan, warnings)
}

/// What the plan review decided.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanReview {
    /// Go on with the plan (the decision is recorded when a review point was passed).
    Approved(Option<Decision>),
    /// Go on with this plan instead.
    Edited(Plan, Decision),
    /// Stop the run.
    Cancelled(Decision),
}

/// A person's plan made usable: questions and searches cleaned, repeats dropped, at most the
/// depth's first searches (and never fewer than 10); with no questions the run researches
/// `query` itself. The one rule for a plan a person writes, at the plan review point and in a
/// fork from the plan stage alike.
pub fn checked_edit(
    plan: Plan,
    query: &str,
    limits: &crate::config::DepthLimits,
) -> Result<Plan, String> {
    let questions = clean_list(plan.questions, 10);
    let searches = distinct_searches(plan.searches, &[], limits.initial_searches.max(10));
    if searches.is_empty() {
        return Err("the edited plan has no searches; give at least one".into());
    }
    let questions = match (questions.is_empty(), query.trim().is_empty()) {
        (false, _) => questions,
        (true, false) => vec![query.to_string()],
        (true, true) => return Err("the edited plan has no research questions".into()),
    };
    Ok(Plan {
        questions,
        searches,
        ..plan
    })
}

/// The plan review point: skipped unless configured, approved automatically without input,
/// else an interrupt that approves, edits or cancels the plan.
pub fn review_plan(ctx: &Ctx, plan: &Plan, query: &str) -> Result<PlanReview, NodeError> {
    let config = &ctx.config.config;
    if !config.review.plan {
        return Ok(PlanReview::Approved(None));
    }
    let decision = |d: &str, automatic: bool| Decision {
        point: "plan review".into(),
        decision: d.into(),
        automatic,
    };
    if config.no_input {
        return Ok(PlanReview::Approved(Some(decision("approved", true))));
    }
    let (answer, timed_out) =
        crate::ask::ask_person(ctx, Question::PlanReview { plan: plan.clone() })?;
    if let Some(why) = timed_out {
        return Ok(match answer {
            Answer::CancelPlan => {
                PlanReview::Cancelled(decision(&format!("cancelled ({why})"), true))
            }
            _ => PlanReview::Approved(Some(decision(&format!("approved ({why})"), true))),
        });
    }
    match answer {
        Answer::ApprovePlan => Ok(PlanReview::Approved(Some(decision("approved", false)))),
        Answer::EditPlan { plan } => {
            let plan = checked_edit(plan, query, &config.limits()).map_err(NodeError::permanent)?;
            Ok(PlanReview::Edited(plan, decision("edited", false)))
        }
        Answer::CancelPlan => Ok(PlanReview::Cancelled(decision("cancelled", false))),
        other => Err(NodeError::permanent(format!(
            "the plan review needs approve, edit or cancel, not {other:?}"
        ))),
    }
}
