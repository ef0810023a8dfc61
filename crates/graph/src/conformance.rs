//! One conformance suite for every [`Checkpointer`]: the same checks run against the in-memory
//! store here and against the SQLite store in `research-store`.
//!
//! Use [`checkpointer_conformance!`](crate::checkpointer_conformance) in a test module with an
//! expression that makes a fresh, empty checkpointer; it writes one `#[tokio::test]` per check.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::{
    CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer, CompileOptions,
    CompiledGraph, FixedClock, InterruptKind, NodeError, NodeOptions, Resume, RunOptions,
    RunOutcome, Send, StateGraph, ThreadId, ThreadStatus, WriteKind, WriteRecord, END, START,
};

crate::state! {
    /// The state the suite's graphs use.
    pub struct Probe / ProbeUpdate {
        /// Counts steps.
        pub steps: u64 => Sum,
        /// Lines appended by nodes.
        pub log: Vec<String> => Append,
        /// One answer.
        pub answer: String => Replace,
        /// Keyed results.
        pub items: BTreeMap<String, u32> => MergeByKey,
    }
}

/// Shared counters the suite's nodes report to.
#[derive(Default)]
pub struct Probes {
    /// Executions per worker index.
    pub runs: Mutex<BTreeMap<u32, u32>>,
    /// Worker indexes that fail on their first execution.
    pub fail_once: Mutex<Vec<u32>>,
    /// Calls of the asking node.
    pub asks: AtomicUsize,
    /// Workers sleep `index * this` milliseconds.
    pub stagger_ms: AtomicU64,
}

fn opts(thread: &str, probes: &Arc<Probes>) -> RunOptions<Arc<Probes>> {
    RunOptions::new(thread, probes.clone())
        .clock(Arc::new(FixedClock(1_700_000_000_000)))
        .recursion_limit(1000)
}

fn line(s: impl Into<String>) -> ProbeUpdate {
    ProbeUpdate {
        steps: Some(1),
        log: Some(vec![s.into()]),
        ..Default::default()
    }
}

/// A fan-out graph: `fan` sends `k` workers, `join` runs once after them.
pub fn fanout_graph(cp: Arc<dyn Checkpointer>, k: u32) -> CompiledGraph<Probe, Arc<Probes>> {
    let mut g = StateGraph::<Probe, Arc<Probes>>::new();
    g.add_node("fan", |_, _| async { Ok(line("fan")) });
    g.add_worker("worker", NodeOptions::default(), |i: u32, ctx| async move {
        let probes = ctx.config.clone();
        let stagger = probes.stagger_ms.load(Ordering::SeqCst);
        if stagger > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(stagger * u64::from(i))).await;
        }
        *probes.runs.lock().unwrap().entry(i).or_default() += 1;
        let mut fail = probes.fail_once.lock().unwrap();
        if let Some(pos) = fail.iter().position(|&f| f == i) {
            fail.remove(pos);
            return Err(NodeError::permanent(format!("worker {i} failed")));
        }
        Ok(ProbeUpdate {
            items: Some(BTreeMap::from([(format!("w{i:02}"), i)])),
            ..Default::default()
        })
    });
    g.add_node("join", |s: Arc<Probe>, _| async move {
        Ok(line(format!("joined {}", s.items.len())))
    });
    g.add_edge(START, "fan");
    g.add_conditional_edges(
        "fan",
        move |_| (0..k).map(|i| Send::new("worker", i)).collect::<Vec<_>>(),
        &["worker"],
    );
    g.add_edge("worker", "join");
    g.add_edge("join", END);
    g.compile(CompileOptions::with_checkpointer(cp))
        .expect("valid graph")
}

