//! The signals the coverage of a research question is read from, for fitting and scoring it
//! against the gold answers (`scripts/coverage-fit.py` runs this over saved runs).
//!
//! Reads JSON lines `{"id": …, "question": …, "evidence": [{"fact": …, "quote": …}, …]}` on
//! stdin; writes one JSON line per input: `{"id", "share", "backing": [{"index", "p"}], "close":
//! [[i, j, cosine], …], "answering": [p, …]}` — the share of a complete answer the evidence states
//! (`gaps::answered`, what a report states as its coverage), the evidence items that back the question (as `gaps::evidence_coverage`
//! takes them: at the answering threshold, on the question, the fact borne out by its quote) with
//! their answering probability, the sentence model's closeness of each pair of them (empty
//! without the model), and every item's answering probability.

use std::io::{BufRead, Write};

use research_pipeline::steps::gaps;
use research_pipeline::Evidence;

fn main() -> anyhow::Result<()> {
    // As the program installs it (`research_api::check_with_meaning`), so that the answering
    // measure reads with the sentence model too.
    research_check::meaning::install(|| {
        let dir = research_embed::locate_model()?;
        research_embed::BertEmbedder::load(&dir)
            .ok()
            .map(|m| std::sync::Arc::new(m) as std::sync::Arc<dyn research_embed::TokenEmbedder>)
    });
    let meaning = research_check::meaning::installed();
    if meaning.is_none() {
        eprintln!("coverage_signals: no sentence model; closeness is empty");
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let ask: serde_json::Value = serde_json::from_str(&line)?;
        let question = ask["question"].as_str().unwrap_or_default();
        let evidence: Vec<Evidence> = ask["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                Evidence::unnumbered(
                    e["fact"].as_str().unwrap_or_default().to_string(),
                    e["quote"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let backing = gaps::backing(question, &evidence);
        let close: Vec<(usize, usize, f64)> = meaning
            .and_then(|m| {
                let texts: Vec<&str> = backing
                    .iter()
                    .map(|(i, _)| evidence[*i].quote.as_str())
                    .collect();
                let encoded = m.encode(&texts).ok()?;
                let mut pairs = Vec::new();
                for a in 0..encoded.len() {
                    for b in a + 1..encoded.len() {
                        let c =
                            research_embed::similarity(&encoded[a].sentence, &encoded[b].sentence);
                        pairs.push((backing[a].0, backing[b].0, c as f64));
                    }
                }
                Some(pairs)
            })
            .unwrap_or_default();
        let answered = gaps::answered(question, &evidence);
        let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
        let row = serde_json::json!({
            "id": ask["id"],
            "share": answered.share,
            "answering": research_pipeline::steps::relevance::answers::answering(question, &quotes),
            "backing": backing.iter().map(|(i, p)| serde_json::json!({"index": i, "p": p})).collect::<Vec<_>>(),
            "close": close,
        });
        writeln!(out, "{row}")?;
    }
    Ok(())
}
