//! How long the checker takes on a report: 50 cited sentences over 10 sources' whole texts, with
//! words alone and with the sentence model (its first check, every window encoded, and a check
//! of the same report again, every window cached). Issue 51's line: a 50-sentence report citing
//! 10 sources checked in at most 1 s with a release build on two cores.
//!
//!     cargo bench -p research-check --bench check
//!
//! The sources are ten pages of Debian's `sqlite3-doc` (`CHECK_BENCH_DIR`, default
//! `/usr/share/doc/sqlite3`), their tags stripped; the sentences are five of each page's own,
//! each cut to its first twelve words and cited, so every one aligns somewhere as a real report's
//! does. The model is the one `scripts/fetch-embedder.sh` installs (`RESEARCH_STUDIO_EMBEDDER`);
//! the entailment reader, read beside it in the last two lines, the one
//! `scripts/fetch-entailment.sh` installs (`RESEARCH_STUDIO_ENTAILMENT`). Prints one JSON object.

use std::sync::Arc;
use std::time::Instant;

use research_check::meaning::Meaning;
use research_check::{check_reading, Passage, SourceTexts, Weights};

/// The page's visible text: tags, scripts and styles dropped, entities left as they are.
fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let tag = &rest[open..];
        let skip_to = |end: &str| tag.find(end).map(|i| i + end.len());
        let lower = tag.get(..8).unwrap_or(tag).to_ascii_lowercase();
        let next = if lower.starts_with("<script") {
            skip_to("</script>")
        } else if lower.starts_with("<style") {
            skip_to("</style>")
        } else {
            tag.find('>').map(|i| i + 1)
        };
        match next {
            Some(n) => {
                out.push(if tag.starts_with("<p") || tag.starts_with("<h") {
                    '\n'
                } else {
                    ' '
                });
                rest = &tag[n..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn main() {
    let dir = std::env::var("CHECK_BENCH_DIR").unwrap_or_else(|_| "/usr/share/doc/sqlite3".into());
    let pages = [
        "wal.html",
        "atomiccommit.html",
        "lockingv3.html",
        "lang_vacuum.html",
        "fileformat2.html",
        "queryplanner.html",
        "optoverview.html",
        "pragma.html",
        "tempfiles.html",
        "howtocorrupt.html",
    ];
    let mut texts: Vec<String> = Vec::new();
    for page in pages {
        match std::fs::read_to_string(format!("{dir}/{page}")) {
            Ok(html) => texts.push(visible(&html)),
            Err(e) => {
                eprintln!(
                    "SKIPPED: {dir}/{page}: {e} (install sqlite3-doc, or set CHECK_BENCH_DIR)"
                );
                return;
            }
        }
    }
    let mut report: Vec<(String, usize)> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let prepared = research_check::text::sentences(text, 0..text.len());
        let mut taken = 0;
        for s in prepared.iter().skip(20) {
            let words: Vec<&str> = text[s.range.clone()].split_whitespace().collect();
            if words.len() < 12 || taken == 5 {
                continue;
            }
            report.push((format!("{}.", words[..12].join(" ")), i + 1));
            taken += 1;
        }
    }
    let mut sources = SourceTexts::new();
    for (i, t) in texts.iter().enumerate() {
        sources.insert(i + 1, t);
    }
    let check_all = |meaning: Option<&Meaning>, weights: &Weights| {
        let start = Instant::now();
        for (sentence, source) in &report {
            let cited = [Passage {
                source: *source,
                text: "",
            }];
            std::hint::black_box(check_reading(sentence, &cited, &sources, weights, meaning));
        }
        start.elapsed().as_secs_f64()
    };
    let words = check_all(None, Weights::committed());
    let model = research_embed::locate_model().and_then(|dir| {
        research_embed::BertEmbedder::load(&dir)
            .map_err(|e| eprintln!("the model did not load: {e}"))
            .ok()
    });
    let (mut cold, mut warm, mut read_cold, mut read_warm) = (None, None, None, None);
    match model {
        Some(model) => {
            let model = Arc::new(model);
            let meaning = Meaning::new(model.clone());
            cold = Some(check_all(Some(&meaning), Weights::committed_meaning()));
            warm = Some(check_all(Some(&meaning), Weights::committed_meaning()));
            // Loaded after the lines without it: its runtime's threads do not share the cores
            // with them.
            let reader = research_entail::locate_model().and_then(|dir| {
                research_entail::OnnxEntailment::load(&dir)
                    .map_err(|e| eprintln!("the entailment reader did not load: {e}"))
                    .ok()
            });
            match reader {
                Some(reader) => {
                    // A fresh cache: the first check encodes every window again, as a new
                    // process's would.
                    let meaning = Meaning::with_entailment(model, Arc::new(reader));
                    read_cold = Some(check_all(Some(&meaning), Weights::committed_meaning()));
                    read_warm = Some(check_all(Some(&meaning), Weights::committed_meaning()));
                }
                None => {
                    eprintln!("no entailment reader: run scripts/fetch-entailment.sh for its lines")
                }
            }
        }
        None => {
            eprintln!("no sentence model: run scripts/fetch-embedder.sh for the meaning lines");
        }
    }
    let chars: usize = texts.iter().map(String::len).sum();
    println!(
        "{}",
        serde_json::json!({
            "sentences": report.len(),
            "sources": texts.len(),
            "source_chars": chars,
            "words_alone_s": words,
            "meaning_first_check_s": cold,
            "meaning_again_cached_s": warm,
            "with_entailment_first_check_s": read_cold,
            "with_entailment_again_cached_s": read_warm,
        })
    );
}
