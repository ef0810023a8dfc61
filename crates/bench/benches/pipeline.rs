//! The research pipelines with a scripted model and simulated latencies (model call 400 ms,
//! search 250 ms, fetch 150 ms): wall time against the critical path of dependent calls, and
//! model calls and tokens per run — the standard pipeline in single and multi mode, and the
//! review pipeline with a reviewer that never approves, at 1, 2 and 3 revisions; then planted
//! drafts (banned words, markers to sources that do not exist) through the review pipeline, to
//! count what the checks leave. Prints one JSON line per run.

use std::sync::Arc;
use std::time::Instant;

use research_llm::{Budget, LlmClient, Meter, PriceTable, ScriptedAnswer, ScriptedLlm};
use research_pipeline::pipelines::review;
use research_pipeline::{graph, initial_state, Mode, ReviewPoints, RunConfig};
use serde_json::json;

use research_bench::sim::{answer, env, rust_web, Slow, Web, FETCH_MS, LLM_MS, SEARCH_MS};

fn web() -> Arc<Web> {
    Arc::new(rust_web(|topic, i| {
        format!("https://example.org/{topic}/{i}")
    }))
}

fn script() -> Vec<ScriptedAnswer> {
    vec![
        answer("understand", json!({"is_clear": true, "ambiguities": [], "question": "", "options": [], "interpretation": "x"})),
        answer("plan", json!({"questions": ["How does ownership work?", "How do collectors differ?", "What does borrowing allow?"],
            "aspects": [], "searches": ["ownership rules", "garbage collector", "borrowing references"]})),
        answer("extract", json!({"facts": [{"fact": "A fact.", "sentence": 2, "end_sentence": 2}, {"fact": "Another.", "sentence": 3, "end_sentence": 3}]})),
        answer("gaps", json!({"coverage": [{"question": 1, "status": "partial"}], "gaps": ["lifetimes"], "new_searches": ["lifetimes of references"]})),
        answer("gaps", json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "well_covered"}, {"question": 3, "status": "well_covered"}], "gaps": [], "new_searches": []})),
        answer("orchestrate", json!({"sub_questions": [
            {"question": "Ownership?", "searches": ["ownership rules"]},
            {"question": "Collectors?", "searches": ["garbage collector"]},
            {"question": "Borrowing?", "searches": ["borrowing references"]},
            {"question": "Lifetimes?", "searches": ["lifetimes of references"]}]})),
        answer("summarize", json!({"answer": "a", "findings": ["f"], "confidence": 0.9, "gaps": []})),
        answer("synthesize", json!({"needs_more_research": false, "summary": "s", "conflicts": [], "gaps": [], "additional_searches": []})),
        answer("verify", json!({"verdicts": [{"claim": 1, "supported": true}, {"claim": 2, "supported": true}]})),
        ScriptedAnswer {
            purpose: Some("write".into()),
            contains: None,
            text: Some("## Summary\nOwnership rules are checked at compile time [1]. Collectors run at run time [2].".into()),
            json: None,
            delay_ms: None,
        },
        // The reviewer always asks for another revision: the loop runs to its limit.
        answer("review", json!({"scores": {"accuracy": 6, "completeness": 6, "coherence": 6, "citation": 6,
            "methodology": 6, "style": 6}, "issues": [{"category": "coherence", "severity": "major",
            "location": "Summary", "description": "Too short.", "fix": "Say more."}],
            "summary": "Needs work.", "improvement_potential": 0.6})),
    ]
}

/// The nodes whose model calls run one after another after the research phase.
const REVIEW_LOOP: [&str; 3] = ["write_draft", "critique", "revise_draft"];

/// Writers' drafts with planted faults: banned words (some inflected, one in a quotation, which
/// is the source's and stays) and markers to sources the run never read.
const PLANTED: [&str; 4] = [
    "## Summary\nOwnership is a crucial, robust paradigm checked at compile time [1]. Collectors run at run time [2][17].",
    "## Summary\nRust leverages ownership rules that the compiler checks at compile time [1]. We delve into collectors that run at run time [9].",
    "## Summary\nThis groundbreaking, seamless design is checked at compile time [1]. Garbage collectors are \"transformative\" and run at run time [2].",
    "## Summary\nOwnership rules are checked at compile time [1][2][3][44]. Collectors, empowering programs, run at run time [2].",
];