/// A graph whose `ask` node raises two interrupts, told apart by order.
pub fn asking_graph(cp: Arc<dyn Checkpointer>) -> CompiledGraph<Probe, Arc<Probes>> {
    let mut g = StateGraph::<Probe, Arc<Probes>>::new();
    g.add_node("prepare", |_, _| async { Ok(line("prepare")) });
    g.add_node("ask", |_, ctx| async move {
        ctx.config.asks.fetch_add(1, Ordering::SeqCst);
        let first: String = ctx.interrupt(serde_json::json!({"question": "first?"}))?;
        let second: String = ctx.interrupt(serde_json::json!({"question": "second?"}))?;
        Ok(ProbeUpdate {
            answer: Some(format!("{first}+{second}")),
            ..line("ask")
        })
    });
    g.add_edge(START, "prepare");
    g.add_edge("prepare", "ask");
    g.add_edge("ask", END);
    g.compile(CompileOptions::with_checkpointer(cp))
        .expect("valid graph")
}

/// A loop of `n` steps, each appending a line of `width` bytes.
pub fn loop_graph(
    cp: Arc<dyn Checkpointer>,
    n: u64,
    width: usize,
) -> CompiledGraph<Probe, Arc<Probes>> {
    let mut g = StateGraph::<Probe, Arc<Probes>>::new();
    g.add_node("tick", move |s: Arc<Probe>, _| async move {
        Ok(line(format!("{:0width$}", s.steps)))
    });
    g.add_edge(START, "tick");
    g.add_conditional_edges(
        "tick",
        move |s: &Probe| if s.steps < n { "tick" } else { END },
        &["tick", END],
    );
    g.compile(CompileOptions::with_checkpointer(cp))
        .expect("valid graph")
}

fn record(thread: &str, seq: u64, snapshot: Option<&[u8]>) -> CheckpointRecord {
    CheckpointRecord {
        thread_id: ThreadId::from(thread),
        seq,
        created_at_ms: 1000 + seq as i64,
        body: format!("body{seq}").into_bytes(),
        snapshot: snapshot.map(|s| s.to_vec()),
    }
}

fn write(thread: &str, seq: u64, task: i64, kind: WriteKind, value: &str) -> WriteRecord {
    WriteRecord {
        thread_id: ThreadId::from(thread),
        checkpoint: seq,
        task,
        kind,
        idx: 0,
        value: value.as_bytes().to_vec(),
    }
}

/// Records go in and come out unchanged; a second checkpoint with the same number is refused.
pub async fn records_round_trip(cp: Arc<dyn Checkpointer>) {
    cp.put_checkpoint(record("t", 0, Some(b"S0")), vec![])
        .await
        .unwrap();
    cp.put_writes(vec![
        write("t", 0, 1, WriteKind::Update, "b"),
        write("t", 0, 0, WriteKind::Update, "a"),
    ])
    .await
    .unwrap();
    cp.put_checkpoint(
        record("t", 1, None),
        vec![write("t", 0, 2, WriteKind::Update, "c")],
    )
    .await
    .unwrap();
    let chain = cp
        .load(&"t".into(), None)
        .await
        .unwrap()
        .expect("thread exists");
    assert_eq!(
        chain.checkpoints,
        vec![record("t", 0, Some(b"S0")), record("t", 1, None)]
    );
    let tasks: Vec<i64> = chain.writes.iter().map(|w| w.task).collect();
    assert_eq!(tasks, vec![0, 1, 2], "writes come back ordered by task");
    assert!(matches!(
        cp.put_checkpoint(record("t", 1, None), vec![]).await,
        Err(CheckpointError::Conflict { seq: 1, .. })
    ));
    // Same write key again replaces the value rather than duplicating it.
    cp.put_writes(vec![write("t", 0, 0, WriteKind::Update, "A")])
        .await
        .unwrap();
    let chain = cp.load(&"t".into(), None).await.unwrap().unwrap();
    assert_eq!(chain.writes.len(), 3);
    assert_eq!(chain.writes[0].value, b"A");
    assert_eq!(cp.list(&"t".into()).await.unwrap().len(), 2);
    assert!(cp
        .list(&"t".into())
        .await
        .unwrap()
        .iter()
        .all(|r| r.snapshot.is_none()));
    assert_eq!(cp.threads().await.unwrap(), vec![ThreadId::from("t")]);
    assert!(cp.load(&"nope".into(), None).await.unwrap().is_none());
    cp.delete_thread(&"t".into()).await.unwrap();
    assert!(cp.load(&"t".into(), None).await.unwrap().is_none());
    assert!(cp.threads().await.unwrap().is_empty());
}

