//! The seam between the pipelines and everything above them.
//!
//! A pipeline is written against [`Flow`]: its own state type, its graph, its initial state,
//! and a [`RunView`] of its state in the terms every pipeline shares (report, sources, evidence,
//! claims, method, the summary a follow-up starts from). The blanket [`Pipeline`] impl erases
//! the state type, so the api, the CLI and the app run, resume, outline and estimate any
//! registered pipeline without knowing its nodes. A new pipeline is one file implementing
//! `Flow` and one line in [`Registry::builtin`].

use std::sync::Arc;

use async_trait::async_trait;
use research_graph::{
    Checkpointer, CompiledGraph, GraphError, Interrupt, Resume, RunOptions, RunOutcome, ThreadId,
};
use research_llm::{Meter, PriceTable};
use serde::{Deserialize, Serialize};

use crate::config::RunConfig;
use crate::eval::RunResult;
use crate::fork::{ForkEdit, ForkError, ForkOf, ForkPoint, ForkStage, StageView};
use crate::method::RunMethod;
use crate::records::Answer;
use crate::roles::Role;
use crate::Env;

/// A pipeline's name and what it is for, for `research graph --list` and the app's picker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PipelineInfo {
    /// The name it is registered (and saved with each thread) under.
    pub name: String,
    /// A short title.
    pub title: String,
    /// One sentence on when to use it.
    pub summary: String,
}

/// One step of a run, as the live view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct OutlineStep {
    /// The graph node.
    pub node: String,
    /// The model role its calls use (none for steps without model calls).
    pub role: Option<Role>,
    /// What the run is doing while at this step, in words.
    pub doing: String,
}

impl OutlineStep {
    /// A step.
    pub fn new(node: &str, role: Option<Role>, doing: &str) -> Self {
        Self {
            node: node.into(),
            role,
            doing: doing.into(),
        }
    }
}

/// The steps a run walks for a configuration, and the whole graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Outline {
    /// The steps this configuration takes, in the order a run reaches them.
    pub steps: Vec<OutlineStep>,
    /// The whole graph as a Mermaid diagram.
    pub mermaid: String,
}

/// What a run is expected to use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunEstimate {
    /// Model calls.
    pub calls: u64,
    /// Prompt and completion tokens.
    pub tokens: u64,
    /// Estimated cost in US dollars; `None` when a model's price is unknown.
    pub cost_usd: Option<f64>,
}

impl RunEstimate {
    /// Prices `calls` per role with each role's typical tokens and the model it is routed to.
    pub fn of(calls: &[(Role, u64)], config: &RunConfig) -> Self {
        let prices = PriceTable::builtin();
        let mut total_calls = 0;
        let mut tokens = 0;
        let mut cost = Some(0.0);
        for &(role, n) in calls {
            let (p, c) = role.typical_tokens();
            total_calls += n;
            tokens += n * (p + c);
            cost = match (cost, prices.cost(role.model(&config.models), n * p, n * c)) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
        }
        RunEstimate {
            calls: total_calls,
            tokens,
            cost_usd: cost,
        }
    }
}

/// What a new run starts from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunRequest {
    /// The question.
    pub question: String,
    /// Earlier turns of the session, for a follow-up (empty otherwise).
    pub context: String,
    /// The session's sources and evidence a follow-up starts from (empty otherwise).
    pub carried: Carried,
    /// The configuration.
    pub config: RunConfig,
    /// When it starts (ms since the epoch).
    pub now_ms: i64,
}

/// What a follow-up carries over from its session: the sources read by earlier turns (their
/// stored texts re-verified against their hashes by the caller) and the evidence taken from
/// them. The run numbers them first, so old and new sources share one numbering, reads none of
/// them again, and counts only new sources against its depth's limit.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Carried {
    /// What the session is about: the focus a follow-up inherits.
    #[serde(default)]
    pub focus: Vec<String>,
    /// Sources, in the order they are to be numbered.
    pub sources: Vec<crate::Source>,
    /// Evidence from those sources (matched to them by `source_url`).
    pub evidence: Vec<crate::Evidence>,
}

