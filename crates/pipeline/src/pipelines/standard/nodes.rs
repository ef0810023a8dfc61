//! The standard pipeline's node adapters: each picks its inputs out of [`ResearchState`], calls a
//! shared step, and maps the step's values into a [`ResearchUpdate`].

use std::collections::BTreeSet;
use std::sync::Arc;

use research_graph::NodeError;

use super::state::{ResearchState, ResearchUpdate};
use crate::ask::{ask_person, Ctx};
use crate::records::*;
use crate::report::Facts;
use crate::steps::backtrack::dead_ends;
use crate::steps::gaps::{find_gaps, GapInput};
use crate::steps::harvest::{harvest, number, skip_repeats, Known, Reading};
use crate::steps::intake;
use crate::steps::languages::{self, Crossing};
use crate::steps::planning::{self, PlanReview};
use crate::steps::relevance::Gate;
use crate::steps::revise::{self, Revision};
use crate::steps::verify;
use crate::steps::write::{self, WriteInput};
use crate::steps::Brief;
use crate::Progress;

type NodeResult = Result<ResearchUpdate, NodeError>;

pub(crate) use super::multi::{
    after_synthesis, collect, fan_out, orchestrate, search_worker, synthesize,
};

pub(crate) fn brief(state: &ResearchState) -> Brief {
    Brief {
        query: state.query.clone(),
        context: state.context.clone(),
        clarification: state.clarification.clone(),
        focus: state.focus.clone(),
        also: state
            .crossing
            .as_ref()
            .map(|c| c.searches.join(" "))
            .unwrap_or_default(),
    }
}

/// What evidence must be about to count and be cited: the question and its accepted research
/// questions.
pub(crate) fn gate(state: &ResearchState, brief: &Brief) -> Gate {
    Gate::new(&brief.topic(), &state.plan.questions).within(&brief.focus)
}

pub(crate) async fn understand(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let reading = intake::understand(&ctx, &brief(&state), state.clarifications).await?;
    let mut update = ResearchUpdate {
        ask_clarification: Some(reading.ask_user),
        warnings: Some(reading.warnings),
        understanding: Some(reading.understanding),
        ..Default::default()
    };
    if let Some((taken, decision)) = reading.taken {
        update.decisions = Some(vec![decision]);
        update.clarification = Some(taken);
    }
    Ok(update)
}

pub(crate) async fn clarify(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let answer = intake::clarify(&ctx, &state.understanding, &state.clarification)?;
    Ok(ResearchUpdate {
        decisions: Some(vec![answer.decision]),
        clarification: Some(answer.text),
        clarifications: Some(state.clarifications + 1),
        reread: Some(answer.reread),
        ..Default::default()
    })
}

pub(crate) async fn plan(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (plan, warnings) = planning::plan(&ctx, &brief(&state)).await?;
    Ok(ResearchUpdate {
        mode: Some(ctx.config.config.mode),
        warnings: Some(warnings),
        pending_searches: Some(plan.searches.clone()),
        plan: Some(plan),
        iteration: Some(0),
        ..Default::default()
    })
}

pub(crate) async fn review_plan(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    Ok(
        match planning::review_plan(&ctx, &state.plan, &state.query)? {
            PlanReview::Approved(decision) => ResearchUpdate {
                decisions: decision.map(|d| vec![d]),
                ..Default::default()
            },
            PlanReview::Edited(plan, decision) => ResearchUpdate {
                decisions: Some(vec![decision]),
                pending_searches: Some(plan.searches.clone()),
                plan: Some(plan),
                ..Default::default()
            },
            PlanReview::Cancelled(decision) => ResearchUpdate {
                decisions: Some(vec![decision]),
                outcome: Some(Outcome::Cancelled),
                finished_at_ms: Some(ctx.clock.now_ms()),
                ..Default::default()
            },
        },
    )
}