/// Saves that may wait for the next flush are read back at once, refuse a second checkpoint of
/// the same number as flushed ones do, and are kept with those that follow; `flush` succeeds
/// with nothing to flush and after them.
pub async fn unflushed_saves_read_back_at_once(cp: Arc<dyn Checkpointer>) {
    cp.flush().await.unwrap();
    cp.put_checkpoint_unflushed(record("u", 0, Some(b"S0")), vec![])
        .await
        .unwrap();
    let chain = cp.load(&"u".into(), None).await.unwrap().expect("saved");
    assert_eq!(chain.checkpoints, vec![record("u", 0, Some(b"S0"))]);
    assert!(matches!(
        cp.put_checkpoint_unflushed(record("u", 0, None), vec![])
            .await,
        Err(CheckpointError::Conflict { seq: 0, .. })
    ));
    cp.put_writes_unflushed(vec![write("u", 0, 0, WriteKind::Resume, "yes")])
        .await
        .unwrap();
    cp.put_writes_unflushed(vec![]).await.unwrap();
    cp.put_checkpoint(
        record("u", 1, None),
        vec![write("u", 0, 0, WriteKind::Update, "a")],
    )
    .await
    .unwrap();
    cp.flush().await.unwrap();
    let chain = cp.load(&"u".into(), None).await.unwrap().unwrap();
    assert_eq!(chain.checkpoints.len(), 2);
    let kinds: Vec<WriteKind> = chain.writes.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, vec![WriteKind::Update, WriteKind::Resume]);
}

/// A chain starts at the nearest snapshot at or before the target and carries only its writes.
pub async fn chain_starts_at_nearest_snapshot(cp: Arc<dyn Checkpointer>) {
    for seq in 0..5u64 {
        let snap = (seq == 0 || seq == 3).then_some(b"S".as_slice());
        cp.put_checkpoint(record("c", seq, snap), vec![])
            .await
            .unwrap();
        cp.put_writes(vec![write(
            "c",
            seq,
            0,
            WriteKind::Update,
            &format!("w{seq}"),
        )])
        .await
        .unwrap();
    }
    let seqs = |c: &CheckpointChain| c.checkpoints.iter().map(|r| r.seq).collect::<Vec<_>>();
    let latest = cp.load(&"c".into(), None).await.unwrap().unwrap();
    assert_eq!(seqs(&latest), vec![3, 4]);
    assert_eq!(
        latest
            .writes
            .iter()
            .map(|w| w.checkpoint)
            .collect::<Vec<_>>(),
        vec![3, 4]
    );
    let at2 = cp.load(&"c".into(), Some(2)).await.unwrap().unwrap();
    assert_eq!(seqs(&at2), vec![0, 1, 2]);
    assert_eq!(at2.writes.len(), 3);
    assert!(cp.load(&"c".into(), Some(9)).await.unwrap().is_none());
}

