//! The review pipeline (seed 000): the research phase every research pipeline shares, then a
//! writer and a reviewer in a loop — draft, critique, revise from the itemised issues — until
//! the reviewer approves or the revisions run out, then the person's review when it is on (a
//! revision a person asks for is reviewed again, not delivered unread).
//!
//! It always delivers: when no draft is approved, the reviewer rejects, or a model fails past
//! its retries, the best-scored draft so far is the report (else the passages read, else the
//! honest "nothing found"), with the reason and the open issues written into it. Cancelling,
//! a question to the person and a spent budget still pause the run at its checkpoint, as in
//! every pipeline, since a resume can do better there.
//!
//! Before the first draft the analyst names themes, contradictions between sources and gaps;
//! the writer is told of them and the report gets a section quoting both sides.
//!
//! It shares the standard pipeline's state: the research phase's nodes are written against it,
//! and the review loop's record is one more field ([`ReviewRecord`]).

use std::sync::Arc;

use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, NodeError, StateGraph, END,
};

use super::standard::nodes::{brief, review_report, search_gaps, write_input};
use super::standard::{
    outline, research_calls, research_phase, NodeRow, ResearchState, ResearchUpdate, Standard,
    BOTH, RESEARCH,
};
use crate::ask::{ask_person, warn, Ctx};
use crate::config::RunConfig;
use crate::family::{Flow, OutlineStep, PipelineInfo, RunRequest, RunView};
use crate::fork::{ForkEdit, ForkError, ForkStage, StageView};
use crate::guard;
use crate::records::{Answer, Decision, EscalatedBy, Outcome, Question, Synthesis, WarningKind};
use crate::roles::Role;
use crate::steps::analyze::{self, AnalyzeInput};
use crate::steps::review::{
    self, Escalated, EscalationChoice, Issue, ReviewInput, ReviewedDraft, Severity, Verdict,
    MAX_ESCALATIONS,
};
use crate::steps::revise::{self, Revision};
use crate::steps::write::{self, Draft};
use crate::steps::{distinct_searches, runnable_searches};
use crate::{Env, Progress};

/// The name the review pipeline is registered (and its threads saved) under.
pub const NAME: &str = "review";

/// The review pipeline.
pub struct Review;

/// The review loop's nodes, after the research phase.
const REVIEW: &[NodeRow] = &[
    (
        "analyze",
        Some(Role::Analyze),
        "Finding themes, contradictions and gaps",
        BOTH,
    ),
    (
        "write_draft",
        Some(Role::Write),
        "Writing the first draft",
        BOTH,
    ),
    ("critique", Some(Role::Review), "Reviewing the draft", BOTH),
    (
        "revise_draft",
        Some(Role::Write),
        "Revising the draft from its review",
        BOTH,
    ),
    ("review_report", None, "Waiting for the report review", BOTH),
    (
        "take_edit",
        Some(Role::Verify),
        "Checking your edit of the report",
        BOTH,
    ),
    (
        "escalate",
        None,
        "Waiting for your decision on open issues",
        BOTH,
    ),
    ("fallback", None, "Taking the best draft so far", BOTH),
];

type NodeResult = Result<ResearchUpdate, NodeError>;

impl Flow for Review {
    type State = ResearchState;

    fn info(&self) -> PipelineInfo {
        PipelineInfo {
            name: NAME.into(),
            title: "Review".into(),
            summary: "Researches like the standard pipeline, then a reviewer scores each draft on \
six criteria and the writer revises from its itemised issues until it is approved; when it never \
is, you get the best draft with its open issues."
                .into(),
        }
    }

    fn roles(&self) -> Vec<Role> {
        Role::ALL.to_vec()
    }

