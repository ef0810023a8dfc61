//! The harness the pipeline's end-to-end tests share: a tiny corpus behind the search and fetch
//! seams, a scripted model, and a run helper.
#![allow(dead_code)]

use async_trait::async_trait;
use research_fetch::{Document, DocumentKind, FetchError, Fetcher};
use research_graph::{FixedClock, MemoryCheckpointer, RunOptions, RunOutcome};
use research_llm::{
    LlmClient, Meter, ModelRouting, PriceTable, RoleModels, ScriptedAnswer, ScriptedLlm,
};
use research_pipeline::eval::RunResult;
use research_pipeline::text::{normalize, quote_in};
use research_pipeline::*;
use research_search::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A tiny web: pages by URL, found by any shared word.
pub struct Corpus(BTreeMap<String, (String, String)>);

/// The tiny web with `extra` pages (url, title, text) added.
pub fn corpus_with(extra: &[(&str, &str, &str)]) -> Arc<Corpus> {
    let mut pages = corpus().0.clone();
    for (url, title, text) in extra {
        pages.insert(url.to_string(), (title.to_string(), text.to_string()));
    }
    Arc::new(Corpus(pages))
}

/// A tiny web of exactly these pages (url, title, text).
pub fn corpus_of(pages: &[(&str, &str, &str)]) -> Arc<Corpus> {
    Arc::new(Corpus(
        pages
            .iter()
            .map(|(u, t, x)| (u.to_string(), (t.to_string(), x.to_string())))
            .collect(),
    ))
}

pub fn corpus() -> Arc<Corpus> {
    let mut pages = BTreeMap::new();
    pages.insert(
        "https://example.org/ownership".to_string(),
        (
            "Ownership in Rust".to_string(),
            "# Ownership in Rust\n\nRust manages memory through a system of ownership with rules the compiler checks. \
Each value in Rust has a single owner at any time. When the owner goes out of scope, the value is dropped. \
Ownership rules prevent data races at compile time without a garbage collector.\n\n\
Borrowing lets code use a value without taking ownership of it. References must always be valid, which the borrow checker enforces."
                .to_string(),
        ),
    );
    pages.insert(
        "https://example.org/gc".to_string(),
        (
            "Garbage collection compared".to_string(),
            "Languages like Java and Go use a tracing garbage collector that pauses or slows programs at run time. \
Rust has no garbage collector and frees memory deterministically when owners go out of scope. \
Python combines reference counting with a cycle detector to reclaim memory.\n\nSee [the docs](https://example.org/docs) for more words here."
                .to_string(),
        ),
    );
    pages.insert(
        "https://example.org/borrow".to_string(),
        (
            "The borrow checker".to_string(),
            "The borrow checker is the part of the Rust compiler that enforces the borrowing rules. \
At any time a value can have either one mutable reference or any number of immutable references. \
These rules make memory safety bugs such as use after free impossible in safe Rust code."
                .to_string(),
        ),
    );
    Arc::new(Corpus(pages))
}

#[async_trait]
impl SearchProvider for Corpus {
    fn name(&self) -> &'static str {
        "corpus"
    }
    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let q = normalize(&query.text);
        let words: Vec<&str> = q.split(' ').filter(|w| w.len() > 3).collect();
        Ok(self
            .0
            .iter()
            .filter(|(_, (_, text))| {
                let t = normalize(text);
                words.iter().any(|w| t.contains(w))
            })
            .take(query.limit)
            .map(|(url, (title, text))| Hit {
                title: title.clone(),
                url: url.clone(),
                snippet: text.chars().take(80).collect(),
                published: None,
                kind: HitKind::Web,
                provider: "corpus".into(),
                citation: Default::default(),
            })
            .collect())
    }
}

#[async_trait]
impl Fetcher for Corpus {
    async fn fetch(&self, url: &str) -> Result<Document, FetchError> {
        let (title, text) = self.0.get(url).cloned().ok_or(FetchError::Status {
            url: url.to_string(),
            status: 404,
        })?;
        Ok(Document {
            url: url.into(),
            final_url: url.into(),
            title: Some(title),
            text: text.clone(),
            kind: DocumentKind::Html,
            content_type: "text/html".into(),
            bytes: text.len(),
            text_sha256: sha256_hex(&text),
            citation: Default::default(),
        })
    }
}

pub fn answer(purpose: &str, json: serde_json::Value) -> ScriptedAnswer {
    ScriptedAnswer {
        purpose: Some(purpose.into()),
        contains: None,
        text: None,
        json: Some(json),
        delay_ms: None,
    }
}

