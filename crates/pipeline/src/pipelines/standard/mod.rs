//! The standard pipeline (seed 004): read the question and ask for a clarification when it is
//! ambiguous, plan research questions and searches, then either loop search → read → extract →
//! find gaps (single agent) or send one worker per sub-question in parallel and synthesise their
//! findings (multi agent), check claims against their quotes, and write a cited report that a
//! person may approve, send back for one revision, or reject.

mod multi;
pub(crate) mod nodes;
mod state;

use std::sync::Arc;

use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, NodeOptions, StateGraph, END, START,
};

pub use self::state::{ResearchState, ResearchUpdate};
use crate::config::{Mode, RunConfig};
use crate::eval::{Metadata, RunResult};
use crate::family::{Flow, OutlineStep, PipelineInfo, RunRequest, RunView};
use crate::fork::{ForkEdit, ForkError, ForkStage, StageView};
use crate::method::{unread_pages, RunMethod};
use crate::records::Outcome;
use crate::roles::Role;
use crate::{report, text, Env};

/// The name the standard pipeline is registered (and its threads saved) under.
pub const NAME: &str = "standard";

/// The standard pipeline.
pub struct Standard;

/// A node of the outline: its name, its model role, what the run is doing there, and the modes
/// that walk it.
pub(crate) type NodeRow = (&'static str, Option<Role>, &'static str, &'static [Mode]);

/// The research phase's nodes (every research pipeline walks them), in the order a run reaches
/// them.
pub(crate) const RESEARCH: &[NodeRow] = &[
    (
        "understand",
        Some(Role::Understand),
        "Reading the question",
        BOTH,
    ),
    ("clarify", None, "Waiting for your answer", BOTH),
    ("plan", Some(Role::Plan), "Planning the research", BOTH),
    ("review_plan", None, "Waiting for the plan review", BOTH),
    (
        "search_and_extract",
        Some(Role::Extract),
        "Searching and reading sources",
        SINGLE,
    ),
    ("detect_gaps", Some(Role::Gaps), "Looking for gaps", SINGLE),
    (
        "orchestrate",
        Some(Role::Orchestrate),
        "Splitting the work between workers",
        MULTI,
    ),
    (
        "search_worker",
        Some(Role::Extract),
        "Workers are researching",
        MULTI,
    ),
    ("collect", None, "Collecting the workers' findings", MULTI),
    (
        "synthesize",
        Some(Role::Synthesize),
        "Combining the findings",
        MULTI,
    ),
    (
        "verify",
        Some(Role::Verify),
        "Checking claims against the sources",
        BOTH,
    ),
];

/// The standard pipeline's writing nodes, after the research phase.
const WRITING: &[NodeRow] = &[
    (
        "write_report",
        Some(Role::Write),
        "Writing the report",
        BOTH,
    ),
    ("review_report", None, "Waiting for the report review", BOTH),
    (
        "revise_report",
        Some(Role::Write),
        "Revising the report",
        BOTH,
    ),
    (
        "take_edit",
        Some(Role::Verify),
        "Checking your edit of the report",
        BOTH,
    ),
];
pub(crate) const BOTH: &[Mode] = &[Mode::Single, Mode::Multi];
const SINGLE: &[Mode] = &[Mode::Single];
const MULTI: &[Mode] = &[Mode::Multi];

impl Flow for Standard {
    type State = ResearchState;

    fn info(&self) -> PipelineInfo {
        PipelineInfo {
            name: NAME.into(),
            title: "Standard".into(),
            summary: "Plans, searches and reads until the questions are covered (one agent, or \
parallel workers in multi mode), checks each claim against its quote and writes a cited report."
                .into(),
        }
    }

    fn roles(&self) -> Vec<Role> {
        // Every role but the review pipeline's analyst and reviewer.
        Role::ALL
            .into_iter()
            .filter(|r| !matches!(r, Role::Review | Role::Analyze))
            .collect()
    }

    fn graph(
        &self,
        config: &RunConfig,
        checkpointer: Option<Arc<dyn Checkpointer>>,
    ) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
        graph(config, checkpointer)
    }

    fn steps(&self, config: &RunConfig) -> Vec<OutlineStep> {
        outline(&[RESEARCH, WRITING], config)
    }

    fn calls(&self, config: &RunConfig) -> Vec<(Role, u64)> {
        let mut calls = research_calls(config);
        let drafts = if config.review.report { 2 } else { 1 };
        // The claims, then each draft's audit.
        add_calls(&mut calls, Role::Verify, 1 + drafts);
        add_calls(
            &mut calls,
            Role::Write,
            drafts - first_draft_unasked(config),
        );
        calls
    }
    fn initial(&self, request: &RunRequest) -> ResearchState {
        let mut state = follow_up_state(
            &request.question,
            &request.context,
            &request.config,
            request.now_ms,
        );
        carry(&mut state, &request.carried);
        state
    }

    fn fork_stage(&self, next: &[String], state: &ResearchState) -> Option<StageView> {
        fork_stage(next, state)
    }

    fn fork_edit(
        &self,
        stage: ForkStage,
        edit: &ForkEdit,
        at: &ResearchState,
        config: &RunConfig,
        now_ms: i64,
    ) -> Result<ResearchUpdate, ForkError> {
        fork_edit(stage, edit, &at.query, config, now_ms)
    }

    fn view(&self, state: &ResearchState) -> RunView {
        let result = result_of(state);
        RunView {
            method: RunMethod {
                interpretation: if state.clarification.is_empty() {
                    state.understanding.interpretation.clone()
                } else {
                    state.clarification.clone()
                },
                research_questions: state.plan.questions.clone(),
                planner: state.plan.planner_line(),
                concerns: state.plan.concerns.clone(),
                question_coverage: state.coverage_by_question.clone(),
                gaps: state.gaps.clone(),
                workers: state.done_workers,
                unread: unread_pages(&state.warnings),
                metadata: result.metadata.clone(),
            },
            summary: report::summary_of(&state.report),
            result,
        }
    }
}

