//! The rules of a superstep as pure functions: which tasks run next, how a finished step's writes
//! fold into the state, which static pause is due, and how pending questions are named.
//!
//! Like LangGraph's `_algo.py`, nothing here runs a node, saves a record or emits an event. Keeping
//! the rules apart from the loop, the runner and the checkpoint code means a fresh run, a resumed
//! run and a rebuilt thread all schedule, order and name things the same way.

use std::sync::Arc;

use serde_json::Value;

use crate::error::GraphError;
use crate::event::{Interrupt, InterruptKind};
use crate::graph::{CompiledGraph, Edge, Route};
use crate::persist::PauseRecord;
use crate::state::{ReduceError, State};
use crate::superstep::Cursor;

/// One scheduled task: a node, with a [`Send`](crate::Send)'s own input or (when `None`) the state.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    /// The node's index in the graph.
    pub(crate) node: usize,
    /// The input a `Send` carried.
    pub(crate) input: Option<Value>,
}

/// The stable id of a dynamic interrupt: `checkpoint:task:index`.
pub(crate) fn interrupt_id(seq: u64, task: usize, idx: u32) -> String {
    format!("{seq}:{task}:{idx}")
}

impl<S: State> Cursor<S> {
    /// Folds the finished step's writes into the state, in task order (never finishing order); a
    /// task that wrote nothing counts as an empty update.
    pub(crate) fn apply_writes(&mut self) -> Result<(), ReduceError> {
        let updates: Vec<S::Update> = self
            .done
            .iter_mut()
            .map(|d| d.take().unwrap_or_default())
            .collect();
        Arc::make_mut(&mut self.state).apply(updates)
    }
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Schedules the targets of `edge` from `from` into `next`: each node once per step (`seen`),
    /// each `Send` as its own task.
    pub(crate) fn follow(
        &self,
        from: &str,
        edge: &Edge<S>,
        state: &S,
        next: &mut Vec<Task>,
        seen: &mut [bool],
    ) -> Result<(), GraphError> {
        let mut to_node = |name: &str, next: &mut Vec<Task>| -> Result<(), GraphError> {
            if name == crate::graph::END {
                return Ok(());
            }
            let &i = self.index.get(name).ok_or_else(|| GraphError::Routing {
                from: from.to_string(),
                message: format!("there is no node `{name}`"),
            })?;
            if !seen[i] {
                seen[i] = true;
                next.push(Task {
                    node: i,
                    input: None,
                });
            }
            Ok(())
        };
        match edge {
            Edge::Static(to) => to_node(to, next),
            Edge::Conditional { router, .. } => {
                for route in router(state).0 {
                    match route {
                        Route::End => {}
                        Route::To(name) => to_node(&name, next)?,
                        Route::Send(send) => {
                            let &i =
                                self.index
                                    .get(&send.node)
                                    .ok_or_else(|| GraphError::Routing {
                                        from: from.to_string(),
                                        message: format!("Send to unknown node `{}`", send.node),
                                    })?;
                            let input = send.input.map_err(|e| GraphError::Routing {
                                from: from.to_string(),
                                message: format!(
                                    "the input sent to `{}` could not be serialised: {e}",
                                    send.node
                                ),
                            })?;
                            next.push(Task {
                                node: i,
                                input: Some(input),
                            });
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// The next step's tasks, from the edges of the tasks that ran, in task order; and the nodes
    /// among those that ran that pause after themselves.
    pub(crate) fn next_tasks(
        &self,
        tasks: &[Task],
        state: &S,
    ) -> Result<(Vec<Task>, Vec<String>), GraphError> {
        let mut next = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        let mut after = Vec::new();
        for task in tasks {
            let from = &self.nodes[task.node].name;
            for edge in &self.out[task.node] {
                self.follow(from, edge, state, &mut next, &mut seen)?;
            }
            if self.interrupt_after[task.node] {
                after.push(from.to_string());
            }
        }
        Ok((next, after))
    }

    /// The static pause due before the current step, if any of its unfinished tasks asks for one.
    pub(crate) fn pause_before(&self, cursor: &Cursor<S>) -> Option<PauseRecord> {
        let nodes: Vec<String> = cursor
            .tasks
            .iter()
            .zip(&cursor.done)
            .filter(|(t, d)| d.is_none() && self.interrupt_before[t.node])
            .map(|(t, _)| self.nodes[t.node].name.to_string())
            .collect();
        (!nodes.is_empty()).then_some(PauseRecord {
            kind: InterruptKind::Before,
            nodes,
        })
    }

    /// The questions the thread waits on: dynamic interrupts in task order, then a static pause.
    pub(crate) fn pending_interrupts(&self, cursor: &Cursor<S>) -> Vec<Interrupt> {
        let mut out: Vec<Interrupt> = cursor
            .waiting
            .iter()
            .map(|(task, idx, payload)| Interrupt {
                id: interrupt_id(cursor.seq, *task, *idx),
                node: self.nodes[cursor.tasks[*task].node].name.to_string(),
                kind: InterruptKind::Dynamic,
                payload: payload.clone(),
            })
            .collect();
        if let Some(pause) = &cursor.pause {
            out.extend(pause.nodes.iter().map(|node| Interrupt {
                id: format!(
                    "{}:{}",
                    cursor.seq,
                    match pause.kind {
                        InterruptKind::After => "after",
                        _ => "before",
                    }
                ),
                node: node.clone(),
                kind: pause.kind,
                payload: Value::Null,
            }));
        }
        out
    }
}