    fn graph(
        &self,
        config: &RunConfig,
        checkpointer: Option<Arc<dyn Checkpointer>>,
    ) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
        graph(config, checkpointer)
    }

    fn steps(&self, config: &RunConfig) -> Vec<OutlineStep> {
        outline(&[RESEARCH, REVIEW], config)
    }

    fn calls(&self, config: &RunConfig) -> Vec<(Role, u64)> {
        let mut calls = research_calls(config);
        // Expected: the first draft and about half the revisions allowed; each draft is
        // audited (a verify call) and reviewed.
        let drafts = 1 + u64::from(config.max_revisions).div_ceil(2);
        let add = super::standard::add_calls;
        add(&mut calls, Role::Verify, 1 + drafts);
        add(&mut calls, Role::Analyze, 1);
        // Each round the analyst's gaps may send to search (seed 000): their searches read
        // (three at most), the gaps judged and the claims checked again, the analyst again.
        let limits = config.limits();
        let window = research_llm::known_window(Role::Extract.model(&config.models));
        for _ in 0..limits.gap_rounds {
            let pages = (3 * limits.pages_per_search as u64).min(limits.max_sources as u64);
            add(
                &mut calls,
                Role::Extract,
                crate::steps::extract::calls(pages, window),
            );
            add(
                &mut calls,
                Role::Gaps,
                u64::from(crate::steps::gaps::model_judges(config)),
            );
            add(&mut calls, Role::Verify, 1);
            add(&mut calls, Role::Analyze, 1);
        }
        add(
            &mut calls,
            Role::Write,
            drafts - super::standard::first_draft_unasked(config),
        );
        add(&mut calls, Role::Review, drafts);
        calls
    }

    fn initial(&self, request: &RunRequest) -> ResearchState {
        Standard.initial(request)
    }

    fn view(&self, state: &ResearchState) -> RunView {
        Standard.view(state)
    }

    fn fork_stage(&self, next: &[String], state: &ResearchState) -> Option<StageView> {
        Standard.fork_stage(next, state)
    }

    fn fork_edit(
        &self,
        stage: ForkStage,
        edit: &ForkEdit,
        at: &ResearchState,
        config: &RunConfig,
        now_ms: i64,
    ) -> Result<ResearchUpdate, ForkError> {
        Standard.fork_edit(stage, edit, at, config, now_ms)
    }
}

/// Builds the review pipeline for a run configured by `config`.
pub fn graph(
    config: &RunConfig,
    checkpointer: Option<Arc<dyn Checkpointer>>,
) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
    let max_revisions = config.max_revisions;
    let mut g = StateGraph::<ResearchState, Env>::new();
    research_phase(&mut g, config);
    g.add_node("analyze", analyze);
    g.add_node("write_draft", write_draft);
    g.add_node("critique", critique);
    g.add_node("revise_draft", revise_draft);
    g.add_node("review_report", review_report);
    g.add_node("take_edit", take_edit);
    g.add_node("escalate", escalate);
    g.add_node("fallback", fallback);
    super::standard::after_verify(&mut g, "analyze");
    // The analyst's gaps go back to search (seed 000), then through the checks to the analyst
    // again; the analysis that sends nobody back is written from.
    g.add_conditional_edges(
        "analyze",
        |s: &ResearchState| {
            if s.pending_searches.is_empty() {
                "write_draft"
            } else {
                "search_and_extract"
            }
        },
        &["write_draft", "search_and_extract"],
    );
    g.add_conditional_edges(
        "write_draft",
        |s: &ResearchState| {
            if s.review.failure.is_some() {
                "fallback"
            } else if s.evidence.is_empty() {
                // "Nothing found" has nothing to review.
                "review_report"
            } else {
                "critique"
            }
        },
        &["critique", "review_report", "fallback"],
    );
    g.add_conditional_edges(
        "critique",
        move |s: &ResearchState| after_critique(s, max_revisions),
        &["revise_draft", "review_report", "escalate", "fallback"],
    );
    g.add_conditional_edges(
        "revise_draft",
        |s: &ResearchState| {
            if s.review.failure.is_some() {
                "fallback"
            } else {
                "critique"
            }
        },
        &["critique", "fallback"],
    );
    g.add_conditional_edges(
        "review_report",
        |s: &ResearchState| match s.outcome {
            // A person asked for changes or edited the draft: the new draft is reviewed again.
            Outcome::Running if !s.edited.is_empty() => "take_edit",
            Outcome::Running => "revise_draft",
            _ => END,
        },
        &["revise_draft", "take_edit"],
    );
    g.add_conditional_edges(
        "take_edit",
        |s: &ResearchState| {
            if s.review.failure.is_some() {
                "fallback"
            } else {
                "critique"
            }
        },
        &["critique", "fallback"],
    );
    g.add_conditional_edges(
        "escalate",
        // Research more is one round of the searches for the open issues, in either mode (as
        // the trust pipeline's): an orchestrator plans from the question, and would only be
        // told of them.
        |s: &ResearchState| match s.review.escalations.last().map(|e| e.choice) {
            Some(EscalationChoice::ResearchMore) => "search_and_extract",
            Some(EscalationChoice::Stop) => END,
            _ => "fallback",
        },
        &["search_and_extract", "fallback"],
    );
    g.add_edge("fallback", END);
    g.compile(CompileOptions {
        checkpointer,
        ..Default::default()
    })
}

