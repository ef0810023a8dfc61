//! The trust pipeline's research rounds (seed 002): each round — the single agent's gap loop or
//! the orchestrator's round of parallel workers — ends in one of three ways: write, research
//! more, or backtrack from dead ends; and research stops early when a round gains too little,
//! reads no new source, or the soft budget is reached. One rule for both paths ([`stop_early`],
//! [`backtrack_decision`]): a complex question is held to the same budget as a simple one.

use std::sync::Arc;

use super::super::standard::nodes;
use super::super::standard::ResearchState;
use super::NodeResult;
use crate::ask::Ctx;
use crate::config::{soft_budget, RunConfig};
use crate::records::{Coverage, Decision};
use crate::steps::backtrack;
use crate::steps::gaps;

/// Coverage a gap round must add to earn another (seed 002's early termination: 5%).
pub const MIN_GAIN: f64 = 0.05;

/// The single agent's gap round: [`round_end`] over the searches the gap finder proposes.
pub(super) async fn detect_gaps(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let mut update = nodes::detect_gaps(state.clone(), ctx.clone()).await?;
    let coverage = update.coverage.unwrap_or(state.coverage);
    let by_question = update
        .coverage_by_question
        .clone()
        .unwrap_or_else(|| state.coverage_by_question.clone());
    let pending = update.pending_searches.take().unwrap_or_default();
    let ended = round_end(&state, &ctx, pending, coverage, &by_question);
    let mut decisions = update.decisions.take().unwrap_or_default();
    decisions.extend(ended.decisions);
    update.pending_searches = Some(ended.searches);
    if !decisions.is_empty() {
        update.decisions = Some(decisions);
    }
    update.sources_per_round = Some(vec![state.sources.len()]);
    Ok(update)
}

/// The orchestrator's round after its workers: [`round_end`] over the searches the synthesis
/// proposes, so a complex question too backtracks from dead ends, stops early and keeps to the
/// soft budget (it used to go round while the synthesis asked for more, whatever it cost).
pub(super) async fn synthesize(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let mut update = nodes::synthesize(state.clone(), ctx.clone()).await?;
    let Some(synthesis) = update.synthesis.as_mut() else {
        return Ok(update);
    };
    let coverage = update.coverage.unwrap_or(state.coverage);
    // The multi-agent path judges its workers' sub-questions: the plan's questions are judged
    // here by what the evidence bears out.
    let by_question: Vec<Coverage> = state
        .plan
        .questions
        .iter()
        .map(|q| gaps::evidence_coverage(&nodes::brief(&state).asked(q), &state.evidence))
        .collect();
    let pending = if synthesis.needs_more_research {
        std::mem::take(&mut synthesis.additional_searches)
    } else {
        Vec::new()
    };
    let ended = round_end(&state, &ctx, pending, coverage, &by_question);
    synthesis.needs_more_research = !ended.searches.is_empty();
    synthesis.additional_searches = ended.searches;
    let mut decisions = update.decisions.take().unwrap_or_default();
    decisions.extend(ended.decisions);
    if !decisions.is_empty() {
        update.decisions = Some(decisions);
    }
    update.sources_per_round = Some(vec![state.sources.len()]);
    Ok(update)
}

/// How a round ends: the searches the next round runs (none: write) and the decisions said.
pub(super) struct RoundEnd {
    /// The next round's searches.
    pub searches: Vec<String>,
    /// What was decided, for the method section.
    pub decisions: Vec<Decision>,
}

