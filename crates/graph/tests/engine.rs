//! Engine behaviour without a checkpointer: reducers, routing, fan-out, limits, retries, events.
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use research_graph::{
    state, CancellationToken, CompileOptions, Event, EventLog, GraphError, NodeError, NodeOptions,
    RetryPolicy, RunOptions, RunOutcome, Send, State, StateGraph, END, START,
};

state! {
    /// Test state.
    pub struct S / SU {
        pub n: u64 => Sum,
        pub log: Vec<String> => Append,
        pub last: String => Replace,
        pub map: BTreeMap<u32, String> => MergeByKey,
    }
}

fn log(s: &str) -> SU {
    SU {
        log: Some(vec![s.to_string()]),
        n: Some(1),
        ..Default::default()
    }
}

#[tokio::test]
async fn linear_chain_and_conditional_loop() {
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(log("a")) });
    g.add_node("b", |_, _| async { Ok(log("b")) });
    g.add_edge(START, "a").add_edge("a", "b");
    g.add_conditional_edges("b", |s: &S| if s.n < 6 { "a" } else { END }, &["a", END]);
    let g = g.compile(CompileOptions::default()).unwrap();
    let out = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap();
    assert_eq!(out.state().log, ["a", "b", "a", "b", "a", "b"]);
}

#[tokio::test]
async fn recursion_limit_is_a_clear_error() {
    let mut g = StateGraph::<S>::new();
    g.add_node("spin", |_, _| async { Ok(log("x")) });
    g.add_edge(START, "spin").add_edge("spin", "spin");
    let g = g.compile(CompileOptions::default()).unwrap();
    let err = g
        .invoke(S::default(), RunOptions::new("t", ()).recursion_limit(7))
        .await
        .unwrap_err();
    assert!(matches!(err, GraphError::RecursionLimit { limit: 7 }));
    assert!(err.to_string().contains("7 steps"));
}

#[tokio::test]
async fn two_writes_to_a_replace_field_in_one_step_is_an_error() {
    let mut g = StateGraph::<S>::new();
    g.add_node("x", |_, _| async {
        Ok(SU {
            last: Some("x".into()),
            ..Default::default()
        })
    });
    g.add_node("y", |_, _| async {
        Ok(SU {
            last: Some("y".into()),
            ..Default::default()
        })
    });
    g.add_edge(START, "x").add_edge(START, "y");
    let g = g.compile(CompileOptions::default()).unwrap();
    let err = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`last`"), "{err}");
}

#[tokio::test]
async fn fan_out_runs_concurrently_under_the_limit_and_joins_once() {
    let live = Arc::new(AtomicU32::new(0));
    let peak = Arc::new(AtomicU32::new(0));
    let mut g = StateGraph::<S, (Arc<AtomicU32>, Arc<AtomicU32>)>::new();
    g.add_node("fan", |_, _| async { Ok(SU::default()) });
    g.add_worker("w", NodeOptions::default(), |i: u32, ctx| async move {
        let (live, peak) = &*ctx.config;
        let now = live.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(now, Ordering::SeqCst);
        // Later workers finish first: the merge must still follow task order.
        tokio::time::sleep(Duration::from_millis(40 - 2 * i as u64)).await;
        live.fetch_sub(1, Ordering::SeqCst);
        Ok(SU {
            log: Some(vec![format!("w{i}")]),
            map: Some(BTreeMap::from([(i, format!("v{i}"))])),
            ..Default::default()
        })
    });
    g.add_node("join", |s: Arc<S>, _| async move {
        Ok(SU {
            last: Some(format!("{} results", s.log.len())),
            ..Default::default()
        })
    });
    g.add_edge(START, "fan");
    g.add_conditional_edges(
        "fan",
        |_: &S| (0..12u32).map(|i| Send::new("w", i)).collect::<Vec<_>>(),
        &["w"],
    );
    g.add_edge("w", "join").add_edge("join", END);
    let g = g.compile(CompileOptions::default()).unwrap();
    let events = EventLog::new();
    let opts = RunOptions::new("t", (live, peak.clone()))
        .max_concurrency(3)
        .events(Arc::new(events.clone()));
    let out = g.invoke(S::default(), opts).await.unwrap();
    let expected: Vec<String> = (0..12).map(|i| format!("w{i}")).collect();
    assert_eq!(out.state().log, expected, "task order, not finishing order");
    assert_eq!(out.state().last, "12 results");
    assert_eq!(peak.load(Ordering::SeqCst), 3);
    let joins = events
        .events()
        .iter()
        .filter(|e| matches!(e, Event::NodeStarted { node, .. } if node == "join"))
        .count();
    assert_eq!(joins, 1);
    assert!(matches!(
        events.events().last(),
        Some(Event::RunFinished { steps: 3 })
    ));
}

