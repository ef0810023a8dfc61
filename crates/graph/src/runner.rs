//! Running one step's tasks: concurrently up to the run's limit, each with its node's retry policy
//! and timeout, panics caught, the whole step dropped on cancel.
//!
//! Like LangGraph's `_runner.py`, this is the only place nodes are called. It reports how each task
//! ended and saves each finished task's write as it comes in (when the step has more than one
//! task), so a killed step is redone only for the tasks that had not finished; what the ends mean
//! for the thread is the loop's business.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::Value;

use crate::checkpoint::{CheckpointError, WriteKind};
use crate::ctx::NodeCtx;
use crate::error::NodeError;
use crate::event::{emit, Event};
use crate::graph::{CompiledGraph, TaskInput};
use crate::run::RunOptions;
use crate::state::State;
use crate::superstep::Cursor;

/// How one task of a step ended.
pub(crate) enum TaskEnd<U> {
    Done {
        update: U,
        saved_bytes: Option<usize>,
    },
    Interrupted(Value),
    Failed {
        attempts: u32,
        message: String,
    },
    Panicked(String),
    SaveFailed(CheckpointError),
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Runs the unfinished tasks of the current step; `None` when cancelled.
    pub(crate) async fn run_step(
        &self,
        cursor: &Cursor<S>,
        opts: &RunOptions<C>,
        empty: &Arc<[Value]>,
    ) -> Option<Vec<(usize, TaskEnd<S::Update>)>> {
        let pending: Vec<usize> = (0..cursor.tasks.len())
            .filter(|&i| cursor.done[i].is_none())
            .collect();
        // A lone task's write travels with the next checkpoint in one transaction: same
        // durability (if the process dies first, the task simply runs again), one commit fewer.
        let save_each = pending.len() > 1;
        let make = |i: usize| {
            let task = &cursor.tasks[i];
            let resume = if cursor.resume[i].is_empty() {
                empty.clone()
            } else {
                Arc::from(cursor.resume[i].clone())
            };
            let input = match &task.input {
                Some(v) => TaskInput::Sent(v.clone()),
                None => TaskInput::State(cursor.state.clone()),
            };
            self.run_task(
                i,
                task.node,
                input,
                resume,
                cursor.seq,
                cursor.step,
                opts,
                save_each,
            )
            .map(move |end| (i, end))
        };
        if pending.len() == 1 {
            let fut = make(pending[0]);
            return tokio::select! {
                biased;
                _ = opts.cancel.cancelled() => None,
                end = fut => Some(vec![end]),
            };
        }
        let mut queue = pending.into_iter();
        let mut running = FuturesUnordered::new();
        for i in queue.by_ref().take(opts.max_concurrency.max(1)) {
            running.push(make(i));
        }
        let mut ends = Vec::with_capacity(cursor.tasks.len());
        loop {
            tokio::select! {
                biased;
                _ = opts.cancel.cancelled() => return None,
                end = running.next() => match end {
                    Some(end) => {
                        ends.push(end);
                        if let Some(i) = queue.next() {
                            running.push(make(i));
                        }
                    }
                    None => break,
                },
            }
        }
        ends.sort_by_key(|(i, _)| *i);
        Some(ends)
    }

    /// Runs one task to its end: retries, timeout and panics included; with `save_each`, its
    /// write (or its question, or its error) is saved as soon as it ends.
    #[allow(clippy::too_many_arguments)]
    async fn run_task(
        &self,
        index: usize,
        node_index: usize,
        input: TaskInput<S>,
        resume: Arc<[Value]>,
        seq: u64,
        step: u64,
        opts: &RunOptions<C>,
        save_each: bool,
    ) -> TaskEnd<S::Update> {
        let node = &self.nodes[node_index];
        emit(&opts.events, || Event::NodeStarted {
            step,
            task: index as u32,
            node: node.name.to_string(),
        });
        let mut attempt = 0;
        let result = loop {
            attempt += 1;
            let ctx = NodeCtx {
                config: opts.config.clone(),
                cancel: opts.cancel.clone(),
                clock: opts.clock.clone(),
                node: node.name.clone(),
                step,
                task: index as u32,
                sink: opts.events.clone(),
                resume: resume.clone(),
                interrupts_seen: AtomicUsize::new(0),
            };
            let fut = AssertUnwindSafe((node.run)(input.clone(), ctx)).catch_unwind();
            let result = match node.timeout {
                Some(limit) => match tokio::time::timeout(limit, fut).await {
                    Ok(r) => r,
                    Err(_) => Ok(Err(NodeError::Timeout(limit))),
                },
                None => fut.await,
            };
            match result {
                Err(panic) => break Err(TaskEnd::Panicked(panic_message(&panic))),
                Ok(Ok(update)) => break Ok(update),
                Ok(Err(NodeError::Interrupted(payload))) => {
                    break Err(TaskEnd::Interrupted(payload))
                }
                Ok(Err(e)) if attempt < node.retry.max_attempts && (node.retry.retry_on)(&e) => {
                    let delay = node.retry.delay(attempt);
                    emit(&opts.events, || Event::NodeRetrying {
                        node: node.name.to_string(),
                        attempt,
                        error: e.to_string(),
                        delay_ms: delay.as_millis() as u64,
                    });
                    tokio::time::sleep(delay).await;
                }
                Ok(Err(e)) => {
                    break Err(TaskEnd::Failed {
                        attempts: attempt,
                        message: e.to_string(),
                    })
                }
            }
        };
        let cp = self.checkpointer.as_ref();
        match result {
            Ok(update) => {
                let mut saved_bytes = None;
                if let (Some(cp), true) = (cp, save_each) {
                    let write = match self.write(
                        &opts.thread_id,
                        seq,
                        index as i64,
                        WriteKind::Update,
                        0,
                        &update,
                    ) {
                        Ok(w) => w,
                        Err(e) => {
                            return TaskEnd::Failed {
                                attempts: attempt,
                                message: e.to_string(),
                            }
                        }
                    };
                    saved_bytes = Some(write.value.len());
                    if let Err(e) = cp.put_writes(vec![write]).await {
                        return TaskEnd::SaveFailed(e);
                    }
                }
                if let Some(sink) = &opts.events {
                    let update = if sink.wants_updates() {
                        serde_json::to_value(&update).unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    };
                    sink.emit(Event::NodeFinished {
                        step,
                        task: index as u32,
                        node: node.name.to_string(),
                        update,
                    });
                }
                TaskEnd::Done {
                    update,
                    saved_bytes,
                }
            }
            Err(end) => {
                if let Some(cp) = cp {
                    let write = match &end {
                        TaskEnd::Interrupted(payload) => self.write(
                            &opts.thread_id,
                            seq,
                            index as i64,
                            WriteKind::Interrupt,
                            resume.len() as u32,
                            payload,
                        ),
                        TaskEnd::Failed { message, .. } | TaskEnd::Panicked(message) => self.write(
                            &opts.thread_id,
                            seq,
                            index as i64,
                            WriteKind::Error,
                            0,
                            message,
                        ),
                        _ => return end,
                    };
                    match write {
                        Ok(w) => {
                            if let Err(e) = cp.put_writes(vec![w]).await {
                                return TaskEnd::SaveFailed(e);
                            }
                        }
                        Err(e) => {
                            return TaskEnd::Failed {
                                attempts: attempt,
                                message: e.to_string(),
                            }
                        }
                    }
                }
                end
            }
        }
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}