/// Where the loop goes after a review: approved → the person's review (or out); revise while
/// revisions are left; critical issues still open → the person decides (at most
/// [`MAX_ESCALATIONS`] times); otherwise the best draft.
fn after_critique(state: &ResearchState, max_revisions: u32) -> &'static str {
    let record = &state.review;
    if record.failure.is_some() {
        return "fallback";
    }
    match record.last().and_then(|d| d.critique.as_ref()) {
        Some(c) if c.verdict == Verdict::Approve => "review_report",
        Some(c) if c.verdict == Verdict::Revise && record.revisions() < max_revisions => {
            "revise_draft"
        }
        Some(c) if !c.critical().is_empty() && record.escalations.len() < MAX_ESCALATIONS => {
            "escalate"
        }
        _ => "fallback",
    }
}

/// The searches that might settle open issues: keyword queries from what each is about (the
/// sentence or research question it quotes, else its description), plain, on the topic, and
/// not run before.
fn searches_for(issues: &[Issue], state: &ResearchState, max: usize) -> Vec<String> {
    let subject = |i: &Issue| -> String {
        let text = format!("{} {}", i.location, i.description);
        match (text.find('"'), text.rfind('"')) {
            (Some(a), Some(b)) if b > a + 1 => text[a + 1..b].to_string(),
            _ => i.description.clone(),
        }
    };
    let candidates: Vec<String> = issues
        .iter()
        .flat_map(|i| guard::fallback_plan(&subject(i), 2).1)
        .collect();
    let topic = brief(state).topic();
    let mut context: Vec<&str> = vec![topic.as_str()];
    context.extend(state.plan.questions.iter().map(String::as_str));
    distinct_searches(
        runnable_searches(candidates, &context),
        &state.searches_done,
        max,
    )
}