#[tokio::test]
async fn retries_transient_errors_then_gives_up_with_the_last_error() {
    let calls = Arc::new(AtomicU32::new(0));
    let mut g = StateGraph::<S, Arc<AtomicU32>>::new();
    let retry = RetryPolicy {
        max_attempts: 3,
        initial_interval: Duration::from_millis(1),
        jitter: false,
        ..Default::default()
    };
    g.add_node_with(
        "flaky",
        NodeOptions {
            retry: retry.clone(),
            timeout: None,
        },
        |_, ctx| async move {
            let n = ctx.config.fetch_add(1, Ordering::SeqCst);
            if n < 2 {
                Err(NodeError::transient("429 rate limited"))
            } else {
                Ok(log("ok"))
            }
        },
    );
    g.add_node_with(
        "fatal",
        NodeOptions {
            retry,
            timeout: None,
        },
        |_, ctx| async move {
            ctx.config.fetch_add(100, Ordering::SeqCst);
            Err::<SU, _>(NodeError::permanent("401 key refused"))
        },
    );
    g.add_edge(START, "flaky").add_edge("flaky", "fatal");
    let g = g.compile(CompileOptions::default()).unwrap();
    let err = g
        .invoke(S::default(), RunOptions::new("t", calls.clone()))
        .await
        .unwrap_err();
    assert_eq!(
        calls.load(Ordering::SeqCst),
        3 + 100,
        "flaky tried 3 times, fatal once"
    );
    assert!(
        matches!(err, GraphError::NodeFailed { ref node, attempts: 1, .. } if node == "fatal"),
        "{err}"
    );
}

#[tokio::test]
async fn timeouts_and_panics_are_errors_not_hangs() {
    let mut g = StateGraph::<S>::new();
    g.add_node_with(
        "slow",
        NodeOptions {
            timeout: Some(Duration::from_millis(20)),
            ..Default::default()
        },
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(SU::default())
        },
    );
    g.add_edge(START, "slow");
    let err = g
        .compile(CompileOptions::default())
        .unwrap()
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did not finish within"), "{err}");

    let mut g = StateGraph::<S>::new();
    g.add_node("boom", |_, _| async { panic!("kaboom") });
    g.add_edge(START, "boom");
    let err = g
        .compile(CompileOptions::default())
        .unwrap()
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap_err();
    assert!(matches!(err, GraphError::NodePanicked { ref message, .. } if message == "kaboom"));
}

#[tokio::test]
async fn cancelling_stops_in_flight_tasks_promptly() {
    let mut g = StateGraph::<S>::new();
    g.add_node("long", |_, _| async {
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(SU::default())
    });
    g.add_edge(START, "long");
    let g = g.compile(CompileOptions::default()).unwrap();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        c.cancel();
    });
    let started = std::time::Instant::now();
    let out = g
        .invoke(S::default(), RunOptions::new("t", ()).cancel(cancel))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Cancelled(_)));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn custom_and_token_events_reach_the_sink() {
    let mut g = StateGraph::<S>::new();
    g.add_node("talk", |_, ctx| async move {
        ctx.emit(serde_json::json!({"progress": 0.5}));
        ctx.token("Hel");
        ctx.token("lo");
        Ok(log("talk"))
    });
    g.add_edge(START, "talk");
    let events = EventLog::new();
    let g = g.compile(CompileOptions::default()).unwrap();
    g.invoke(
        S::default(),
        RunOptions::new("t", ()).events(Arc::new(events.clone())),
    )
    .await
    .unwrap();
    let ev = events.events();
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::Custom { payload, .. } if payload["progress"] == 0.5)));
    let text: String = ev
        .iter()
        .filter_map(|e| {
            if let Event::Token { text, .. } = e {
                Some(text.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(text, "Hello");
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::NodeFinished { update, .. } if update["log"][0] == "talk")));
}

