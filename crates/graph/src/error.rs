//! Errors of nodes and of runs.

use std::time::Duration;

use serde_json::Value;

use crate::checkpoint::CheckpointError;
use crate::state::ReduceError;

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a node returns when it does not produce an update.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// The node asked a question and waits for a resume value (raised by
    /// [`NodeCtx::interrupt`](crate::NodeCtx::interrupt); propagate it with `?`).
    #[error("the node is waiting for input")]
    Interrupted(Value),
    /// The node failed. `retryable` tells the default retry policy whether another attempt may help.
    #[error("{message}")]
    Failed {
        /// One sentence for the user.
        message: String,
        /// Whether another attempt may succeed (rate limits, timeouts, 5xx answers).
        retryable: bool,
        /// The underlying error, kept for logs.
        #[source]
        source: Option<BoxError>,
    },
    /// The node ran longer than its timeout.
    #[error("the node did not finish within {0:?}")]
    Timeout(Duration),
    /// The run was cancelled while the node ran.
    #[error("cancelled")]
    Cancelled,
}

impl NodeError {
    /// A failure that another attempt will not fix.
    pub fn permanent(message: impl std::fmt::Display) -> Self {
        NodeError::Failed {
            message: message.to_string(),
            retryable: false,
            source: None,
        }
    }

    /// A failure that another attempt may fix.
    pub fn transient(message: impl std::fmt::Display) -> Self {
        NodeError::Failed {
            message: message.to_string(),
            retryable: true,
            source: None,
        }
    }

    /// Wraps an error, keeping it as the source.
    pub fn from_error(
        error: impl std::error::Error + Send + Sync + 'static,
        retryable: bool,
    ) -> Self {
        NodeError::Failed {
            message: error.to_string(),
            retryable,
            source: Some(Box::new(error)),
        }
    }

    /// Whether the default retry policy retries this error.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            NodeError::Failed {
                retryable: true,
                ..
            } | NodeError::Timeout(_)
        )
    }
}

impl From<serde_json::Error> for NodeError {
    fn from(error: serde_json::Error) -> Self {
        NodeError::from_error(error, false)
    }
}

impl From<std::io::Error> for NodeError {
    fn from(error: std::io::Error) -> Self {
        NodeError::from_error(error, false)
    }
}

/// Why a graph could not be built or a run could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// The graph definition is inconsistent (unknown node, no entry point, duplicate name).
    #[error("invalid graph: {0}")]
    InvalidGraph(String),
    /// The run took more supersteps than allowed without reaching the end.
    #[error(
        "the run took {limit} steps without reaching the end (recursion limit); \
         the thread is saved and can be resumed with a higher limit"
    )]
    RecursionLimit {
        /// The limit in force.
        limit: usize,
    },
    /// A superstep's writes could not be merged.
    #[error(transparent)]
    Reduce(#[from] ReduceError),
    /// A node failed after its retries.
    #[error("step `{node}` failed after {attempts} attempt(s): {message}")]
    NodeFailed {
        /// The node's name.
        node: String,
        /// How many attempts were made.
        attempts: u32,
        /// The last error, one sentence.
        message: String,
    },
    /// A node panicked.
    #[error("step `{node}` crashed: {message}")]
    NodePanicked {
        /// The node's name.
        node: String,
        /// The panic message.
        message: String,
    },
    /// A routing function chose a node that does not exist, or a `Send` whose input could not be serialised.
    #[error("routing from `{from}` failed: {message}")]
    Routing {
        /// The node whose edges were followed.
        from: String,
        /// What went wrong.
        message: String,
    },
    /// The operation needs a checkpointer and the graph was compiled without one.
    #[error("this graph has no checkpointer, so its runs cannot be resumed or inspected")]
    NoCheckpointer,
    /// No checkpoint exists for the thread.
    #[error("no thread with id {0}")]
    ThreadNotFound(String),
    /// `invoke` was given a thread id that already has checkpoints.
    #[error("thread {0} already exists; resume it instead of starting it again")]
    ThreadExists(String),
    /// The thread already reached the end.
    #[error("thread {0} has already finished; there is nothing to resume")]
    AlreadyFinished(String),
    /// The thread waits for answers and the resume did not give them.
    #[error("{0}")]
    ResumeValueRequired(String),
    /// A saved checkpoint refers to a node the graph does not have (the graph changed since).
    #[error("the saved thread refers to step `{0}`, which this graph does not have")]
    UnknownSavedNode(String),
    /// Saving or loading a checkpoint failed.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The state or an update could not be serialised or read back.
    #[error("the saved state could not be read or written: {0}")]
    Serde(#[from] serde_json::Error),
}
