//! Streamed run events and the [`EventSink`] seam that receives them.
//!
//! The engine does not know who watches a run: a terminal, a Tauri channel, a test. It hands
//! every event to an `EventSink`, which must not block (send it on, or record it).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ThreadId;

/// Where an interrupt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum InterruptKind {
    /// Raised inside a node by [`NodeCtx::interrupt`](crate::NodeCtx::interrupt).
    Dynamic,
    /// A static pause before the node ran (`interrupt_before`).
    Before,
    /// A static pause after the node ran (`interrupt_after`).
    After,
}

/// A pending question, as the caller sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Interrupt {
    /// Stable id: `checkpoint:task:index`; pass it back to answer this interrupt among several.
    pub id: String,
    /// The node that asked, or the node paused at.
    pub node: String,
    /// Dynamic or static.
    pub kind: InterruptKind,
    /// The node's payload (the question); `null` for static pauses.
    pub payload: Value,
}

/// One thing that happened during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The run began or resumed.
    RunStarted {
        /// The thread.
        thread_id: ThreadId,
        /// True when continuing a saved thread.
        resumed: bool,
    },
    /// A task began.
    NodeStarted {
        /// Superstep number within the thread.
        step: u64,
        /// Task index within the step.
        task: u32,
        /// Node name.
        node: String,
    },
    /// A task finished with an update.
    NodeFinished {
        /// Superstep number.
        step: u64,
        /// Task index.
        task: u32,
        /// Node name.
        node: String,
        /// The update it wrote (`null` when the sink does not want updates).
        update: Value,
    },
    /// A task failed and will be tried again.
    NodeRetrying {
        /// Node name.
        node: String,
        /// The attempt that failed (1-based).
        attempt: u32,
        /// Why it failed.
        error: String,
        /// Wait before the next attempt.
        delay_ms: u64,
    },
    /// Progress reported by a node.
    Custom {
        /// Node name.
        node: String,
        /// Task index within its step, when a task said it (parallel workers are told apart by
        /// it); `None` for events from outside a task.
        task: Option<u32>,
        /// What the node said.
        payload: Value,
    },
    /// A piece of model output streamed by a node.
    Token {
        /// Node name.
        node: String,
        /// Task index within its step.
        task: Option<u32>,
        /// The text.
        text: String,
    },
    /// The run stopped to ask.
    Interrupted {
        /// What it asks.
        interrupts: Vec<Interrupt>,
    },
    /// A checkpoint was saved.
    CheckpointSaved {
        /// Its sequence number in the thread.
        checkpoint: u64,
    },
    /// The run reached the end.
    RunFinished {
        /// Supersteps taken by this invocation.
        steps: u64,
    },
    /// The run stopped with an error; the thread can be resumed.
    RunFailed {
        /// One sentence.
        error: String,
    },
    /// The run was cancelled; the thread can be resumed.
    RunCancelled,
}

/// Receives run events. Implementations must return quickly.
pub trait EventSink: Send + Sync {
    /// Takes one event.
    fn emit(&self, event: Event);

    /// Whether `NodeFinished` should carry the update (serialising it costs time).
    fn wants_updates(&self) -> bool {
        true
    }
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<Event> {
    fn emit(&self, event: Event) {
        // A closed receiver means nobody watches any more; the run goes on regardless.
        let _ = self.send(event);
    }
}

impl<F: Fn(Event) + Send + Sync> EventSink for F {
    fn emit(&self, event: Event) {
        self(event)
    }
}

/// Keeps every event in memory, for tests and for callers that read them afterwards.
#[derive(Debug, Default, Clone)]
pub struct EventLog(Arc<Mutex<Vec<Event>>>);

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the events so far.
    pub fn events(&self) -> Vec<Event> {
        self.0
            .lock()
            .map(|events| events.clone())
            .unwrap_or_default()
    }
}

impl EventSink for EventLog {
    fn emit(&self, event: Event) {
        if let Ok(mut events) = self.0.lock() {
            events.push(event);
        }
    }
}

/// Hands an event to the run's sink, if it has one; the event is only built when someone listens.
pub(crate) fn emit(sink: &Option<Arc<dyn EventSink>>, event: impl FnOnce() -> Event) {
    if let Some(sink) = sink {
        sink.emit(event());
    }
}
