//! The research-graph engine: LangGraph's execution model in Rust.
//!
//! A graph is a set of async nodes over a typed [`State`]. A run proceeds in *supersteps*: every
//! task scheduled for a step runs concurrently against the same state; their [`State::Update`]s
//! become visible together when the step ends, folded field by field with each field's reducer
//! in task order. Edges, conditional edges and [`Send`] fan-out choose the next step's tasks.
//!
//! Runs can stop and continue: nodes [`interrupt`](NodeCtx::interrupt) with a question, graphs
//! pause before or after named nodes, and a [`Checkpointer`] saves every step and every finished
//! task, so a thread resumes after an answer, a cancel or a killed process without repeating
//! finished work. Everything that happens is streamed to an [`EventSink`].
//!
//! The engine knows nothing of research; the pipelines are built on it.
#![deny(missing_docs)]

extern crate self as research_graph;

mod algo;
mod checkpoint;
pub mod conformance;
mod ctx;
mod error;
mod event;
mod graph;
mod persist;
mod run;
mod runner;
mod state;
mod superstep;
mod thread;

pub use checkpoint::{
    CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer, MemoryCheckpointer, ThreadId,
    WriteKind, WriteRecord, WHOLE_STEP,
};
pub use ctx::{Clock, FixedClock, NodeCtx, RetryPolicy, SystemClock};
pub use error::{GraphError, NodeError};
pub use event::{Event, EventLog, EventSink, Interrupt, InterruptKind};
pub use graph::{
    CompileOptions, CompiledGraph, NodeOptions, Route, Routes, Send, StateGraph, END, START,
};
pub use run::{Resume, RunOptions, RunOutcome};
pub use state::{Append, MergeByKey, ReduceError, Reducer, Replace, State, Sum};
pub use thread::{CheckpointInfo, ThreadState, ThreadStatus};
pub use tokio_util::sync::CancellationToken;

#[doc(hidden)]
pub use serde as __serde;