/// The reviewer's critical issues stayed open: the person accepts the best draft with them as
/// caveats, sends the run back to research with them as gaps, or stops it (`--no-input`
/// accepts). The question survives a restart like every review point.
async fn escalate(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let mut record = state.review.clone();
    let Some(last) = record.last().cloned() else {
        return Err(NodeError::permanent("there is no draft to escalate"));
    };
    let issues = last
        .critique
        .as_ref()
        .map(review::Critique::critical)
        .unwrap_or_default();
    let score = record
        .best()
        .and_then(|d| d.critique.as_ref())
        .map_or(0.0, |c| c.overall);
    // A person is asked only when one takes part, as in the trust pipeline: input allowed and a
    // review point on. `--review none` from a script never waits here.
    let mut automatic = !ctx.config.config.asks_a_person();
    let mut timed_out = None;
    let mut choice = if automatic {
        EscalationChoice::Accept
    } else {
        let (answer, why) = ask_person(
            &ctx,
            Question::Escalation {
                reason: format!(
                    "{} critical issue{} still open after {} revision{}",
                    issues.len(),
                    if issues.len() == 1 { " is" } else { "s are" },
                    record.revisions(),
                    if record.revisions() == 1 { "" } else { "s" }
                ),
                issues: issues.clone(),
                score,
                by: EscalatedBy::Review,
            },
        )?;
        automatic = why.is_some();
        timed_out = why;
        match answer {
            Answer::AcceptWithCaveats => EscalationChoice::Accept,
            Answer::ResearchMore => EscalationChoice::ResearchMore,
            Answer::StopRun => EscalationChoice::Stop,
            other => {
                return Err(NodeError::permanent(format!(
                    "the escalation needs accept, research more or stop, not {other:?}"
                )))
            }
        }
    };
    let limits = ctx.config.config.limits();
    let searches = if choice == EscalationChoice::ResearchMore {
        searches_for(&issues, &state, limits.initial_searches)
    } else {
        Vec::new()
    };
    let (more, granted) =
        super::standard::nodes::more_research(&state, &limits, searches.len(), "");
    let mut words = match choice {
        EscalationChoice::Accept => "accepted with caveats".to_string(),
        EscalationChoice::ResearchMore => more,
        EscalationChoice::Stop => "stopped".to_string(),
    };
    if choice == EscalationChoice::ResearchMore && searches.is_empty() {
        // Nothing new to search for: the best draft, with its issues said.
        choice = EscalationChoice::Accept;
    }
    if let Some(why) = &timed_out {
        words = format!("{words} ({why})");
    }
    record.escalations.push(Escalated {
        after_draft: last.version,
        choice,
        automatic,
    });
    let mut update = ResearchUpdate {
        decisions: Some(vec![Decision {
            point: "escalation".into(),
            decision: words,
            automatic,
        }]),
        ..Default::default()
    };
    match choice {
        EscalationChoice::Accept => {}
        EscalationChoice::ResearchMore => {
            let gaps: Vec<String> = issues.iter().map(|i| i.description.clone()).collect();
            update.synthesis = Some(Synthesis {
                gaps: gaps.clone(),
                additional_searches: searches.clone(),
                needs_more_research: true,
                ..state.synthesis.clone()
            });
            update.gaps = Some(gaps);
            update.pending_searches = Some(searches);
            update.granted_sources = granted;
        }
        EscalationChoice::Stop => {
            let reason = "you stopped the run at the escalation".to_string();
            if let Some(best) = record.best().cloned() {
                let mut report = best.report.clone();
                report.push_str(&review_section(&best, &reason));
                update.report = Some(report);
                update.draft = Some(best.body.clone());
                update.audit = Some(best.audit.clone());
            }
            record.fallback = Some(reason.clone());
            update.outcome = Some(Outcome::Rejected);
            update.rejection = Some(reason);
            update.finished_at_ms = Some(ctx.clock.now_ms());
        }
    }
    update.review = Some(record);
    Ok(update)
}

/// A model failure ends the loop with the fallback; cancelling, a question to the person and a
/// spent budget pause the run instead, since a resume can do better.
fn failed(state: &ResearchState, ctx: &Ctx, e: NodeError, doing: &str) -> NodeResult {
    if matches!(e, NodeError::Cancelled | NodeError::Interrupted(_))
        || ctx.config.models.meter().check().is_err()
    {
        return Err(e);
    }
    let reason = format!("{doing} failed: {e}");
    let mut w = warn(ctx, reason.clone());
    w.kind = WarningKind::ModelFailed;
    w.detail = e.to_string();
    let mut record = state.review.clone();
    record.failure = Some(reason);
    Ok(ResearchUpdate {
        review: Some(record),
        warnings: Some(vec![w]),
        ..Default::default()
    })
}

/// The state's update for a new draft.
fn drafted(state: &ResearchState, draft: Draft, asked: String) -> ResearchUpdate {
    let mut record = state.review.clone();
    record.drafts.push(ReviewedDraft {
        version: record.drafts.len() as u32 + 1,
        body: draft.body.clone(),
        report: draft.report.clone(),
        audit: draft.audit.clone(),
        rejected: draft.rejected.clone(),
        critique: None,
        asked,
    });
    ResearchUpdate {
        report: Some(draft.report),
        draft: Some(draft.body),
        audit: Some(draft.audit),
        warnings: Some(draft.warnings),
        review: Some(record),
        ..Default::default()
    }
}

