//! The trust pipeline (seeds 002 and 004): the research of the standard pipeline, made to say how
//! far each claim can be trusted, and why.
//!
//! - **Analyzer and discovery**: one model call reads the question's intent, class, entities,
//!   time scope and complexity, and how sure it is of its reading; a quick search caps that
//!   confidence by whether the entities are findable. A clarification is asked only under 0.7,
//!   and a still-vague answer once more; then the best reading is taken and said.
//! - **Complexity routing**: a simple question takes the fast path (one agent's gap loop), a
//!   complex one the orchestrator and parallel workers.
//! - **Early termination**: research stops when a round (the gap loop's or the workers') gained
//!   under 5% coverage, found no new source, or reached the soft budget, said in the method
//!   section.
//! - **Ranking**: every source gets a credibility score with its reasons; sources under 0.35 are
//!   kept out of the writer's evidence and listed as left out.
//! - **Trust engine** as the audit's last stage: the report's claims cross-validated across
//!   independent sources (✓✓ / ✓ / ⚠, a confidence each, contradictions named), and the
//!   hallucination score; over 0.3 a person is asked (accept with caveats, research more, stop)
//!   and the report carries a caveat either way.
//!
//! It shares the standard pipeline's state and nodes where the work is the same.

use std::sync::Arc;

use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, StateGraph, END, START,
};

use super::standard::nodes::{self, brief};
use super::standard::{
    report_review, research_calls, research_loop, ResearchState, ResearchUpdate, Standard,
};
use crate::ask::{ask_person, Ctx};
use crate::config::{Mode, RunConfig, TrustVariant};
use crate::family::{Flow, OutlineStep, PipelineInfo, RunRequest, RunView};
use crate::fork::{ForkEdit, ForkError, ForkStage, StageView};
use crate::records::{Answer, Coverage, Decision, EscalatedBy, Outcome, Question};
use crate::roles::Role;
use crate::steps::audit::AuditStatus;
use crate::steps::intake;
use crate::steps::profile::{self, Complexity, CLARIFY_BELOW, MAX_CLARIFICATIONS};
use crate::steps::review::{Criterion, FoundBy, Issue, Severity};
use crate::steps::tree;
use crate::steps::trust::{self, TrustRecord};
use crate::steps::{gaps, workers};
use crate::Env;

/// The name the trust pipeline is registered (and its threads saved) under.
pub const NAME: &str = "trust";

mod rounds;
pub use crate::config::{soft_budget, writing_calls, SOFT_BUDGET};
pub use rounds::MIN_GAIN;
use rounds::{detect_gaps, orchestrate, synthesize};

/// The trust pipeline.
pub struct Trust;

type NodeResult = Result<ResearchUpdate, research_graph::NodeError>;

/// The nodes, in the order the graph adds them, with their role and what the run is doing.
const NODES: &[(&str, Option<Role>, &str)] = &[
    (
        "analyze_query",
        Some(Role::Understand),
        "Reading the question",
    ),
    (
        "discover",
        None,
        "Checking the question's names in a quick search",
    ),
    ("clarify", None, "Waiting for your answer"),
    ("plan", Some(Role::Plan), "Planning the research"),
    ("review_plan", None, "Waiting for the plan review"),
    (
        "search_and_extract",
        Some(Role::Extract),
        "Searching and reading sources",
    ),
    ("detect_gaps", Some(Role::Gaps), "Looking for gaps"),
    (
        "orchestrate",
        Some(Role::Orchestrate),
        "Splitting the work between workers",
    ),
    (
        "search_worker",
        Some(Role::Extract),
        "Workers are researching",
    ),
    ("collect", None, "Collecting the workers' findings"),
    (
        "synthesize",
        Some(Role::Synthesize),
        "Combining the findings",
    ),
    (
        "verify",
        Some(Role::Verify),
        "Checking claims against the sources",
    ),
    ("rank", None, "Scoring the sources' credibility"),
    (
        "write_report",
        Some(Role::Write),
        "Writing and cross-validating the report",
    ),
    (
        "escalate",
        None,
        "Waiting for your decision on unsupported claims",
    ),
    ("review_report", None, "Waiting for the report review"),
    ("revise_report", Some(Role::Write), "Revising the report"),
    (
        "take_edit",
        Some(Role::Verify),
        "Checking your edit of the report",
    ),
];

impl Flow for Trust {
    type State = ResearchState;

