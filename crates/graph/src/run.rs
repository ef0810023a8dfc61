//! Running a thread: the options, the outcome, and the two ways in, [`CompiledGraph::invoke`]
//! for a new thread and [`CompiledGraph::resume`] for a saved one.
//!
//! Semantics follow LangGraph's Pregel loop. A step runs every scheduled task concurrently against
//! the same state snapshot; no task sees another's writes until the step ends; then the writes are
//! folded in task order (never finishing order) and the edges of the tasks that ran choose the next
//! step's tasks. With a checkpointer, each task's writes are saved as the task finishes, so a run
//! killed in the middle of a step redoes only the tasks that had not finished.
//!
//! This module is the caller's side of a run, like LangGraph's `Pregel.invoke`: it sets up the
//! first step (or rebuilds the saved one and applies the answers), then hands over to the loop in
//! [`superstep`](crate::superstep). The rules of a step live in [`algo`](crate::algo), running its
//! tasks in [`runner`](crate::runner), and what is saved and how a thread is read back in
//! [`persist`](crate::persist); reading and editing a saved thread is [`thread`](crate::thread).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::algo::interrupt_id;
use crate::checkpoint::{ThreadId, WriteKind, WHOLE_STEP};
use crate::ctx::{Clock, SystemClock};
use crate::error::GraphError;
use crate::event::{emit, Event, EventSink, Interrupt};
use crate::graph::CompiledGraph;
use crate::state::State;
use crate::superstep::Cursor;

/// Per-run settings.
pub struct RunOptions<C> {
    /// The thread to create or continue.
    pub thread_id: ThreadId,
    /// The configuration every node receives.
    pub config: Arc<C>,
    /// Who receives the run's events.
    pub events: Option<Arc<dyn EventSink>>,
    /// Cancel to stop the run; in-flight tasks are dropped, finished ones stay saved.
    pub cancel: CancellationToken,
    /// Maximum supersteps in this invocation (default 25, as LangGraph).
    pub recursion_limit: usize,
    /// Maximum tasks running at once (default 16).
    pub max_concurrency: usize,
    /// The clock used for checkpoint times and given to nodes.
    pub clock: Arc<dyn Clock>,
}

impl<C> RunOptions<C> {
    /// Defaults for `thread_id` with `config`.
    pub fn new(thread_id: impl Into<ThreadId>, config: C) -> Self {
        Self {
            thread_id: thread_id.into(),
            config: Arc::new(config),
            events: None,
            cancel: CancellationToken::new(),
            recursion_limit: 25,
            max_concurrency: 16,
            clock: Arc::new(SystemClock),
        }
    }

    /// Sends events to `sink`.
    pub fn events(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.events = Some(sink);
        self
    }

    /// Sets the recursion limit.
    pub fn recursion_limit(mut self, limit: usize) -> Self {
        self.recursion_limit = limit;
        self
    }

    /// Sets the concurrency limit.
    pub fn max_concurrency(mut self, limit: usize) -> Self {
        self.max_concurrency = limit.max(1);
        self
    }

    /// Uses `cancel` as the run's cancellation token.
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Uses `clock`.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
}

