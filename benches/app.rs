//! The desktop app as a person starts it: time from launch to an interactive window (the page
//! has loaded and answered its first command), memory when idle, and memory during a research
//! run with the built-in model (SmolLM2-135M from `scripts/fetch-model.sh`) over a local library.
//! Memory is the resident set of the app and every WebKit process it started.
//!
//! `cargo bench --bench app` (needs Xvfb, tauri-driver and `RS_TEST_MODEL`); prints JSON lines.
//! To measure the release build without building the bench in release too:
//! `RS_APP_BIN=$CARGO_TARGET_DIR/release/research-studio cargo bench --profile dev --bench app`.

#[path = "../tests/support/desktop.rs"]
mod desktop;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use desktop::{App, Display, Profile};
use serde_json::json;

/// The app measured: `RS_APP_BIN` (e.g. the release build the bundles ship), else the one
/// cargo built for this bench.
fn app_bin() -> PathBuf {
    std::env::var_os("RS_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_research-studio")))
}

/// Parent of every process, from /proc.
fn parents() -> HashMap<u32, u32> {
    let mut map = HashMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) {
            // `pid (comm) state ppid …`; comm may hold spaces, so split after the last ')'.
            if let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) {
                if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
                    map.insert(pid, ppid);
                }
            }
        }
    }
    map
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn name(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// RSS in MiB of `root` and its descendants, by process name.
fn tree_rss(root: u32) -> (f64, Vec<(String, f64)>) {
    let parents = parents();
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| **pp == p).map(|(c, _)| *c));
        i += 1;
    }
    let parts: Vec<(String, f64)> = tree
        .iter()
        .map(|p| (name(*p), rss_kib(*p) as f64 / 1024.0))
        .collect();
    (parts.iter().map(|(_, m)| m).sum(), parts)
}

/// The running app's pid (started through tauri-driver), found by its executable.
fn app_pid() -> Option<u32> {
    let exe = std::fs::canonicalize(app_bin()).ok()?;
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid = e.file_name().to_string_lossy().parse::<u32>().ok()?;
        (std::fs::read_link(e.path().join("exe")).ok()? == exe).then_some(pid)
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Launches the app directly and times it to "ready"; then idles and measures it.
fn launch(display: &Display, profile: &Profile, idle: Duration) -> (f64, f64, Vec<(String, f64)>) {
    let t = Instant::now();
    let mut cmd = Command::new(app_bin());
    cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    for (k, v) in profile.env(display) {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the app starts");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let ready = loop {
        match lines.next() {
            Some(Ok(l)) if l.contains("research-studio: ready") => break t.elapsed(),
            Some(_) => {}
            None => panic!("the app exited before it was ready"),
        }
    };
    // Keep draining so the app never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    std::thread::sleep(idle);
    let (total, parts) = tree_rss(child.id());
    let _ = child.kill();
    let _ = child.wait();
    (ready.as_secs_f64() * 1000.0, total, parts)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let display = Display::start();
    let dir = tempfile::tempdir().unwrap();

    // Launch to interactive: the first launch of a fresh profile, then 5 more.
    let profile = Profile::new(&dir.path().join("launch"));
    let (first_ms, _, _) = launch(&display, &profile, Duration::from_millis(500));
    let mut times = Vec::new();
    let mut idle = Vec::new();
    let mut parts = Vec::new();
    for _ in 0..5 {
        let (ms, rss, p) = launch(&display, &profile, Duration::from_secs(5));
        times.push(ms);
        idle.push(rss);
        parts = p;
    }
    let line = json!({
        "bench": "app_launch",
        "first_launch_ms": first_ms,
        "launch_to_interactive_ms_median": median(times.clone()),
        "launch_ms": times,
        "idle_rss_mib_median": median(idle.clone()),
        "idle_rss_mib_by_process": parts,
    });
    println!("{line}");

    // A research run with the built-in model.
    let Some(model) = std::env::var_os("RS_TEST_MODEL") else {
        eprintln!("skipping the run: set RS_TEST_MODEL (scripts/fetch-model.sh prints it)");
        return;
    };
    let spec = format!("local:{}", PathBuf::from(model).display());
    let profile = Profile::with_library(&dir.path().join("run"), &spec);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let shots = desktop::artifacts("bench_app");
        let app = App::start(&display, &profile, &shots).await;
        let pid = app_pid().expect("the app's process");
        let before = tree_rss(pid).0;
        app.fill("#question", "How do honeybees communicate and organise their colonies?")
            .await;
        app.js(
            "for (const id of ['review-clarify','review-plan','review-report']) \
             document.getElementById(id).checked = false; \
             document.getElementById('depth').value = 'quick'; return null",
        )
        .await;
        let t = Instant::now();
        app.click("#start").await;
        let mut peak = (0.0, Vec::new());
        let mut samples = Vec::new();
        let outcome = loop {
            let (total, parts) = tree_rss(pid);
            samples.push(total);
            if total > peak.0 {
                peak = (total, parts);
            }
            let meta = app
                .js("const m = document.getElementById('session-meta'); return m ? m.textContent : ''")
                .await;
            let status = app
                .js("return document.getElementById('run-status').textContent")
                .await;
            let meta = meta.as_str().unwrap_or_default().to_string();
            if meta.starts_with("Finished") {
                break meta;
            }
            let status = status.as_str().unwrap_or_default();
            if status.contains("stopped") || status.contains("failed") {
                break status.to_string();
            }
            assert!(t.elapsed() < Duration::from_secs(600), "the run took over 10 minutes");
            tokio::time::sleep(Duration::from_millis(250)).await;
        };
        let secs = t.elapsed().as_secs_f64();
        app.shot("run-finished").await;
        let line = json!({
            "bench": "app_run_builtin_model",
            "model": "SmolLM2-135M-Instruct Q4_1",
            "outcome": outcome,
            "run_s": secs,
            "rss_mib_before_run": before,
            "rss_mib_peak_during_run": peak.0,
            "rss_mib_median_during_run": median(samples),
            "peak_by_process": peak.1,
        });
        println!("{line}");
        app.quit().await;
    });
}
