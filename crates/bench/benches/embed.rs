//! The library's hybrid ranking on a real document set: indexing speed and peak memory with the
//! built-in embedding model, search latency, and whether hybrid ranking finds the pages that
//! answer real questions more often than BM25 alone.
//!
//! `EMBED_BENCH_DIR` names the corpus (default `/usr/share/doc/sqlite3`, Debian's
//! `sqlite3-doc`); `EMBED_BENCH_QUESTIONS` a question set in the retrieval benchmark's format
//! (`benches/retrieval/sqlite.json`: questions with the pages that answer them);
//! `EMBED_BENCH_PASSAGES` caps the passages embedded (default 5000). The model is found as the
//! app finds it (`bash scripts/fetch-embedder.sh`). Prints one JSON line.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use research_bench::measure::{memory_mib, percentile};
use research_library::{Library, Ranking};

struct Question {
    id: String,
    text: String,
    answers: Vec<String>,
}

fn questions(path: &Path) -> Vec<Question> {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!(
            "no question set at {} (EMBED_BENCH_QUESTIONS)",
            path.display()
        );
        return Vec::new();
    };
    let set: serde_json::Value = serde_json::from_str(&text).expect("a question set");
    set["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Question {
            id: q["id"].as_str().unwrap_or_default().to_string(),
            text: q["question"].as_str().unwrap_or_default().to_string(),
            // The retrieval set's answering pages, or the answer set's (`benches/answers/`).
            answers: q
                .get("answers")
                .or_else(|| q.get("pages"))
                .and_then(|a| a.as_array())
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(String::from))
                .collect(),
        })
        .collect()
}

/// Per question: whether an answering page is in the first five hits, the share of its
/// answering pages there, and the search's time in ms.
fn ask(lib: &Library, corpus: &Path, q: &Question) -> (bool, f64, f64, Ranking) {
    let t = Instant::now();
    let ranked = lib.search_ranked(&q.text, 5).expect("a search");
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let found = q
        .answers
        .iter()
        .filter(|a| {
            let url = url::Url::from_file_path(corpus.join(a))
                .unwrap()
                .to_string();
            ranked.hits.iter().any(|h| h.url == url)
        })
        .count();
    (
        found > 0,
        found as f64 / q.answers.len().max(1) as f64,
        ms,
        ranked.ranking,
    )
}

