//! The demo graph: a fan-out of sleeping workers and a join. It exercises every part of the
//! engine the pipelines rely on (Send fan-out under a concurrency limit, per-task checkpoints,
//! resume after a crash) without any provider, so the CLI, the app and CI can show it anywhere.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, NodeCtx, NodeError, NodeOptions, Send,
    StateGraph, END, START,
};
use serde::{Deserialize, Serialize};

/// The demo's run configuration (saved with the thread, so a resume runs it the same way).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DemoConfig {
    /// Number of workers.
    pub workers: u32,
    /// Workers running at once.
    pub concurrency: u32,
    /// How long each worker sleeps.
    pub task_ms: u64,
    /// A file each worker appends its index to just before it returns.
    pub exec_log: Option<PathBuf>,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self {
            workers: 8,
            concurrency: 4,
            task_ms: 200,
            exec_log: None,
        }
    }
}

/// One worker's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerResult {
    /// The worker's index.
    pub index: u32,
    /// Its result (the index squared).
    pub value: u64,
}

research_graph::state! {
    /// The demo's state.
    pub struct DemoState / DemoUpdate {
        /// How many workers the plan sends.
        pub workers: u32 => Replace,
        /// Every worker's result, appended (a worker that ran twice would show twice).
        pub results: Vec<WorkerResult> => Append,
        /// The join's summary.
        pub summary: String => Replace,
    }
}

fn append_line(path: &PathBuf, index: u32) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(file, "{index}")?;
    file.sync_data()
}

/// Builds the demo graph on `checkpointer`.
pub fn graph(
    checkpointer: Option<Arc<dyn Checkpointer>>,
) -> Result<CompiledGraph<DemoState, DemoConfig>, GraphError> {
    let mut g = StateGraph::<DemoState, DemoConfig>::new();
    g.add_node("plan", |_, ctx: NodeCtx<DemoConfig>| async move {
        Ok(DemoUpdate {
            workers: Some(ctx.config.workers),
            ..Default::default()
        })
    });
    g.add_worker(
        "worker",
        NodeOptions::default(),
        |index: u32, ctx: NodeCtx<DemoConfig>| async move {
            ctx.emit(serde_json::json!({ "worker": index, "status": "working" }));
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ctx.config.task_ms)) => {}
                _ = ctx.cancel.cancelled() => return Err(NodeError::Cancelled),
            }
            if let Some(path) = &ctx.config.exec_log {
                append_line(path, index).map_err(|e| {
                    NodeError::permanent(format!(
                        "could not write the execution log {}: {e}",
                        path.display()
                    ))
                })?;
            }
            Ok(DemoUpdate {
                results: Some(vec![WorkerResult {
                    index,
                    value: u64::from(index).pow(2),
                }]),
                ..Default::default()
            })
        },
    );
    g.add_node("summarize", |state: Arc<DemoState>, _| async move {
        let total: u64 = state.results.iter().map(|r| r.value).sum();
        let summary = format!(
            "{} workers finished; sum of squares {total}",
            state.results.len()
        );
        Ok(DemoUpdate {
            summary: Some(summary),
            ..Default::default()
        })
    });
    g.add_edge(START, "plan");
    g.add_conditional_edges(
        "plan",
        |state: &DemoState| {
            (0..state.workers)
                .map(|i| Send::new("worker", i))
                .collect::<Vec<_>>()
        },
        &["worker"],
    );
    g.add_edge("worker", "summarize");
    g.add_edge("summarize", END);
    g.compile(CompileOptions {
        checkpointer,
        ..Default::default()
    })
}
