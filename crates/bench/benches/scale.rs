//! The library as it grows: folders of real documentation added one after another, and after
//! each, what every cost has become — indexing by keywords and by meaning (passages a second),
//! search latency (keywords, meaning alone, hybrid), memory, the database's and the vector
//! index's size, hit@5 on the gold questions whose folder is in, and how many of the exact
//! scan's ten nearest the approximate index finds (recall@10).
//!
//! `SCALE_BENCH_DIRS` lists the folders in the order they are added (`:`-separated);
//! `SCALE_BENCH_QUESTIONS` the question sets (`:`-separated files of `benches/retrieval/` or
//! `benches/answers/`, each naming its folder); `SCALE_BENCH_MAX` stops adding folders once
//! the library holds that many passages; `SCALE_BENCH_POSTGRES` (any value) puts the library on a
//! PostgreSQL server the bench starts, `SCALE_BENCH_POSTGRES_URL` on one already running;
//! `SCALE_BENCH_MEASURE_FROM` measures only from that many passages; `SCALE_BENCH_KEYWORDS_ONLY`
//! (any value) leaves meaning out: no vectors made, keyword search and the Library view measured
//! alone (a library loaded by other means, measured before its vectors are);
//! `SCALE_BENCH_DETAIL` (any value) writes each question's recall@10 to stderr. Indexing by meaning uses
//! the sentence model distilled
//! to a vector per token (what a library this size is indexed with). Prints one JSON line per
//! step.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use research_bench::measure::{memory_mib, percentile};
use research_bench::questions::{self, Question};
use research_library::{Library, VectorSearch};

fn size_mib(path: &Path) -> f64 {
    let bytes: u64 = match path.is_dir() {
        true => walkdir::WalkDir::new(path)
            .into_iter()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum(),
        false => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    };
    mib(bytes as f64)
}

fn hit_at_5(lib: &Library, q: &Question) -> bool {
    let hits = lib.search(&q.text, 5).expect("a search");
    q.answers.iter().any(|a| {
        let url = url::Url::from_file_path(q.folder.join(a))
            .unwrap()
            .to_string();
        hits.iter().any(|h| h.url == url)
    })
}

/// Bytes as MiB, to a tenth.
fn mib(bytes: f64) -> f64 {
    (bytes / 1048576.0 * 10.0).round() / 10.0
}

