//! Multi-agent research: the orchestrator splits the question into assignments, each worker
//! harvests for its sub-question and summarises, and the synthesis combines a round's reports and
//! decides whether another round is worth it.

use std::collections::BTreeSet;

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::harvest::{harvest, Harvest, Reading};
use super::{clean_list, distinct_searches, numbered, plain, relevance, runnable_searches, Brief};
use crate::ask::{ask_or, ask_or_retrying, Ctx};
use crate::guard;
use crate::prompts::{self, fill};
use crate::records::{Assignment, Evidence, Plan, Synthesis, Warning, WorkerResult};
use crate::roles::Role;
use crate::text::{query_similarity, DUPLICATE_QUERY};
use crate::Progress;

#[derive(Debug, Deserialize, JsonSchema)]
struct SubQuestionOut {
    #[schemars(length(max = 200))]
    question: String,
    #[schemars(length(max = 3), inner(length(max = 80)))]
    searches: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OrchestrateOut {
    #[schemars(length(max = 5))]
    sub_questions: Vec<SubQuestionOut>,
}

/// What the orchestrator is given.
pub struct OrchestrateInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The plan.
    pub plan: &'a Plan,
    /// The last synthesis (empty before the first round).
    pub synthesis: &'a Synthesis,
    /// Searches already run.
    pub searches_done: &'a [String],
    /// This round's number (from 1).
    pub round: u32,
}

/// Splits the work of a round into assignments (the plan's own searches, split among workers,
/// when the model offers nothing usable).
pub async fn orchestrate(
    ctx: &Ctx,
    input: OrchestrateInput<'_>,
) -> Result<(Vec<Assignment>, Vec<Warning>), NodeError> {
    let l = ctx.config.config.limits();
    let brief = input.brief;
    let mut user = format!(
        "{}Planned research questions:\n{}",
        brief.block(),
        numbered(&input.plan.questions)
    );
    if input.round > 1 {
        user.push_str(&format!(
            "\nEarlier rounds left these gaps:\n{}\nSuggested searches:\n{}\nSearches already run (do not repeat):\n{}",
            numbered(&input.synthesis.gaps),
            numbered(&input.synthesis.additional_searches),
            numbered(input.searches_done)
        ));
    }
    let (out, warnings) = ask_or::<OrchestrateOut>(
        ctx,
        Role::Orchestrate,
        fill(
            prompts::ORCHESTRATE,
            &[
                ("workers", l.workers.to_string()),
                ("searches", l.searches_per_worker.to_string()),
            ],
        ),
        user,
        700,
    )
    .await?;
    let out = out.unwrap_or_else(|| OrchestrateOut {
        sub_questions: Vec::new(),
    });
    let round = input.round;
    let mut done = input.searches_done.to_vec();
    let mut assignments = Vec::new();
    let mut warnings = warnings;
    // A sub-question splits the plan: it may name what the plan's questions and aspects name.
    let anchors = format!(
        "{} {} {} {}",
        brief.topic(),
        brief.focus.join(" "),
        input.plan.questions.join(" "),
        input.plan.aspects.join(" ")
    );
    // The question's own terms are searched in the first round whatever the model writes: by
    // the first researcher, before its own searches.
    let mut own = if round == 1 {
        relevance::question_searches(&brief.query, 1)
    } else {
        Vec::new()
    };
    for sq in out.sub_questions.into_iter().take(l.workers) {
        let question = sq.question.trim().to_string();
        if !plain(&question) || !guard::usable_question(&question) {
            continue;
        }
        if let Some(why) = relevance::refuse_question(&question, &brief.query, &anchors) {
            warnings.push(relevance::refused(
                ctx,
                "research question",
                &question,
                &why,
            ));
            continue;
        }
        let user = brief.topic();
        let mut context: Vec<&str> = vec![user.as_str(), question.as_str()];
        context.extend(input.plan.questions.iter().map(String::as_str));
        let mut candidates = std::mem::take(&mut own);
        for q in sq.searches {
            match relevance::refuse_search(&q, &brief.query, &anchors) {
                Some(why) => warnings.push(relevance::refused(ctx, "search", &q, &why)),
                None => candidates.push(q),
            }
        }
        let mut searches = distinct_searches(
            runnable_searches(candidates, &context),
            &done,
            l.searches_per_worker + usize::from(assignments.is_empty() && round == 1),
        );
        if searches.is_empty()
            && !done
                .iter()
                .any(|d| query_similarity(d, &question) >= DUPLICATE_QUERY)
        {
            searches.push(question.clone());
        }
        if searches.is_empty() {
            continue;
        }
        done.extend(searches.iter().cloned());
        assignments.push(Assignment {
            index: assignments.len(),
            round,
            question,
            searches,
            query: brief.query.clone(),
        });
    }
    if assignments.is_empty() {
        let pending = distinct_searches(
            input
                .plan
                .searches
                .iter()
                .chain(input.synthesis.additional_searches.iter())
                .cloned()
                .collect(),
            input.searches_done,
            l.workers * l.searches_per_worker,
        );
        for (i, chunk) in pending.chunks(l.searches_per_worker).enumerate() {
            assignments.push(Assignment {
                index: i,
                round,
                question: input
                    .plan
                    .questions
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| brief.query.clone()),
                searches: chunk.to_vec(),
                query: brief.query.clone(),
            });
        }
    }
    Ok((assignments, warnings))
}

