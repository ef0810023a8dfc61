//! Which saves a run leaves unflushed, and that none is left so when the run answers its caller.
//!
//! Only the input checkpoint of a new thread and the answers written just before the step they
//! resume may skip the disk flush; whatever way a run returns (finished, asking, paused,
//! cancelled, failed), a flushing save or an explicit flush comes after them.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use research_graph::{
    state, CancellationToken, CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer,
    CompileOptions, CompiledGraph, MemoryCheckpointer, NodeError, Resume, RunOptions, RunOutcome,
    StateGraph, ThreadId, WriteRecord, END, START,
};

state! {
    /// Test state.
    pub struct S / SU {
        pub log: Vec<String> => Append,
    }
}

fn log(s: &str) -> SU {
    SU {
        log: Some(vec![s.to_string()]),
    }
}

/// What the engine asked of the store, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Checkpoint,
    Writes,
    CheckpointUnflushed,
    WritesUnflushed,
    Flush,
}

impl Call {
    fn flushes(self) -> bool {
        matches!(self, Call::Checkpoint | Call::Writes | Call::Flush)
    }
}

#[derive(Default)]
struct Recorder {
    inner: MemoryCheckpointer,
    calls: Mutex<Vec<Call>>,
    /// Refuse flushing checkpoints (a full disk).
    refuse: std::sync::atomic::AtomicBool,
}

impl Recorder {
    fn take(&self) -> Vec<Call> {
        std::mem::take(&mut self.calls.lock().unwrap())
    }

    fn note(&self, call: Call) {
        self.calls.lock().unwrap().push(call);
    }
}

#[async_trait]
impl Checkpointer for Recorder {
    async fn put_checkpoint(
        &self,
        c: CheckpointRecord,
        w: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.note(Call::Checkpoint);
        if self.refuse.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(CheckpointError::DiskFull);
        }
        self.inner.put_checkpoint(c, w).await
    }
    async fn put_writes(&self, w: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.note(Call::Writes);
        self.inner.put_writes(w).await
    }
    async fn put_checkpoint_unflushed(
        &self,
        c: CheckpointRecord,
        w: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.note(Call::CheckpointUnflushed);
        self.inner.put_checkpoint(c, w).await
    }
    async fn put_writes_unflushed(&self, w: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.note(Call::WritesUnflushed);
        self.inner.put_writes(w).await
    }
    async fn flush(&self) -> Result<(), CheckpointError> {
        self.note(Call::Flush);
        Ok(())
    }
    async fn load(
        &self,
        t: &ThreadId,
        s: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError> {
        self.inner.load(t, s).await
    }
    async fn list(&self, t: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError> {
        self.inner.list(t).await
    }
    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError> {
        self.inner.threads().await
    }
    async fn delete_thread(&self, t: &ThreadId) -> Result<(), CheckpointError> {
        self.inner.delete_thread(t).await
    }
}

/// The calls of one invoke or resume, checked: nothing unflushed is left when it returned.
fn settled(calls: Vec<Call>) -> Vec<Call> {
    if let Some(last_unflushed) = calls.iter().rposition(|c| !c.flushes()) {
        assert!(
            calls[last_unflushed..].iter().any(|c| c.flushes()),
            "the run returned with {calls:?}: an unflushed save was never flushed"
        );
    }
    calls
}

fn compile(g: StateGraph<S>, cp: &Arc<Recorder>, before: &[&str]) -> CompiledGraph<S> {
    g.compile(CompileOptions {
        checkpointer: Some(cp.clone()),
        interrupt_before: before.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    })
    .unwrap()
}

#[tokio::test]
async fn the_input_rides_unflushed_until_the_first_step_is_saved() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(log("a")) });
    g.add_node("b", |_, _| async { Ok(log("b")) });
    g.add_edge(START, "a").add_edge("a", "b").add_edge("b", END);
    let g = compile(g, &cp, &[]);
    let out = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert_eq!(out.state().log, ["a", "b"]);
    assert_eq!(
        settled(cp.take()),
        [CheckpointUnflushed, Checkpoint, Checkpoint]
    );
}

#[tokio::test]
async fn a_thread_paused_at_once_saves_its_input_flushed() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(log("a")) });
    g.add_edge(START, "a").add_edge("a", END);
    let g = compile(g, &cp, &["a"]);
    let out = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Interrupted { .. }));
    assert_eq!(settled(cp.take()), [Checkpoint]);
    // Resuming a static pause writes no answers: the release rides with the next checkpoint.
    g.resume(Resume::empty(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert_eq!(settled(cp.take()), [Checkpoint]);
}

#[tokio::test]
async fn answers_ride_unflushed_until_the_step_they_resume_is_saved() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    let mut g = StateGraph::<S>::new();
    g.add_node("ask", |_, ctx| async move {
        let answer: String = ctx.interrupt("which?")?;
        Ok(log(&answer))
    });
    g.add_edge(START, "ask").add_edge("ask", END);
    let g = compile(g, &cp, &[]);
    let out = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Interrupted { .. }));
    // The question is saved (flushed) before the run says it is waiting.
    assert_eq!(settled(cp.take()), [CheckpointUnflushed, Writes]);
    let out = g
        .resume(Resume::with_value("this"), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert_eq!(out.state().log, ["this"]);
    assert_eq!(settled(cp.take()), [WritesUnflushed, Checkpoint]);
}

#[tokio::test]
async fn a_run_that_fails_or_is_cancelled_in_its_first_step_flushes_its_input() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    let mut g = StateGraph::<S>::new();
    g.add_node("fails", |_, _| async {
        Err::<SU, _>(NodeError::permanent("no"))
    });
    g.add_edge(START, "fails").add_edge("fails", END);
    let g = compile(g, &cp, &[]);
    assert!(g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .is_err());
    let calls = settled(cp.take());
    assert_eq!(calls[0], CheckpointUnflushed);

    let mut g = StateGraph::<S>::new();
    g.add_node("long", |_, _| async {
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(SU::default())
    });
    g.add_edge(START, "long").add_edge("long", END);
    let g = compile(g, &cp, &[]);
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        c.cancel();
    });
    let out = g
        .invoke(S::default(), RunOptions::new("u", ()).cancel(cancel))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Cancelled(_)));
    assert_eq!(settled(cp.take()), [CheckpointUnflushed, Flush]);
}

#[tokio::test]
async fn a_long_first_step_does_not_leave_the_input_unflushed_meanwhile() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    let mut g = StateGraph::<S>::new();
    g.add_node("slow", |_, _| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok(log("slow"))
    });
    g.add_edge(START, "slow").add_edge("slow", END);
    let g = compile(g, &cp, &[]);
    g.invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert_eq!(settled(cp.take()), [CheckpointUnflushed, Flush, Checkpoint]);
}

#[tokio::test]
async fn a_run_whose_save_fails_flushes_its_input_before_the_error_returns() {
    use Call::*;
    let cp = Arc::new(Recorder::default());
    cp.refuse.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(log("a")) });
    g.add_edge(START, "a").add_edge("a", END);
    let g = compile(g, &cp, &[]);
    let err = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("full"), "{err}");
    assert_eq!(settled(cp.take()), [CheckpointUnflushed, Checkpoint, Flush]);
}
