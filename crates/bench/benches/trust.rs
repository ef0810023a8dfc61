//! The trust pipeline: model calls, tokens and wall time of a one-round run at standard depth,
//! batched against full, with no known context window (a page per extraction call) and with a
//! cloud model's (four pages a call), on a five-page and a nine-page question (a scripted model that waits 400 ms a call, search 250 ms, fetch
//! 150 ms); then cross-validation alone on a planted corpus — for each of twenty facts an
//! original page, a mirror, a syndicated copy inside other text, an independent page saying it
//! in its own words, and for every other fact a page stating another number — counting the
//! mirrors collapsed, the contradictions surfaced and the false ones. Prints one JSON line per
//! measurement.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use research_llm::{Budget, LlmClient, Meter, PriceTable, ScriptedAnswer, ScriptedLlm};
use research_pipeline::pipelines::trust;
use research_pipeline::steps::audit::{AuditEntry, AuditStatus};
use research_pipeline::steps::trust::corroborate::{cross_validate, Passages, Record};
use research_pipeline::steps::trust::origins::Origins;
use research_pipeline::{
    initial_state, sha256_hex, Evidence, ReviewPoints, RunConfig, Source, TrustVariant,
};
use serde_json::json;

use research_bench::sim::{answer, env, rust_web, Slow, Web, FETCH_MS, LLM_MS, SEARCH_MS};

fn web() -> Arc<Web> {
    Arc::new(rust_web(|topic, i| {
        format!("https://site{i}.example/{topic}")
    }))
}

fn script() -> Vec<ScriptedAnswer> {
    vec![
        answer("understand", json!({"intent": "memory management", "class": "factual", "entities": ["Rust ownership"],
            "temporal": "", "complexity": "simple", "confidence": 0.9, "question": "", "options": [], "interpretation": "x"})),
        answer("plan", json!({"questions": [
                {"question": "How does ownership work?", "level": "primary"},
                {"question": "How do collectors differ?", "level": "secondary"},
                {"question": "What does borrowing allow?", "level": "secondary"}],
            "outline": [],
            "searches": [
                {"query": "ownership rules", "kind": "web", "from_year": 0, "to_year": 0},
                {"query": "garbage collector", "kind": "web", "from_year": 0, "to_year": 0},
                {"query": "borrowing references", "kind": "web", "from_year": 0, "to_year": 0},
                {"query": "lifetimes references", "kind": "web", "from_year": 0, "to_year": 0},
                {"query": "ownership memory", "kind": "web", "from_year": 0, "to_year": 0}]})),
        answer("extract", json!({"facts": [{"fact": "A fact.", "sentence": 2, "end_sentence": 2}, {"fact": "Another.", "sentence": 3, "end_sentence": 3}]})),
        answer("gaps", json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "well_covered"}, {"question": 3, "status": "well_covered"}], "gaps": [], "new_searches": []})),
        answer("verify", json!({"verdicts": [{"claim": 1, "supported": true}, {"claim": 2, "supported": true}, {"claim": 3, "supported": true}]})),
        ScriptedAnswer {
            purpose: Some("write".into()),
            contains: None,
            text: Some("## Summary\nRust manages memory through ownership rules that the compiler checks at compile time [1]. \
Tracing garbage collectors in Java and Go reclaim memory while the program runs [3]. The borrow checker allows one mutable \
reference or many shared references at a time [5].".into()),
            json: None,
            delay_ms: None,
        },
    ]
}

/// A question on ownership alone (five pages found), and one on all four topics (ten).
const QUESTIONS: [&str; 2] = [
    "How does Rust manage memory with ownership?",
    "How do ownership, borrowing, lifetimes and garbage collectors manage memory?",
];

fn calls(rt: &tokio::runtime::Runtime) {
    // Without a known window each page is a call of its own; with a cloud model's window four
    // pages share one.
    let runs = [
        (TrustVariant::Batched, None),
        (TrustVariant::Full, None),
        (TrustVariant::Batched, Some(128_000)),
        (TrustVariant::Full, Some(128_000)),
    ];
    for (question, (variant, window)) in QUESTIONS
        .iter()
        .flat_map(|q| runs.iter().map(move |r| (*q, *r)))
    {
        let config = RunConfig {
            review: ReviewPoints::none(),
            no_input: true,
            max_iterations: Some(1),
            trust: variant,
            ..Default::default()
        };
        let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
        let mut scripted = ScriptedLlm::new(script());
        if let Some(tokens) = window {
            scripted = scripted.with_context_tokens(tokens);
        }
        let model: Arc<dyn LlmClient> = Arc::new(Slow(scripted));
        let env = env(&config, model.clone(), meter.clone(), web());
        let started = Instant::now();
        let state = rt
            .block_on(trust::graph(&config, None).unwrap().invoke(
                initial_state(question, &config, 0),
                research_graph::RunOptions::new("bench", env).max_concurrency(8),
            ))
            .unwrap()
            .into_state();
        let wall_ms = started.elapsed().as_millis() as u64;
        let by_node: BTreeMap<String, u64> = meter
            .by_node()
            .into_iter()
            .map(|(node, usage)| (node, usage.calls))
            .collect();
        // Dependent calls: analyze, plan, (search → fetch → extract), gaps, verify, then the
        // writing node's calls one after another (write, the audit's check, cross-validation).
        let write_calls = by_node.get("write_report").copied().unwrap_or(0);
        let critical_ms = 2 * LLM_MS
            + SEARCH_MS
            + (SEARCH_MS + FETCH_MS + LLM_MS)
            + LLM_MS
            + by_node.get("verify").copied().unwrap_or(0) * LLM_MS
            + write_calls * LLM_MS;
        let totals = meter.totals();
        println!(
            "{}",
            json!({
                "scenario": "trust_calls",
                "variant": format!("{variant:?}").to_lowercase(),
                "window": window,
                "question": question,
                "sources": state.sources.len(),
                "evidence": state.evidence.len(),
                "claims": state.trust.claims.len(),
                "llm_calls": totals.calls,
                "calls_by_node": by_node,
                "prompt_tokens": totals.prompt_tokens,
                "completion_tokens": totals.completion_tokens,
                "wall_ms": wall_ms,
                "critical_path_ms": critical_ms,
            })
        );
    }
}

