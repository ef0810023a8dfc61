//! Building a graph: nodes, edges, conditional edges, `Send` fan-out, compile options, Mermaid.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

use crate::checkpoint::Checkpointer;
use crate::ctx::{NodeCtx, RetryPolicy};
use crate::error::{GraphError, NodeError};
use crate::state::State;

/// The virtual node a run starts from.
pub const START: &str = "__start__";
/// The virtual node that ends a run.
pub const END: &str = "__end__";

/// A dynamic task: run `node` with its own `input` (LangGraph's `Send`). All `Send`s produced in one
/// step run concurrently in the next step; the nodes their edges lead to run once, after all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Send {
    pub(crate) node: String,
    pub(crate) input: Result<Value, String>,
}

impl Send {
    /// A task for worker `node` with `input` (serialised, so that it survives a restart).
    pub fn new(node: impl Into<String>, input: impl Serialize) -> Self {
        Self {
            node: node.into(),
            input: serde_json::to_value(input).map_err(|e| e.to_string()),
        }
    }
}

/// Where a routing function sends the run.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// Run this node next (several routes to one node in a step run it once).
    To(String),
    /// A dynamic task with its own input.
    Send(Send),
    /// Stop following this edge.
    End,
}

/// What a routing function returns: one or more [`Route`]s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Routes(pub Vec<Route>);

impl From<&str> for Routes {
    fn from(node: &str) -> Self {
        Routes(vec![if node == END {
            Route::End
        } else {
            Route::To(node.to_string())
        }])
    }
}
impl From<String> for Routes {
    fn from(node: String) -> Self {
        Routes::from(node.as_str())
    }
}
impl From<Route> for Routes {
    fn from(route: Route) -> Self {
        Routes(vec![route])
    }
}
impl From<Vec<Route>> for Routes {
    fn from(routes: Vec<Route>) -> Self {
        Routes(routes)
    }
}
impl From<Send> for Routes {
    fn from(send: Send) -> Self {
        Routes(vec![Route::Send(send)])
    }
}
impl From<Vec<Send>> for Routes {
    fn from(sends: Vec<Send>) -> Self {
        Routes(sends.into_iter().map(Route::Send).collect())
    }
}
impl From<Vec<&str>> for Routes {
    fn from(nodes: Vec<&str>) -> Self {
        Routes(nodes.into_iter().flat_map(|n| Routes::from(n).0).collect())
    }
}

/// The input of a task: the shared state, or a `Send`'s own input.
pub(crate) enum TaskInput<S> {
    State(Arc<S>),
    Sent(Value),
}

impl<S> Clone for TaskInput<S> {
    fn clone(&self) -> Self {
        match self {
            TaskInput::State(s) => TaskInput::State(s.clone()),
            TaskInput::Sent(v) => TaskInput::Sent(v.clone()),
        }
    }
}

pub(crate) type NodeFn<S, C> = Arc<
    dyn Fn(TaskInput<S>, NodeCtx<C>) -> BoxFuture<'static, Result<<S as State>::Update, NodeError>>
        + std::marker::Send
        + Sync,
>;
pub(crate) type RouterFn<S> = Arc<dyn Fn(&S) -> Routes + std::marker::Send + Sync>;

pub(crate) struct Node<S: State, C> {
    pub(crate) name: Arc<str>,
    pub(crate) run: NodeFn<S, C>,
    pub(crate) retry: RetryPolicy,
    pub(crate) timeout: Option<Duration>,
    pub(crate) worker: bool,
}

pub(crate) enum Edge<S> {
    Static(String),
    Conditional {
        router: RouterFn<S>,
        targets: Vec<String>,
    },
}

/// Per-node options: retry policy and timeout.
#[derive(Debug, Clone, Default)]
pub struct NodeOptions {
    /// Retry policy (default: one attempt).
    pub retry: RetryPolicy,
    /// Per-attempt timeout.
    pub timeout: Option<Duration>,
}

/// A graph under construction (LangGraph's `StateGraph`).
///
/// `S` is the state, `C` the run configuration every node receives in its [`NodeCtx`].
pub struct StateGraph<S: State, C = ()> {
    nodes: Vec<Node<S, C>>,
    edges: Vec<(String, Edge<S>)>,
}