/// A worker's input: its assignment and the URLs already read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkerInput {
    /// The assignment.
    pub assignment: Assignment,
    /// URLs already read (not read again).
    pub known_urls: BTreeSet<String>,
    /// The pages read before (URL, SHA-256 of the stored text): their copies are not read.
    #[serde(default)]
    pub read_pages: Vec<(String, String)>,
    /// Sources carried over from earlier turns, read from their stored text (a follow-up's).
    #[serde(default)]
    pub stored: std::collections::BTreeMap<String, crate::Source>,
    /// Sources this worker may add.
    pub max_sources: usize,
    /// The question's prompt block.
    pub context: String,
    /// The user's words ([`Brief::topic`](super::Brief::topic)); empty in checkpoints saved
    /// before it was kept, when the sub-question alone is the topic.
    #[serde(default)]
    pub topic: String,
    /// The person's question as asked, whose names anchor the worker's reading; empty in
    /// checkpoints saved before it was kept (nothing is narrowed then).
    #[serde(default)]
    pub asked: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct WorkerSummaryOut {
    #[schemars(length(max = 800))]
    answer: String,
    #[schemars(length(max = 5), inner(length(max = 150)))]
    findings: Vec<String>,
    confidence: f64,
    #[schemars(length(max = 3), inner(length(max = 120)))]
    gaps: Vec<String>,
}

/// One worker's work: harvest for its sub-question, then summarise what it found.
pub async fn research(
    ctx: &Ctx,
    input: &WorkerInput,
) -> Result<(Harvest, WorkerResult), NodeError> {
    let a = &input.assignment;
    ctx.emit(Progress::Assigned {
        question: a.question.clone(),
    });
    let context = format!("{}Sub-question: {}\n", input.context, a.question);
    let topic = format!("{} {}", input.topic, a.question);
    let mut harvest = harvest(
        ctx,
        &a.searches,
        super::harvest::Known {
            urls: &input.known_urls,
            stored: &input.stored,
            pages: &input.read_pages,
        },
        input.max_sources,
        Reading {
            context: &context,
            topic: &topic,
            questions: std::slice::from_ref(&a.question),
            asked: &input.asked,
            // A worker's searches are the orchestrator's, untyped.
            tree: &super::tree::ResearchTree::default(),
        },
    )
    .await?;
    let facts: Vec<Evidence> = harvest
        .found
        .iter()
        .flat_map(|f| f.evidence.iter().cloned())
        .collect();
    let summary = if facts.is_empty() {
        WorkerSummaryOut {
            answer: String::new(),
            findings: Vec::new(),
            confidence: 0.0,
            gaps: vec![a.question.clone()],
        }
    } else {
        let listing: String = facts
            .iter()
            .map(|e| format!("- {}\n", e.fact.replace('\n', " ")))
            .collect();
        let (out, skipped) = ask_or_retrying::<WorkerSummaryOut>(
            ctx,
            Role::Summarize,
            prompts::WORKER_SUMMARY.to_string(),
            format!("{context}\nFacts found:\n{listing}"),
            700,
            |o| &o.answer,
        )
        .await?;
        harvest.warnings.extend(skipped);
        out.unwrap_or(WorkerSummaryOut {
            answer: String::new(),
            findings: facts.iter().take(5).map(|e| e.fact.clone()).collect(),
            confidence: 0.5,
            gaps: Vec::new(),
        })
    };
    // A looped or empty summary says nothing: the facts themselves stand for it.
    let answer = summary.answer.trim();
    let answer = if guard::degenerate(answer).is_some() {
        String::new()
    } else {
        answer.to_string()
    };
    let result = WorkerResult {
        assignment: a.clone(),
        answer,
        findings: clean_list(
            summary
                .findings
                .into_iter()
                .filter(|f| guard::degenerate(f).is_none())
                .collect(),
            6,
        ),
        // The worker's own confidence, as far as its checked evidence bears it out.
        confidence: summary
            .confidence
            .clamp(0.0, 1.0)
            .min(super::gaps::answered(&a.question, &facts).share),
        gaps: clean_list(summary.gaps, 4),
        searches_done: harvest.searches_done.clone(),
    };
    Ok((harvest, result))
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SynthesisOut {
    needs_more_research: bool,
    #[schemars(length(max = 1000))]
    summary: String,
    #[schemars(length(max = 3), inner(length(max = 150)))]
    conflicts: Vec<String>,
    #[schemars(length(max = 3), inner(length(max = 150)))]
    gaps: Vec<String>,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    additional_searches: Vec<String>,
}

/// The research's coverage from worker reports in round order: the mean confidence of the latest
/// report on each question (a follow-up replaces what it revisits, lower or not), 0–1.
pub fn coverage<'a>(reports: impl IntoIterator<Item = &'a WorkerResult>) -> f64 {
    let mut latest = std::collections::BTreeMap::new();
    for w in reports {
        latest.insert(
            w.assignment.question.trim().to_lowercase(),
            w.confidence.clamp(0.0, 1.0),
        );
    }
    if latest.is_empty() {
        0.0
    } else {
        latest.values().sum::<f64>() / latest.len() as f64
    }
}