pub(crate) async fn search_and_extract(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = ctx.config.config.limits();
    let (queries, skipped) = skip_repeats(&ctx, &state.pending_searches, &state.searches_done);
    let (known, stored) = known_and_stored(&state);
    let room = source_room(&state, l.max_sources);
    let brief = brief(&state);
    let mut found = harvest(
        &ctx,
        &queries,
        Known {
            urls: &known,
            stored: &stored,
            pages: &read_pages(&state),
        },
        room,
        Reading {
            context: &brief.block(),
            topic: &brief.topic(),
            questions: &state.plan.questions,
            asked: &brief.query,
            tree: &state.tree,
        },
    )
    .await?;
    // The first round shows what language the sources are in: when it is not the question's,
    // the question's key terms are searched in it too, in this round.
    let crossing = if state.crossing.is_none() && state.iteration == 0 {
        cross(&state, &ctx, &brief, &mut found, (&known, &stored), room).await?
    } else {
        None
    };
    let carried_read = read_from_store(&stored, &found.found);
    let ranked_hits = rounded(found.ranked, state.iteration + 1);
    let mut sources = state.sources.clone();
    let mut evidence = state.evidence.clone();
    number(&mut sources, &mut evidence, found.found);
    Ok(ResearchUpdate {
        carried_read: Some(carried_read),
        sources: Some(sources),
        evidence: Some(evidence),
        dead_ends: Some(dead_ends(&found.yields, state.iteration + 1)),
        searches_done: Some(found.searches_done),
        searches_skipped: Some(skipped),
        ranked_hits: Some(ranked_hits),
        pending_searches: Some(Vec::new()),
        warnings: Some(found.warnings),
        decisions: crossing.as_ref().map(|c| {
            vec![Decision {
                point: "language".into(),
                decision: c.decision(&crate::text::detect_language(&state.query)),
                automatic: true,
            }]
        }),
        crossing: crossing.map(Some),
        ..Default::default()
    })
}

pub(crate) async fn detect_gaps(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let iteration = state.iteration + 1;
    let brief = brief(&state);
    // Coverage counts only evidence on the question.
    let on_question = gate(&state, &brief).citable(&state.evidence);
    let titles = state
        .sources
        .iter()
        .map(|s| (s.id, s.title.clone()))
        .collect();
    let report = find_gaps(
        &ctx,
        GapInput {
            brief: &brief,
            titles: &titles,
            questions: &state.plan.questions,
            evidence: &on_question,
            before: &state.coverage_by_question,
            searches_done: &state.searches_done,
            round: iteration,
            last_round: out_of_rounds(iteration, ctx.config.config.limits().max_iterations),
        },
    )
    .await?;
    Ok(ResearchUpdate {
        coverage_by_question: Some(report.by_question),
        coverage: Some(report.coverage),
        coverage_history: Some(vec![report.coverage]),
        gaps: Some(report.gaps),
        warnings: Some(report.warnings),
        pending_searches: Some(report.new_searches),
        iteration: Some(iteration),
        ..Default::default()
    })
}

/// The gap loop's exits (seed 004): enough coverage, nothing left to search, or out of rounds.
pub(crate) fn after_gaps(state: &ResearchState, min_coverage: f64, max_iterations: u32) -> bool {
    state.coverage >= min_coverage
        || state.pending_searches.is_empty()
        || out_of_rounds(state.iteration, max_iterations)
}

/// Whether `round` rounds done leave none to run.
pub(crate) fn out_of_rounds(round: u32, max_iterations: u32) -> bool {
    round >= max_iterations
}

/// The URLs a round must not read again, and the carried sources it may read from the store:
/// a follow-up reads each carried source once, for its own question, from its stored text.
pub(crate) fn known_and_stored(
    state: &ResearchState,
) -> (BTreeSet<String>, std::collections::BTreeMap<String, Source>) {
    let stored: std::collections::BTreeMap<String, Source> = state.sources
        [..state.carried_sources.min(state.sources.len())]
        .iter()
        .filter(|s| !state.carried_read.contains(&s.url))
        .map(|s| (s.url.clone(), s.clone()))
        .collect();
    // A page found to say what another says was read once, and is not fetched again.
    let copies = state
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Repeated)
        .filter_map(|w| w.url.clone());
    let known = state
        .sources
        .iter()
        .map(|s| s.url.clone())
        .filter(|u| !stored.contains_key(u))
        .chain(copies)
        .collect();
    (known, stored)
}

/// The pages the run has read (URL, SHA-256 of the stored text), for [`Known::pages`].
pub(crate) fn read_pages(state: &ResearchState) -> Vec<(String, String)> {
    state
        .sources
        .iter()
        .map(|s| (s.url.clone(), s.sha256.clone()))
        .collect()
}

/// A harvest's ranked hits, numbered with their round.
pub(crate) fn rounded(mut ranked: Vec<RankedHit>, round: u32) -> Vec<RankedHit> {
    ranked.iter_mut().for_each(|h| h.round = round);
    ranked
}