    fn info(&self) -> PipelineInfo {
        PipelineInfo {
            name: NAME.into(),
            title: "Trust".into(),
            summary: "For questions where being right matters: scores each source's \
credibility and leaves weak ones out, checks every claim of the report across independent \
sources (✓✓ two or more, ✓ one, ⚠ weak or contested) and says how much of what the writer \
claimed its sources did not support. Simple questions take one agent, complex ones parallel \
workers."
                .into(),
        }
    }

    fn roles(&self) -> Vec<Role> {
        Standard.roles()
    }

    fn graph(
        &self,
        config: &RunConfig,
        checkpointer: Option<Arc<dyn Checkpointer>>,
    ) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
        graph(config, checkpointer)
    }

    fn steps(&self, _config: &RunConfig) -> Vec<OutlineStep> {
        // Which research path a run takes is decided by its question, not its configuration.
        NODES
            .iter()
            .map(|&(node, role, doing)| OutlineStep::new(node, role, doing))
            .collect()
    }

    fn calls(&self, config: &RunConfig) -> Vec<(Role, u64)> {
        // The research path is picked from the question's complexity during the run, not from
        // the configured mode: the estimate is the most either path takes, role by role.
        let mut calls = research_calls(&RunConfig {
            mode: Mode::Single,
            ..config.clone()
        });
        for (role, n) in research_calls(&RunConfig {
            mode: Mode::Multi,
            ..config.clone()
        }) {
            match calls.iter_mut().find(|(r, _)| *r == role) {
                Some((_, m)) => *m = (*m).max(n),
                None => calls.push((role, n)),
            }
        }
        // The claims' check and the audit; cross-validation one call (batched) or one per
        // claim (full, about eight claims).
        let confirm = match config.trust {
            TrustVariant::Batched => 1,
            TrustVariant::Full => 8,
        };
        let add = super::standard::add_calls;
        add(&mut calls, Role::Verify, 2 + confirm);
        add(
            &mut calls,
            Role::Write,
            1 - super::standard::first_draft_unasked(config),
        );
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

/// Builds the trust pipeline for a run configured by `config`.
pub fn graph(
    config: &RunConfig,
    checkpointer: Option<Arc<dyn Checkpointer>>,
) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
    let mut g = StateGraph::<ResearchState, Env>::new();
    g.add_node("analyze_query", analyze_query);
    g.add_node("discover", discover);
    g.add_node("clarify", clarify);
    g.add_node("plan", plan);
    g.add_node("review_plan", nodes::review_plan);
    research_loop(&mut g, config, detect_gaps, orchestrate, synthesize);
    g.add_node("rank", rank);
    g.add_node("write_report", nodes::write_report);
    g.add_node("escalate", escalate);
    report_review(&mut g);
    g.add_edge(START, "analyze_query");
    g.add_edge("analyze_query", "discover");
    g.add_conditional_edges(
        "discover",
        |s: &ResearchState| {
            if s.ask_clarification {
                "clarify"
            } else {
                "plan"
            }
        },
        &["clarify", "plan"],
    );
    // The answer is read with the question again: a still-vague one may be asked about once more.
    g.add_edge("clarify", "analyze_query");
    g.add_edge("plan", "review_plan");
    super::standard::after_verify(&mut g, "rank");
    g.add_edge("rank", "write_report");
    // A person is asked only when one takes part: input allowed and a review point on.
    let asks = config.asks_a_person();
    g.add_conditional_edges(
        "write_report",
        move |s: &ResearchState| {
            if s.trust.over_threshold() && asks && !escalated(s) {
                "escalate"
            } else {
                "review_report"
            }
        },
        &["escalate", "review_report"],
    );
    g.add_conditional_edges(
        "escalate",
        // Research more is one round of the searches for the unsupported claims, in either
        // mode: the orchestrator plans from the question, not from searches.
        |s: &ResearchState| match (&s.outcome, s.pending_searches.is_empty()) {
            (Outcome::Running, true) => "review_report",
            (Outcome::Running, false) => "search_and_extract",
            _ => END,
        },
        &["review_report", "search_and_extract"],
    );
    g.compile(CompileOptions {
        checkpointer,
        ..Default::default()
    })
}

/// Whether the run has been to the escalation point already (it goes once).
fn escalated(state: &ResearchState) -> bool {
    state.decisions.iter().any(|d| d.point == "escalation")
}

