//! The LangGraph reference scenarios (shared/bench/langgraph_bench.py), on our engine.
//!
//! `cargo bench -p research-bench` prints one JSON line per scenario, like the Python bench, so
//! the two can be compared line by line. Method: graphs built outside the timed region, one
//! warm-up, then SAMPLES timed runs; the median is reported with min and max. Every
//! checkpointed sample gets a fresh SQLite file (WAL, synchronous=FULL) and fresh thread ids.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, NodeOptions, Resume, RunOptions, RunOutcome, Send,
    StateGraph, END, START,
};
use research_postgres::testing::TempPostgres;
use research_postgres::PgCheckpointer;
use research_store::{Durability, SqliteCheckpointer};
use serde_json::json;

const SAMPLES: usize = 5;
const N_LINEAR: usize = 200;
const R_LINEAR: usize = 20;
const LOOP_TARGET: u64 = 1000;
const R_LOOP: usize = 5;
const K_FANOUT: u32 = 100;
const R_FANOUT: usize = 20;
const R_FANOUT_CKPT: usize = 5;
const CYCLES: usize = 100;
const COMMITS: usize = 200;

research_graph::state! {
    /// LangGraph's `State`: a counter and an appended log.
    pub struct Bench / BenchUpdate {
        pub count: u64 => Replace,
        pub log: Vec<String> => Append,
    }
}

research_graph::state! {
    /// LangGraph's `FanState`.
    pub struct Fan / FanUpdate {
        pub k: u32 => Replace,
        pub results: Vec<String> => Append,
        pub joined: u64 => Replace,
    }
}

struct Stats {
    median: f64,
    min: f64,
    max: f64,
}

fn measure<C>(setup: impl FnMut() -> C, run: impl FnMut(&C)) -> Stats {
    measure_keep(setup, run).0
}

/// Like `measure`, and hands back the last sample's context (its database) for inspection.
fn measure_keep<C>(mut setup: impl FnMut() -> C, mut run: impl FnMut(&C)) -> (Stats, C) {
    let ctx = setup();
    run(&ctx);
    let mut last = None;
    let mut times: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let ctx = setup();
            let t = Instant::now();
            run(&ctx);
            let elapsed = t.elapsed().as_secs_f64();
            last = Some(ctx);
            elapsed
        })
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (
        Stats {
            median: times[SAMPLES / 2],
            min: times[0],
            max: times[SAMPLES - 1],
        },
        last.unwrap(),
    )
}

fn emit(value: serde_json::Value) {
    println!("{value}");
}

