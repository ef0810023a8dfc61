//! `research check --json` for many documents in one process: what `scripts/attribution-bench.py`
//! and `scripts/near-miss-bench.py` measure the checker with, so the sentence model is loaded
//! once rather than once per claim. Each line of standard input is a request,
//! `{"document": PATH, "sources": ["1=PATH", …], "weights": PATH or null}`; each line of standard
//! output is `research check --json`'s answer for it, or `{"error": "…"}`. The same functions as
//! the command, in the same order: read the document and its sources, check with the weights
//! (the committed ones for this reading when none are given).
//!
//!     cargo run --release -p research-cli --example check_many < requests.jsonl

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::Context;

fn answer(line: &str) -> anyhow::Result<serde_json::Value> {
    let request: serde_json::Value = serde_json::from_str(line).context("a request is JSON")?;
    let document = request["document"].as_str().context("no document")?;
    let sources: Vec<research_api::CheckSource> = request["sources"]
        .as_array()
        .context("no sources")?
        .iter()
        .map(|s| {
            s.as_str()
                .context("a source is N=PATH")?
                .parse()
                .map_err(|e| anyhow::anyhow!("{e}"))
        })
        .collect::<anyhow::Result<_>>()?;
    let weights = match request["weights"].as_str() {
        Some(path) => research_api::read_weights(Path::new(path))?,
        None => research_api::CheckWeights::active().clone(),
    };
    let markdown = research_api::read_check_document(Path::new(document))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let sources = runtime.block_on(research_api::read_check_sources(&sources, &[]))?;
    let found = research_api::check_document(&markdown, &sources, &weights)?;
    Ok(serde_json::to_value(&found)?)
}

fn main() -> anyhow::Result<()> {
    research_api::check_with_meaning();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let value =
            answer(&line).unwrap_or_else(|e| serde_json::json!({ "error": format!("{e:#}") }));
        writeln!(out, "{value}")?;
        out.flush()?;
    }
    Ok(())
}