impl From<String> for ThreadId {
    fn from(s: String) -> Self {
        ThreadId(s)
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome<S> {
    /// The run reached END.
    Finished(S),
    /// The run stopped to ask; resume the thread with the answers.
    Interrupted {
        /// The state so far.
        state: S,
        /// The questions, in task order.
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled; resume the thread to continue.
    Cancelled(S),
}

impl<S> RunOutcome<S> {
    /// The state at the end of the run.
    pub fn state(&self) -> &S {
        match self {
            RunOutcome::Finished(s) | RunOutcome::Cancelled(s) => s,
            RunOutcome::Interrupted { state, .. } => state,
        }
    }

    /// Takes the state.
    pub fn into_state(self) -> S {
        match self {
            RunOutcome::Finished(s) | RunOutcome::Cancelled(s) => s,
            RunOutcome::Interrupted { state, .. } => state,
        }
    }
}

/// What to continue a thread with (LangGraph's `Command(resume=…)` plus `update_state`).
#[derive(Debug, Clone)]
pub struct Resume<U> {
    /// The answer to the one pending interrupt.
    pub value: Option<Value>,
    /// Answers by interrupt id, when several interrupts wait.
    pub values: BTreeMap<String, Value>,
    /// A state update applied (with the reducers) before the run goes on.
    pub update: Option<U>,
}

impl<U> Default for Resume<U> {
    fn default() -> Self {
        Self {
            value: None,
            values: BTreeMap::new(),
            update: None,
        }
    }
}

impl<U> Resume<U> {
    /// Continue without an answer (after a crash, a cancel or a static pause).
    pub fn empty() -> Self {
        Self::default()
    }

    /// Answer the pending interrupt with `value`.
    pub fn with_value(value: impl Serialize) -> Self {
        Self {
            value: Some(serde_json::to_value(value).unwrap_or(Value::Null)),
            ..Self::default()
        }
    }

    /// Also apply `update` before continuing.
    pub fn and_update(mut self, update: U) -> Self {
        self.update = Some(update);
        self
    }
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Starts a new thread from `input` and runs it until it ends, stops to ask, or is cancelled.
    pub async fn invoke(&self, input: S, opts: RunOptions<C>) -> Result<RunOutcome<S>, GraphError> {
        if let Some(cp) = &self.checkpointer {
            if cp.load(&opts.thread_id, None).await?.is_some() {
                return Err(GraphError::ThreadExists(opts.thread_id.to_string()));
            }
        }
        let state = Arc::new(input);
        let mut tasks = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        for edge in &self.start_edges {
            self.follow(crate::graph::START, edge, &state, &mut tasks, &mut seen)?;
        }
        let mut cursor = Cursor {
            seq: 0,
            step: 0,
            done: vec![None; tasks.len()],
            resume: vec![Vec::new(); tasks.len()],
            tasks,
            state,
            waiting: Vec::new(),
            pause: None,
            state_updates: 0,
            bytes_since_snapshot: 0,
            last_snapshot_len: 0,
            carry: Vec::new(),
            unflushed: false,
        };
        emit(&opts.events, || Event::RunStarted {
            thread_id: opts.thread_id.clone(),
            resumed: false,
        });
        let pause = self.pause_before(&cursor);
        if let Some(cp) = &self.checkpointer {
            let snapshot = serde_json::to_vec(&*cursor.state)?;
            cursor.last_snapshot_len = snapshot.len();
            let record = self.record(&opts, &cursor, Some(snapshot))?;
            let mut writes = Vec::new();
            if let Some(p) = &pause {
                writes.push(self.write(&opts.thread_id, 0, WHOLE_STEP, WriteKind::Pause, 0, p)?);
            }
            if pause.is_some() {
                cp.put_checkpoint(record, writes).await?;
            } else {
                // The first step's checkpoint (or the flush before any return) makes it durable.
                cp.put_checkpoint_unflushed(record, writes).await?;
                cursor.unflushed = true;
            }
            emit(&opts.events, || Event::CheckpointSaved { checkpoint: 0 });
        }
        if let Some(pause) = pause {
            return self.pause(cursor, &opts, pause, true).await;
        }
        let unflushed = cursor.unflushed;
        let outcome = self.drive(cursor, &opts, false).await;
        self.flushed(unflushed, outcome).await
    }

    /// Continues a saved thread: after a crash, a cancel, a failure, or with answers to its interrupts.
    pub async fn resume(
        &self,
        resume: Resume<S::Update>,
        opts: RunOptions<C>,
    ) -> Result<RunOutcome<S>, GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        let chain = cp
            .load(&opts.thread_id, None)
            .await?
            .ok_or_else(|| GraphError::ThreadNotFound(opts.thread_id.to_string()))?;
        let mut cursor = self.rebuild(chain)?;
        if cursor.tasks.is_empty() {
            return Err(GraphError::AlreadyFinished(opts.thread_id.to_string()));
        }
        let mut writes = Vec::new();
        if !cursor.waiting.is_empty() {
            let mut answers = Vec::new();
            for (task, idx, _) in &cursor.waiting {
                let id = interrupt_id(cursor.seq, *task, *idx);
                let answer = match (resume.values.get(&id), &resume.value) {
                    (Some(v), _) => v.clone(),
                    (None, Some(v)) if cursor.waiting.len() == 1 => v.clone(),
                    (None, Some(_)) => {
                        return Err(GraphError::ResumeValueRequired(format!(
                            "{} questions are waiting; answer each by its id",
                            cursor.waiting.len()
                        )))
                    }
                    (None, None) => {
                        let node = &self.nodes[cursor.tasks[*task].node].name;
                        return Err(GraphError::ResumeValueRequired(format!(
                            "the run is waiting for an answer to the question from `{node}` (interrupt {id})"
                        )));
                    }
                };
                answers.push((*task, *idx, answer));
            }
            for (task, idx, answer) in answers {
                writes.push(self.write(
                    &opts.thread_id,
                    cursor.seq,
                    task as i64,
                    WriteKind::Resume,
                    idx,
                    &answer,
                )?);
                cursor.resume[task].push(answer);
            }
            cursor.waiting.clear();
        }
        if let Some(update) = resume.update {
            writes.push(self.write(
                &opts.thread_id,
                cursor.seq,
                WHOLE_STEP,
                WriteKind::StateUpdate,
                cursor.state_updates,
                &update,
            )?);
            Arc::make_mut(&mut cursor.state).apply(vec![update])?;
            cursor.state_updates += 1;
        }
        let released = cursor.pause.take().is_some();
        if released {
            cursor.carry.push(self.write(
                &opts.thread_id,
                cursor.seq,
                WHOLE_STEP,
                WriteKind::Release,
                0,
                &Value::Null,
            )?);
        }
        if !writes.is_empty() {
            // The resumed step's checkpoint (or the flush before any return) makes them durable.
            cp.put_writes_unflushed(writes).await?;
            cursor.unflushed = true;
        }
        emit(&opts.events, || Event::RunStarted {
            thread_id: opts.thread_id.clone(),
            resumed: true,
        });
        let unflushed = cursor.unflushed;
        let outcome = self.drive(cursor, &opts, released).await;
        self.flushed(unflushed, outcome).await
    }
}