fn r(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

fn linear(n: usize, cp: Option<Arc<dyn Checkpointer>>) -> CompiledGraph<Bench> {
    let mut g = StateGraph::<Bench>::new();
    let mut prev = START.to_string();
    for i in 0..n {
        let name = format!("n{i}");
        let tag = name.clone();
        g.add_node(&name, move |s: Arc<Bench>, _| {
            let tag = tag.clone();
            async move {
                Ok(BenchUpdate {
                    count: Some(s.count + 1),
                    log: Some(vec![tag]),
                })
            }
        });
        g.add_edge(&prev, &name);
        prev = name;
    }
    g.add_edge(&prev, END);
    g.compile(CompileOptions {
        checkpointer: cp,
        ..Default::default()
    })
    .unwrap()
}

fn looping(target: u64) -> CompiledGraph<Bench> {
    let mut g = StateGraph::<Bench>::new();
    g.add_node("a", |s: Arc<Bench>, _| async move {
        Ok(BenchUpdate {
            count: Some(s.count + 1),
            log: None,
        })
    });
    g.add_node("b", |s: Arc<Bench>, _| async move {
        Ok(BenchUpdate {
            count: Some(s.count + 1),
            log: None,
        })
    });
    g.add_edge(START, "a").add_edge("a", "b");
    g.add_conditional_edges(
        "b",
        move |s: &Bench| if s.count < target { "a" } else { END },
        &["a", END],
    );
    g.compile(CompileOptions::default()).unwrap()
}

fn fanout(cp: Option<Arc<dyn Checkpointer>>) -> CompiledGraph<Fan> {
    let mut g = StateGraph::<Fan>::new();
    g.add_node("fan", |_, _| async { Ok(FanUpdate::default()) });
    g.add_worker("worker", NodeOptions::default(), |i: u32, _| async move {
        Ok(FanUpdate {
            results: Some(vec![format!("w{i}")]),
            ..Default::default()
        })
    });
    g.add_node("join", |s: Arc<Fan>, _| async move {
        Ok(FanUpdate {
            joined: Some(s.results.len() as u64),
            ..Default::default()
        })
    });
    g.add_edge(START, "fan");
    g.add_conditional_edges(
        "fan",
        |s: &Fan| (0..s.k).map(|i| Send::new("worker", i)).collect::<Vec<_>>(),
        &["worker"],
    );
    g.add_edge("worker", "join").add_edge("join", END);
    g.compile(CompileOptions {
        checkpointer: cp,
        ..Default::default()
    })
    .unwrap()
}

fn interrupting(cp: Arc<dyn Checkpointer>) -> CompiledGraph<Bench> {
    let mut g = StateGraph::<Bench>::new();
    for name in ["prepare", "approve", "finish"] {
        g.add_node(name, move |s: Arc<Bench>, _| async move {
            Ok(BenchUpdate {
                count: Some(s.count + 1),
                log: Some(vec![name.to_string()]),
            })
        });
    }
    g.add_edge(START, "prepare")
        .add_edge("prepare", "approve")
        .add_edge("approve", "finish")
        .add_edge("finish", END);
    g.compile(CompileOptions {
        checkpointer: Some(cp),
        interrupt_before: vec!["approve".into()],
        ..Default::default()
    })
    .unwrap()
}

struct Db {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn fresh_db() -> Db {
    let dir =
        tempfile::tempdir_in(std::env::var("BENCH_DIR").unwrap_or_else(|_| "/tmp".into())).unwrap();
    let path = dir.path().join("bench.sqlite3");
    Db { _dir: dir, path }
}

fn db_stats(path: &Path) -> serde_json::Value {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let (n_ck, ck_bytes, snapshots): (i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), coalesce(sum(length(body) + coalesce(length(snapshot), 0)), 0), count(snapshot) FROM checkpoints",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let (n_wr, wr_bytes): (i64, i64) = conn
        .query_row(
            "SELECT count(*), coalesce(sum(length(value)), 0) FROM writes",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // Bytes of the first and last step records: flat means no growth with the steps taken.
    let step_bytes = |seq: &str| -> i64 {
        conn.query_row(
            &format!(
                "SELECT length(body) + coalesce(length(snapshot), 0) + coalesce((SELECT sum(length(value)) FROM writes w
                   WHERE w.thread_id = c.thread_id AND w.checkpoint = c.seq - 1), 0)
                 FROM checkpoints c WHERE seq = {seq} LIMIT 1"
            ),
            [],
            |r| r.get(0),
        )
        .unwrap_or(0)
    };
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    json!({
        "file_bytes": size, "checkpoints": n_ck, "snapshots": snapshots, "checkpoint_blob_bytes": ck_bytes,
        "writes": n_wr, "write_blob_bytes": wr_bytes,
        "file_bytes_per_checkpoint": r(size as f64 / n_ck.max(1) as f64, 1),
        "stored_bytes_per_checkpoint": r((ck_bytes + wr_bytes) as f64 / n_ck.max(1) as f64, 1),
        "step_bytes_first": step_bytes("1"), "step_bytes_last": step_bytes("(SELECT max(seq) FROM checkpoints)"),
    })
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| r(kb / 1024.0, 1))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` would pass nothing we need.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut thread_no = 0u64;
    let mut tid = || {
        thread_no += 1;
        format!("t{thread_no}")
    };
    emit(
        json!({"scenario": "meta", "engine": "research-graph", "version": env!("CARGO_PKG_VERSION"),
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "sqlite": rusqlite::version(), "sqlite_journal_mode": "wal", "sqlite_synchronous": 2, "samples": SAMPLES}),
    );

    // linear
    let g = linear(N_LINEAR, None);
    let m = measure(
        || (),
        |_| {
            for _ in 0..R_LINEAR {
                let out = rt
                    .block_on(g.invoke(
                        Bench::default(),
                        RunOptions::new("t", ()).recursion_limit(N_LINEAR + 10),
                    ))
                    .unwrap();
                assert_eq!(out.state().count as usize, N_LINEAR);
                assert_eq!(out.state().log.len(), N_LINEAR);
            }
        },
    );
    let steps = (N_LINEAR * R_LINEAR) as f64;
    emit(
        json!({"scenario": "linear", "nodes": N_LINEAR, "invocations": R_LINEAR, "wall_s": r(m.median, 6),
        "min_s": r(m.min, 6), "max_s": r(m.max, 6), "us_per_node": r(m.median / steps * 1e6, 3),
        "ms_per_invoke": r(m.median / R_LINEAR as f64 * 1e3, 4)}),
    );

    // loop
    let g = looping(LOOP_TARGET);
    let m = measure(
        || (),
        |_| {
            for _ in 0..R_LOOP {
                let out = rt
                    .block_on(g.invoke(
                        Bench::default(),
                        RunOptions::new("t", ()).recursion_limit(LOOP_TARGET as usize + 100),
                    ))
                    .unwrap();
                assert_eq!(out.state().count, LOOP_TARGET);
            }
        },
    );
    let steps = LOOP_TARGET as f64 * R_LOOP as f64;
    emit(
        json!({"scenario": "loop", "steps_per_invoke": LOOP_TARGET, "invocations": R_LOOP, "wall_s": r(m.median, 6),
        "min_s": r(m.min, 6), "max_s": r(m.max, 6), "us_per_step": r(m.median / steps * 1e6, 3)}),
    );

    // fanout
    let g = fanout(None);
    let run_fan = |k: u32| {
        measure(
            || (),
            |_| {
                for _ in 0..R_FANOUT {
                    let input = Fan {
                        k,
                        ..Default::default()
                    };
                    let out = rt
                        .block_on(g.invoke(
                            input,
                            RunOptions::new("t", ()).max_concurrency(K_FANOUT as usize),
                        ))
                        .unwrap();
                    assert_eq!(out.state().joined, u64::from(k));
                }
            },
        )
    };
    let (m, m1) = (run_fan(K_FANOUT), run_fan(1));
    let per = m.median / R_FANOUT as f64;
    let per1 = m1.median / R_FANOUT as f64;
    emit(
        json!({"scenario": "fanout", "workers": K_FANOUT, "invocations": R_FANOUT, "wall_s": r(m.median, 6),
        "min_s": r(m.min, 6), "max_s": r(m.max, 6), "ms_per_invoke": r(per * 1e3, 4),
        "us_per_worker": r(per / K_FANOUT as f64 * 1e6, 3), "ms_per_invoke_k1": r(per1 * 1e3, 4),
        "marginal_us_per_worker": r((per - per1) / (K_FANOUT as f64 - 1.0) * 1e6, 3)}),
    );

    // bare SQLite WAL commits on the same disk, same settings: the floor for a durable step
    let m = measure(fresh_db, |db| {
        let conn = research_store::open_connection(&db.path).unwrap();
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
            .unwrap();
        let blob = vec![7u8; 100];
        for _ in 0..COMMITS {
            conn.execute("INSERT INTO t (v) VALUES (?1)", [&blob])
                .unwrap();
        }
    });
    let bare_ms = m.median / COMMITS as f64 * 1e3;
    emit(
        json!({"scenario": "sqlite_commit", "commits": COMMITS, "wall_s": r(m.median, 6), "min_s": r(m.min, 6),
        "max_s": r(m.max, 6), "ms_per_commit": r(bare_ms, 4)}),
    );

    for durability in [Durability::Full, Durability::Normal] {
        checkpointed(&rt, &mut tid, durability, bare_ms);
    }
    emit(json!({"scenario": "rss", "peak_rss_end_mib": peak_rss_mib()}));
    concurrent(&rt, &mut tid, "sqlite_full", &mut || {
        let db = fresh_db();
        let cp: Arc<dyn Checkpointer> =
            Arc::new(SqliteCheckpointer::open_with(&db.path, Durability::Full).unwrap());
        (Box::new(db) as Box<dyn std::any::Any>, cp)
    });
    postgres(&rt, &mut tid);
}

/// `CYCLES` times: a run paused before `approve`, the state edited, the run resumed to its end.
/// The edit is an `update_state` call of its own, or (`in_resume`) given to `resume` with the
/// answer (LangGraph's `Command(update=…)`), which saves it with the step it resumes.
fn interrupt_cycles(
    rt: &tokio::runtime::Runtime,
    tid: &mut impl FnMut() -> String,
    g: &CompiledGraph<Bench>,
    in_resume: bool,
) {
    for _ in 0..CYCLES {
        let t = tid();
        let out = rt
            .block_on(g.invoke(Bench::default(), RunOptions::new(t.clone(), ())))
            .unwrap();
        assert!(matches!(out, RunOutcome::Interrupted { .. }));
        let edit = BenchUpdate {
            log: Some(vec!["human-approved".into()]),
            ..Default::default()
        };
        let resume = if in_resume {
            Resume::empty().and_update(edit)
        } else {
            rt.block_on(g.update_state(&t.clone().into(), edit))
                .unwrap();
            Resume::empty()
        };
        let out = rt
            .block_on(g.resume(resume, RunOptions::new(t, ())))
            .unwrap();
        assert_eq!(out.state().count, 3);
        assert!(out.state().log.iter().any(|l| l == "human-approved"));
    }
}

/// Runs at once, for the throughput of a shared store.
const CONCURRENT_RUNS: usize = 8;

/// `CONCURRENT_RUNS` linear runs at once on one store made by `open` (kept alive with what it
/// hands back): runs per second, and the time per durable step.
fn concurrent(
    rt: &tokio::runtime::Runtime,
    tid: &mut impl FnMut() -> String,
    store: &str,
    open: &mut dyn FnMut() -> (Box<dyn std::any::Any>, Arc<dyn Checkpointer>),
) {
    let m = measure(
        || {
            let (keep, cp) = open();
            (keep, linear(N_LINEAR, Some(cp)))
        },
        |(_, g)| {
            let ids: Vec<String> = (0..CONCURRENT_RUNS).map(|_| tid()).collect();
            let runs = ids.into_iter().map(|t| {
                g.invoke(
                    Bench::default(),
                    RunOptions::new(t, ()).recursion_limit(N_LINEAR + 10),
                )
            });
            for out in rt.block_on(futures::future::join_all(runs)) {
                assert_eq!(out.unwrap().state().count as usize, N_LINEAR);
            }
        },
    );
    emit(
        json!({"scenario": "concurrent_runs", "store": store, "runs": CONCURRENT_RUNS, "nodes": N_LINEAR,
        "wall_s": r(m.median, 6), "min_s": r(m.min, 6), "max_s": r(m.max, 6),
        "runs_per_s": r(CONCURRENT_RUNS as f64 / m.median, 2),
        "ms_per_durable_step": r(m.median / (CONCURRENT_RUNS * N_LINEAR) as f64 * 1e3, 4)}),
    );
}

/// The same durable scenarios on PostgreSQL (a server the bench starts in a temporary folder,
/// reached on a Unix socket; fsync on, synchronous_commit on): a bare commit, a durable step,
/// the interrupt cycle, and concurrent runs.
fn postgres(rt: &tokio::runtime::Runtime, tid: &mut impl FnMut() -> String) {
    let server = match TempPostgres::start() {
        Ok(s) => s,
        Err(e) => {
            emit(json!({"scenario": "postgres", "skipped": e}));
            return;
        }
    };
    let mut n = 0;
    let mut fresh = || -> Arc<dyn Checkpointer> {
        n += 1;
        let url = server.database(&format!("bench{n}")).unwrap();
        let cp = PgCheckpointer::connect_lazy(&url).unwrap();
        // Connected and migrated before anything is timed.
        rt.block_on(cp.threads()).unwrap();
        Arc::new(cp)
    };
    // A bare commit: one small row inserted in its own transaction.
    let url = server.database("bare").unwrap();
    let bare = measure(
        || {
            rt.block_on(async {
                let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(conn);
                client
                    .batch_execute("DROP TABLE IF EXISTS t; CREATE TABLE t (id BIGSERIAL PRIMARY KEY, v BYTEA NOT NULL)")
                    .await
                    .unwrap();
                client
            })
        },
        |client| {
            rt.block_on(async {
                let blob = vec![7u8; 100];
                for _ in 0..COMMITS {
                    client
                        .execute("INSERT INTO t (v) VALUES ($1)", &[&blob])
                        .await
                        .unwrap();
                }
            })
        },
    );
    let bare_ms = bare.median / COMMITS as f64 * 1e3;
    emit(
        json!({"scenario": "pg_commit", "commits": COMMITS, "wall_s": r(bare.median, 6), "ms_per_commit": r(bare_ms, 4)}),
    );
    let m = measure(
        || linear(N_LINEAR, Some(fresh())),
        |g| {
            let opts = RunOptions::new(tid(), ()).recursion_limit(N_LINEAR + 10);
            let out = rt.block_on(g.invoke(Bench::default(), opts)).unwrap();
            assert_eq!(out.state().count as usize, N_LINEAR);
        },
    );
    let per_node_ms = m.median / N_LINEAR as f64 * 1e3;
    emit(
        json!({"scenario": "pg_linear_ckpt", "nodes": N_LINEAR, "wall_s": r(m.median, 6), "min_s": r(m.min, 6),
        "max_s": r(m.max, 6), "us_per_node": r(per_node_ms * 1e3, 2), "ratio_to_bare_commit": r(per_node_ms / bare_ms, 3)}),
    );
    let m = measure(
        || interrupting(fresh()),
        |g| interrupt_cycles(rt, tid, g, false),
    );
    emit(
        json!({"scenario": "pg_interrupt", "cycles": CYCLES, "wall_s": r(m.median, 6),
        "ms_per_cycle": r(m.median / CYCLES as f64 * 1e3, 4)}),
    );
    concurrent(rt, tid, "postgres", &mut || {
        (Box::new(()) as Box<dyn std::any::Any>, fresh())
    });
}

fn checkpointed(
    rt: &tokio::runtime::Runtime,
    tid: &mut impl FnMut() -> String,
    durability: Durability,
    bare_ms: f64,
) {
    let label = match durability {
        Durability::Full => "full",
        Durability::Normal => "normal",
    };
    let open = |path: &Path| -> Arc<dyn Checkpointer> {
        Arc::new(SqliteCheckpointer::open_with(path, durability).unwrap())
    };
    // linear + SQLite (every step is committed before the next one starts)
    let (m, (db, g)) = measure_keep(
        || {
            let db = fresh_db();
            let cp = open(&db.path);
            let g = linear(N_LINEAR, Some(cp));
            (db, g)
        },
        |(_, g)| {
            let opts = RunOptions::new(tid(), ()).recursion_limit(N_LINEAR + 10);
            let out = rt.block_on(g.invoke(Bench::default(), opts)).unwrap();
            assert_eq!(out.state().count as usize, N_LINEAR);
        },
    );
    drop(g);
    let stats = db_stats(&db.path);
    let per_node_ms = m.median / N_LINEAR as f64 * 1e3;
    emit(
        json!({"scenario": "linear_ckpt", "synchronous": label, "nodes": N_LINEAR, "wall_s": r(m.median, 6),
        "min_s": r(m.min, 6), "max_s": r(m.max, 6), "us_per_node": r(per_node_ms * 1e3, 2),
        "ratio_to_bare_commit": r(per_node_ms / bare_ms, 3), "stats": stats}),
    );

    // fanout + SQLite
    let m = measure(
        || {
            let db = fresh_db();
            let cp = open(&db.path);
            (db, fanout(Some(cp)))
        },
        |(_, g)| {
            for _ in 0..R_FANOUT_CKPT {
                let input = Fan {
                    k: K_FANOUT,
                    ..Default::default()
                };
                let out = rt
                    .block_on(g.invoke(
                        input,
                        RunOptions::new(tid(), ()).max_concurrency(K_FANOUT as usize),
                    ))
                    .unwrap();
                assert_eq!(out.state().joined, u64::from(K_FANOUT));
            }
        },
    );
    let per = m.median / R_FANOUT_CKPT as f64;
    emit(
        json!({"scenario": "fanout_ckpt", "synchronous": label, "workers": K_FANOUT, "invocations": R_FANOUT_CKPT,
        "wall_s": r(m.median, 6), "min_s": r(m.min, 6), "max_s": r(m.max, 6), "ms_per_invoke": r(per * 1e3, 3),
        "us_per_worker": r(per / K_FANOUT as f64 * 1e6, 2)}),
    );

    // interrupt -> update_state -> resume
    let m = measure(
        || {
            let db = fresh_db();
            let cp = open(&db.path);
            (db, interrupting(cp))
        },
        |(_, g)| interrupt_cycles(rt, tid, g, false),
    );
    emit(
        json!({"scenario": "interrupt", "synchronous": label, "cycles": CYCLES, "wall_s": r(m.median, 6), "min_s": r(m.min, 6),
        "max_s": r(m.max, 6), "ms_per_cycle": r(m.median / CYCLES as f64 * 1e3, 4)}),
    );
    let m = measure(
        || {
            let db = fresh_db();
            let cp = open(&db.path);
            (db, interrupting(cp))
        },
        |(_, g)| interrupt_cycles(rt, tid, g, true),
    );
    emit(
        json!({"scenario": "interrupt_update_in_resume", "synchronous": label, "cycles": CYCLES, "wall_s": r(m.median, 6), "min_s": r(m.min, 6),
        "max_s": r(m.max, 6), "ms_per_cycle": r(m.median / CYCLES as f64 * 1e3, 4)}),
    );
}
