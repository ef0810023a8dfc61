//! Forks of research runs: a new run in the same session that starts from a stage of an
//! earlier one (its reading, plan, a research round, its draft) with edits — a changed reading
//! or plan, another model or pipeline, more depth or rounds, other providers — and repeats
//! nothing before it. The original and its report stay as they were.

use research_llm::ModelRouting;
use research_pipeline::fork::{ForkEdit, ForkError, ForkOf, ForkPoint, ForkStage};
use research_pipeline::{Depth, Plan};
use serde::{Deserialize, Serialize};

use super::SavedRun;
use crate::blocking::in_place;
use crate::{ApiError, ErrorCode, Studio, ThreadId};

/// A fork to make.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct ForkRequest {
    /// The stage to fork from: `reading`, `plan`, `round-N` or `draft`.
    pub at: String,
    /// A new reading of the question (at `reading`).
    pub reading: Option<String>,
    /// A new plan (at `plan`).
    pub plan: Option<Plan>,
    /// Other models.
    pub models: Option<ModelRouting>,
    /// Another pipeline (it must go on with the same steps from the fork point).
    pub pipeline: Option<String>,
    /// Another depth.
    pub depth: Option<Depth>,
    /// Another number of research rounds.
    pub max_iterations: Option<u32>,
    /// Other search providers.
    pub search: Option<Vec<String>>,
}

/// A fork made: its run (run it with [`Studio::run_research`]) and where it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ForkedRun {
    /// The session (the original's).
    pub session_id: String,
    /// The fork's run.
    pub thread_id: ThreadId,
    /// The run it was forked from.
    pub from: ThreadId,
    /// The stage it starts from, and what that holds.
    pub point: ForkPoint,
}

fn invalid(e: ForkError) -> ApiError {
    match e {
        ForkError::Graph(e) => ApiError::from(e),
        other => ApiError::new(ErrorCode::InvalidInput, other.to_string()),
    }
}

impl Studio {
    /// The stages research run `thread` can be forked from, in order, with what each holds.
    pub async fn fork_points(&self, thread: &ThreadId) -> Result<Vec<ForkPoint>, ApiError> {
        let (pipeline, saved) = self.research_run(thread)?;
        Ok(pipeline
            .fork_points(&saved.config, self.cp(), thread)
            .await?
            .into_iter()
            .map(|(p, _)| p)
            .collect())
    }

    /// Forks research run `thread` at `request.at` with the request's edits: a new run in the
    /// same session.
    pub async fn fork_research(
        &self,
        thread: &ThreadId,
        request: &ForkRequest,
    ) -> Result<ForkedRun, ApiError> {
        let (source, saved) = self.research_run(thread)?;
        let stage = ForkStage::parse(&request.at).ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{:?} is no stage; fork at reading, plan, round-N or draft",
                    request.at
                ),
            )
        })?;
        let target = match &request.pipeline {
            Some(name) => self.pipeline(name)?,
            None => source.clone(),
        };
        let mut config = saved.config.clone();
        if let Some(models) = &request.models {
            for model in models.models() {
                model
                    .parse::<research_llm::ModelSpec>()
                    .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
            }
            config.models = models.clone();
        }
        if let Some(depth) = request.depth {
            config.depth = depth;
        }
        if let Some(rounds) = request.max_iterations {
            if rounds == 0 {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    "a run needs at least one research round",
                ));
            }
            config.max_iterations = Some(rounds);
        }
        if let Some(search) = request.search.clone().filter(|s| !s.is_empty()) {
            config.search = search;
        }
        let points = source.fork_points(&saved.config, self.cp(), thread).await?;
        let Some((_, next)) = points.iter().find(|(p, _)| p.stage == stage.name()) else {
            return Err(invalid(ForkError::no_such_stage(stage, &points)));
        };
        if let Some(node) = next
            .iter()
            .find(|n| !target.has_steps(&config, std::slice::from_ref(n)))
        {
            return Err(invalid(ForkError::OtherPipeline {
                pipeline: target.info().name,
                node: node.clone(),
            }));
        }
        let into = ThreadId::new(uuid::Uuid::now_v7().to_string());
        let edit = ForkEdit {
            reading: request.reading.clone(),
            plan: request.plan.clone(),
        };
        let point = source
            .fork(
                &saved.config,
                self.cp(),
                ForkOf {
                    from: thread,
                    stage,
                    into: &into,
                    edit: &edit,
                },
                self.clock.as_ref(),
            )
            .await
            .map_err(invalid)?;
        let sessions = self.sessions();
        let fork = SavedRun {
            config,
            forked_from: Some(super::RunOrigin {
                from: thread.to_string(),
                stage: stage.name(),
            }),
            ..saved.clone()
        };
        let thread_id =
            in_place(|| self.register_run_as(&*sessions, &target.info().name, &fork, into))?;
        Ok(ForkedRun {
            session_id: saved.session_id,
            thread_id,
            from: thread.clone(),
            point,
        })
    }
}