/// The carried sources a harvest read from the store.
pub(crate) fn read_from_store(
    stored: &std::collections::BTreeMap<String, Source>,
    found: &[Found],
) -> Vec<String> {
    found
        .iter()
        .map(|f| f.source.url.clone())
        .filter(|u| stored.contains_key(u))
        .collect()
}

/// The question's key terms searched in the sources' language, when the first round's pages
/// (`found`) are in another script than the question ([`languages::sources_language`]): their
/// harvest is added to `found`. `None` when they are not, or the model gave nothing usable.
pub(crate) async fn cross(
    state: &ResearchState,
    ctx: &Ctx,
    brief: &Brief,
    found: &mut crate::steps::harvest::Harvest,
    (known, stored): (
        &BTreeSet<String>,
        &std::collections::BTreeMap<String, Source>,
    ),
    room: usize,
) -> Result<Option<Crossing>, NodeError> {
    let titles: Vec<&str> = found
        .found
        .iter()
        .map(|f| f.source.title.as_str())
        .collect();
    let Some(language) = languages::sources_language(&state.query, &titles) else {
        return Ok(None);
    };
    let (searches, warnings) = languages::cross(ctx, brief, &language).await?;
    found.warnings.extend(warnings);
    let searches: Vec<String> = searches
        .into_iter()
        .filter(|q| !found.searches_done.contains(q) && !state.searches_done.contains(q))
        .collect();
    if searches.is_empty() {
        return Ok(None);
    }
    let crossed = Crossing { language, searches };
    let also = Brief {
        also: crossed.searches.join(" "),
        ..brief.clone()
    };
    let mut read = known.clone();
    read.extend(found.found.iter().map(|f| f.source.url.clone()));
    let mut pages = read_pages(state);
    pages.extend(
        found
            .found
            .iter()
            .map(|f| (f.source.url.clone(), f.source.sha256.clone())),
    );
    let more = harvest(
        ctx,
        &crossed.searches,
        Known {
            urls: &read,
            stored,
            pages: &pages,
        },
        room.saturating_sub(found.found.len()),
        Reading {
            context: &also.block(),
            topic: &also.topic(),
            questions: &state.plan.questions,
            asked: &also.query,
            tree: &state.tree,
        },
    )
    .await?;
    found.extend(more);
    Ok(Some(crossed))
}

/// New sources the run may still read: the depth's limit (`max_sources`) and what a person
/// granted at an escalation, less what this run read (carried sources do not count).
pub(crate) fn source_room(state: &ResearchState, max_sources: usize) -> usize {
    (max_sources + state.granted_sources)
        .saturating_sub(state.sources.len() - state.carried_sources)
}

/// What "research more" at an escalation does, in words, and the sources it grants beyond the
/// depth's limit: with the limit reached, its searches could read nothing (and would be recorded
/// as dead ends while the decision said it researched more), so each search gets the pages a
/// search reads. With nothing new to search for, the best draft stands with its caveats.
pub(crate) fn more_research(
    state: &ResearchState,
    limits: &crate::DepthLimits,
    searches: usize,
    on: &str,
) -> (String, Option<usize>) {
    if searches == 0 {
        return (
            "research more: nothing new to search for, accepted with caveats".into(),
            None,
        );
    }
    let room = source_room(state, limits.max_sources);
    let wanted = searches * limits.pages_per_search;
    if room >= wanted {
        return (format!("research more{on}"), None);
    }
    let granted = wanted - room;
    let limit = limits.max_sources + state.granted_sources;
    (
        format!(
            "research more{on}, the limit of {limit} sources raised to {} so that its searches \
             can read",
            limit + granted
        ),
        Some(granted),
    )
}

pub(crate) async fn verify(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    // Only evidence on the question is checked: the confidence shown counts nothing else.
    let on_question = gate(&state, &brief(&state)).citable(&state.evidence);
    let v = verify::verify(&ctx, &on_question).await?;
    let spent = ctx.config.models.meter().totals();
    let (searches, decision) =
        match research_again(&state, &ctx.config.config, &spent, &v.claims, v.confidence) {
            Ok((searches, decision)) => (Some(searches), Some(vec![decision])),
            Err(why) => (None, why.map(|d| vec![d])),
        };
    Ok(ResearchUpdate {
        research_again: Some(searches.is_some()),
        verification_loops: searches.is_some().then_some(state.verification_loops + 1),
        pending_searches: searches,
        decisions: decision,
        claims: Some(v.claims),
        confidence: Some(v.confidence),
        warnings: (!v.warnings.is_empty()).then_some(v.warnings),
        ..Default::default()
    })
}

