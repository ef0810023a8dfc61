//! Forks: a new run that starts from a stage of an earlier one — after the reading of the
//! question, after planning, after a research round, after the draft — with edits, and repeats
//! nothing before it.
//!
//! Why stages and not checkpoints: a person thinks "re-plan this" or "one more round with a
//! stronger model", not "checkpoint 7". Each pipeline names the stage of a checkpoint from what
//! it holds and what it runs next ([`Flow::fork_stage`](crate::Flow::fork_stage)); the engine's
//! fork copies that checkpoint into the new thread, so the fork's ledger starts empty at the
//! fork point.

use research_graph::GraphError;
use serde::{Deserialize, Serialize};

use crate::records::Plan;

/// A stage a run can be forked from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ForkStage {
    /// The question is read (and clarified); planning comes next.
    Reading,
    /// The plan is made (and reviewed); research comes next.
    Plan,
    /// Research round N has read its pages; its judgement of coverage and gaps comes next.
    Round(u32),
    /// The draft is written; checking and reviewing it come next.
    Draft,
}

impl ForkStage {
    /// Its name for `--at`: `reading`, `plan`, `round-N`, `draft`.
    pub fn name(&self) -> String {
        match self {
            ForkStage::Reading => "reading".into(),
            ForkStage::Plan => "plan".into(),
            ForkStage::Round(n) => format!("round-{n}"),
            ForkStage::Draft => "draft".into(),
        }
    }

    /// The stage named `name` (as [`ForkStage::name`] gives it; `round N` and `roundN` too).
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "reading" | "read" | "understand" => Some(ForkStage::Reading),
            "plan" | "planning" => Some(ForkStage::Plan),
            "draft" => Some(ForkStage::Draft),
            _ => name
                .strip_prefix("round")
                .map(|n| n.trim_start_matches(['-', ' ', '_']))
                .and_then(|n| n.parse().ok())
                .filter(|n: &u32| *n >= 1)
                .map(ForkStage::Round),
        }
    }
}

/// A stage of a run it can be forked from, and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ForkPoint {
    /// Its name for `--at` (`reading`, `plan`, `round-1`, …, `draft`).
    pub stage: String,
    /// The checkpoint it is.
    pub checkpoint: u64,
    /// What the run holds there, in words.
    pub holds: String,
    /// The plan there (at `plan`), to edit for a fork.
    pub plan: Option<Plan>,
    /// The reading of the question there (at `reading`), to edit for a fork.
    pub reading: Option<String>,
}

/// What a pipeline says of a checkpoint that is a fork stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageView {
    /// The stage.
    pub stage: ForkStage,
    /// What the run holds there, in words.
    pub holds: String,
    /// The plan there, when a fork may edit it.
    pub plan: Option<Plan>,
    /// The reading there, when a fork may edit it.
    pub reading: Option<String>,
}

/// What a fork changes at its fork point besides its configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForkEdit {
    /// A new reading of the question (at `reading`).
    pub reading: Option<String>,
    /// A new plan (at `plan`).
    pub plan: Option<Plan>,
}

/// A fork to make: of which run, from which stage, into which new thread, with which edit.
#[derive(Debug, Clone, Copy)]
pub struct ForkOf<'a> {
    /// The run forked.
    pub from: &'a research_graph::ThreadId,
    /// The stage it is forked from.
    pub stage: ForkStage,
    /// The new thread.
    pub into: &'a research_graph::ThreadId,
    /// What changes at the fork point.
    pub edit: &'a ForkEdit,
}

/// Why a fork could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    /// The run never reached that stage.
    #[error("the run has no fork point {stage}; it has: {known}")]
    NoSuchStage {
        /// The stage asked for.
        stage: String,
        /// The stages it has.
        known: String,
    },
    /// The edit belongs to another stage.
    #[error("{0}")]
    EditNotHere(String),
    /// The target pipeline does not have the step the fork goes on with.
    #[error("the {pipeline} pipeline has no step {node} to go on from there; fork at an earlier stage to change pipelines")]
    OtherPipeline {
        /// The target pipeline.
        pipeline: String,
        /// The step it lacks.
        node: String,
    },
    /// The engine failed.
    #[error(transparent)]
    Graph(#[from] GraphError),
}

impl ForkError {
    /// The run has no `stage`; `points` are the stages it has.
    pub fn no_such_stage<T>(stage: ForkStage, points: &[(ForkPoint, T)]) -> Self {
        ForkError::NoSuchStage {
            stage: stage.name(),
            known: points
                .iter()
                .map(|(p, _)| p.stage.clone())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_read_back_their_names() {
        for stage in [
            ForkStage::Reading,
            ForkStage::Plan,
            ForkStage::Round(1),
            ForkStage::Round(12),
            ForkStage::Draft,
        ] {
            assert_eq!(ForkStage::parse(&stage.name()), Some(stage));
        }
        assert_eq!(ForkStage::parse("Round 2"), Some(ForkStage::Round(2)));
        assert_eq!(ForkStage::parse("round-0"), None);
        assert_eq!(ForkStage::parse("writing"), None);
    }
}
