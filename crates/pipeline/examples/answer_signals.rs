//! The answering signals of every sentence of some pages against a question, for fitting and
//! scoring the measure of `steps::relevance::answers` (`scripts/answer-fit.py` runs this).
//!
//! Reads JSON lines `{"id": …, "question": …, "pages": ["/abs/path.html", …]}` on stdin; writes
//! one JSON line per sentence: `{"id", "page", "sentence", "words": [signals read with words
//! alone], "meaning": [signals with the sentence model]}` — `meaning` is `null` when no model is
//! installed (`bash scripts/fetch-embedder.sh`). Pages are extracted as the app extracts them
//! and cut into sentences as extraction shows them (a table row as it stands).

use std::io::{BufRead, Write};
use std::sync::Arc;

use research_check::meaning::Meaning;
use research_pipeline::steps::relevance::answers;
use research_pipeline::text;

fn main() -> anyhow::Result<()> {
    let meaning = research_embed::locate_model()
        .and_then(|dir| research_embed::BertEmbedder::load(&dir).ok())
        .map(|m| Meaning::new(Arc::new(m)));
    if meaning.is_none() {
        eprintln!("answer_signals: no sentence model; the meaning signals are null");
    }
    let extractor = research_fetch::Extractor::InProcess;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let ask: serde_json::Value = serde_json::from_str(&line)?;
        let question = ask["question"].as_str().unwrap_or_default();
        let mut sentences: Vec<(String, String)> = Vec::new();
        for page in ask["pages"].as_array().into_iter().flatten() {
            let Some(path) = page.as_str() else { continue };
            let Ok(body) = std::fs::read(path) else {
                eprintln!("answer_signals: cannot read {path}");
                continue;
            };
            let url = format!("file://{path}");
            let Ok(doc) = extractor.extract("text/html", body, &url) else {
                eprintln!("answer_signals: cannot extract {path}");
                continue;
            };
            let t = &doc.text;
            for s in text::sentences(t, 0..t.len()) {
                let shown = if s.is_row(t) {
                    text::plain(&t[s.range.clone()])
                } else {
                    s.reading(t)
                };
                if !shown.trim().is_empty() {
                    sentences.push((path.to_string(), shown));
                }
            }
        }
        let texts: Vec<&str> = sentences.iter().map(|(_, s)| s.as_str()).collect();
        let words = answers::signals(question, &texts, None);
        let with_meaning = meaning
            .as_ref()
            .map(|m| answers::signals(question, &texts, Some(m)));
        for (i, (page, sentence)) in sentences.iter().enumerate() {
            let row = serde_json::json!({
                "id": ask["id"],
                "page": page,
                "sentence": sentence,
                "words": words[i],
                "meaning": with_meaning.as_ref().map(|m| m[i]),
            });
            writeln!(out, "{row}")?;
        }
    }
    Ok(())
}