pub fn script(write: &str) -> Vec<ScriptedAnswer> {
    vec![
        answer(
            "understand",
            json!({"is_clear": true, "ambiguities": [], "question": "", "options": [], "interpretation": "Rust memory management"}),
        ),
        answer(
            "plan",
            json!({"questions": ["How does Rust manage memory?", "How does it compare to garbage collection?"],
                   "aspects": ["ownership", "borrowing"],
                   "searches": ["rust ownership memory", "garbage collector comparison", "ownership memory rust"]}),
        ),
        answer(
            "extract",
            json!({"facts": [
                {"fact": "Rust checks ownership rules at compile time.", "sentence": 1, "end_sentence": 1},
                {"fact": "A second fact.", "sentence": 2, "end_sentence": 3},
                {"fact": "Out of range.", "sentence": 99, "end_sentence": 99}]}),
        ),
        answer(
            "gaps",
            json!({"coverage": [{"question": 1, "status": "partial"}, {"question": 2, "status": "missing"}],
                   "gaps": ["borrowing rules"], "new_searches": ["borrow checker rules", "rust ownership memory"]}),
        ),
        answer(
            "gaps",
            json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "partial"}],
                   "gaps": [], "new_searches": []}),
        ),
        answer(
            "orchestrate",
            json!({"sub_questions": [
                {"question": "How does ownership work?", "searches": ["rust ownership memory"]},
                {"question": "How does garbage collection compare?", "searches": ["garbage collector comparison"]},
                {"question": "What does the borrow checker do?", "searches": ["borrow checker rules"]}]}),
        ),
        answer(
            "summarize",
            json!({"answer": "Rust uses ownership.", "findings": ["ownership", "no GC"], "confidence": 0.8, "gaps": []}),
        ),
        answer(
            "synthesize",
            json!({"summary": "Rust replaces a garbage collector with ownership.", "conflicts": [], "gaps": [],
                   "additional_searches": [], "needs_more_research": false}),
        ),
        answer(
            "verify",
            json!({"verdicts": [{"claim": 1, "supported": true}, {"claim": 2, "supported": true}, {"claim": 3, "supported": false}]}),
        ),
        // A question in another language than the pages: its key terms in theirs.
        answer(
            "translate",
            json!({"searches": ["rust memory ownership", "Rustのメモリ"]}),
        ),
        ScriptedAnswer {
            purpose: Some("write".into()),
            contains: None,
            text: Some(write.to_string()),
            json: None,
            delay_ms: None,
        },
    ]
}

pub const DETAILED: &str = "## Summary\nRust manages memory through ownership rules checked at compile time [1]. \
It needs no garbage collector [2][19].\n\n## Ownership\nEach value has a single owner and is dropped when the owner goes out of scope [1]. \
This design prevents data races without run-time cost [Source 1].\n\n## Compared with garbage collection\n\
Tracing collectors in Java and Go work at run time, while Rust frees memory deterministically [2]. \
Python mixes reference counting with a cycle detector [2].\n\n## References\n[1] made up\n";

pub const BULLETS: &str = "## Summary\nRust uses ownership instead of a collector [1].\n\n## Findings\n\
- Ownership rules are checked at compile time [1]\n- No garbage collector is needed [2]\n- Values are dropped at scope end [1]\n";

pub struct Run {
    pub state: ResearchState,
    pub model: Arc<ScriptedLlm>,
    pub meter: Arc<Meter>,
    pub docs: Arc<MemoryDocuments>,
}

pub fn env(
    config: &RunConfig,
    model: Arc<ScriptedLlm>,
    meter: Arc<Meter>,
    docs: Arc<MemoryDocuments>,
) -> Env {
    env_on(corpus(), config, model, meter, docs)
}

/// [`env`] over the pages of `c`.
pub fn env_on(
    c: Arc<Corpus>,
    config: &RunConfig,
    model: Arc<ScriptedLlm>,
    meter: Arc<Meter>,
    docs: Arc<MemoryDocuments>,
) -> Env {
    let client: Arc<dyn LlmClient> = model;
    Env {
        config: config.clone(),
        models: RoleModels::connect(ModelRouting::single("scripted:test"), meter, |_| {
            Ok(client.clone())
        })
        .unwrap(),
        search: c.clone(),
        fetcher: c,
        documents: docs,
        notes: Vec::new(),
        off_the_question: Vec::new(),
    }
}

pub async fn run(config: RunConfig, write: &str) -> Run {
    run_script(config, script(write)).await
}

/// A run with these scripted answers.
pub async fn run_script(config: RunConfig, answers: Vec<ScriptedAnswer>) -> Run {
    run_script_on(corpus(), config, answers).await
}

/// [`run_script`] over the pages of `c`.
pub async fn run_script_on(c: Arc<Corpus>, config: RunConfig, answers: Vec<ScriptedAnswer>) -> Run {
    ask_on(
        c,
        "How does Rust manage memory compared with garbage collection?",
        config,
        answers,
    )
    .await
}

/// `question`, researched over the pages of `c` with these scripted answers.
pub async fn ask_on(
    c: Arc<Corpus>,
    question: &str,
    config: RunConfig,
    answers: Vec<ScriptedAnswer>,
) -> Run {
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let graph = graph(&config, Some(Arc::new(MemoryCheckpointer::new()))).unwrap();
    let outcome = graph
        .invoke(
            initial_state(question, &config, 1_700_000_000_000),
            RunOptions::new(
                "t1",
                env_on(c, &config, model.clone(), meter.clone(), docs.clone()),
            )
            .clock(Arc::new(FixedClock(1_700_000_000_000)))
            .recursion_limit(config.step_limit()),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = outcome else {
        panic!("the run stopped: {outcome:?}")
    };
    Run {
        state,
        model,
        meter,
        docs,
    }
}

pub fn config(mode: Mode, structure: Structure) -> RunConfig {
    RunConfig {
        mode,
        structure,
        review: ReviewPoints::none(),
        ..Default::default()
    }
}

pub fn result(run: &Run) -> RunResult {
    RunResult::from_state("t1", &run.state, &run.meter, BTreeMap::new())
}

pub fn assert_grounded(run: &Run) {
    for e in &run.state.evidence {
        let source = run
            .state
            .sources
            .iter()
            .find(|s| s.id == e.source_id)
            .expect("evidence names a source");
        let text = run
            .docs
            .get(&source.sha256)
            .unwrap()
            .expect("the source's text is stored");
        assert!(
            quote_in(&e.quote, &normalize(&text)),
            "quote {:?} not in {}",
            e.quote,
            source.url
        );
        assert!(text.contains(&e.quote), "quotes are verbatim spans");
    }
}