/// A round's end, three ways (seed 002): go on to write, research more, or backtrack. A round
/// whose searches were dead ends backtracks: no search like a dead end runs again, and when
/// nothing else is left, the open questions (`by_question` short of well covered) are searched
/// from a new angle. Otherwise the research stops early ([`stop_early`]).
fn round_end(
    state: &ResearchState,
    ctx: &Ctx,
    proposed: Vec<String>,
    coverage: f64,
    by_question: &[Coverage],
) -> RoundEnd {
    let round = state.iteration + 1;
    let config = &ctx.config.config;
    let (mut pending, avoided) = backtrack::avoiding(&proposed, &state.dead_ends);
    let mut decisions = Vec::new();
    let dead: Vec<&backtrack::DeadEnd> = state
        .dead_ends
        .iter()
        .filter(|d| d.round == round)
        .collect();
    let rounds_left = !nodes::out_of_rounds(round, config.limits().max_iterations);
    let mut backtracked = false;
    if !dead.is_empty() && rounds_left && coverage < config.min_coverage {
        if pending.is_empty() {
            let open: Vec<String> = state
                .plan
                .questions
                .iter()
                .enumerate()
                .filter(|(i, _)| by_question.get(*i) != Some(&Coverage::WellCovered))
                .map(|(_, q)| q.clone())
                .collect();
            pending = backtrack::reformulate(
                &open,
                &state.searches_done,
                &state.dead_ends,
                config.limits().initial_searches.div_ceil(2),
            );
        }
        let named: Vec<String> = dead
            .iter()
            .map(|d| format!("\"{}\" ({})", d.query, d.reason.words()))
            .collect();
        let next = if pending.is_empty() {
            "no new angle is left".to_string()
        } else {
            format!("searching instead: {}", pending.join("; "))
        };
        decisions.push(Decision {
            point: "backtrack".into(),
            decision: format!("dead ends: {}; {next}", named.join(", ")),
            automatic: true,
        });
        backtracked = !pending.is_empty();
    }
    if !avoided.is_empty() {
        decisions.push(Decision {
            point: "dead ends avoided".into(),
            decision: format!("not searched again: {}", avoided.join("; ")),
            automatic: true,
        });
    }
    let read = state.sources.len();
    let progress = Progress {
        first: state.sources_per_round.is_empty(),
        backtracked,
        stale: state.sources_per_round.last() == Some(&read),
        gain: coverage - state.coverage,
    };
    if !pending.is_empty() {
        if let Some(why) = stop_early(config, &ctx.config.models.meter().totals(), progress) {
            pending.clear();
            decisions.push(Decision {
                point: "early stop".into(),
                decision: format!("research stopped: {why}"),
                automatic: true,
            });
        }
    }
    RoundEnd {
        searches: pending,
        decisions,
    }
}

/// What a round achieved, for [`stop_early`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Progress {
    /// It was the first round (nothing to compare with).
    pub first: bool,
    /// It ended in a backtrack (a new angle deserves its round).
    pub backtracked: bool,
    /// It read no new source.
    pub stale: bool,
    /// The coverage it added.
    pub gain: f64,
}

/// Why research stops before another round, if it does: the soft budget is reached
/// ([`soft_budget`]), or the round read no new source, or added under [`MIN_GAIN`] coverage.
pub(super) fn stop_early(
    config: &RunConfig,
    spent: &research_llm::UsageTotals,
    round: Progress,
) -> Option<String> {
    if let Some(spent) = soft_budget(config, spent) {
        return Some(format!(
            "the soft budget is reached ({spent}); the rest is left for writing and checking"
        ));
    }
    if round.first || round.backtracked {
        None
    } else if round.stale {
        Some("the last round found no new source".to_string())
    } else if round.gain < MIN_GAIN {
        Some(format!(
            "the last round added {:.0}% coverage, under {:.0}%",
            round.gain.max(0.0) * 100.0,
            MIN_GAIN * 100.0
        ))
    } else {
        None
    }
}

/// The orchestrator's round, its workers sent on no search like a dead end.
pub(super) async fn orchestrate(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let mut update = nodes::orchestrate(state.clone(), ctx).await?;
    if let Some(assignments) = update.assignments.as_mut() {
        let mut avoided = Vec::new();
        for a in assignments.iter_mut() {
            let (kept, dropped) = backtrack::avoiding(&a.searches, &state.dead_ends);
            a.searches = kept;
            avoided.extend(dropped);
        }
        if !avoided.is_empty() {
            let mut decisions = update.decisions.take().unwrap_or_default();
            decisions.push(Decision {
                point: "dead ends avoided".into(),
                decision: format!("not searched again: {}", avoided.join("; ")),
                automatic: true,
            });
            update.decisions = Some(decisions);
        }
    }
    Ok(update)
}