/// The steps of `tables` that a run with `config` walks.
pub(crate) fn outline(tables: &[&[NodeRow]], config: &RunConfig) -> Vec<OutlineStep> {
    tables
        .iter()
        .flat_map(|t| t.iter())
        .filter(|(_, _, _, modes)| modes.contains(&config.mode))
        .map(|&(node, role, doing, _)| OutlineStep::new(node, role, doing))
        .collect()
}

/// The writing call a run's estimate leaves out: the first draft, when the writer is a model
/// whose drafts were measured refused ([`crate::steps::write::unfit_writer`]).
pub(crate) fn first_draft_unasked(config: &RunConfig) -> u64 {
    u64::from(crate::steps::write::unfit_writer(config).is_some())
}

/// The research phase's expected model calls per role (the claims' check not included).
pub(crate) fn research_calls(config: &RunConfig) -> Vec<(Role, u64)> {
    let limits = config.limits();
    let rounds = u64::from(limits.max_iterations.max(1));
    let pages_per_search = limits.pages_per_search as u64;
    // One extraction call reads a page, or a few when the extractor's window is known.
    let window = research_llm::known_window(Role::Extract.model(&config.models));
    let extractions = |pages: u64| crate::steps::extract::calls(pages, window);
    let max_pages = limits.max_sources as u64;
    let last = u64::from(crate::steps::gaps::model_judges(config));
    let mut calls = vec![(Role::Understand, 1), (Role::Plan, 1)];
    let (read, cap) = match config.mode {
        Mode::Single => {
            // The first round runs the planned searches; later rounds about half as many.
            let searches = limits.initial_searches as u64
                + (rounds - 1) * (limits.initial_searches as u64).div_ceil(2);
            let pages = (searches * pages_per_search).min(max_pages);
            calls.push((Role::Extract, extractions(pages)));
            calls.push((Role::Gaps, rounds - 1 + last));
            (pages, max_pages)
        }
        Mode::Multi => {
            let workers = limits.workers as u64;
            let searches = workers * limits.searches_per_worker as u64 * rounds;
            let pages = (searches * pages_per_search).min(max_pages * rounds);
            calls.push((Role::Orchestrate, rounds));
            calls.push((Role::Extract, extractions(pages)));
            calls.push((Role::Summarize, workers * rounds));
            calls.push((Role::Synthesize, rounds));
            (pages, max_pages * rounds)
        }
    };
    // Seed 001's verification loop, on by default: each time, the unsupported claims' searches
    // (half a first round's) read what room is left, the gaps are judged again, and the claims
    // checked again — so a budget set from the estimate does not stop exactly the runs whose
    // claims were weakly supported ([`nodes::research_again`]).
    let mut read = read;
    for _ in 0..config.verification_loops {
        let pages = ((limits.initial_searches as u64).div_ceil(2) * pages_per_search)
            .min(cap.saturating_sub(read));
        read += pages;
        add_calls(&mut calls, Role::Extract, extractions(pages));
        add_calls(&mut calls, Role::Gaps, last);
        add_calls(&mut calls, Role::Verify, 1);
    }
    calls
}

