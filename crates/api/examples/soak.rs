//! The soak: many research runs in one process, as the app lives through a working week — one
//! after another over the CLI tests' library with the scripted model, each saved as the app
//! saves it; every tenth session is rechecked and put on a schedule, and the schedules due are
//! run (recheck and research again). Every few runs it prints what must stay bounded: resident
//! memory, open files, the database's size and its write-ahead log's; at the end every session
//! must read back with its report. BENCHMARKS.md, "A long life in one process".
//!
//! `cargo run --release -p research-api --example soak -- [RUNS] [EVERY]` (300, 25).

use std::path::Path;
use std::time::Instant;

use research_api::{
    CancellationToken, MemoryKeys, ModelRouting, ResearchRequest, RunConfig, Studio,
};

const QUESTION: &str = "How do honeybees communicate and organise their colonies?";

/// Resident memory in KiB (Linux), from `/proc/self/status`.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Files this process has open.
fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let every: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(25);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/fixtures");
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("research.sqlite3");
    let wal = dir.path().join("research.sqlite3-wal");
    let studio = Studio::open(Some(&db))?;
    studio.library()?.add(&fixtures.join("corpus"), &|_| {})?;
    let config = RunConfig {
        models: ModelRouting::single(format!(
            "scripted:{}",
            fixtures.join("script.json").display()
        )),
        search: vec!["local".into()],
        no_input: true,
        ..RunConfig::default()
    };
    let keys = MemoryKeys::default();
    let start = Instant::now();
    println!("runs\tseconds\trss_mib\topen_files\tdb_mib\twal_mib");
    let (mut rechecks, mut scheduled) = (0, 0);
    for i in 1..=runs {
        let (session, thread) = studio.start_research(&ResearchRequest {
            question: QUESTION.into(),
            config: config.clone(),
            ..Default::default()
        })?;
        studio
            .run_research(&thread, None, &keys, None, CancellationToken::new())
            .await?;
        if i % 10 == 0 {
            studio.recheck(&session).await?;
            rechecks += 1;
            // Due at once, researched again when a source changed.
            studio.watch(&session, "1d", true, Some(0))?;
            scheduled += studio.run_due_now(&keys).await?.len();
        }
        if i == 1 || i % every == 0 || i == runs {
            let mib = |b: u64| b as f64 / 1_048_576.0;
            println!(
                "{i}\t{:.0}\t{:.1}\t{}\t{:.1}\t{:.1}",
                start.elapsed().as_secs_f64(),
                rss_kib() as f64 / 1024.0,
                open_files(),
                mib(size(&db)),
                mib(size(&wal))
            );
        }
    }
    // Every session reads back, each with its report.
    let sessions = studio.list_sessions(None)?;
    let mut unread = 0;
    for s in &sessions {
        match studio.session(&s.id) {
            Ok(detail) if !detail.reports.is_empty() => {}
            _ => unread += 1,
        }
    }
    println!(
        "sessions {} (read back: {}), rechecks {rechecks}, schedule runs {scheduled}",
        sessions.len(),
        sessions.len() - unread
    );
    if unread > 0 || sessions.len() != runs {
        return Err(format!("{unread} of {} sessions did not read back", sessions.len()).into());
    }
    Ok(())
}