fn source(id: u32, url: &str, text: &str) -> Source {
    Source {
        id,
        url: url.into(),
        title: url.into(),
        kind: "web".into(),
        provider: "planted".into(),
        published: None,
        sha256: sha256_hex(text),
        accessed_at_ms: 0,
        citation: None,
    }
}

/// Cross-validation on planted mirrors, syndicated copies and contradictions (no model).
fn planted() {
    const FACTS: u32 = 20;
    let mut sources = Vec::new();
    let mut texts = BTreeMap::new();
    let mut evidence = Vec::new();
    let mut claims = Vec::new();
    let mut contradicted = 0;
    for k in 0..FACTS {
        let n = 1_000 + 37 * k;
        let fact = format!("The harbour of town {k} handles about {n} ships in a typical year.");
        let original = format!(
            "{fact} Its quays were rebuilt after the storm of the last decade. Fishing boats \
and ferries share the inner basin, while cargo ships use the deep outer berths."
        );
        let own = format!(
            "Port statistics say that about {n} ships call at the harbour of town {k} in a \
typical year. The statistics office counts every arrival."
        );
        let base = sources.len() as u32;
        let pages = [
            (
                format!("https://port{k}.example.org/harbour"),
                original.clone(),
            ),
            (
                format!("https://mirror{k}.example.net/harbour"),
                format!("Mirror. {original}"),
            ),
            (
                format!("https://news{k}.example.com/daily"),
                format!(
                    "Daily digest, item {k}. {original} Reprinted with permission of the port."
                ),
            ),
            (format!("https://stats{k}.example.edu/ports"), own),
        ];
        for (i, (url, text)) in pages.iter().enumerate() {
            let id = base + i as u32 + 1;
            sources.push(source(id, url, text));
            texts.insert(id, text.clone());
        }
        if k % 2 == 0 {
            let id = base + 5;
            let other = n + 500;
            let text = format!(
                "A survey found that the harbour of town {k} handles about {other} ships in a \
typical year, more than the port says."
            );
            sources.push(source(
                id,
                &format!("https://survey{k}.example.info/report"),
                &text,
            ));
            texts.insert(id, text);
            contradicted += 1;
        }
        let quote = fact.clone();
        evidence.push(Evidence {
            id: k + 1,
            source_id: base + 1,
            source_url: sources[base as usize].url.clone(),
            fact: quote.clone(),
            quote,
            question: None,
            query: String::new(),
        });
        claims.push(AuditEntry {
            sentence: format!("{} [{}].", fact.trim_end_matches('.'), base + 1),
            sources: vec![base + 1],
            status: AuditStatus::Verified,
            evidence: vec![k + 1],
            check: String::new(),
            written: None,
            passage: None,
            score: None,
        });
    }
    let started = Instant::now();
    let origins = Origins::of(&sources, &texts);
    let passages = Passages::of(&texts);
    let record = Record {
        evidence: &evidence,
        passages: &passages,
        origins: &origins,
        credibility: &[],
    };
    let judged: Vec<_> = claims.iter().map(|c| cross_validate(c, &record)).collect();
    let elapsed_us = started.elapsed().as_micros() as u64;
    let mirrors_planted = 2 * FACTS as usize;
    let mirrors_collapsed = origins
        .same
        .iter()
        .filter(|s| s.why.starts_with("a copy") || s.why == "the same text")
        .count();
    let two_origins = judged.iter().filter(|c| c.origins == 2).count();
    let surfaced = judged
        .iter()
        .enumerate()
        .filter(|(k, c)| k % 2 == 0 && !c.contradicted_by.is_empty())
        .count();
    let false_contradictions = judged
        .iter()
        .enumerate()
        .filter(|(k, c)| k % 2 == 1 && !c.contradicted_by.is_empty())
        .count();
    println!(
        "{}",
        json!({
            "scenario": "cross_validation_planted",
            "claims": FACTS,
            "sources": sources.len(),
            "mirrors_planted": mirrors_planted,
            "mirrors_collapsed": mirrors_collapsed,
            "claims_with_exactly_two_origins": two_origins,
            "contradictions_planted": contradicted,
            "contradictions_surfaced": surfaced,
            "false_contradictions": false_contradictions,
            "elapsed_us": elapsed_us,
        })
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    planted();
    let rt = tokio::runtime::Runtime::new().unwrap();
    calls(&rt);
}