/// Runs each planted draft through the review pipeline (a reviewer that approves at once, and
/// one that never does, at two revisions) and prints what the checks left.
fn planted(rt: &tokio::runtime::Runtime) {
    let banned: Vec<String> = research_pipeline::DEFAULT_BANNED_WORDS
        .iter()
        .map(|w| w.to_string())
        .collect();
    for (i, draft) in PLANTED.iter().enumerate() {
        for approve in [true, false] {
            let config = RunConfig {
                review: ReviewPoints::none(),
                max_revisions: 2,
                ..Default::default()
            };
            let mut answers = script();
            answers.retain(|a| !matches!(a.purpose.as_deref(), Some("write" | "review")));
            answers.push(ScriptedAnswer {
                purpose: Some("write".into()),
                contains: None,
                text: Some(draft.to_string()),
                json: None,
                delay_ms: None,
            });
            let score = if approve { 9 } else { 6 };
            answers.push(answer(
                "review",
                json!({"scores": {"accuracy": score, "completeness": score,
                "coherence": score, "citation": score, "methodology": score, "style": score},
                "issues": [], "summary": "", "improvement_potential": 0.6}),
            ));
            let model: Arc<dyn LlmClient> = Arc::new(ScriptedLlm::new(answers));
            let env = env(
                &config,
                model.clone(),
                Arc::new(Meter::new(Budget::default(), PriceTable::builtin())),
                web(),
            );
            let state = rt
                .block_on(review::graph(&config, None).unwrap().invoke(
                    initial_state(
                        "How does Rust manage memory compared with garbage collection?",
                        &config,
                        0,
                    ),
                    research_graph::RunOptions::new("planted", env),
                ))
                .unwrap()
                .into_state();
            let read: std::collections::BTreeSet<u32> =
                state.sources.iter().map(|s| s.id).collect();
            let broken = |text: &str| {
                research_pipeline::report::cited_ids(text)
                    .into_iter()
                    .filter(|id| !read.contains(id))
                    .count()
            };
            println!(
                "{}",
                json!({
                    "scenario": "planted",
                    "draft": i + 1,
                    "reviewer": if approve { "approves" } else { "never approves" },
                    "banned_planted": research_pipeline::guard::banned_uses(draft, &banned).len(),
                    "banned_left": research_pipeline::guard::banned_uses(&state.draft, &banned).len(),
                    "broken_markers_planted": broken(draft),
                    "broken_markers_left": broken(&state.report),
                    "drafts": state.review.drafts.len(),
                    "ended": state.review.fallback.clone().unwrap_or_else(|| "approved".into()),
                })
            );
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let runs = [
        (Mode::Single, None),
        (Mode::Multi, None),
        (Mode::Single, Some(1)),
        (Mode::Single, Some(2)),
        (Mode::Single, Some(3)),
    ];
    for (mode, revisions) in runs {
        let config = RunConfig {
            mode,
            review: ReviewPoints::none(),
            max_revisions: revisions.unwrap_or_default(),
            ..Default::default()
        };
        let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
        let model: Arc<dyn LlmClient> = Arc::new(Slow(ScriptedLlm::new(script())));
        let env = env(&config, model.clone(), meter.clone(), web());
        let g = match revisions {
            None => graph(&config, None).unwrap(),
            Some(_) => review::graph(&config, None).unwrap(),
        };
        let started = Instant::now();
        let state = rt
            .block_on(g.invoke(
                initial_state(
                    "How does Rust manage memory compared with garbage collection?",
                    &config,
                    0,
                ),
                research_graph::RunOptions::new("bench", env).max_concurrency(8),
            ))
            .unwrap()
            .into_state();
        let wall_ms = started.elapsed().as_millis() as u64;
        // The dependent chain: each step waits for the one before it; within a step, searches,
        // fetches and extractions of different pages (and workers) run side by side.
        let rounds = u64::from(state.iteration);
        let page = SEARCH_MS + FETCH_MS + LLM_MS;
        let by_node = meter.by_node();
        let loop_calls: u64 = REVIEW_LOOP
            .iter()
            .filter_map(|n| by_node.get(*n))
            .map(|u| u.calls)
            .sum();
        let critical_ms = match mode {
            // understand, plan, rounds × (search → fetch → extract, gaps), verify, write
            Mode::Single => 2 * LLM_MS + rounds * (page + LLM_MS) + 2 * LLM_MS,
            // understand, plan, rounds × (orchestrate, worker: search → fetch → extract →
            // summarize, synthesize), verify, write
            Mode::Multi => 2 * LLM_MS + rounds * (LLM_MS + page + LLM_MS + LLM_MS) + 2 * LLM_MS,
        };
        // The review loop instead of the one write: every call of its nodes waits for the one
        // before (draft → its audit → review → revision → …).
        let critical_ms = match revisions {
            None => critical_ms,
            Some(_) => critical_ms - LLM_MS + loop_calls * LLM_MS,
        };
        let totals = meter.totals();
        println!(
            "{}",
            json!({
                "scenario": "pipeline",
                "pipeline": if revisions.is_some() { "review" } else { "standard" },
                "mode": if mode == Mode::Single { "single" } else { "multi" },
                "max_revisions": revisions,
                "drafts": state.review.drafts.len(),
                "rounds": rounds,
                "sources": state.sources.len(),
                "evidence": state.evidence.len(),
                "llm_calls": totals.calls,
                "prompt_tokens": totals.prompt_tokens,
                "completion_tokens": totals.completion_tokens,
                "wall_ms": wall_ms,
                "critical_path_ms": critical_ms,
                "ratio": (wall_ms as f64 / critical_ms as f64 * 1000.0).round() / 1000.0,
            })
        );
    }
    planted(&rt);
}