/// `n` more calls of `role` in `calls` (one entry a role).
pub(crate) fn add_calls(calls: &mut Vec<(Role, u64)>, role: Role, n: u64) {
    match calls.iter_mut().find(|(r, _)| *r == role) {
        Some((_, m)) => *m += n,
        None if n > 0 => calls.push((role, n)),
        None => {}
    }
}

/// The shared result of a state, without usage (the meter's part).
pub(crate) fn result_of(state: &ResearchState) -> RunResult {
    let supported = state.claims.iter().filter(|c| c.supported).count();
    RunResult {
        thread_id: String::new(),
        question: state.query.clone(),
        report: state.report.clone(),
        sources: state.sources.clone(),
        evidence: state.evidence.clone(),
        claims: state.claims.clone(),
        research_questions: state.plan.questions.clone(),
        audit: state.audit.clone(),
        review: (!state.review.drafts.is_empty()).then(|| state.review.clone()),
        profile: (state.profile != Default::default()).then(|| state.profile.clone()),
        tree: (state.tree != Default::default()).then(|| state.tree.clone()),
        trust: (state.trust != Default::default()).then(|| state.trust.clone()),
        metadata: Metadata {
            mode: match state.mode {
                Mode::Single => "single".into(),
                Mode::Multi => "multi".into(),
            },
            iterations: state.iteration,
            queries: state.searches_done.clone(),
            queries_skipped: state.searches_skipped.clone(),
            sources_count: state.sources.len(),
            evidence_count: state.evidence.len(),
            wall_ms: (state.finished_at_ms - state.started_at_ms).max(0),
            claims_supported: supported,
            claims_total: state.claims.len(),
            confidence: state.confidence,
            coverage: state.coverage,
            coverage_history: state.coverage_history.clone(),
            language: state.language.clone(),
            outcome: state.outcome.clone(),
            warnings: state.warnings.iter().map(|w| w.message.clone()).collect(),
            refused: state
                .warnings
                .iter()
                .filter(|w| w.kind == crate::records::WarningKind::Refused)
                .map(|w| w.message.clone())
                .collect(),
            evidence_on_question: nodes::gate(state, &nodes::brief(state))
                .citable(&state.evidence)
                .len(),
            ..Default::default()
        },
        ranked_hits: state.ranked_hits.clone(),
    }
}

/// Builds the standard pipeline (both modes; the plan's `mode` chooses the path) for a run
/// configured by `config`.
pub fn graph(
    config: &RunConfig,
    checkpointer: Option<Arc<dyn Checkpointer>>,
) -> Result<CompiledGraph<ResearchState, Env>, GraphError> {
    let mut g = StateGraph::<ResearchState, Env>::new();
    research_phase(&mut g, config);
    g.add_node("write_report", nodes::write_report);
    report_review(&mut g);
    after_verify(&mut g, "write_report");
    g.add_edge("write_report", "review_report");
    g.compile(CompileOptions {
        checkpointer,
        ..Default::default()
    })
}

/// Adds the person's report review and where it leads: out (approved, rejected, or no review),
/// one revision from their feedback, or their own edit — audited, then shown to them again.
/// The caller leads into `review_report`.
pub(crate) fn report_review(g: &mut StateGraph<ResearchState, Env>) {
    g.add_node("review_report", nodes::review_report);
    g.add_node("revise_report", nodes::revise_report);
    g.add_node("take_edit", nodes::take_edit);
    g.add_conditional_edges(
        "review_report",
        |s: &ResearchState| match s.outcome {
            Outcome::Running if !s.edited.is_empty() => "take_edit",
            Outcome::Running => "revise_report",
            _ => END,
        },
        &["revise_report", "take_edit"],
    );
    g.add_edge("revise_report", END);
    g.add_edge("take_edit", "review_report");
}