/// A node's two interrupts are answered one after the other; finished steps never run again.
pub async fn interrupts_resume_in_order(cp: Arc<dyn Checkpointer>) {
    let probes = Arc::new(Probes::default());
    let g = asking_graph(cp);
    let out = g
        .invoke(Probe::default(), opts("ask", &probes))
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("expected an interrupt, got {out:?}")
    };
    assert_eq!(interrupts.len(), 1);
    assert_eq!(interrupts[0].payload["question"], "first?");
    assert_eq!(interrupts[0].kind, InterruptKind::Dynamic);
    let st = g.get_state(&"ask".into(), None).await.unwrap();
    assert_eq!(st.status, ThreadStatus::Interrupted);
    assert_eq!(st.next, vec!["ask".to_string()]);
    // Resuming without an answer is refused, clearly.
    assert!(g
        .resume(Resume::empty(), opts("ask", &probes))
        .await
        .is_err());
    let out = g
        .resume(Resume::with_value("one"), opts("ask", &probes))
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("expected the second interrupt")
    };
    assert_eq!(interrupts[0].payload["question"], "second?");
    let out = g
        .resume(Resume::with_value("two"), opts("ask", &probes))
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("expected the end")
    };
    assert_eq!(state.answer, "one+two");
    assert_eq!(state.log, vec!["prepare", "ask"], "prepare ran once");
    assert_eq!(
        probes.asks.load(Ordering::SeqCst),
        3,
        "the asking node re-ran once per answer"
    );
    assert_eq!(
        g.get_state(&"ask".into(), None).await.unwrap().status,
        ThreadStatus::Finished
    );
    assert!(
        g.resume(Resume::empty(), opts("ask", &probes))
            .await
            .is_err(),
        "a finished thread cannot resume"
    );
}

/// Static pauses before and after nodes, with a state update applied on resume.
pub async fn static_pauses_and_state_updates(cp: Arc<dyn Checkpointer>) {
    let mut g = StateGraph::<Probe, Arc<Probes>>::new();
    for name in ["a", "b", "c"] {
        g.add_node(name, move |_, _| async move { Ok(line(name)) });
    }
    g.add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_edge("c", END);
    let g = g
        .compile(CompileOptions {
            checkpointer: Some(cp),
            interrupt_before: vec!["b".into()],
            interrupt_after: vec!["b".into()],
        })
        .unwrap();
    let probes = Arc::new(Probes::default());
    let out = g
        .invoke(Probe::default(), opts("p", &probes))
        .await
        .unwrap();
    let RunOutcome::Interrupted { state, interrupts } = out else {
        panic!("expected a pause")
    };
    assert_eq!(state.log, vec!["a"]);
    assert_eq!(
        (interrupts[0].node.as_str(), interrupts[0].kind),
        ("b", InterruptKind::Before)
    );
    let edit = ProbeUpdate {
        answer: Some("edited".into()),
        ..Default::default()
    };
    let out = g
        .resume(Resume::empty().and_update(edit), opts("p", &probes))
        .await
        .unwrap();
    let RunOutcome::Interrupted { state, interrupts } = out else {
        panic!("expected the pause after b")
    };
    assert_eq!(interrupts[0].kind, InterruptKind::After);
    assert_eq!(state.log, vec!["a", "b"]);
    assert_eq!(state.answer, "edited");
    let out = g.resume(Resume::empty(), opts("p", &probes)).await.unwrap();
    assert_eq!(out.state().log, vec!["a", "b", "c"]);
    assert_eq!(
        out.state().answer,
        "edited",
        "the update survives in the saved thread"
    );
}

/// A fan-out whose worker fails: the others' writes are saved, and resume runs only the failed one.
pub async fn fanout_resume_runs_only_unfinished_tasks(cp: Arc<dyn Checkpointer>) {
    let probes = Arc::new(Probes::default());
    probes.fail_once.lock().unwrap().push(3);
    let g = fanout_graph(cp, 6);
    let err = g
        .invoke(Probe::default(), opts("f", &probes).max_concurrency(2))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("worker 3 failed"), "{err}");
    let st = g.get_state(&"f".into(), None).await.unwrap();
    assert_eq!(st.status, ThreadStatus::Unfinished);
    assert_eq!(st.finished_tasks, vec![0, 1, 2, 4, 5]);
    let out = g.resume(Resume::empty(), opts("f", &probes)).await.unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("expected the end")
    };
    assert_eq!(state.items.len(), 6);
    assert_eq!(
        state.log,
        vec!["fan", "joined 6"],
        "join ran once, after all workers"
    );
    let runs = probes.runs.lock().unwrap().clone();
    assert_eq!(
        runs,
        (0..6).map(|i| (i, if i == 3 { 2 } else { 1 })).collect()
    );
}