async fn analyze(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let brief = brief(&state);
    let input = AnalyzeInput {
        brief: &brief,
        questions: &state.plan.questions,
        coverage: &state.coverage_by_question,
        evidence: &state.evidence,
        claims: &state.claims,
        conflicts: &state.synthesis.conflicts,
    };
    // Without an analysis the writer still writes: a failure here is a warning, not the end.
    match analyze::analyze(&ctx, &input).await {
        Ok((analysis, warnings)) => {
            let spent = ctx.config.models.meter().totals();
            let (searches, decision) =
                match search_gaps(&state, &ctx.config.config, &spent, &analysis.gaps) {
                    Ok((searches, decision)) => (Some(searches), Some(vec![decision])),
                    Err(why) => (None, why.map(|d| vec![d])),
                };
            Ok(ResearchUpdate {
                gap_rounds: searches.is_some().then_some(state.gap_rounds + 1),
                // What the research rounds left waiting is not run: the research is over
                // unless the gaps send it back (the route reads this).
                pending_searches: Some(searches.unwrap_or_default()),
                decisions: decision,
                analysis: Some(analysis),
                warnings: Some(warnings),
                ..Default::default()
            })
        }
        Err(e) => {
            let mut update = failed(&state, &ctx, e, "analysing the evidence")?;
            // Not the loop's failure: the drafts go on.
            update.review = None;
            Ok(update)
        }
    }
}

async fn write_draft(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    ctx.emit(Progress::Writing);
    let brief = brief(&state);
    match write::write(&ctx, &write_input(&state, &brief, &ctx.config), None).await {
        Ok(draft) => Ok(drafted(&state, draft, String::new())),
        Err(e) => failed(&state, &ctx, e, "writing the first draft"),
    }
}

async fn critique(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let Some(last) = state.review.last() else {
        return Err(NodeError::permanent("there is no draft to review"));
    };
    let brief = brief(&state);
    let input = ReviewInput {
        brief: &brief,
        body: &last.body,
        audit: &last.audit,
        rejected: last.rejected.as_deref(),
        questions: &state.plan.questions,
        sources: &state.sources,
        evidence: &state.evidence,
        version: last.version,
        outline: &state.plan.aspects,
    };
    let (critique, warnings) = match review::review(&ctx, &input).await {
        Ok(done) => done,
        Err(e) => return failed(&state, &ctx, e, "reviewing the draft"),
    };
    let mut update = ResearchUpdate {
        warnings: Some(warnings),
        ..Default::default()
    };
    if critique.verdict == Verdict::Approve {
        // The report says it was reviewed, and how it scored.
        update.report = Some(format!(
            "{}- {}\n",
            state.report,
            approved_line(&critique, last.version)
        ));
    }
    let mut record = state.review.clone();
    if let Some(d) = record.drafts.last_mut() {
        d.critique = Some(critique);
    }
    update.review = Some(record);
    Ok(update)
}

fn approved_line(c: &review::Critique, version: u32) -> String {
    format!(
        "Reviewed: approved at {:.1}/10 on draft {version} ({} issues left, none critical).",
        c.overall,
        c.issues.len()
    )
}

async fn revise_draft(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    // A person's feedback when they asked for the revision, else the reviewer's issues (and
    // then only the sections they name may change).
    let critique = state.review.last().and_then(|d| d.critique.as_ref());
    let (asked, locations) = match critique {
        Some(c) if state.feedback.is_empty() => (
            c.feedback(),
            c.issues
                .iter()
                .filter(|i| i.severity != Severity::Suggestion)
                .map(|i| i.location.clone())
                .collect(),
        ),
        _ => (state.feedback.clone(), Vec::new()),
    };
    let verified = revise::verified_in(&state.draft, &state.audit);
    let revision = Revision {
        draft: &state.draft,
        feedback: &asked,
        locations: &locations,
        verified: &verified,
    };
    ctx.emit(Progress::Writing);
    let brief = brief(&state);
    match write::write(
        &ctx,
        &write_input(&state, &brief, &ctx.config),
        Some(revision),
    )
    .await
    {
        Ok(draft) => {
            let mut update = drafted(&state, draft, asked);
            update.report_versions = Some(vec![state.report.clone()]);
            update.feedback = Some(String::new());
            Ok(update)
        }
        Err(e) => failed(&state, &ctx, e, "revising the draft"),
    }
}

