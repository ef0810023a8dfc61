//! The multi-agent mode's node adapters (`--mode multi`): an orchestrator splits the question
//! into assignments, one worker per assignment runs in parallel (`Send`), their pages are
//! numbered together, and a synthesis decides whether to go round again. Apart from the single
//! agent's loop in [`super::nodes`] because the two modes share only the steps below them.

use std::sync::Arc;

use research_graph::NodeError;

use super::nodes::{
    brief, cross, known_and_stored, out_of_rounds, read_from_store, read_pages, rounded,
    source_room,
};
use super::state::{ResearchState, ResearchUpdate};
use crate::ask::Ctx;
use crate::records::*;
use crate::steps::backtrack::dead_ends;
use crate::steps::harvest::{number, Harvest};
use crate::steps::workers::{self, OrchestrateInput, SynthesisInput, WorkerInput};

type NodeResult = Result<ResearchUpdate, NodeError>;

pub(crate) async fn orchestrate(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (assignments, warnings) = workers::orchestrate(
        &ctx,
        OrchestrateInput {
            brief: &brief(&state),
            plan: &state.plan,
            synthesis: &state.synthesis,
            searches_done: &state.searches_done,
            round: state.iteration + 1,
        },
    )
    .await?;
    Ok(ResearchUpdate {
        assignments: Some(assignments),
        warnings: Some(warnings),
        ..Default::default()
    })
}

/// The fan-out: one worker per assignment.
pub(crate) fn fan_out(state: &ResearchState, max_sources: usize) -> Vec<research_graph::Send> {
    let (known, stored) = known_and_stored(state);
    let pages = read_pages(state);
    let room = source_room(state, max_sources);
    let shares = shares(room, state.assignments.len());
    let brief = brief(state);
    let (context, topic) = (brief.block(), brief.topic());
    state
        .assignments
        .iter()
        .zip(shares)
        .map(|(a, share)| {
            research_graph::Send::new(
                "search_worker",
                WorkerInput {
                    assignment: a.clone(),
                    known_urls: known.clone(),
                    read_pages: pages.clone(),
                    stored: stored.clone(),
                    max_sources: share,
                    context: context.clone(),
                    topic: topic.clone(),
                    asked: brief.query.clone(),
                },
            )
        })
        .collect()
}

/// The room for new sources split among `workers` so the shares add up to it, the earlier
/// workers taking the remainder: with less room than workers, the last read nothing new (each
/// worker taking at least one let a multi-agent run pass the source cap).
fn shares(room: usize, workers: usize) -> Vec<usize> {
    let n = workers.max(1);
    (0..workers)
        .map(|i| room / n + usize::from(i < room % n))
        .collect()
}

pub(crate) async fn search_worker(input: WorkerInput, ctx: Ctx) -> NodeResult {
    let (harvest, result) = workers::research(&ctx, &input).await?;
    Ok(ResearchUpdate {
        ranked_hits: Some(rounded(harvest.ranked, input.assignment.round)),
        carried_read: Some(read_from_store(&input.stored, &harvest.found)),
        dead_ends: Some(dead_ends(&harvest.yields, input.assignment.round)),
        found: Some(harvest.found),
        worker_results: Some(vec![result]),
        done_workers: Some(1),
        searches_done: Some(harvest.searches_done),
        warnings: Some(harvest.warnings),
        ..Default::default()
    })
}

pub(crate) async fn collect(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    // The first round shows what language the sources are in, as on the single agent's path:
    // when it is not the question's, the question's key terms are searched in it too, now.
    let crossed = if state.crossing.is_none() && state.iteration == 0 {
        let (mut known, stored) = known_and_stored(&state);
        known.extend(state.found.iter().map(|f| f.source.url.clone()));
        let mut this_round = Harvest {
            found: state.found.clone(),
            ..Default::default()
        };
        let room = source_room(&state, ctx.config.config.limits().max_sources);
        let brief = brief(&state);
        let crossing = cross(
            &state,
            &ctx,
            &brief,
            &mut this_round,
            (&known, &stored),
            room,
        )
        .await?;
        crossing.map(|c| {
            let more: Vec<Found> = this_round.found.split_off(state.found.len());
            (c, more, this_round)
        })
    } else {
        None
    };
    let mut sources = state.sources.clone();
    let mut evidence = state.evidence.clone();
    // `found` holds every round's pages in worker order; numbering skips what is known.
    let more: &[Found] = crossed.as_ref().map_or(&[], |(_, more, _)| more);
    number(
        &mut sources,
        &mut evidence,
        state.found.iter().chain(more).cloned(),
    );
    let mut update = ResearchUpdate {
        sources: Some(sources),
        evidence: Some(evidence),
        ..Default::default()
    };
    if let Some((crossing, more, harvest)) = crossed {
        let (_, stored) = known_and_stored(&state);
        update.carried_read = Some(read_from_store(&stored, &more));
        update.found = Some(more);
        update.searches_done = Some(harvest.searches_done);
        update.warnings = Some(harvest.warnings);
        update.dead_ends = Some(dead_ends(&harvest.yields, 1));
        update.ranked_hits = Some(rounded(harvest.ranked, 1));
        update.decisions = Some(vec![Decision {
            point: "language".into(),
            decision: crossing.decision(&crate::text::detect_language(&state.query)),
            automatic: true,
        }]);
        update.crossing = Some(Some(crossing));
    }
    Ok(update)
}

pub(crate) async fn synthesize(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let round = state.iteration + 1;
    let this_round: Vec<&WorkerResult> = state
        .worker_results
        .iter()
        .filter(|w| w.assignment.round == round)
        .collect();
    let (synthesis, coverage, warnings) = workers::synthesize(
        &ctx,
        SynthesisInput {
            brief: &brief(&state),
            reports: &this_round,
            has_evidence: !state.evidence.is_empty(),
            all: &state.worker_results,
            searches_done: &state.searches_done,
            round,
        },
    )
    .await?;
    Ok(ResearchUpdate {
        gaps: Some(synthesis.gaps.clone()),
        synthesis: Some(synthesis),
        warnings: Some(warnings),
        iteration: Some(round),
        coverage: Some(coverage),
        coverage_history: Some(vec![coverage]),
        ..Default::default()
    })
}

/// Whether the synthesis loop is done.
pub(crate) fn after_synthesis(state: &ResearchState, max_iterations: u32) -> bool {
    !state.synthesis.needs_more_research
        || out_of_rounds(state.iteration, max_iterations)
        || state.synthesis.additional_searches.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_of_the_room_add_up_to_it() {
        assert_eq!(shares(8, 3), vec![3, 3, 2]);
        assert_eq!(shares(2, 3), vec![1, 1, 0]);
        assert_eq!(shares(0, 3), vec![0, 0, 0]);
        assert_eq!(shares(5, 0), Vec::<usize>::new());
    }
}