/// Searches for what `texts` (claims the research could not bear out) are about: each one's key
/// terms, refused like any model-made search when they echo a prompt, are an address or share
/// nothing with the question (a small model's "fact" can be a JSON-schema URL), none already
/// run; `max` at most.
pub(crate) fn searches_about<'a>(
    state: &ResearchState,
    texts: impl Iterator<Item = &'a str>,
    max: usize,
) -> Vec<String> {
    let brief = brief(state);
    let anchors = format!("{} {}", brief.topic(), state.plan.questions.join(" "));
    let mut searches: Vec<String> = Vec::new();
    for text in texts {
        let Some(q) = crate::guard::fallback_plan(text, 1).1.into_iter().next() else {
            continue;
        };
        let usable = crate::steps::relevance::refuse_search(&q, &state.query, &anchors).is_none()
            && crate::guard::usable_search(&q);
        if usable && !searches.contains(&q) && !state.searches_done.contains(&q) {
            searches.push(q);
        }
    }
    searches.truncate(max);
    searches
}

/// Seed 001's verification loop: when under [`RunConfig::min_supported`] of the checked claims
/// are supported, the research goes back — at most [`RunConfig::verification_loops`] times, and
/// only with room to read and something new to search — for what the unsupported claims are
/// about. `Ok` with the searches and the decision that says why; `Err` to write, with the
/// decision that says why the loop did not run when the claims called for it (the method
/// section shows it: a loop that gives up is never silent).
pub(crate) fn research_again(
    state: &ResearchState,
    config: &crate::RunConfig,
    spent: &research_llm::UsageTotals,
    claims: &[crate::records::Claim],
    confidence: f64,
) -> Result<(Vec<String>, Decision), Option<Decision>> {
    if claims.is_empty() || confidence >= config.min_supported {
        return Err(None);
    }
    let supported = claims.iter().filter(|c| c.supported).count();
    let decision = |what: String| Decision {
        point: "verification".into(),
        decision: format!(
            "{supported} of {} checked claims supported, under {:.0}%: {what}",
            claims.len(),
            config.min_supported * 100.0,
        ),
        automatic: true,
    };
    let not = |why: &str| Err(Some(decision(format!("not researched again: {why}"))));
    if state.verification_loops >= config.verification_loops {
        return match config.verification_loops {
            0 => not("the verification loop is off"),
            n => not(&format!(
                "the {n} research round(s) it allows for them were run"
            )),
        };
    }
    if let Some(why) = why_no_more_research(state, config, spent) {
        return not(&why);
    }
    let limits = config.limits();
    let searches = searches_about(
        state,
        claims
            .iter()
            .filter(|c| !c.supported)
            .map(|c| c.text.as_str()),
        limits.initial_searches.div_ceil(2),
    );
    if searches.is_empty() {
        return not("nothing new to search for about the unsupported ones");
    }
    let what = format!(
        "researching again for the unsupported ones ({})",
        searches.join("; ")
    );
    Ok((searches, decision(what)))
}

/// Why the research may not go back to search once more, if it may not: what is left of the
/// budget is the report's (a soft budget reached stops research here too), and with the
/// sources' limit reached its searches could read nothing. One rule for every automatic way
/// back (the verification loop, the analyst's gaps).
fn why_no_more_research(
    state: &ResearchState,
    config: &crate::RunConfig,
    spent: &research_llm::UsageTotals,
) -> Option<String> {
    if crate::config::soft_budget(config, spent).is_some() {
        return Some("the budget is spent; what is left of it is the report's".into());
    }
    let limits = config.limits();
    (source_room(state, limits.max_sources) == 0).then(|| {
        format!(
            "the limit of {} sources is reached",
            limits.max_sources + state.granted_sources
        )
    })
}