/// The research path a question's complexity takes.
fn mode_of(complexity: Complexity) -> Mode {
    match complexity {
        Complexity::Simple => Mode::Single,
        Complexity::Complex => Mode::Multi,
    }
}

async fn analyze_query(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (profile, understanding, warnings) =
        profile::analyze(&ctx, &brief(&state), state.profile.clarifications).await?;
    Ok(ResearchUpdate {
        mode: Some(mode_of(profile.complexity)),
        profile: Some(profile),
        understanding: Some(understanding),
        warnings: Some(warnings),
        ..Default::default()
    })
}

async fn discover(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (profile, warnings) = profile::discover(&ctx, &brief(&state), &state.profile).await;
    let config = &ctx.config.config;
    let unsure = profile.confidence < CLARIFY_BELOW;
    let can_ask = config.review.clarify
        && !config.no_input
        && profile.clarifications < MAX_CLARIFICATIONS
        && !state.understanding.question.is_empty();
    let mut update = ResearchUpdate {
        ask_clarification: Some(unsure && can_ask),
        warnings: Some(warnings),
        ..Default::default()
    };
    if unsure && !can_ask {
        // The best reading, said: the report's method section carries the decision.
        let reading = [&state.understanding.interpretation, &state.clarification]
            .into_iter()
            .rev()
            .find(|r| !r.trim().is_empty())
            .cloned()
            .unwrap_or_else(|| state.query.clone());
        let after = match profile.clarifications {
            0 => "no one was asked".to_string(),
            1 => "after 1 clarification".to_string(),
            n => format!("after {n} clarifications"),
        };
        update.decisions = Some(vec![Decision {
            point: "clarification".into(),
            decision: format!(
                "the question was read as: {reading} (confidence {:.2}, {after}: {})",
                profile.confidence, profile.why
            ),
            automatic: true,
        }]);
        update.clarification = Some(reading);
    }
    update.profile = Some(profile);
    Ok(update)
}

async fn clarify(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    // The trust pipeline reads every answer with the question again (its profile's confidence
    // decides whether to ask once more).
    let answer = intake::clarify(&ctx, &state.understanding, &state.clarification)?;
    let mut profile = state.profile.clone();
    profile.clarifications += 1;
    Ok(ResearchUpdate {
        decisions: Some(vec![answer.decision]),
        clarification: Some(answer.text),
        clarifications: Some(profile.clarifications),
        profile: Some(profile),
        ..Default::default()
    })
}

/// The research tree (primary / secondary / tertiary questions, typed searches, the outline the
/// writer follows), and the routing the question's complexity chose.
async fn plan(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (plan, tree, warnings) = tree::plan(&ctx, &brief(&state), &state.profile).await?;
    let mode = mode_of(state.profile.complexity);
    let limits = ctx.config.config.limits();
    Ok(ResearchUpdate {
        mode: Some(mode),
        warnings: Some(warnings),
        pending_searches: Some(plan.searches.clone()),
        plan: Some(plan),
        tree: Some(tree),
        iteration: Some(0),
        decisions: Some(vec![Decision {
            point: "routing".into(),
            decision: match mode {
                Mode::Single => {
                    "a simple question: one agent searches and reads (the fast path)".into()
                }
                Mode::Multi => format!(
                    "a complex question: an orchestrator and up to {} parallel workers",
                    limits.workers
                ),
            },
            automatic: true,
        }]),
        ..Default::default()
    })
}