/// A run's state in the terms every pipeline shares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    /// The result (its usage counters are filled from the run's meter by [`Pipeline`]).
    pub result: RunResult,
    /// How the run went, for the Method panel.
    pub method: RunMethod,
    /// What a follow-up question starts from: the answer in a few sentences.
    pub summary: String,
}

/// Where a run stands after running.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// It ended (a report, or cancelled or rejected by its reviewer).
    Finished,
    /// It waits on these questions.
    Waiting(Vec<Interrupt>),
    /// It was cancelled from outside; resuming continues it.
    Cancelled,
}

/// A run after running or resuming.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Where it stands.
    pub status: RunStatus,
    /// What it has produced.
    pub view: RunView,
}

/// A pipeline written against its own state type. Implement this; [`Pipeline`] follows.
pub trait Flow: Send + Sync + 'static {
    /// The pipeline's state.
    type State: research_graph::State;
    /// Its name and purpose.
    fn info(&self) -> PipelineInfo;
    /// Every role its model calls use (for the models-per-role record).
    fn roles(&self) -> Vec<Role>;
    /// Its graph for `config`, saving checkpoints to `checkpointer` when given.
    fn graph(
        &self,
        config: &RunConfig,
        checkpointer: Option<Arc<dyn Checkpointer>>,
    ) -> Result<CompiledGraph<Self::State, Env>, GraphError>;
    /// The steps a run with `config` walks, in order.
    fn steps(&self, config: &RunConfig) -> Vec<OutlineStep>;
    /// The model calls per role a run with `config` is expected to make.
    fn calls(&self, config: &RunConfig) -> Vec<(Role, u64)>;
    /// The initial state of a run.
    fn initial(&self, request: &RunRequest) -> Self::State;
    /// The shared view of a state.
    fn view(&self, state: &Self::State) -> RunView;
    /// The fork stage of a checkpoint whose state is `state` and whose next steps are `next`,
    /// with what it holds in words; none for a checkpoint that is no stage (the default: a
    /// pipeline's runs have no fork points until it names them).
    fn fork_stage(&self, next: &[String], state: &Self::State) -> Option<StageView> {
        let _ = (next, state);
        None
    }
    /// The update that starts a fork at `stage` at `now_ms` with `edit` applied; `at` is the
    /// state at the fork point and `config` the fork's, so an edit is judged as the run would
    /// judge it (a plan against the run's question and the depth's limits).
    fn fork_edit(
        &self,
        stage: ForkStage,
        edit: &ForkEdit,
        at: &Self::State,
        config: &RunConfig,
        now_ms: i64,
    ) -> Result<<Self::State as research_graph::State>::Update, ForkError> {
        let _ = (edit, at, config, now_ms);
        Err(ForkError::NoSuchStage {
            stage: stage.name(),
            known: "none (this pipeline's runs cannot be forked)".into(),
        })
    }
}