/// Seed 000's gap searches: the gaps the analyst names send the review pipeline back to search
/// — at most the depth's [`crate::config::DepthLimits::gap_rounds`] times, and only with room
/// to read, budget left and something new to search (each gap's key terms, refused like any
/// model-made search when they echo a prompt or share nothing with the question; three at
/// most, as the seed takes). `Ok` with the searches and the decision; `Err` to write, with the
/// decision that says why not when there were gaps (never silent).
pub(crate) fn search_gaps(
    state: &ResearchState,
    config: &crate::RunConfig,
    spent: &research_llm::UsageTotals,
    gaps: &[String],
) -> Result<(Vec<String>, Decision), Option<Decision>> {
    if gaps.is_empty() {
        return Err(None);
    }
    let decision = |what: String| Decision {
        point: "gaps".into(),
        decision: format!(
            "the analyst named {} gap{}: {what}",
            gaps.len(),
            if gaps.len() == 1 { "" } else { "s" }
        ),
        automatic: true,
    };
    let not = |why: &str| Err(Some(decision(format!("not searched: {why}"))));
    let limits = config.limits();
    if state.gap_rounds >= limits.gap_rounds {
        return not(&format!(
            "the {} search round(s) for gaps this depth allows were run",
            limits.gap_rounds
        ));
    }
    if let Some(why) = why_no_more_research(state, config, spent) {
        return not(&why);
    }
    let searches = searches_about(state, gaps.iter().map(String::as_str), 3);
    if searches.is_empty() {
        return not("nothing new to search for about them");
    }
    let what = format!("searched for them ({})", searches.join("; "));
    Ok((searches, decision(what)))
}

/// The record the report's fixed sections come from.
pub(crate) fn facts<'a>(state: &'a ResearchState, env: &'a crate::Env) -> Facts<'a> {
    Facts {
        notes: &env.notes,
        off_the_question: &env.off_the_question,
        plan: &state.plan,
        query: &state.query,
        language: &state.language,
        sources: &state.sources,
        evidence: &state.evidence,
        read: &state.evidence,
        warnings: &state.warnings,
        claims: &state.claims,
        confidence: state.confidence,
        iteration: state.iteration,
        searches_done: &state.searches_done,
        coverage: state.coverage,
        questions: &state.plan.questions,
        crossing: state.crossing.as_ref(),
        decisions: &state.decisions,
        credibility: &state.trust.credibility,
    }
}

pub(crate) fn write_input<'a>(
    state: &'a ResearchState,
    brief: &'a Brief,
    env: &'a crate::Env,
) -> WriteInput<'a> {
    WriteInput {
        brief,
        facts: facts(state, env),
        min_supported: env.config.min_supported,
        frame: crate::steps::write::frame::Frame::of(env.config.structure, env.config.style),
        synthesis: (state.mode == crate::Mode::Multi).then_some(state.synthesis.summary.as_str()),
        analysis: (state.analysis != Default::default()).then_some(&state.analysis),
        outline: &state.plan.aspects,
        // The trust pipeline scores the sources before writing; its drafts are cross-validated.
        trust: (!state.trust.credibility.is_empty()).then_some(state.trust.variant),
    }
}

pub(crate) async fn write_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    ctx.emit(Progress::Writing);
    let brief = brief(&state);
    let draft = write::write(&ctx, &write_input(&state, &brief, &ctx.config), None).await?;
    Ok(written(&state, draft, ResearchUpdate::default()))
}

/// `update` with a new draft: its report, body, audit and warnings, and the trust engine's
/// record and the evidence cross-validation cited, when it ran.
pub(crate) fn written(
    state: &ResearchState,
    draft: write::Draft,
    mut update: ResearchUpdate,
) -> ResearchUpdate {
    update.report = Some(draft.report);
    update.draft = Some(draft.body);
    update.audit = Some(draft.audit);
    update.warnings = Some(draft.warnings);
    if let Some(trust) = draft.trust {
        update.trust = Some(trust);
    }
    if !draft.added.is_empty() {
        let mut evidence = state.evidence.clone();
        evidence.extend(draft.added);
        update.evidence = Some(evidence);
    }
    update
}