/// What the synthesis is given.
pub struct SynthesisInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// This round's worker reports.
    pub reports: &'a [&'a WorkerResult],
    /// Whether any evidence exists at all.
    pub has_evidence: bool,
    /// Every round's reports so far, this round's included (the coverage is theirs).
    pub all: &'a [WorkerResult],
    /// Searches already run.
    pub searches_done: &'a [String],
    /// This round's number (from 1).
    pub round: u32,
}

/// Combines a round's worker reports; the coverage is [`coverage`] of every report so far (zero
/// without evidence), so a round that finds less than was thought can lower it.
pub async fn synthesize(
    ctx: &Ctx,
    input: SynthesisInput<'_>,
) -> Result<(Synthesis, f64, Vec<Warning>), NodeError> {
    let l = ctx.config.config.limits();
    let mut listing = String::new();
    for w in input.reports {
        listing.push_str(&format!(
            "### {}\nAnswer: {}\nFindings:\n{}Confidence: {:.2}\nGaps: {}\n\n",
            w.assignment.question,
            w.answer,
            w.findings
                .iter()
                .map(|f| format!("- {f}\n"))
                .collect::<String>(),
            w.confidence,
            w.gaps.join("; ")
        ));
    }
    let system = fill(
        prompts::SYNTHESIZE,
        &[("searches", l.initial_searches.to_string())],
    );
    let user = format!("{}\nResearcher reports:\n{listing}", input.brief.block());
    let (out, warnings) =
        ask_or_retrying::<SynthesisOut>(ctx, Role::Synthesize, system, user, 800, |o| &o.summary)
            .await?;
    let out = out.unwrap_or_else(|| SynthesisOut {
        needs_more_research: false,
        summary: String::new(),
        conflicts: Vec::new(),
        gaps: Vec::new(),
        additional_searches: Vec::new(),
    });
    let coverage = if input.has_evidence {
        coverage(input.all.iter())
    } else {
        0.0
    };
    let user = input.brief.topic();
    let context: Vec<&str> = std::iter::once(user.as_str())
        .chain(input.reports.iter().map(|w| w.assignment.question.as_str()))
        .chain(out.gaps.iter().map(String::as_str))
        .collect();
    let additional = distinct_searches(
        runnable_searches(out.additional_searches, &context),
        input.searches_done,
        l.initial_searches,
    );
    ctx.emit(Progress::Coverage {
        iteration: input.round,
        coverage,
        gaps: out.gaps.len(),
    });
    let summary = out.summary.trim();
    let synthesis = Synthesis {
        summary: if guard::degenerate(summary).is_some() {
            String::new()
        } else {
            summary.to_string()
        },
        conflicts: clean_list(out.conflicts, 4),
        gaps: clean_list(out.gaps, 4),
        additional_searches: additional,
        needs_more_research: out.needs_more_research,
    };
    Ok((synthesis, coverage, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(round: u32, question: &str, confidence: f64) -> WorkerResult {
        WorkerResult {
            assignment: Assignment {
                index: 0,
                round,
                question: question.into(),
                searches: Vec::new(),
                query: String::new(),
            },
            answer: String::new(),
            findings: Vec::new(),
            confidence,
            gaps: Vec::new(),
            searches_done: Vec::new(),
        }
    }

    #[test]
    fn a_follow_up_replaces_what_it_revisits_lower_or_not() {
        let first = [report(1, "Size?", 0.8), report(1, "Eggs?", 0.6)];
        assert!((coverage(&first) - 0.7).abs() < 1e-9);
        // Round two found the eggs question less answered than round one thought.
        let both = [first[0].clone(), first[1].clone(), report(2, "eggs? ", 0.2)];
        assert!((coverage(&both) - 0.5).abs() < 1e-9);
        assert_eq!(coverage(&[]), 0.0);
    }
}