/// Scores every source and keeps the ones under the bar out of the writer's evidence (their
/// evidence and its claims go; the sources stay, listed as left out with why).
async fn rank(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let credibility = trust::rank(&ctx, &state.sources);
    let evidence = trust::credible(&state.evidence, &credibility);
    let kept: std::collections::BTreeSet<u32> = evidence.iter().map(|e| e.id).collect();
    let claims: Vec<_> = state
        .claims
        .iter()
        .filter(|c| kept.contains(&c.evidence_id))
        .cloned()
        .collect();
    let mut update = ResearchUpdate {
        trust: Some(TrustRecord {
            variant: ctx.config.config.trust,
            credibility,
            legend: trust::corroborate::TrustMark::legend(),
            ..Default::default()
        }),
        ..Default::default()
    };
    if evidence.len() != state.evidence.len() {
        // What the research covered is recomputed without the evidence left out, as far as
        // what is kept bears it out: a question backed only by low-trust pages is open again.
        let questions = &state.plan.questions;
        let asking = brief(&state);
        if state.coverage_by_question.is_empty() {
            let capped: Vec<_> = state
                .worker_results
                .iter()
                .map(|w| {
                    let mut w = w.clone();
                    w.confidence = w
                        .confidence
                        .min(gaps::answered(&w.assignment.question, &evidence).share);
                    w
                })
                .collect();
            update.coverage = Some(workers::coverage(&capped).min(state.coverage));
        } else {
            let answered: Vec<gaps::Answered> = questions
                .iter()
                .map(|q| gaps::answered(&asking.asked(q), &evidence))
                .collect();
            let by_question: Vec<Coverage> = state
                .coverage_by_question
                .iter()
                .zip(&answered)
                .map(|(c, a)| (*c).min(a.level))
                .collect();
            update.coverage = Some(gaps::stated(&by_question, &answered));
            update.coverage_by_question = Some(by_question);
        }
        let supported = claims.iter().filter(|c| c.supported).count();
        update.confidence = Some(if claims.is_empty() {
            0.0
        } else {
            supported as f64 / claims.len() as f64
        });
        update.evidence = Some(evidence);
        update.claims = Some(claims);
    }
    Ok(update)
}

/// The escalation point: the writer's claims were too often unsupported. Accept (the report
/// keeps its caveat), research what the unsupported claims were about, or stop.
async fn escalate(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let t = &state.trust;
    let unsupported: Vec<&crate::steps::audit::AuditEntry> = state
        .audit
        .iter()
        .filter(|e| !matches!(e.status, AuditStatus::Verified))
        .collect();
    let issues: Vec<Issue> = unsupported
        .iter()
        .map(|e| Issue {
            category: Criterion::Accuracy,
            severity: Severity::Critical,
            location: crate::steps::audit::without_markers(&e.sentence)
                .trim()
                .replace(" .", "."),
            description: e.check.clone(),
            fix: "find a source that says it, or leave it out".into(),
            found_by: FoundBy::Check,
        })
        .collect();
    let (answer, timed_out) = ask_person(
        &ctx,
        Question::Escalation {
            reason: format!(
                "hallucination score {:.2}: {} of the {} claims the writer made were not \
                 supported by their sources as written",
                t.hallucination, t.unsupported, t.writer_claims
            ),
            issues,
            score: ((1.0 - t.hallucination) * 10.0).clamp(0.0, 10.0),
            by: EscalatedBy::Trust,
        },
    )?;
    let with_why = |d: &str| match &timed_out {
        Some(why) => format!("{d} ({why})"),
        None => d.to_string(),
    };
    let decision = |d: String| {
        Some(vec![Decision {
            point: "escalation".into(),
            decision: d,
            automatic: timed_out.is_some(),
        }])
    };
    Ok(match answer {
        // Searches the last round proposed but had no round left for must not send an
        // accepted report back to research: the route below reads the searches.
        Answer::AcceptWithCaveats => ResearchUpdate {
            decisions: decision(with_why("accepted with caveats")),
            pending_searches: Some(Vec::new()),
            ..Default::default()
        },
        Answer::ResearchMore => {
            let limits = ctx.config.config.limits();
            let written: Vec<String> = unsupported
                .iter()
                .map(|e| crate::steps::audit::without_markers(&e.sentence))
                .collect();
            let searches = nodes::searches_about(
                &state,
                written.iter().map(String::as_str),
                limits.initial_searches,
            );
            let (words, granted) = nodes::more_research(
                &state,
                &limits,
                searches.len(),
                " on the unsupported claims",
            );
            ResearchUpdate {
                decisions: decision(with_why(&words)),
                pending_searches: Some(searches),
                granted_sources: granted,
                ..Default::default()
            }
        }
        Answer::StopRun => {
            let reason = "you stopped the run at the escalation".to_string();
            ResearchUpdate {
                decisions: decision(with_why("stopped")),
                outcome: Some(Outcome::Rejected),
                rejection: Some(reason),
                finished_at_ms: Some(ctx.clock.now_ms()),
                ..Default::default()
            }
        }
        other => {
            return Err(research_graph::NodeError::permanent(format!(
                "the escalation needs accept, research more or stop, not {other:?}"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_is_outlined_in_the_order_the_graph_adds_it() {
        let graph = graph(&RunConfig::default(), None).unwrap();
        let all: Vec<&str> = graph.node_names().collect();
        let table: Vec<&str> = NODES.iter().map(|n| n.0).collect();
        assert_eq!(all, table);
    }
}
