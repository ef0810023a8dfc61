//! Library indexing and query times on a corpus of real files.
//!
//! `LIBRARY_BENCH_DIR` names the corpus (default `/usr/share/doc`, whose HTML and text
//! documentation is real and varied). `LIBRARY_BENCH_STORE=postgres` indexes into a PostgreSQL
//! server the bench starts (Unix socket, `fsync=on`) instead of a SQLite file. Prints one JSON
//! line.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let corpus = PathBuf::from(
        std::env::var("LIBRARY_BENCH_DIR").unwrap_or_else(|_| "/usr/share/doc".into()),
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.sqlite3");
    let postgres = std::env::var("LIBRARY_BENCH_STORE").is_ok_and(|s| s == "postgres");
    let server = postgres
        .then(|| research_postgres::testing::TempPostgres::start().expect("a PostgreSQL server"));
    // LIBRARY_BENCH_URL: a server of your own instead (left as it is, to look at after).
    let url = std::env::var("LIBRARY_BENCH_URL")
        .ok()
        .or_else(|| server.as_ref().map(|s| s.database("research").unwrap()));
    let lib = match &url {
        Some(url) => research_library::Library::on(std::sync::Arc::new(
            research_postgres::PgLibrary::connect_lazy(url, "bench").unwrap(),
        )),
        None => research_library::Library::open(&db).unwrap(),
    };

    let t = Instant::now();
    let first = lib.add(&corpus, &|_| {}).unwrap();
    let index_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let again = lib.reindex(&|_| {}).unwrap();
    let reindex_s = t.elapsed().as_secs_f64();

    let queries = [
        "license",
        "copyright notice",
        "configuration file",
        "regular expression",
        "garbage collection",
        "transaction isolation level",
        "merge conflict",
        "unicode string encoding",
        "network socket timeout",
        "build system generator",
        "memory allocation",
        "command line options",
        "index scan",
        "rebase interactive",
        "thread safety",
        "file permissions",
        "character set",
        "installation prefix",
        "error handling",
        "bug report",
    ];
    let mut times = Vec::new();
    let mut hits = 0;
    for _ in 0..3 {
        for q in queries {
            let t = Instant::now();
            hits += lib.search(q, 10).unwrap().len();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times[times.len() / 2];
    let p95 = times[times.len() * 95 / 100];
    let db_bytes = match &server {
        Some(server) => server.data_bytes(),
        None => {
            std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0)
                + std::fs::metadata(db.with_extension("sqlite3-wal"))
                    .map(|m| m.len())
                    .unwrap_or(0)
        }
    };
    println!(
        "{}",
        serde_json::json!({
            "scenario": "library", "store": if postgres { "postgres" } else { "sqlite" }, "corpus": corpus.display().to_string(),
            "files_scanned": first.scanned, "files_indexed": first.indexed, "files_unreadable": first.failed.len(),
            "index_s": (index_s * 100.0).round() / 100.0,
            "files_per_s": ((first.indexed as f64 / index_s) * 10.0).round() / 10.0,
            "reindex_unchanged_s": (reindex_s * 1000.0).round() / 1000.0, "reindex_unchanged": again.unchanged,
            "query_ms_median": (median * 100.0).round() / 100.0, "query_ms_p95": (p95 * 100.0).round() / 100.0,
            "queries": times.len(), "hits": hits, "db_mib": ((db_bytes as f64 / 1048576.0) * 10.0).round() / 10.0,
        })
    );
}