pub(crate) async fn review_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let config = &ctx.config.config;
    let finish = |decisions: Option<Vec<Decision>>| ResearchUpdate {
        outcome: Some(Outcome::Finished),
        finished_at_ms: Some(ctx.clock.now_ms()),
        decisions,
        ..Default::default()
    };
    if !config.review.report || state.draft.is_empty() {
        return Ok(finish(None));
    }
    if config.no_input {
        return Ok(finish(Some(vec![Decision {
            point: "report review".into(),
            decision: "approved".into(),
            automatic: true,
        }])));
    }
    let (answer, timed_out) = ask_person(
        &ctx,
        Question::ReportReview {
            report: state.report.clone(),
            draft: state.draft.clone(),
        },
    )?;
    let decision = |d: String| {
        let decision = match &timed_out {
            Some(why) if !d.contains(why.as_str()) => format!("{d} ({why})"),
            _ => d,
        };
        Some(vec![Decision {
            point: "report review".into(),
            decision,
            automatic: timed_out.is_some(),
        }])
    };
    if let Some(problem) = answer.problem() {
        return Err(NodeError::permanent(problem));
    }
    match answer {
        Answer::ApproveReport => Ok(finish(decision("approved".into()))),
        Answer::ReviseReport { feedback } => Ok(ResearchUpdate {
            feedback: Some(feedback.trim().to_string()),
            decisions: decision(format!("revision requested: {}", feedback.trim())),
            ..Default::default()
        }),
        Answer::EditReport { draft } => Ok(ResearchUpdate {
            edited: Some(draft),
            decisions: decision("edited by you; the edit is audited and reviewed again".into()),
            ..Default::default()
        }),
        Answer::RejectReport { reason } => Ok(ResearchUpdate {
            outcome: Some(Outcome::Rejected),
            rejection: Some(reason.trim().to_string()),
            finished_at_ms: Some(ctx.clock.now_ms()),
            decisions: decision(format!("rejected: {}", reason.trim())),
            ..Default::default()
        }),
        other => Err(NodeError::permanent(format!(
            "the report review needs approve, revise, edit or reject, not {other:?}"
        ))),
    }
}

/// The person's edit of the draft: audited like the writer's prose and the report rebuilt
/// around it ([`write::edited`]); the next node shows it for review again.
pub(crate) async fn take_edit(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let draft = write::edited(
        &ctx,
        &write_input(&state, &brief(&state), &ctx.config),
        &state.edited,
    )
    .await?;
    Ok(edit_taken(&state, draft))
}

/// The state's update for a person's audited edit: the new report, the old one kept.
fn edit_taken(state: &ResearchState, draft: write::Draft) -> ResearchUpdate {
    written(
        state,
        draft,
        ResearchUpdate {
            report_versions: Some(vec![state.report.clone()]),
            edited: Some(String::new()),
            ..Default::default()
        },
    )
}

pub(crate) async fn revise_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let brief = brief(&state);
    let verified = revise::verified_in(&state.draft, &state.audit);
    let revision = Revision {
        draft: &state.draft,
        feedback: &state.feedback,
        locations: &[],
        verified: &verified,
    };
    let draft = write::write(
        &ctx,
        &write_input(&state, &brief, &ctx.config),
        Some(revision),
    )
    .await?;
    Ok(written(
        &state,
        draft,
        ResearchUpdate {
            report_versions: Some(vec![state.report.clone()]),
            outcome: Some(Outcome::Finished),
            finished_at_ms: Some(ctx.clock.now_ms()),
            ..Default::default()
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(n: usize) -> ResearchState {
        ResearchState {
            sources: (1..=n as u32)
                .map(|id| crate::records::Source {
                    id,
                    url: format!("https://example.org/{id}"),
                    title: String::new(),
                    kind: "web".into(),
                    provider: "test".into(),
                    published: None,
                    sha256: String::new(),
                    accessed_at_ms: 0,
                    citation: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn research_more_at_the_source_limit_is_granted_room_to_read() {
        // Defect 7: with the depth's 8 sources read, the searches of "research more" read
        // nothing and were recorded as dead ends while the decision said it researched more.
        let limits = crate::Depth::Quick.limits();
        let mut state = read(limits.max_sources);
        assert_eq!(source_room(&state, limits.max_sources), 0);
        let (words, granted) = more_research(&state, &limits, 2, "");
        assert_eq!(granted, Some(2 * limits.pages_per_search));
        assert!(
            words.contains("the limit of 8 sources raised to 12"),
            "{words}"
        );
        state.granted_sources = 4;
        assert_eq!(source_room(&state, limits.max_sources), 4);
        // Room enough: nothing granted. Nothing to search for: the draft stands.
        let (_, granted) = more_research(&read(2), &limits, 2, "");
        assert_eq!(granted, None);
        let (words, granted) = more_research(&state, &limits, 0, "");
        assert!(words.contains("nothing new to search for"), "{words}");
        assert_eq!(granted, None);
    }
}