/// Adds the research phase every research pipeline shares (the nodes of [`RESEARCH`]):
/// reading the question, planning, the single-agent gap loop or the multi-agent rounds, and
/// checking the claims. It ends at `verify`, whose way on the caller adds.
pub(crate) fn research_phase(g: &mut StateGraph<ResearchState, Env>, config: &RunConfig) {
    g.add_node("understand", nodes::understand);
    g.add_node("clarify", nodes::clarify);
    g.add_node("plan", nodes::plan);
    g.add_node("review_plan", nodes::review_plan);
    g.add_edge(START, "understand");
    g.add_conditional_edges(
        "understand",
        |s: &ResearchState| {
            if s.ask_clarification {
                "clarify"
            } else {
                "plan"
            }
        },
        &["clarify", "plan"],
    );
    // The person's own words are read with the question again (a still-vague answer is asked
    // about once more); an offered reading goes straight to planning.
    g.add_conditional_edges(
        "clarify",
        |s: &ResearchState| if s.reread { "understand" } else { "plan" },
        &["understand", "plan"],
    );
    g.add_edge("plan", "review_plan");
    research_loop(
        g,
        config,
        nodes::detect_gaps,
        nodes::orchestrate,
        nodes::synthesize,
    );
}

/// Adds the research itself, from the plan review on: the single-agent gap loop (with
/// `detect_gaps` as its gap node) or the multi-agent rounds (with `orchestrate` splitting each)
/// — the state's `mode` chooses — and the check of the claims. The caller adds `review_plan` and
/// what follows `verify`.
pub(crate) fn research_loop<G, GFut, O, OFut, S, SFut>(
    g: &mut StateGraph<ResearchState, Env>,
    config: &RunConfig,
    detect_gaps: G,
    orchestrate: O,
    synthesize: S,
) where
    S: Fn(Arc<ResearchState>, crate::Ctx) -> SFut + Send + Sync + 'static,
    SFut: std::future::Future<Output = Result<ResearchUpdate, research_graph::NodeError>>
        + Send
        + 'static,
    G: Fn(Arc<ResearchState>, crate::Ctx) -> GFut + Send + Sync + 'static,
    GFut: std::future::Future<Output = Result<ResearchUpdate, research_graph::NodeError>>
        + Send
        + 'static,
    O: Fn(Arc<ResearchState>, crate::Ctx) -> OFut + Send + Sync + 'static,
    OFut: std::future::Future<Output = Result<ResearchUpdate, research_graph::NodeError>>
        + Send
        + 'static,
{
    let limits = config.limits();
    let min_coverage = config.min_coverage;
    g.add_node("search_and_extract", nodes::search_and_extract);
    g.add_node("detect_gaps", detect_gaps);
    g.add_node("orchestrate", orchestrate);
    g.add_worker(
        "search_worker",
        NodeOptions::default(),
        nodes::search_worker,
    );
    g.add_node("collect", nodes::collect);
    g.add_node("synthesize", synthesize);
    g.add_node("verify", nodes::verify);
    g.add_conditional_edges(
        "review_plan",
        |s: &ResearchState| match (&s.outcome, s.mode) {
            (Outcome::Cancelled, _) => END,
            (_, Mode::Single) => "search_and_extract",
            (_, Mode::Multi) => "orchestrate",
        },
        &["search_and_extract", "orchestrate"],
    );
    g.add_edge("search_and_extract", "detect_gaps");
    g.add_conditional_edges(
        "detect_gaps",
        move |s: &ResearchState| {
            if nodes::after_gaps(s, min_coverage, limits.max_iterations) {
                "verify"
            } else {
                "search_and_extract"
            }
        },
        &["search_and_extract", "verify"],
    );
    g.add_conditional_edges(
        "orchestrate",
        move |s: &ResearchState| nodes::fan_out(s, limits.max_sources),
        &["search_worker"],
    );
    g.add_edge("search_worker", "collect");
    g.add_edge("collect", "synthesize");
    g.add_conditional_edges(
        "synthesize",
        move |s: &ResearchState| {
            if nodes::after_synthesis(s, limits.max_iterations) {
                "verify"
            } else {
                "orchestrate"
            }
        },
        &["orchestrate", "verify"],
    );
}

