//! How the approximate index's graph is built, and what it does to recall: the same vectors
//! added in one pass of large batches, or in small batches as an indexing pass embeds them,
//! and saved and loaded between parts as a library grown folder by folder is. Vectors come in
//! runs of one topic (as a file's passages do), 384 wide; recall@10 against an exact scan of
//! 300 other vectors of the same topics, 30 candidates asked as the library asks.
//!
//! `GRAPH_BENCH_VECTORS` (200,000), `GRAPH_BENCH_BATCH` (the small batch, 32: an indexing
//! pass's), `GRAPH_BENCH_PARTS` (20: saves and loads between). Prints one JSON line per way.

use std::time::Instant;

use research_nearest::{Approximate, Exact, Nearest};

/// xorshift: the same vectors at every run.
fn next(state: &mut u64) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    ((*state >> 11) as f64 / (1u64 << 53) as f64) as f32 - 0.5
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (n, small, parts) = (
        env("GRAPH_BENCH_VECTORS", 200_000),
        env("GRAPH_BENCH_BATCH", 32),
        env("GRAPH_BENCH_PARTS", 20),
    );
    const DIMS: usize = 384;
    const TOPICS: usize = 2_000;
    const RUN: usize = 100;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let topics: Vec<Vec<f32>> = (0..TOPICS)
        .map(|_| unit((0..DIMS).map(|_| next(&mut state)).collect()))
        .collect();
    let near = |state: &mut u64, topic: usize| {
        unit(
            topics[topic]
                .iter()
                .map(|x| x + 0.09 * next(state))
                .collect(),
        )
    };
    let vectors: Vec<(i64, Vec<f32>)> = (0..n)
        .map(|i| (i as i64 + 1, near(&mut state, (i / RUN) % TOPICS)))
        .collect();
    let queries: Vec<Vec<f32>> = (0..300)
        .map(|i| near(&mut state, (i * 7) % TOPICS.min(n / RUN).max(1)))
        .collect();
    let exact = Exact::new(DIMS);
    exact.add(&vectors).unwrap();
    let truth: Vec<Vec<i64>> = queries
        .iter()
        .map(|q| exact.nearest(q, 10).unwrap().iter().map(|h| h.id).collect())
        .collect();
    let recall = |graph: &Approximate| {
        let found: usize = queries
            .iter()
            .zip(&truth)
            .map(|(q, t)| {
                let ids: Vec<i64> = graph
                    .nearest(q, 30)
                    .unwrap()
                    .iter()
                    .take(10)
                    .map(|h| h.id)
                    .collect();
                t.iter().filter(|id| ids.contains(id)).count()
            })
            .sum();
        found as f64 / (truth.len() * 10) as f64
    };
    let report = |way: &str, graph: &Approximate, t: Instant| {
        println!(
            "{}",
            serde_json::json!({
                "scenario": "graph", "way": way, "vectors": n,
                "recall_at_10": (recall(graph) * 1000.0).round() / 1000.0,
                "build_s": (t.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            })
        );
    };

    let t = Instant::now();
    let one = Approximate::new(DIMS).unwrap();
    for batch in vectors.chunks(4_096) {
        one.add(batch).unwrap();
    }
    report("one pass, batches of 4,096", &one, t);
    drop(one);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("graph.usearch");
    let t = Instant::now();
    let mut graph = Approximate::new(DIMS).unwrap();
    for part in vectors.chunks(n.div_ceil(parts.max(1))) {
        for batch in part.chunks(small.max(1)) {
            graph.add(batch).unwrap();
        }
        graph.save(&file).unwrap();
        graph = Approximate::load(&file, DIMS).unwrap();
    }
    report(
        &format!("batches of {small}, saved and loaded {parts} times"),
        &graph,
        t,
    );
}
