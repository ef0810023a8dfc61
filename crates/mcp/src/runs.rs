//! The runs this server started or continued, while they go: each one's task and the lines of
//! its progress (worded by the api's [`ProgressLines`]), which `research_status` returns and
//! sends as progress notifications to a client that waits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use research_api::{ApiError, Event, EventSink, OutlineStep, ProgressLines, ResearchOutcome};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Progress lines kept per run (the oldest go first); the count keeps growing.
const KEPT_LINES: usize = 200;

/// A run's progress so far.
#[derive(Default)]
pub struct Log {
    lines: Mutex<(u64, Vec<String>)>,
    /// Woken at each new line and when the run ends.
    pub changed: Notify,
}

impl Log {
    /// Adds a line.
    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        lines.0 += 1;
        lines.1.push(line);
        if lines.1.len() > KEPT_LINES {
            lines.1.remove(0);
        }
        drop(lines);
        self.changed.notify_waiters();
    }

    /// How many lines there have been, and the kept lines after the first `after` of them.
    pub fn since(&self, after: u64) -> (u64, Vec<String>) {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        let (count, kept) = (&lines.0, &lines.1);
        let first_kept = count - kept.len() as u64;
        let skip = after.saturating_sub(first_kept) as usize;
        (*count, kept.iter().skip(skip).cloned().collect())
    }

    /// The last `n` lines.
    pub fn last(&self, n: usize) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        lines.1[lines.1.len().saturating_sub(n)..].to_vec()
    }
}

/// Feeds a run's events to its [`Log`].
pub struct LogSink {
    lines: ProgressLines,
    log: Arc<Log>,
}

impl LogSink {
    /// A sink for a run of a pipeline with these steps.
    pub fn new(steps: Vec<OutlineStep>, log: Arc<Log>) -> Self {
        Self {
            lines: ProgressLines::new(steps),
            log,
        }
    }
}

impl EventSink for LogSink {
    fn emit(&self, event: Event) {
        if let Some(line) = self.lines.line(&event) {
            self.log.push(line);
        }
    }

    fn wants_updates(&self) -> bool {
        false
    }
}

/// What a run gave when it ended.
pub type Ended = Result<ResearchOutcome, ApiError>;

/// A run this server started or continued.
pub struct Tracked {
    /// Being started: claimed, its task not spawned yet.
    starting: bool,
    /// The task running it, until its end is collected.
    task: Option<JoinHandle<Ended>>,
    /// How it ended, once collected.
    ended: Option<Ended>,
    /// Its progress.
    pub log: Arc<Log>,
}

impl Tracked {
    fn going(&self) -> bool {
        self.starting || self.task.as_ref().is_some_and(|task| !task.is_finished())
    }

    /// A run going on in `task`, its progress in `log`.
    pub fn new(task: JoinHandle<Ended>, log: Arc<Log>) -> Self {
        Self {
            starting: false,
            task: Some(task),
            ended: None,
            log,
        }
    }
}

/// The runs of this server by thread id.
#[derive(Default, Clone)]
pub struct Runs(Arc<Mutex<HashMap<String, Tracked>>>);

impl Runs {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tracked>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `thread` is running (or being started) here now.
    pub fn running(&self, thread: &str) -> bool {
        self.map().get(thread).is_some_and(Tracked::going)
    }

    /// Claims `thread` for a start: false when it runs here already. Checked and recorded under
    /// one lock, so of two calls at once one starts it.
    pub fn begin(&self, thread: &str) -> bool {
        let mut map = self.map();
        if map.get(thread).is_some_and(Tracked::going) {
            return false;
        }
        map.insert(
            thread.to_string(),
            Tracked {
                starting: true,
                task: None,
                ended: None,
                log: Arc::default(),
            },
        );
        true
    }

    /// Gives up a claim that did not start (the start failed).
    pub fn abandon(&self, thread: &str) {
        let mut map = self.map();
        if map.get(thread).is_some_and(|t| t.starting) {
            map.remove(thread);
        }
    }

    /// Records `thread`'s run (a run continued again replaces the record of its last part).
    pub fn insert(&self, thread: String, tracked: Tracked) {
        self.map().insert(thread, tracked);
    }

    /// The log of `thread`, if it ran here.
    pub fn log(&self, thread: &str) -> Option<Arc<Log>> {
        self.map().get(thread).map(|t| t.log.clone())
    }

    /// How `thread`'s run here ended: `None` while it goes or when it did not run here.
    pub async fn ended(&self, thread: &str) -> Option<Ended> {
        let task = {
            let mut map = self.map();
            let tracked = map.get_mut(thread)?;
            if let Some(ended) = &tracked.ended {
                return Some(ended.clone());
            }
            match &tracked.task {
                Some(task) if task.is_finished() => tracked.task.take()?,
                _ => return None,
            }
        };
        let ended = task.await.unwrap_or_else(|e| {
            Err(ApiError::new(
                research_api::ErrorCode::RunFailed,
                format!("the run stopped unexpectedly: {e}"),
            ))
        });
        if let Some(tracked) = self.map().get_mut(thread) {
            tracked.ended = Some(ended.clone());
        }
        Some(ended)
    }
}