impl<S: State, C: std::marker::Send + Sync + 'static> Default for StateGraph<S, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: State, C: std::marker::Send + Sync + 'static> StateGraph<S, C> {
    /// An empty graph.
    pub fn new() -> Self {
        Self {
            nodes: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Adds a node that reads the shared state.
    pub fn add_node<F, Fut>(&mut self, name: &str, f: F) -> &mut Self
    where
        F: Fn(Arc<S>, NodeCtx<C>) -> Fut + std::marker::Send + Sync + 'static,
        Fut: Future<Output = Result<S::Update, NodeError>> + std::marker::Send + 'static,
    {
        self.add_node_with(name, NodeOptions::default(), f)
    }

    /// Adds a node with a retry policy and timeout.
    pub fn add_node_with<F, Fut>(&mut self, name: &str, options: NodeOptions, f: F) -> &mut Self
    where
        F: Fn(Arc<S>, NodeCtx<C>) -> Fut + std::marker::Send + Sync + 'static,
        Fut: Future<Output = Result<S::Update, NodeError>> + std::marker::Send + 'static,
    {
        self.push(name, options, false, move |input, ctx| match input {
            TaskInput::State(state) => Ok(f(state, ctx).boxed()),
            TaskInput::Sent(_) => Err("it reads the state and cannot take a Send input".into()),
        })
    }

    /// Adds a worker: a node reached by [`Send`] that receives its own input `I`.
    pub fn add_worker<I, F, Fut>(&mut self, name: &str, options: NodeOptions, f: F) -> &mut Self
    where
        I: DeserializeOwned + std::marker::Send + 'static,
        F: Fn(I, NodeCtx<C>) -> Fut + std::marker::Send + Sync + 'static,
        Fut: Future<Output = Result<S::Update, NodeError>> + std::marker::Send + 'static,
    {
        self.push(name, options, true, move |input, ctx| match input {
            TaskInput::Sent(value) => match serde_json::from_value::<I>(value) {
                Ok(input) => Ok(f(input, ctx).boxed()),
                Err(e) => Err(format!("the input sent to it has the wrong shape: {e}")),
            },
            TaskInput::State(_) => Err("it is a worker; reach it with Send".into()),
        })
    }

    /// Registers a node whose `accept` either starts it on its input or says why it cannot.
    fn push<A>(&mut self, name: &str, options: NodeOptions, worker: bool, accept: A) -> &mut Self
    where
        A: Fn(
                TaskInput<S>,
                NodeCtx<C>,
            ) -> Result<BoxFuture<'static, Result<S::Update, NodeError>>, String>
            + std::marker::Send
            + Sync
            + 'static,
    {
        let name: Arc<str> = name.into();
        let label = name.clone();
        let run: NodeFn<S, C> = Arc::new(move |input, ctx| {
            accept(input, ctx).unwrap_or_else(|why| {
                let error = NodeError::permanent(format!("`{label}` cannot run: {why}"));
                async move { Err(error) }.boxed()
            })
        });
        self.nodes.push(Node {
            name,
            run,
            retry: options.retry,
            timeout: options.timeout,
            worker,
        });
        self
    }

    /// An edge: after `from` runs, `to` runs. `from` may be [`START`], `to` may be [`END`].
    pub fn add_edge(&mut self, from: &str, to: &str) -> &mut Self {
        self.edges
            .push((from.to_string(), Edge::Static(to.to_string())));
        self
    }

    /// A conditional edge: after `from`, `router` chooses nodes, `END` or `Send`s. `targets` lists
    /// every node it may choose (checked at compile time and drawn in the Mermaid export).
    pub fn add_conditional_edges<R, F>(
        &mut self,
        from: &str,
        router: F,
        targets: &[&str],
    ) -> &mut Self
    where
        R: Into<Routes>,
        F: Fn(&S) -> R + std::marker::Send + Sync + 'static,
    {
        let router: RouterFn<S> = Arc::new(move |s| router(s).into());
        let targets = targets.iter().map(|t| t.to_string()).collect();
        self.edges
            .push((from.to_string(), Edge::Conditional { router, targets }));
        self
    }

    /// Checks the graph and freezes it.
    pub fn compile(self, options: CompileOptions) -> Result<CompiledGraph<S, C>, GraphError> {
        let mut index = HashMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if &*node.name == START || &*node.name == END {
                return Err(GraphError::InvalidGraph(format!(
                    "`{}` is a reserved name",
                    node.name
                )));
            }
            if index.insert(node.name.to_string(), i).is_some() {
                return Err(GraphError::InvalidGraph(format!(
                    "two nodes are named `{}`",
                    node.name
                )));
            }
        }
        let known = |name: &str| name == END || index.contains_key(name);
        let mut start_edges = Vec::new();
        let mut out: Vec<Vec<Edge<S>>> = (0..self.nodes.len()).map(|_| Vec::new()).collect();
        for (from, edge) in self.edges {
            let targets: Vec<&String> = match &edge {
                Edge::Static(to) => vec![to],
                Edge::Conditional { targets, .. } => targets.iter().collect(),
            };
            for t in targets {
                if !known(t) {
                    return Err(GraphError::InvalidGraph(format!(
                        "edge from `{from}` to unknown node `{t}`"
                    )));
                }
            }
            if from == START {
                start_edges.push(edge);
            } else if let Some(&i) = index.get(&from) {
                out[i].push(edge);
            } else {
                return Err(GraphError::InvalidGraph(format!(
                    "edge from unknown node `{from}`"
                )));
            }
        }
        if start_edges.is_empty() {
            return Err(GraphError::InvalidGraph("no edge leaves START".into()));
        }
        for name in options
            .interrupt_before
            .iter()
            .chain(&options.interrupt_after)
        {
            if !index.contains_key(name) {
                return Err(GraphError::InvalidGraph(format!(
                    "interrupt on unknown node `{name}`"
                )));
            }
        }
        let flag = |names: &[String]| {
            let mut flags = vec![false; self.nodes.len()];
            for n in names {
                flags[index[n]] = true;
            }
            flags
        };
        Ok(CompiledGraph {
            interrupt_before: flag(&options.interrupt_before),
            interrupt_after: flag(&options.interrupt_after),
            nodes: self.nodes,
            index,
            start_edges,
            out,
            checkpointer: options.checkpointer,
        })
    }
}

/// Options fixed at compile time.
#[derive(Default, Clone)]
pub struct CompileOptions {
    /// Where threads are saved; without one, runs cannot be resumed.
    pub checkpointer: Option<Arc<dyn Checkpointer>>,
    /// Pause before these nodes run.
    pub interrupt_before: Vec<String>,
    /// Pause after these nodes run.
    pub interrupt_after: Vec<String>,
}

impl CompileOptions {
    /// Options with a checkpointer.
    pub fn with_checkpointer(checkpointer: Arc<dyn Checkpointer>) -> Self {
        Self {
            checkpointer: Some(checkpointer),
            ..Self::default()
        }
    }
}

/// A graph ready to run.
pub struct CompiledGraph<S: State, C = ()> {
    pub(crate) nodes: Vec<Node<S, C>>,
    pub(crate) index: HashMap<String, usize>,
    pub(crate) start_edges: Vec<Edge<S>>,
    pub(crate) out: Vec<Vec<Edge<S>>>,
    pub(crate) interrupt_before: Vec<bool>,
    pub(crate) interrupt_after: Vec<bool>,
    pub(crate) checkpointer: Option<Arc<dyn Checkpointer>>,
}

impl<S: State, C> CompiledGraph<S, C> {
    /// The node names, in the order they were added.
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().map(|n| &*n.name)
    }

