//! What a node receives besides its input: [`NodeCtx`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::NodeError;
use crate::event::{Event, EventSink};

/// A source of wall-clock time, injected so that tests are deterministic.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// A clock that always says the same time, for tests.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now_ms(&self) -> i64 {
        self.0
    }
}

/// The typed context of one task: run configuration, cancellation, events, clock, resume values.
///
/// `C` is the graph's own configuration type (providers, settings); the engine only passes it on.
pub struct NodeCtx<C> {
    /// The run configuration given to `invoke`/`resume`.
    pub config: Arc<C>,
    /// Cancelled when the run is cancelled; long nodes should watch it.
    pub cancel: CancellationToken,
    /// The clock of the run.
    pub clock: Arc<dyn Clock>,
    pub(crate) node: Arc<str>,
    pub(crate) step: u64,
    pub(crate) task: u32,
    pub(crate) sink: Option<Arc<dyn EventSink>>,
    pub(crate) resume: Arc<[Value]>,
    pub(crate) interrupts_seen: AtomicUsize,
}

impl<C> Clone for NodeCtx<C> {
    fn clone(&self) -> Self {
        Self {
            config: self.config.clone(),
            cancel: self.cancel.clone(),
            clock: self.clock.clone(),
            node: self.node.clone(),
            step: self.step,
            task: self.task,
            sink: self.sink.clone(),
            resume: self.resume.clone(),
            interrupts_seen: AtomicUsize::new(0),
        }
    }
}

impl<C> NodeCtx<C> {
    /// The running node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The superstep this task belongs to.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Reports progress to whoever watches the run.
    pub fn emit(&self, payload: impl Serialize) {
        if let Some(sink) = &self.sink {
            let payload = serde_json::to_value(payload).unwrap_or(Value::Null);
            sink.emit(Event::Custom {
                node: self.node.to_string(),
                task: Some(self.task),
                payload,
            });
        }
    }

    /// Streams a piece of model output.
    pub fn token(&self, text: &str) {
        if let Some(sink) = &self.sink {
            sink.emit(Event::Token {
                node: self.node.to_string(),
                task: Some(self.task),
                text: text.to_string(),
            });
        }
    }

    /// Asks the caller a question and returns the answer.
    ///
    /// The first time a node reaches its n-th `interrupt`, the run stops with `payload` as the
    /// question (propagate the error with `?`). When the thread is resumed with a value, the node
    /// runs again from its start and its n-th `interrupt` call returns that value. Several
    /// interrupts in one node are therefore told apart by their order.
    pub fn interrupt<T: DeserializeOwned>(&self, payload: impl Serialize) -> Result<T, NodeError> {
        let n = self.interrupts_seen.fetch_add(1, Ordering::Relaxed);
        match self.resume.get(n) {
            Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
                NodeError::permanent(format!(
                    "the answer given to `{}` has the wrong shape: {e}",
                    self.node
                ))
            }),
            None => Err(NodeError::Interrupted(serde_json::to_value(payload)?)),
        }
    }
}

/// When and how often a failed node is tried again.
#[derive(Clone)]
pub struct RetryPolicy {
    /// Total attempts, the first included (1 = no retry).
    pub max_attempts: u32,
    /// Wait before the second attempt.
    pub initial_interval: std::time::Duration,
    /// Factor applied to the wait after each attempt.
    pub backoff_factor: f64,
    /// Upper bound of the wait.
    pub max_interval: std::time::Duration,
    /// Randomise each wait by up to ±25% so that parallel retries spread out.
    pub jitter: bool,
    /// Which errors are retried.
    pub retry_on: fn(&NodeError) -> bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 1,
            initial_interval: std::time::Duration::from_millis(500),
            backoff_factor: 2.0,
            max_interval: std::time::Duration::from_secs(30),
            jitter: true,
            retry_on: NodeError::is_retryable,
        }
    }
}

impl std::fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .field("initial_interval", &self.initial_interval)
            .field("backoff_factor", &self.backoff_factor)
            .field("max_interval", &self.max_interval)
            .field("jitter", &self.jitter)
            .finish()
    }
}

impl RetryPolicy {
    /// `attempts` tries in all with the default backoff.
    pub fn attempts(attempts: u32) -> Self {
        Self {
            max_attempts: attempts.max(1),
            ..Self::default()
        }
    }

    /// The wait after failed attempt number `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> std::time::Duration {
        let base =
            self.initial_interval.as_secs_f64() * self.backoff_factor.powi(attempt as i32 - 1);
        let capped = base.min(self.max_interval.as_secs_f64());
        let factor = if self.jitter {
            rand::random_range(0.75..=1.25)
        } else {
            1.0
        };
        std::time::Duration::from_secs_f64((capped * factor).max(0.0))
    }
}