/// Any pipeline, its state type erased: what the api and the app use.
#[async_trait]
pub trait Pipeline: Send + Sync {
    /// Its name and purpose.
    fn info(&self) -> PipelineInfo;
    /// The steps a run with `config` walks, and the whole graph.
    fn outline(&self, config: &RunConfig) -> Result<Outline, GraphError>;
    /// What a run with `config` is expected to use.
    fn estimate(&self, config: &RunConfig) -> RunEstimate;
    /// Which model answers each of its roles under `config`.
    fn models(&self, config: &RunConfig) -> std::collections::BTreeMap<String, String>;
    /// Starts the thread of `opts` on `request`.
    async fn start(
        &self,
        request: RunRequest,
        checkpointer: Arc<dyn Checkpointer>,
        opts: RunOptions<Env>,
    ) -> Result<Run, GraphError>;
    /// Continues the thread of `opts` from its last checkpoint, with `answer` when it waits.
    async fn resume(
        &self,
        config: &RunConfig,
        answer: Option<Answer>,
        checkpointer: Arc<dyn Checkpointer>,
        opts: RunOptions<Env>,
    ) -> Result<Run, GraphError>;
    /// The questions `thread` waits on (none for a thread that never ran).
    async fn waiting_on(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<Vec<Interrupt>, GraphError>;
    /// The stages `thread` can be forked from, in order, with the steps each goes on with.
    async fn fork_points(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<Vec<(ForkPoint, Vec<String>)>, GraphError>;
    /// Starts thread `fork.into` from the stage `fork.stage` of `fork.from`, with `fork.edit`
    /// applied (`config` is the forked run's).
    async fn fork(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        fork: ForkOf<'_>,
        clock: &dyn research_graph::Clock,
    ) -> Result<ForkPoint, ForkError>;
    /// Whether its graph under `config` has every one of `steps` (a fork from another
    /// pipeline goes on with them).
    fn has_steps(&self, config: &RunConfig, steps: &[String]) -> bool;
    /// Whether `thread` has saved any step.
    async fn has_started(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<bool, GraphError>;
}

fn finish<F: Flow>(
    flow: &F,
    thread: &str,
    outcome: RunOutcome<F::State>,
    meter: &Meter,
    models: std::collections::BTreeMap<String, String>,
) -> Run {
    let (status, state) = match outcome {
        RunOutcome::Finished(state) => (RunStatus::Finished, state),
        RunOutcome::Interrupted { state, interrupts } => (RunStatus::Waiting(interrupts), state),
        RunOutcome::Cancelled(state) => (RunStatus::Cancelled, state),
    };
    let mut view = flow.view(&state);
    view.result.thread_id = thread.to_string();
    view.result.metadata.with_usage(meter, models);
    view.method.metadata = view.result.metadata.clone();
    Run { status, view }
}

#[async_trait]
impl<F: Flow> Pipeline for F {
    fn info(&self) -> PipelineInfo {
        Flow::info(self)
    }

    fn outline(&self, config: &RunConfig) -> Result<Outline, GraphError> {
        Ok(Outline {
            steps: self.steps(config),
            mermaid: self.graph(config, None)?.mermaid(),
        })
    }

    fn estimate(&self, config: &RunConfig) -> RunEstimate {
        RunEstimate::of(&self.calls(config), config)
    }

    fn models(&self, config: &RunConfig) -> std::collections::BTreeMap<String, String> {
        self.roles()
            .into_iter()
            .map(|r| (r.name().to_string(), r.model(&config.models).to_string()))
            .collect()
    }

    async fn start(
        &self,
        request: RunRequest,
        checkpointer: Arc<dyn Checkpointer>,
        opts: RunOptions<Env>,
    ) -> Result<Run, GraphError> {
        let graph = self.graph(&request.config, Some(checkpointer))?;
        let meter = opts.config.models.meter().clone();
        let models = Pipeline::models(self, &request.config);
        let thread = opts.thread_id.to_string();
        let outcome = graph.invoke(self.initial(&request), opts).await?;
        Ok(finish(self, &thread, outcome, &meter, models))
    }

    async fn resume(
        &self,
        config: &RunConfig,
        answer: Option<Answer>,
        checkpointer: Arc<dyn Checkpointer>,
        opts: RunOptions<Env>,
    ) -> Result<Run, GraphError> {
        let graph = self.graph(config, Some(checkpointer))?;
        let meter = opts.config.models.meter().clone();
        let models = Pipeline::models(self, config);
        let thread = opts.thread_id.to_string();
        let resume = match answer {
            Some(a) => Resume::with_value(a),
            None => Resume::empty(),
        };
        let outcome = graph.resume(resume, opts).await?;
        Ok(finish(self, &thread, outcome, &meter, models))
    }

    async fn waiting_on(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<Vec<Interrupt>, GraphError> {
        let graph = self.graph(config, Some(checkpointer))?;
        match graph.get_state(thread, None).await {
            Ok(state) => Ok(state.interrupts),
            Err(GraphError::ThreadNotFound(_)) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    async fn fork_points(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<Vec<(ForkPoint, Vec<String>)>, GraphError> {
        let graph = self.graph(config, Some(checkpointer))?;
        let mut found: std::collections::BTreeMap<ForkStage, (ForkPoint, Vec<String>)> =
            Default::default();
        for info in graph.history(thread).await? {
            let at = graph.get_state(thread, Some(info.checkpoint)).await?;
            let Some(view) = self.fork_stage(&info.next, &at.state) else {
                continue;
            };
            let stage = view.stage;
            // The draft as first written; every other stage as it stood when the next began
            // (after its clarification or review).
            if stage == ForkStage::Draft && found.contains_key(&stage) {
                continue;
            }
            found.insert(
                stage,
                (
                    ForkPoint {
                        stage: stage.name(),
                        checkpoint: info.checkpoint,
                        holds: view.holds,
                        plan: view.plan,
                        reading: view.reading,
                    },
                    info.next.clone(),
                ),
            );
        }
        Ok(found.into_values().collect())
    }

    async fn fork(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        fork: ForkOf<'_>,
        clock: &dyn research_graph::Clock,
    ) -> Result<ForkPoint, ForkError> {
        let ForkOf {
            from: thread,
            stage,
            into,
            edit,
        } = fork;
        let points = Pipeline::fork_points(self, config, checkpointer.clone(), thread).await?;
        let Some((point, _)) = points.iter().find(|(p, _)| p.stage == stage.name()) else {
            return Err(ForkError::no_such_stage(stage, &points));
        };
        let graph = self.graph(config, Some(checkpointer))?;
        let at = graph.get_state(thread, Some(point.checkpoint)).await?;
        let update = self.fork_edit(stage, edit, &at.state, config, clock.now_ms())?;
        graph.fork(thread, point.checkpoint, into, clock).await?;
        graph.update_state(into, update).await?;
        Ok(point.clone())
    }

    fn has_steps(&self, config: &RunConfig, steps: &[String]) -> bool {
        match self.graph(config, None) {
            Ok(graph) => {
                let names: Vec<&str> = graph.node_names().collect();
                steps.iter().all(|s| names.contains(&s.as_str()))
            }
            Err(_) => false,
        }
    }

    async fn has_started(
        &self,
        config: &RunConfig,
        checkpointer: Arc<dyn Checkpointer>,
        thread: &ThreadId,
    ) -> Result<bool, GraphError> {
        let graph = self.graph(config, Some(checkpointer))?;
        match graph.history(thread).await {
            Ok(history) => Ok(!history.is_empty()),
            Err(GraphError::ThreadNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// The pipelines a process can run, by name.
#[derive(Clone)]
pub struct Registry {
    pipelines: Vec<Arc<dyn Pipeline>>,
}

/// Names saved with threads by earlier versions, and the pipeline each now resumes on.
const FORMER_NAMES: &[(&str, &str)] = &[("research", crate::pipelines::standard::NAME)];

impl Registry {
    /// The pipelines that ship with the app.
    pub fn builtin() -> Self {
        Self {
            pipelines: vec![
                Arc::new(crate::pipelines::standard::Standard),
                Arc::new(crate::pipelines::review::Review),
                Arc::new(crate::pipelines::trust::Trust),
            ],
        }
    }

    /// This registry with `pipeline` added (replacing one of the same name).
    pub fn with(mut self, pipeline: Arc<dyn Pipeline>) -> Self {
        let name = pipeline.info().name;
        self.pipelines.retain(|p| p.info().name != name);
        self.pipelines.push(pipeline);
        self
    }

    /// The pipeline registered as `name` (or under a name it had before).
    pub fn get(&self, name: &str) -> Option<Arc<dyn Pipeline>> {
        let name = FORMER_NAMES
            .iter()
            .find(|(old, _)| *old == name)
            .map_or(name, |(_, new)| new);
        self.pipelines
            .iter()
            .find(|p| p.info().name == name)
            .cloned()
    }

    /// The pipeline a run gets when none is named: the first registered.
    pub fn default_pipeline(&self) -> Option<Arc<dyn Pipeline>> {
        self.pipelines.first().cloned()
    }

    /// Every pipeline's name and purpose, in registration order.
    pub fn list(&self) -> Vec<PipelineInfo> {
        self.pipelines.iter().map(|p| p.info()).collect()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::builtin()
    }
}