    /// The graph as a Mermaid flowchart: plain edges solid, conditional edges dotted, `Send`
    /// fan-out edges dotted and labelled `Send`.
    pub fn mermaid(&self) -> String {
        let mut out = String::from("graph TD;\n");
        let id = |name: &str| -> String {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        out.push_str(&format!("\t{}([\"{}\"]):::first\n", id(START), START));
        for node in &self.nodes {
            out.push_str(&format!("\t{}(\"{}\")\n", id(&node.name), node.name));
        }
        out.push_str(&format!("\t{}([\"{}\"]):::last\n", id(END), END));
        let mut line = |from: &str, edge: &Edge<S>| match edge {
            Edge::Static(to) => out.push_str(&format!("\t{} --> {};\n", id(from), id(to))),
            Edge::Conditional { targets, .. } => {
                for to in targets {
                    let worker = self.index.get(to).is_some_and(|&i| self.nodes[i].worker);
                    let arrow = if worker { "-. Send .->" } else { "-.->" };
                    out.push_str(&format!("\t{} {} {};\n", id(from), arrow, id(to)));
                }
            }
        };
        for edge in &self.start_edges {
            line(START, edge);
        }
        for (i, edges) in self.out.iter().enumerate() {
            for edge in edges {
                line(&self.nodes[i].name, edge);
            }
        }
        out.push_str("\tclassDef default fill:#f2f0ff,line-height:1.2\n");
        out.push_str("\tclassDef first fill-opacity:0\n");
        out.push_str("\tclassDef last fill:#bfb6fc\n");
        out
    }
}

impl<S: State, C> std::fmt::Debug for CompiledGraph<S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledGraph")
            .field("nodes", &self.node_names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