/// After verification: back to research when it asked for more ([`nodes::research_again`],
/// seed 001's loop), else on to `next`.
pub(crate) fn after_verify(g: &mut StateGraph<ResearchState, Env>, next: &'static str) {
    g.add_conditional_edges(
        "verify",
        move |s: &ResearchState| {
            if s.research_again {
                "search_and_extract"
            } else {
                next
            }
        },
        &["search_and_extract", next],
    );
}

/// The fork stage of a checkpoint of any pipeline over [`ResearchState`]: what it holds says
/// how far the run got, and what it runs next says which side of a step it is on.
pub(crate) fn fork_stage(next: &[String], s: &ResearchState) -> Option<StageView> {
    let runs = |n: &str| next.iter().any(|x| x == n);
    let view = |stage, holds| StageView {
        stage,
        holds,
        plan: None,
        reading: None,
    };
    if !s.draft.is_empty() {
        let words = s.draft.split_whitespace().count();
        return Some(view(
            ForkStage::Draft,
            format!(
                "a draft of {words} words from {} sources; checking and review come next",
                s.sources.len()
            ),
        ));
    }
    if runs("detect_gaps") || runs("synthesize") {
        return Some(view(
            ForkStage::Round(s.iteration + 1),
            format!(
                "{} sources and {} pieces of evidence after {} searches; the round's judgement of gaps comes next",
                s.sources.len(),
                s.evidence.len(),
                s.searches_done.len()
            ),
        ));
    }
    if s.iteration == 0
        && !s.plan.questions.is_empty()
        && (runs("search_and_extract") || runs("orchestrate"))
    {
        return Some(StageView {
            plan: Some(crate::Plan {
                searches: s.pending_searches.clone(),
                ..s.plan.clone()
            }),
            ..view(
                ForkStage::Plan,
                format!(
                    "a plan of {} research questions and {} searches: {}",
                    s.plan.questions.len(),
                    s.pending_searches.len(),
                    s.plan.questions.join(" / ")
                ),
            )
        });
    }
    if runs("plan") {
        let reading = if s.clarification.is_empty() {
            if s.profile.intent.is_empty() {
                s.understanding.interpretation.clone()
            } else {
                s.profile.intent.clone()
            }
        } else {
            s.clarification.clone()
        };
        return Some(StageView {
            reading: Some(reading.clone()),
            ..view(
                ForkStage::Reading,
                format!("the question read as: {reading}; planning comes next"),
            )
        });
    }
    None
}

/// The update that starts a fork: its own start time (its wall time is its own), and its edit —
/// a new reading before planning, a new plan (and its searches) before research. A new plan is
/// judged as the plan review point judges it: against the run's `query` and `config`'s depth.
pub(crate) fn fork_edit(
    stage: ForkStage,
    edit: &ForkEdit,
    query: &str,
    config: &RunConfig,
    now_ms: i64,
) -> Result<ResearchUpdate, ForkError> {
    let mut update = ResearchUpdate {
        started_at_ms: Some(now_ms),
        ..Default::default()
    };
    if let Some(reading) = edit.reading.as_ref().filter(|r| !r.trim().is_empty()) {
        if stage != ForkStage::Reading {
            return Err(ForkError::EditNotHere(
                "a new reading of the question applies at the reading stage (--at reading)".into(),
            ));
        }
        update.clarification = Some(reading.trim().to_string());
    }
    if let Some(plan) = &edit.plan {
        if stage != ForkStage::Plan {
            return Err(ForkError::EditNotHere(
                "a new plan applies at the plan stage (--at plan)".into(),
            ));
        }
        let plan = crate::steps::planning::checked_edit(plan.clone(), query, &config.limits())
            .map_err(|e| ForkError::EditNotHere(format!("the plan cannot be used: {e}")))?;
        update.pending_searches = Some(plan.searches.clone());
        update.plan = Some(plan);
    }
    Ok(update)
}

/// Numbers a follow-up's carried sources first (1, 2, …) and their evidence after them, so the
/// run's own sources follow on in one numbering. Evidence of a source not carried is dropped;
/// its research question belonged to the earlier plan, so it has none here.
fn carry(state: &mut ResearchState, carried: &crate::family::Carried) {
    state.focus = carried.focus.clone();
    let mut ids = std::collections::BTreeMap::new();
    for source in &carried.sources {
        if ids.contains_key(&source.url) {
            continue;
        }
        let id = crate::Source::next_id(&state.sources);
        ids.insert(source.url.clone(), id);
        state.sources.push(crate::Source {
            id,
            ..source.clone()
        });
    }
    state.carried_sources = state.sources.len();
    for e in &carried.evidence {
        if let Some(&source_id) = ids.get(&e.source_url) {
            let id = crate::Evidence::next_id(&state.evidence);
            state.evidence.push(crate::Evidence {
                id,
                source_id,
                question: None,
                ..e.clone()
            });
        }
    }
}