/// Cancelling in the middle of a fan-out keeps the finished workers; resume runs only the rest.
pub async fn cancel_then_resume(cp: Arc<dyn Checkpointer>) {
    let probes = Arc::new(Probes::default());
    probes.stagger_ms.store(40, Ordering::SeqCst);
    let g = fanout_graph(cp, 8);
    let cancel = crate::CancellationToken::new();
    let trigger = cancel.clone();
    let watcher = probes.clone();
    tokio::spawn(async move {
        while watcher.runs.lock().unwrap().len() < 3 {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        trigger.cancel();
    });
    let out = g
        .invoke(Probe::default(), opts("c", &probes).cancel(cancel))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Cancelled(_)), "{out:?}");
    let st = g.get_state(&"c".into(), None).await.unwrap();
    assert_eq!(st.status, ThreadStatus::Unfinished);
    let finished = st.finished_tasks.len();
    assert!(
        (1..8).contains(&finished),
        "{finished} workers were saved before the cancel"
    );
    probes.stagger_ms.store(0, Ordering::SeqCst);
    let out = g.resume(Resume::empty(), opts("c", &probes)).await.unwrap();
    assert_eq!(out.state().items.len(), 8);
    let runs = probes.runs.lock().unwrap();
    for task in &st.finished_tasks {
        // Task i of the fan-out step is worker i.
        assert_eq!(
            runs[task], 1,
            "worker {task} was saved before the cancel and ran again"
        );
    }
}

/// A fork from an earlier checkpoint carries that checkpoint's state and goes on independently.
pub async fn fork_from_earlier_checkpoint(cp: Arc<dyn Checkpointer>) {
    let probes = Arc::new(Probes::default());
    let g = loop_graph(cp, 10, 4);
    let out = g
        .invoke(Probe::default(), opts("main", &probes))
        .await
        .unwrap();
    assert_eq!(out.state().steps, 10);
    let history = g.history(&"main".into()).await.unwrap();
    assert_eq!(history.len(), 11, "one checkpoint per step plus the input");
    assert_eq!(
        history.iter().map(|h| h.checkpoint).collect::<Vec<_>>(),
        (0..11).collect::<Vec<_>>()
    );
    let at4 = g.get_state(&"main".into(), Some(4)).await.unwrap();
    assert_eq!(at4.state.steps, 4);
    g.fork(&"main".into(), 4, &"branch".into(), &FixedClock(0))
        .await
        .unwrap();
    let edit = ProbeUpdate {
        answer: Some("branch".into()),
        ..Default::default()
    };
    g.update_state(&"branch".into(), edit).await.unwrap();
    let out = g
        .resume(Resume::empty(), opts("branch", &probes))
        .await
        .unwrap();
    assert_eq!(out.state().steps, 10);
    assert_eq!(out.state().answer, "branch");
    assert_eq!(
        out.state().log,
        g.get_state(&"main".into(), None).await.unwrap().state.log
    );
    assert_eq!(
        g.get_state(&"main".into(), None)
            .await
            .unwrap()
            .state
            .answer,
        "",
        "the original is untouched"
    );
}

/// Wraps a checkpointer and counts the bytes each step hands it.
pub struct CountingCheckpointer {
    inner: Arc<dyn Checkpointer>,
    /// Bytes per `put_checkpoint`/`put_writes` call, in order.
    pub bytes: Mutex<Vec<usize>>,
    calls: AtomicU32,
}

impl CountingCheckpointer {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Checkpointer>) -> Self {
        Self {
            inner,
            bytes: Mutex::new(Vec::new()),
            calls: AtomicU32::new(0),
        }
    }
}