/// The size of the database at `url` on its server.
fn database_bytes(url: &str) -> i64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .query_one("SELECT pg_database_size(current_database())", &[])
            .await
            .unwrap()
            .get(0)
    })
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dirs: Vec<PathBuf> = std::env::var("SCALE_BENCH_DIRS")
        .unwrap_or_else(|_| "/usr/share/doc/sqlite3".into())
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| PathBuf::from(d).canonicalize().expect("a corpus folder"))
        .collect();
    let max: usize = std::env::var("SCALE_BENCH_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let qs = questions::read(&std::env::var("SCALE_BENCH_QUESTIONS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../benches/retrieval/sqlite.json"
        )
        .into()
    }));
    let Some(model) = research_embed::locate_model() else {
        eprintln!("SKIPPED: no embedding model (bash scripts/fetch-embedder.sh)");
        return;
    };
    let embedder: Arc<dyn research_embed::Embedder> = Arc::new(
        research_embed::BertEmbedder::load(&model)
            .unwrap()
            .distil()
            .unwrap(),
    );
    let work = match std::env::var("SCALE_BENCH_WORK") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => tempfile::tempdir().unwrap().keep(),
    };
    std::fs::create_dir_all(&work).unwrap();
    let db = work.join("library.sqlite3");
    let cache = work.join("vectors");
    let vectors = Arc::new(VectorSearch::kept_in(cache.clone()));
    // `SCALE_BENCH_POSTGRES`: the team library, on a server the bench starts (its data folder
    // under the system's temporary folder), this machine's vector index a cache beside it.
    // `SCALE_BENCH_POSTGRES_URL`: a server already running instead, whose library outlives the
    // bench (a resumed run measures it again; a million passages take an hour to add).
    let given = std::env::var("SCALE_BENCH_POSTGRES_URL").ok();
    let server = match given {
        Some(_) => None,
        None => std::env::var_os("SCALE_BENCH_POSTGRES").map(|_| {
            research_postgres::testing::TempPostgres::start().expect("a PostgreSQL server")
        }),
    };
    let url = given.or_else(|| server.as_ref().map(|s| s.database("library").unwrap()));
    let open = || match &url {
        Some(url) => Library::on(Arc::new(
            research_postgres::PgLibrary::connect_lazy(url, "bench").unwrap(),
        )),
        None => Library::open(&db).unwrap(),
    };
    let db_mib = || match (&server, &url) {
        (Some(s), _) => mib(s.data_bytes() as f64),
        (None, Some(url)) => mib(database_bytes(url) as f64),
        (None, None) => size_mib(&db) + size_mib(&work.join("library.sqlite3-wal")),
    };
    // `SCALE_BENCH_MEASURE_FROM`: folders that leave the library under this many passages are
    // added without being measured.
    let measure_from: usize = std::env::var("SCALE_BENCH_MEASURE_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let only_keywords = std::env::var_os("SCALE_BENCH_KEYWORDS_ONLY").is_some();
    let detail = std::env::var_os("SCALE_BENCH_DETAIL").is_some();
    let keywords = open();
    let hybrid = || {
        open()
            .with_embedder(embedder.clone())
            .with_vector_search(vectors.clone())
    };
    let (mut keyword_s, mut meaning_s) = (0.0, 0.0);
    let mut added: Vec<PathBuf> = Vec::new();
    // `SCALE_BENCH_RESUME`: the library already in SCALE_BENCH_WORK is kept; its folders are not
    // added again, and the last folder listed is measured as the library is (a long run
    // stopped, or other measures of the same library).
    let present: Vec<PathBuf> = match std::env::var_os("SCALE_BENCH_RESUME") {
        Some(_) => keywords
            .folders()
            .unwrap()
            .into_iter()
            .map(|f| PathBuf::from(f.path))
            .collect(),
        None => Vec::new(),
    };
    for (i, dir) in dirs.iter().enumerate() {
        let is_present = present.contains(dir);
        if is_present && i + 1 < dirs.len() {
            added.push(dir.clone());
            continue;
        }
        if !is_present && keywords.passage_count().unwrap() >= max {
            break;
        }
        let before = keywords.passage_count().unwrap();
        let (_, ms) = timed(|| {
            if !is_present {
                keywords.add(dir, &|_| {}).unwrap();
            }
        });
        keyword_s += ms / 1e3;
        let after = keywords.passage_count().unwrap();
        let lib = hybrid();
        let (embedded, ms) = match only_keywords {
            true => (0, 0.0),
            false => timed(|| lib.embed_pending().unwrap()),
        };
        meaning_s += ms / 1e3;
        added.push(dir.clone());
        if after < measure_from {
            continue;
        }
        let (rss_indexing, peak_indexing) = memory_mib();

        // Latency: each question three times by keywords, by meaning alone, and hybrid.
        let asked: Vec<&Question> = qs.iter().collect();
        let (mut kw, mut near, mut hyb) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..3 {
            for q in &asked {
                kw.push(timed(|| keywords.search(&q.text, 10).unwrap()).1);
                if only_keywords {
                    continue;
                }
                near.push(timed(|| lib.nearest(&q.text, 50).unwrap()).1);
                hyb.push(timed(|| lib.search(&q.text, 10).unwrap()).1);
            }
        }
        let (rss_searching, _) = memory_mib();
        // What the Library view asks when it opens: its folders with their file counts, and
        // how far the passages are indexed by meaning (`Studio::library_meaning`).
        let mut view = Vec::new();
        let mut files = 0;
        for _ in 0..5 {
            let (n, ms) = timed(|| {
                let folders = keywords.folders().unwrap();
                keywords.passage_count().unwrap();
                keywords.vectors_of(embedder.model_id()).unwrap();
                folders.iter().map(|f| f.files).sum::<usize>()
            });
            files = n;
            view.push(ms);
        }
        let held = vectors.held();

        // Quality on the questions whose folder is in.
        let gold: Vec<&Question> = qs
            .iter()
            .filter(|q| added.iter().any(|d| q.folder.starts_with(d)))
            .collect();
        let keyword_hits = gold.iter().filter(|q| hit_at_5(&keywords, q)).count();
        let hybrid_hits = match only_keywords {
            true => 0,
            false => gold.iter().filter(|q| hit_at_5(&lib, q)).count(),
        };

        // The approximate index against a scan of every vector (read after the memory above).
        let scan = open()
            .with_embedder(embedder.clone())
            .with_vector_search(Arc::new(
                VectorSearch::in_memory().approximate_from(usize::MAX),
            ));
        // The library re-scores `CANDIDATES` (3) times as many of the graph's nearest as it
        // returns; asking for more and keeping ten shows what more candidates would find.
        let mut kept = [0usize; 3];
        // Recall by id calls another copy of the same text a miss (copies are common in
        // documentation: BENCHMARKS); by similarity, a found passage as near as the scan's tenth
        // counts. The found passages' similarities are exact (re-scored with the stored vectors).
        let mut near_enough = 0usize;
        let mut asked_n = 0;
        for q in qs.iter().filter(|_| !only_keywords) {
            let nearest = scan.nearest(&q.text, 10).unwrap().unwrap();
            let exact: Vec<i64> = nearest.iter().map(|n| n.id).collect();
            let tenth = nearest.last().map_or(f32::MAX, |n| n.similarity);
            for (k, more) in [1, 2, 5].into_iter().enumerate() {
                let found = lib.nearest(&q.text, 10 * more).unwrap().unwrap();
                let kept_here = exact
                    .iter()
                    .filter(|id| found.iter().take(10).any(|n| n.id == **id))
                    .count();
                kept[k] += kept_here;
                if k == 0 && detail {
                    // Which questions the graph misses, and how near the scan's answers are.
                    eprintln!(
                        "recall {kept_here}/{} first {:.3} tenth {tenth:.3}: {}",
                        exact.len(),
                        nearest.first().map_or(0.0, |n| n.similarity),
                        q.text
                    );
                }
                if k == 0 {
                    near_enough += found
                        .iter()
                        .take(exact.len())
                        .filter(|n| n.similarity >= tenth - 1e-6)
                        .count();
                }
            }
            asked_n += exact.len();
        }
        drop(scan);
        let recall = |k: usize| (kept[k] as f64 / asked_n.max(1) as f64 * 1000.0).round() / 1000.0;
        let total = after;
        let round = |x: f64, d: f64| (x * d).round() / d;
        println!(
            "{}",
            serde_json::json!({
                "scenario": "scale", "added": dir.display().to_string(),
                "passages": total, "new_passages": after - before, "embedded": embedded,
                "files": files, "library_view_ms_p50": percentile(&mut view, 50),
                "keywords_passages_per_s": round(total as f64 / keyword_s, 10.0),
                "meaning_passages_per_s": round(total as f64 / meaning_s, 10.0),
                "keywords_s": round(keyword_s, 10.0), "meaning_s": round(meaning_s, 10.0),
                "index": held.map(|(n, a)| format!("{} vectors, {}", n, if a { "approximate" } else { "scan" })),
                "keywords_ms_p50": percentile(&mut kw, 50), "keywords_ms_p95": percentile(&mut kw, 95),
                "meaning_ms_p50": percentile(&mut near, 50), "meaning_ms_p95": percentile(&mut near, 95),
                "hybrid_ms_p50": percentile(&mut hyb, 50), "hybrid_ms_p95": percentile(&mut hyb, 95),
                "rss_mib_indexing": rss_indexing, "peak_rss_mib_indexing": peak_indexing,
                "rss_mib_searching": rss_searching,
                "store": if url.is_some() { "postgresql" } else { "sqlite" },
                "db_mib": db_mib(),
                "vector_index_mib": size_mib(&cache),
                "gold_questions": gold.len(),
                "keywords_hit_at_5": keyword_hits, "hybrid_hit_at_5": hybrid_hits,
                "recall_at_10_vs_scan": recall(0),
                "recall_at_10_by_similarity": (near_enough as f64 / asked_n.max(1) as f64 * 1000.0).round() / 1000.0,
                "recall_at_10_vs_scan_60_candidates": recall(1),
                "recall_at_10_vs_scan_150_candidates": recall(2),
            })
        );
    }
}