#[test]
fn invalid_graphs_are_refused_at_compile_time() {
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(SU::default()) });
    g.add_edge(START, "a").add_edge("a", "nowhere");
    assert!(g
        .compile(CompileOptions::default())
        .unwrap_err()
        .to_string()
        .contains("nowhere"));
    let mut g = StateGraph::<S>::new();
    g.add_node("a", |_, _| async { Ok(SU::default()) });
    assert!(g
        .compile(CompileOptions::default())
        .unwrap_err()
        .to_string()
        .contains("START"));
}

#[test]
fn mermaid_shows_plain_conditional_and_send_edges() {
    let mut g = StateGraph::<S>::new();
    g.add_node("plan", |_, _| async { Ok(SU::default()) });
    g.add_worker("search", NodeOptions::default(), |_: u32, _| async {
        Ok(SU::default())
    });
    g.add_node("gaps", |_, _| async { Ok(SU::default()) });
    g.add_edge(START, "plan");
    g.add_conditional_edges("plan", |_: &S| Vec::<Send>::new(), &["search"]);
    g.add_edge("search", "gaps");
    g.add_conditional_edges("gaps", |_: &S| END, &["plan", END]);
    let m = g.compile(CompileOptions::default()).unwrap().mermaid();
    let expected = "graph TD;\n\t__start__([\"__start__\"]):::first\n\tplan(\"plan\")\n\tsearch(\"search\")\n\tgaps(\"gaps\")\n\t__end__([\"__end__\"]):::last\n\t__start__ --> plan;\n\tplan -. Send .-> search;\n\tsearch --> gaps;\n\tgaps -.-> plan;\n\tgaps -.-> __end__;\n\tclassDef default fill:#f2f0ff,line-height:1.2\n\tclassDef first fill-opacity:0\n\tclassDef last fill:#bfb6fc\n";
    assert_eq!(m, expected);
}

proptest! {
    /// Whatever order parallel tasks finish in, the merged state is the one given by task order.
    #[test]
    fn merge_follows_task_order(writes in prop::collection::vec((0u64..5, "[a-c]{1,3}", 0u32..4), 1..12), seed in any::<u64>()) {
        let updates: Vec<SU> = writes.iter().map(|(n, s, k)| SU {
            n: Some(*n), log: Some(vec![s.clone()]), map: Some(BTreeMap::from([(*k, s.clone())])), ..Default::default()
        }).collect();
        let mut expected = S::default();
        expected.apply(updates.clone()).unwrap();
        prop_assert_eq!(expected.n, writes.iter().map(|w| w.0).sum::<u64>());
        prop_assert_eq!(&expected.log, &writes.iter().map(|w| w.1.clone()).collect::<Vec<_>>());
        // Run them as tasks finishing in a random order, through the engine.
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let delays: Vec<u64> = (0..updates.len() as u64).map(|i| (seed.wrapping_mul(i + 7) >> 3) % 5).collect();
        let mut g = StateGraph::<S, (Vec<SU>, Vec<u64>)>::new();
        g.add_node("fan", |_, _| async { Ok(SU::default()) });
        g.add_worker("w", NodeOptions::default(), |i: usize, ctx| async move {
            tokio::time::sleep(Duration::from_millis(ctx.config.1[i])).await;
            Ok(ctx.config.0[i].clone())
        });
        let n = updates.len();
        g.add_edge(START, "fan");
        g.add_conditional_edges("fan", move |_: &S| (0..n).map(|i| Send::new("w", i)).collect::<Vec<_>>(), &["w"]);
        let g = g.compile(CompileOptions::default()).unwrap();
        let got = rt.block_on(g.invoke(S::default(), RunOptions::new("t", (updates, delays)))).unwrap().into_state();
        prop_assert_eq!(got, expected);
    }
}

#[tokio::test]
async fn a_send_with_the_wrong_input_shape_fails_clearly() {
    let mut g = StateGraph::<S>::new();
    g.add_node("fan", |_, _| async { Ok(SU::default()) });
    g.add_worker("w", NodeOptions::default(), |i: u32, _| async move {
        Ok(log(&i.to_string()))
    });
    g.add_edge(START, "fan");
    g.add_conditional_edges("fan", |_: &S| Send::new("w", "not a number"), &["w"]);
    let g = g.compile(CompileOptions::default()).unwrap();
    let err = g
        .invoke(S::default(), RunOptions::new("t", ()))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("`w` cannot run: the input sent to it has the wrong shape"),
        "{text}"
    );
}