/// The person's edit of the draft, audited like the writer's prose, joins the drafts and goes
/// to the reviewer (an edit that breaks a citation is caught there).
async fn take_edit(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let brief = brief(&state);
    let draft = match write::edited(
        &ctx,
        &write_input(&state, &brief, &ctx.config),
        &state.edited,
    )
    .await
    {
        Ok(draft) => draft,
        Err(e) => return failed(&state, &ctx, e, "checking your edit"),
    };
    Ok(ResearchUpdate {
        edited: Some(String::new()),
        report_versions: Some(vec![state.report.clone()]),
        ..drafted(&state, draft, "your edit of the draft".into())
    })
}

/// The loop ended without an approved draft: the best one so far, with why and what is still
/// open, else the passages read.
async fn fallback(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let mut record = state.review.clone();
    let revisions = record.revisions();
    let last = record.last().and_then(|d| d.critique.as_ref());
    let accepted = record
        .escalations
        .last()
        .filter(|e| {
            e.choice == EscalationChoice::Accept
                && Some(e.after_draft) == record.last().map(|d| d.version)
        })
        .map(|e| e.automatic);
    let reason = match (&record.failure, last) {
        (Some(failure), _) => format!("{failure}; the report is the best draft so far"),
        (None, _) if accepted == Some(false) => {
            "you accepted the best draft with its open issues".to_string()
        }
        (None, _)
            if accepted == Some(true)
                && !ctx.config.config.no_input
                && !ctx.config.config.asks_a_person() =>
        {
            "its critical issues stayed open and every review point is off, so the best draft is given with them".to_string()
        }
        (None, _) if accepted == Some(true) => {
            "its critical issues stayed open and the run takes no input, so the best draft is given with them".to_string()
        }
        (None, Some(c)) if c.verdict == Verdict::Reject => format!(
            "the reviewer rejected the draft at {:.1}/10 as not improvable by revision",
            c.overall
        ),
        _ => format!(
            "no draft was approved within {revisions} revision{}",
            if revisions == 1 { "" } else { "s" }
        ),
    };
    let brief = brief(&state);
    let input = write_input(&state, &brief, &ctx.config);
    let update = match record.best().cloned() {
        Some(best) => {
            let mut report = best.report.clone();
            report.push_str(&review_section(&best, &reason));
            ResearchUpdate {
                report: Some(report),
                draft: Some(best.body.clone()),
                audit: Some(best.audit.clone()),
                ..Default::default()
            }
        }
        None => {
            let draft = write::passages_report(
                &input,
                &reason,
                ctx.clock.now_ms(),
                ctx.config.models.meter().totals().calls,
            );
            ResearchUpdate {
                report: Some(draft.report),
                draft: Some(draft.body),
                audit: Some(draft.audit),
                ..Default::default()
            }
        }
    };
    record.fallback = Some(reason);
    Ok(ResearchUpdate {
        review: Some(record),
        outcome: Some(Outcome::Finished),
        finished_at_ms: Some(ctx.clock.now_ms()),
        ..update
    })
}

/// The report's review section for a draft delivered without approval: why, its score, and
/// the issues it still has (critical and major), as caveats.
fn review_section(draft: &ReviewedDraft, reason: &str) -> String {
    let mut out = format!(
        "\n## Review\n\nThis report was not approved by the reviewer: {reason}. It is draft {}",
        draft.version
    );
    match &draft.critique {
        Some(c) => {
            out.push_str(&format!(", scored {:.1}/10.\n\n", c.overall));
            let open: Vec<&review::Issue> = c
                .issues
                .iter()
                .filter(|i| matches!(i.severity, Severity::Critical | Severity::Major))
                .collect();
            if !open.is_empty() {
                out.push_str("Read it with these open issues in mind:\n\n");
                for i in open {
                    out.push_str(&format!("- {} ({}).\n", i.description, i.location));
                }
            }
        }
        None => out.push_str(", not reviewed.\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_is_in_the_outline_table_in_graph_order() {
        let graph = graph(&RunConfig::default(), None).unwrap();
        let all: Vec<&str> = graph.node_names().collect();
        let table: Vec<&str> = RESEARCH.iter().chain(REVIEW).map(|n| n.0).collect();
        assert_eq!(all, table);
    }
}