/// The files of the first `n` hits for `text`, as paths in `corpus`.
fn first_files(lib: &Library, corpus: &Path, text: &str, n: usize) -> Vec<String> {
    let root = format!("{}/", url::Url::from_file_path(corpus).unwrap());
    lib.search(text, n)
        .expect("a search")
        .iter()
        .map(|h| h.url.strip_prefix(&root).unwrap_or(&h.url).to_string())
        .collect()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let corpus = PathBuf::from(
        std::env::var("EMBED_BENCH_DIR").unwrap_or_else(|_| "/usr/share/doc/sqlite3".into()),
    )
    .canonicalize()
    .expect("the corpus folder");
    let questions_file =
        PathBuf::from(std::env::var("EMBED_BENCH_QUESTIONS").unwrap_or_else(|_| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../benches/retrieval/sqlite.json"
            )
            .into()
        }));
    let cap: usize = std::env::var("EMBED_BENCH_PASSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let Some(model) = research_embed::locate_model() else {
        eprintln!("SKIPPED: no embedding model (bash scripts/fetch-embedder.sh)");
        return;
    };
    // `EMBED_BENCH_DB` keeps the library (and the distilled table beside it) for the next run,
    // which then indexes and embeds nothing: for trying rankings, not for the timings.
    let dir = tempfile::tempdir().unwrap();
    let db = std::env::var("EMBED_BENCH_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|_| dir.path().join("library.sqlite3"));

    // Keywords only: what indexing costs without the model.
    let keywords = Library::open(&db).unwrap();
    let t = Instant::now();
    let report = keywords.add(&corpus, &|_| {}).unwrap();
    let index_bm25_s = t.elapsed().as_secs_f64();
    let (_, passages) = keywords.embedded_share().unwrap();
    let (rss_before_model, _) = memory_mib();

    let t = Instant::now();
    let bert = research_embed::BertEmbedder::load(&model).unwrap();
    let load_s = t.elapsed().as_secs_f64();
    // `EMBED_BENCH_KIND=distilled`: the model distilled to a vector per token indexes instead.
    let kind = std::env::var("EMBED_BENCH_KIND").unwrap_or_else(|_| "bert".into());
    let t = Instant::now();
    let embedder: Arc<dyn research_embed::Embedder> = match kind.as_str() {
        "distilled" if std::env::var("EMBED_BENCH_DB").is_ok() => {
            Arc::new(bert.distilled(&db.with_extension("distilled")).unwrap())
        }
        "distilled" => Arc::new(bert.distil().unwrap()),
        _ => Arc::new(bert),
    };
    let distil_s = t.elapsed().as_secs_f64();

    // Past the cap, the rest of the passages are dropped from the index before embedding, so the
    // time is for `cap` passages whatever the corpus.
    if passages > cap {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "DELETE FROM library_passages WHERE rowid NOT IN (SELECT rowid FROM library_passages ORDER BY rowid LIMIT ?1)",
            [cap as i64],
        )
        .unwrap();
        // Behind the library's back: its tally of passages counted again.
        conn.execute(
            "UPDATE library_passage_tally SET passages = (SELECT count(*) FROM library_passages_docsize)",
            [],
        )
        .unwrap();
    }
    let hybrid = Library::open(&db).unwrap().with_embedder(embedder);
    let t = Instant::now();
    let embedded = hybrid.embed_pending().unwrap();
    let embed_s = t.elapsed().as_secs_f64();
    let (rss_after, peak) = memory_mib();
    // A second pass finds nothing to do: the vectors are stored.
    let t = Instant::now();
    let again = hybrid.embed_pending().unwrap();
    let again_s = t.elapsed().as_secs_f64();

    let qs = questions(&questions_file);
    let mut rows = Vec::new();
    let mut keywords_alone = 0;
    let (mut bm25_times, mut hybrid_times) = (Vec::new(), Vec::new());
    let (mut bm25_hit, mut hybrid_hit, mut bm25_recall, mut hybrid_recall) = (0, 0, 0.0, 0.0);
    for q in &qs {
        // Three rounds, for the latency; the first answers the quality question.
        let (kh, kr, _, _) = ask(&keywords, &corpus, q);
        let (hh, hr, _, ranking) = ask(&hybrid, &corpus, q);
        // A question in a language the model was not made for is ranked by keywords alone.
        let by_keywords = matches!(ranking, Ranking::Bm25);
        keywords_alone += by_keywords as usize;
        for _ in 0..3 {
            bm25_times.push(ask(&keywords, &corpus, q).2);
            hybrid_times.push(ask(&hybrid, &corpus, q).2);
        }
        bm25_hit += kh as usize;
        hybrid_hit += hh as usize;
        bm25_recall += kr;
        hybrid_recall += hr;
        let mut row = serde_json::json!({"id": q.id, "bm25_hit5": kh, "hybrid_hit5": hh,
            "hybrid_by_keywords_alone": by_keywords});
        // A miss says what ranked instead, and where the answering page is among the first 20.
        if !hh {
            for (name, lib) in [("bm25", &keywords), ("hybrid", &hybrid)] {
                if std::env::var("EMBED_BENCH_SHOW").is_ok() {
                    for n in [5, 7, 10, 20] {
                        eprintln!(
                            "{} {name} {n}: {:?}",
                            q.id,
                            first_files(lib, &corpus, &q.text, n)
                        );
                    }
                }
                let files = first_files(lib, &corpus, &q.text, 20);
                let at = files.iter().position(|f| q.answers.contains(f));
                row[format!("{name}_first")] = serde_json::json!(files[..files.len().min(5)]);
                row[format!("{name}_answer_at")] = serde_json::json!(at.map(|i| i + 1));
            }
        }
        rows.push(row);
    }
    let n = qs.len().max(1) as f64;
    let round = |x: f64, d: f64| (x * d).round() / d;
    println!(
        "{}",
        serde_json::json!({
            "scenario": "embed", "corpus": corpus.display().to_string(),
            "model": hybrid.ranking().to_string(),
            "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            "files_indexed": report.indexed, "passages_in_corpus": passages,
            "index_bm25_s": round(index_bm25_s, 100.0),
            "model_load_s": round(load_s, 100.0),
            "kind": kind, "distil_s": round(distil_s, 10.0),
            "passages_embedded": embedded, "embed_s": round(embed_s, 10.0),
            "passages_per_s": round(embedded as f64 / embed_s, 10.0),
            "re_embed_unchanged": again, "re_embed_unchanged_s": round(again_s, 1000.0),
            "rss_mib_before_model": rss_before_model, "rss_mib_after": rss_after, "peak_rss_mib": peak,
            "questions": qs.len(), "hybrid_by_keywords_alone": keywords_alone,
            "bm25_hit_at_5": round(bm25_hit as f64 / n, 1000.0),
            "hybrid_hit_at_5": round(hybrid_hit as f64 / n, 1000.0),
            "bm25_recall_at_5": round(bm25_recall / n, 1000.0),
            "hybrid_recall_at_5": round(hybrid_recall / n, 1000.0),
            "bm25_query_ms_median": percentile(&mut bm25_times, 50),
            "bm25_query_ms_p95": percentile(&mut bm25_times, 95),
            "hybrid_query_ms_median": percentile(&mut hybrid_times, 50),
            "hybrid_query_ms_p95": percentile(&mut hybrid_times, 95),
            "per_question": rows,
        })
    );
}
