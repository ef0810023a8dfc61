//! An up-front estimate of what a run will use, shown before it starts so the user can set a
//! budget knowingly. It counts the calls the configured depth and mode plan for and multiplies
//! by typical prompt sizes; real runs vary with pages found and gaps, so it is a guide, not a
//! promise (the budget is what enforces a limit).

use research_llm::PriceTable;
use research_pipeline::{Mode, RunConfig};
use serde::{Deserialize, Serialize};

/// What a run is expected to use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunEstimate {
    /// Model calls.
    pub calls: u64,
    /// Prompt and completion tokens.
    pub tokens: u64,
    /// Estimated cost in US dollars; `None` when a model's price is unknown.
    pub cost_usd: Option<f64>,
}

/// Typical (prompt, completion) tokens of one call per role.
fn typical(role: &str) -> (u64, u64) {
    match role {
        "understand" => (600, 200),
        "plan" => (900, 500),
        "extract" => (1_600, 350),
        "gaps" => (1_400, 300),
        "orchestrate" => (900, 300),
        "summarize" => (1_800, 400),
        "synthesize" => (2_500, 500),
        "verify" => (2_500, 600),
        _ => (4_500, 1_500), // write
    }
}

/// Estimates the calls, tokens and cost of a run with `config`.
pub fn estimate(config: &RunConfig) -> RunEstimate {
    let limits = config.limits();
    let rounds = u64::from(limits.max_iterations.max(1));
    let pages_per_search = limits.pages_per_search as u64;
    let chunks = limits.chunks_per_page as u64;
    let max_pages = limits.max_sources as u64;
    let mut calls: Vec<(&str, u64)> = vec![("understand", 1), ("plan", 1)];
    match config.mode {
        Mode::Single => {
            // The first round runs the planned searches; later rounds about half as many.
            let searches = limits.initial_searches as u64
                + (rounds - 1) * (limits.initial_searches as u64).div_ceil(2);
            let pages = (searches * pages_per_search).min(max_pages);
            calls.push(("extract", pages * chunks));
            calls.push(("gaps", rounds));
        }
        Mode::Multi => {
            let workers = limits.workers as u64;
            let searches = workers * limits.searches_per_worker as u64 * rounds;
            let pages = (searches * pages_per_search).min(max_pages * rounds);
            calls.push(("orchestrate", rounds));
            calls.push(("extract", pages * chunks));
            calls.push(("summarize", workers * rounds));
            calls.push(("synthesize", rounds));
        }
    }
    calls.push(("verify", 1));
    let writes = if config.review.report { 2 } else { 1 };
    calls.push(("write", writes));

    let prices = PriceTable::builtin();
    let mut total_calls = 0;
    let mut tokens = 0;
    let mut cost = Some(0.0);
    for (role, n) in calls {
        let (p, c) = typical(role);
        total_calls += n;
        tokens += n * (p + c);
        let model = config.models.model_for(role);
        cost = match (cost, prices.cost(model, n * p, n * c)) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    RunEstimate {
        calls: total_calls,
        tokens,
        cost_usd: cost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use research_pipeline::Depth;

    #[test]
    fn deeper_runs_cost_more_and_local_models_cost_nothing() {
        let mut config = RunConfig {
            models: research_llm::ModelRouting::single("openai:gpt-4o-mini"),
            depth: Depth::Quick,
            ..RunConfig::default()
        };
        let quick = estimate(&config);
        config.depth = Depth::Comprehensive;
        let deep = estimate(&config);
        assert!(deep.calls > quick.calls && deep.tokens > quick.tokens);
        assert!(deep.cost_usd.unwrap() > quick.cost_usd.unwrap());
        config.mode = Mode::Multi;
        assert!(estimate(&config).calls > 0);
        config.models = research_llm::ModelRouting::single("ollama:qwen2.5:7b");
        assert_eq!(estimate(&config).cost_usd, Some(0.0));
        config.models = research_llm::ModelRouting::single("openai:some-future-model");
        assert_eq!(estimate(&config).cost_usd, None);
    }
}
