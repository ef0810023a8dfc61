//! How the approximate index's graph is built, and what it does to recall: the same vectors
//! added in one pass of large batches, or in small batches as an indexing pass embeds them,
//! and saved and loaded between parts as a library grown folder by folder is. Vectors come in
//! runs of one topic (as a file's passages do), 384 wide; recall@10 against an exact scan of
//! 300 other vectors of the same topics, 30 candidates asked as the library asks.
//!
//! `GRAPH_BENCH_VECTORS` (200,000), `GRAPH_BENCH_BATCH` (the small batch, 32: an indexing
//! pass's), `GRAPH_BENCH_PARTS` (20: saves and loads between). `GRAPH_BENCH_LIBRARY` (a
//! library's SQLite file, e.g. the scale bench's) takes its first vectors in passage order
//! instead, 300 of them spread through it taken out as questions; with `GRAPH_BENCH_QUESTIONS`
//! (question sets as the scale bench reads them, `:`-separated) the questions are those sets'
//! questions, embedded by the distilled sentence model as a search embeds them, and no passage is
//! taken out. `GRAPH_BENCH_EXPANSIONS` (`384`; comma-separated) the search widths measured.
//! Recall counts a found passage as near as the scan's tenth as found (copies of one text tie).
//! Prints one JSON line per way and width.

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

/// Vectors in runs of one topic, as a file's passages come, and 300 questions near the topics.
#[allow(clippy::type_complexity)]
fn synthetic(n: usize) -> (Vec<(i64, Vec<f32>)>, Vec<Vec<f32>>) {
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
    (vectors, queries)
}

/// The questions of the sets in `files` (`:`-separated), embedded as a library search embeds
/// them (the distilled model: what a library this size is indexed with).
fn gold_questions(files: &str) -> Vec<Vec<f32>> {
    let texts: Vec<String> = research_bench::questions::read(files)
        .into_iter()
        .map(|q| q.text)
        .collect();
    let model =
        research_embed::locate_model().expect("the sentence model (scripts/fetch-embedder.sh)");
    let embedder = research_embed::BertEmbedder::load(&model)
        .unwrap()
        .distil()
        .unwrap();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    research_embed::Embedder::embed(&embedder, &refs).unwrap()
}

/// A library's first `n` vectors in passage order, 300 of them taken out as questions unless
/// `keep_all`.
#[allow(clippy::type_complexity)]
fn from_library(db: &str, n: usize, keep_all: bool) -> (Vec<(i64, Vec<f32>)>, Vec<Vec<f32>>) {
    let conn = rusqlite::Connection::open(db).expect("the library's database");
    let mut stmt = conn
        .prepare("SELECT passage, vector FROM library_vectors ORDER BY passage LIMIT ?1")
        .unwrap();
    let rows: Vec<(i64, Vec<f32>)> = stmt
        .query_map([(n + if keep_all { 0 } else { 300 }) as i64], |r| {
            let bytes: Vec<u8> = r.get(1)?;
            Ok((r.get(0)?, research_library::vector_from_bytes(&bytes)))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // Every k-th passage is a question, left out of the graph: questions from every folder.
    let step = (rows.len() / 300).max(1);
    let (mut vectors, mut queries) = (Vec::new(), Vec::new());
    for (i, row) in rows.into_iter().enumerate() {
        match !keep_all && i % step == step / 2 && queries.len() < 300 {
            true => queries.push(row.1),
            false => vectors.push(row),
        }
    }
    (vectors, queries)
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
    let dims = 384;
    let gold = std::env::var("GRAPH_BENCH_QUESTIONS").ok();
    let (vectors, mut queries) = match std::env::var("GRAPH_BENCH_LIBRARY") {
        Ok(db) => from_library(&db, n, gold.is_some()),
        Err(_) => synthetic(n),
    };
    if let Some(files) = &gold {
        queries = gold_questions(files);
    }
    let expansions: Vec<usize> = std::env::var("GRAPH_BENCH_EXPANSIONS")
        .unwrap_or_else(|_| "384".into())
        .split(',')
        .filter_map(|e| e.trim().parse().ok())
        .collect();
    let exact = Exact::new(dims);
    exact.add(&vectors).unwrap();
    // The scan's ten and how near its tenth is.
    let truth: Vec<(Vec<i64>, f32)> = queries
        .iter()
        .map(|q| {
            let ten = exact.nearest(q, 10).unwrap();
            let tenth = ten.last().map_or(1.0, |h| h.similarity);
            (ten.iter().map(|h| h.id).collect(), tenth)
        })
        .collect();
    let by_id: std::collections::HashMap<i64, &Vec<f32>> =
        vectors.iter().map(|(id, v)| (*id, v)).collect();
    let recall = |graph: &Approximate| {
        let found: usize = queries
            .iter()
            .zip(&truth)
            .map(|(q, (ten, tenth))| {
                // Re-scored by the stored vectors, as the library does.
                let mut found: Vec<(i64, f32)> = graph
                    .nearest(q, 30)
                    .unwrap()
                    .iter()
                    .map(|h| (h.id, research_embed::similarity(by_id[&h.id], q)))
                    .collect();
                found.sort_by(|a, b| b.1.total_cmp(&a.1));
                found
                    .iter()
                    .take(10)
                    .filter(|(id, sim)| ten.contains(id) || *sim >= *tenth - 1e-6)
                    .count()
            })
            .sum();
        found as f64 / (truth.len() * 10) as f64
    };
    let report = |way: &str, graph: &Approximate, t: Instant| {
        let build_s = (t.elapsed().as_secs_f64() * 10.0).round() / 10.0;
        for &expansion in &expansions {
            graph.set_search_expansion(expansion);
            let searched = Instant::now();
            let recall = recall(graph);
            let per_question_ms =
                searched.elapsed().as_secs_f64() * 1e3 / queries.len().max(1) as f64;
            println!(
                "{}",
                serde_json::json!({
                    "scenario": "graph", "way": way, "vectors": vectors.len(),
                    "questions": if gold.is_some() { "gold" } else { "passages" },
                    "expansion": expansion,
                    "recall_at_10": (recall * 1000.0).round() / 1000.0,
                    "search_and_rescore_ms": (per_question_ms * 100.0).round() / 100.0,
                    "build_s": build_s,
                })
            );
        }
    };

    let t = Instant::now();
    let one = Approximate::new(dims).unwrap();
    for batch in vectors.chunks(4_096) {
        one.add(batch).unwrap();
    }
    report("one pass, batches of 4,096", &one, t);
    drop(one);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("graph.usearch");
    let t = Instant::now();
    let mut graph = Approximate::new(dims).unwrap();
    for part in vectors.chunks(n.div_ceil(parts.max(1))) {
        for batch in part.chunks(small.max(1)) {
            graph.add(batch).unwrap();
        }
        graph.save(&file).unwrap();
        graph = Approximate::load(&file, dims).unwrap();
    }
    report(
        &format!("batches of {small}, saved and loaded {parts} times"),
        &graph,
        t,
    );
}