/// The initial state of a run on `question`.
pub fn initial_state(question: &str, config: &RunConfig, now_ms: i64) -> ResearchState {
    follow_up_state(question, "", config, now_ms)
}

/// The initial state of a follow-up question, with the session's earlier turns as `context`.
pub fn follow_up_state(
    question: &str,
    context: &str,
    config: &RunConfig,
    now_ms: i64,
) -> ResearchState {
    ResearchState {
        context: context.trim().to_string(),
        query: question.trim().to_string(),
        mode: config.mode,
        language: config
            .language
            .clone()
            .unwrap_or_else(|| text::detect_language(question)),
        started_at_ms: now_ms,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Depth;
    use crate::family::Pipeline;

    #[test]
    fn the_estimate_counts_the_verification_loop_in_every_pipeline() {
        // Issue 52, N8: the loop is on by default; an estimate without it set a budget that
        // stopped exactly the runs whose claims were weakly supported.
        for pipeline in [
            &Standard as &dyn Pipeline,
            &crate::pipelines::trust::Trust,
            &crate::pipelines::review::Review,
        ] {
            for mode in [Mode::Single, Mode::Multi] {
                let mut config = RunConfig {
                    models: research_llm::ModelRouting::single("openai:gpt-4o-mini"),
                    mode,
                    verification_loops: 0,
                    ..RunConfig::default()
                };
                let without = pipeline.estimate(&config);
                config.verification_loops = 1;
                let with = pipeline.estimate(&config);
                config.verification_loops = 2;
                let twice = pipeline.estimate(&config);
                let name = pipeline.info().name;
                assert!(with.calls > without.calls, "{name} {mode:?}");
                assert!(twice.calls > with.calls, "{name} {mode:?}");
                assert!(with.cost_usd.unwrap() > without.cost_usd.unwrap());
            }
        }
    }

    #[test]
    fn deeper_runs_cost_more_and_local_models_cost_nothing() {
        let estimate = |config: &RunConfig| Pipeline::estimate(&Standard, config);
        let mut config = RunConfig {
            models: research_llm::ModelRouting::single("openai:gpt-4o-mini"),
            depth: Depth::Quick,
            ..RunConfig::default()
        };
        let quick = estimate(&config);
        config.depth = Depth::Comprehensive;
        let deep = estimate(&config);
        assert!(deep.calls > quick.calls && deep.tokens > quick.tokens);
        assert!(deep.cost_usd.unwrap() > quick.cost_usd.unwrap());
        config.mode = Mode::Multi;
        assert!(estimate(&config).calls > 0);
        config.models = research_llm::ModelRouting::single("ollama:qwen2.5:7b");
        assert_eq!(estimate(&config).cost_usd, Some(0.0));
        config.models = research_llm::ModelRouting::single("openai:some-future-model");
        assert_eq!(estimate(&config).cost_usd, None);
    }

    #[test]
    fn each_mode_outlines_only_its_own_path() {
        let nodes = |mode| {
            Standard
                .steps(&RunConfig {
                    mode,
                    ..RunConfig::default()
                })
                .into_iter()
                .map(|s| s.node)
                .collect::<Vec<_>>()
        };
        let single = nodes(Mode::Single);
        assert!(single.contains(&"search_and_extract".to_string()));
        assert!(!single.contains(&"search_worker".to_string()));
        let multi = nodes(Mode::Multi);
        assert!(multi.contains(&"search_worker".to_string()));
        assert!(!multi.contains(&"detect_gaps".to_string()));
        // Every node of the graph is in the table, in the order the graph adds them.
        let graph = graph(&RunConfig::default(), None).unwrap();
        let all: Vec<&str> = graph.node_names().collect();
        let table: Vec<&str> = RESEARCH.iter().chain(WRITING).map(|n| n.0).collect();
        assert_eq!(all, table);
    }
}