impl CountingCheckpointer {
    fn count(&self, c: &CheckpointRecord, w: &[WriteRecord]) {
        let n = c.body.len()
            + c.snapshot.as_ref().map_or(0, Vec::len)
            + w.iter().map(|w| w.value.len()).sum::<usize>();
        self.bytes.lock().unwrap().push(n);
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    fn count_writes(&self, w: &[WriteRecord]) {
        self.bytes
            .lock()
            .unwrap()
            .push(w.iter().map(|w| w.value.len()).sum());
    }
}

#[async_trait]
impl Checkpointer for CountingCheckpointer {
    async fn put_checkpoint(
        &self,
        c: CheckpointRecord,
        w: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.count(&c, &w);
        self.inner.put_checkpoint(c, w).await
    }
    async fn put_writes(&self, w: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.count_writes(&w);
        self.inner.put_writes(w).await
    }
    async fn put_checkpoint_unflushed(
        &self,
        c: CheckpointRecord,
        w: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.count(&c, &w);
        self.inner.put_checkpoint_unflushed(c, w).await
    }
    async fn put_writes_unflushed(&self, w: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.count_writes(&w);
        self.inner.put_writes_unflushed(w).await
    }
    async fn flush(&self) -> Result<(), CheckpointError> {
        self.inner.flush().await
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

/// Bytes written grow linearly with the steps taken (no full state per step), and the state
/// rebuilt from snapshots plus writes equals the state the run ended with, at every checkpoint.
pub async fn bytes_per_step_stay_flat(cp: Arc<dyn Checkpointer>) {
    let counting = Arc::new(CountingCheckpointer::new(cp));
    let (steps, width) = (400u64, 200usize);
    let g = loop_graph(counting.clone(), steps, width);
    let probes = Arc::new(Probes::default());
    let out = g
        .invoke(Probe::default(), opts("bytes", &probes))
        .await
        .unwrap();
    let total: usize = counting.bytes.lock().unwrap().iter().sum();
    let payload = steps as usize * (width + 40);
    // A full copy of the state per step would write about payload * steps / 2 bytes.
    assert!(
        total < 4 * payload,
        "wrote {total} bytes for {payload} bytes of updates"
    );
    let saved = g.get_state(&"bytes".into(), None).await.unwrap();
    assert_eq!(&saved.state, out.state());
    for seq in [1u64, 77, 150, 333] {
        let st = g.get_state(&"bytes".into(), Some(seq)).await.unwrap();
        assert_eq!(st.state.steps, seq);
        assert_eq!(st.state.log.len() as u64, seq);
    }
}

/// A second store on the same storage (another process, or another machine on a shared server)
/// sees a thread the first left unfinished and resumes it: only the task that failed runs again.
pub async fn another_store_resumes(first: Arc<dyn Checkpointer>, second: Arc<dyn Checkpointer>) {
    let probes = Arc::new(Probes::default());
    probes.fail_once.lock().unwrap().push(1);
    let g = fanout_graph(first, 4);
    assert!(g
        .invoke(Probe::default(), RunOptions::new("t", probes.clone()))
        .await
        .is_err());
    let g = fanout_graph(second, 4);
    assert_eq!(
        g.get_state(&"t".into(), None).await.unwrap().status,
        ThreadStatus::Unfinished
    );
    let out = g
        .resume(Resume::empty(), RunOptions::new("t", probes.clone()))
        .await
        .unwrap();
    assert_eq!(out.state().items.len(), 4);
    assert_eq!(
        probes.runs.lock().unwrap().values().sum::<u32>(),
        5,
        "only the failed worker ran twice"
    );
}

/// Writes one `#[tokio::test]` per conformance check for the checkpointer made by `$make`.
#[macro_export]
macro_rules! checkpointer_conformance {
    ($make:expr) => {
        $crate::checkpointer_conformance!(@tests $make;
            records_round_trip, chain_starts_at_nearest_snapshot, interrupts_resume_in_order,
            static_pauses_and_state_updates, fanout_resume_runs_only_unfinished_tasks,
            fork_from_earlier_checkpoint, bytes_per_step_stay_flat, cancel_then_resume,
            unflushed_saves_read_back_at_once);
    };
    (@tests $make:expr; $($check:ident),*) => {
        $(
            #[tokio::test]
            async fn $check() {
                let cp: ::std::sync::Arc<dyn $crate::Checkpointer> = $make;
                $crate::conformance::$check(cp).await;
            }
        )*
    };
}
