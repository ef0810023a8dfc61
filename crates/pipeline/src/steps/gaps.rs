//! Finding gaps (the single agent's loop): how well the evidence answers each research question,
//! what is missing, and which new searches would fill it.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{clean_list, distinct_searches, numbered, relevance, runnable_searches, Brief};
use crate::ask::{ask_or, Ctx};
use crate::guard;
use crate::prompts::{self, fill};
use crate::records::{Coverage, Evidence, Warning};
use crate::roles::Role;
use crate::Progress;

#[derive(Debug, Deserialize, JsonSchema)]
struct QuestionCoverage {
    #[schemars(range(min = 1, max = 10))]
    question: i64,
    status: Coverage,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct GapsOut {
    #[schemars(length(max = 6))]
    coverage: Vec<QuestionCoverage>,
    #[schemars(length(max = 4), inner(length(max = 150)))]
    gaps: Vec<String>,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    new_searches: Vec<String>,
}

pub(crate) fn evidence_listing(evidence: &[Evidence]) -> String {
    evidence
        .iter()
        .map(|e| format!("- [{}] {}\n", e.source_id, e.fact.replace('\n', " ")))
        .collect()
}

/// Where the research stands after a round.
#[derive(Debug, Clone, PartialEq)]
pub struct GapReport {
    /// Coverage per research question, as the evidence now stands.
    pub by_question: Vec<Coverage>,
    /// Overall coverage, 0–1: what [`stated`] makes of [`GapReport::by_question`] and the
    /// evidence.
    pub coverage: f64,
    /// What is still missing.
    pub gaps: Vec<String>,
    /// New searches, none repeating one already run.
    pub new_searches: Vec<String>,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

/// What the gap finder is given.
pub struct GapInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The plan's research questions.
    pub questions: &'a [String],
    /// All evidence so far.
    pub evidence: &'a [Evidence],
    /// Coverage per question after the previous round.
    pub before: &'a [Coverage],
    /// Searches already run.
    pub searches_done: &'a [String],
    /// This round's number (from 1).
    pub round: u32,
    /// Whether no round follows this one: the searches asked for could not be run.
    pub last_round: bool,
    /// Each source's title by its number (for searches drawn from the best passages read).
    pub titles: &'a std::collections::BTreeMap<u32, String>,
}

/// How many distinct answering points — each weighed by its answering probability
/// ([`relevance::answers::answering`]) — a complete answer takes: a reader's answer has 4.7 facts
/// on average (benches/answers/, 33 questions), and a passage answering with probability p states
/// one of them about 0.7 p of the time (the measure's held-out sentences, BENCHMARKS.md), so
/// 4.7 / 0.7. Derived from the gold answers, not fitted to any run's coverage; scored against
/// runs' fact recall in BENCHMARKS.md ("Coverage a reader would sign").
pub const COMPLETE_ANSWER_POINTS: f64 = 6.7;

/// How close in meaning two answering passages are when they make the same point (the sentence
/// model's cosine): a restatement counts once towards the answer. Fitted on 83 saved runs
/// against their fact recall (`scripts/coverage-fit.py --alternatives`, which also scores each
/// half's choice on the other half: BENCHMARKS.md).
pub const SAME_POINT: f32 = 0.65;

/// Read by words (no sentence model), a passage makes another's point when this share of its
/// four-word sequences is the other's too.
const SAID_AGAIN: f64 = 0.5;

/// The share of a complete answer at or above which a question is well covered.
pub const WELL_COVERED_SHARE: f64 = 0.75;

/// How far the checked evidence answers one research question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answered {
    /// Missing without a passage that answers, well covered from [`WELL_COVERED_SHARE`].
    pub level: Coverage,
    /// The expected share of a complete answer its passages state, 0–1: their distinct points'
    /// answering probabilities over [`COMPLETE_ANSWER_POINTS`]. What a report may call covered.
    pub share: f64,
}

impl Answered {
    /// The coverage a report may state for the question when `judged` is another reader's level
    /// (a model's, a worker's): no more than either says, nor than the share.
    pub fn score(self, judged: Coverage) -> f64 {
        judged.min(self.level).score().min(self.share)
    }
}

/// How far `evidence` answers `question`, judged without a model (a weak model calls everything
/// covered; a model's coverage is capped by this): the items that back it ([`backing`]), grouped
/// into distinct points ([`SAME_POINT`]), and their share of a complete answer.
pub fn answered(question: &str, evidence: &[Evidence]) -> Answered {
    let backing = backing(question, evidence);
    if backing.is_empty() {
        return Answered {
            level: Coverage::Missing,
            share: 0.0,
        };
    }
    let share = (distinct_points(&backing, evidence) / COMPLETE_ANSWER_POINTS).min(1.0);
    Answered {
        level: if share >= WELL_COVERED_SHARE {
            Coverage::WellCovered
        } else {
            Coverage::Partial
        },
        share,
    }
}

/// How far `evidence` answers `question`, as a level ([`answered`]).
pub fn evidence_coverage(question: &str, evidence: &[Evidence]) -> Coverage {
    answered(question, evidence).level
}

/// The overall coverage a report states: the mean over research questions of each one's
/// [`Answered::score`] under its judged level (0 without questions).
pub fn stated(by_question: &[Coverage], answered: &[Answered]) -> f64 {
    if by_question.is_empty() {
        return 0.0;
    }
    by_question
        .iter()
        .zip(answered)
        .map(|(judged, a)| a.score(*judged))
        .sum::<f64>()
        / by_question.len() as f64
}

/// The backing items' weight as distinct points: most probable first, an item makes a point of
/// its own unless it restates one already counted, and each point weighs its first item's
/// probability. Two passages make the same point when the sentence model puts them within
/// [`SAME_POINT`] of each other or, read by words, when one says most of the other's words in
/// their order ([`SAID_AGAIN`]).
fn distinct_points(backing: &[(usize, f64)], evidence: &[Evidence]) -> f64 {
    let mut ranked: Vec<(usize, f64)> = backing.to_vec();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let quotes: Vec<&str> = ranked
        .iter()
        .map(|(i, _)| evidence[*i].quote.as_str())
        .collect();
    let encoded = research_check::meaning::installed().and_then(|m| m.encode(&quotes).ok());
    let same = |a: usize, b: usize| match &encoded {
        Some(e) => research_embed::similarity(&e[a].sentence, &e[b].sentence) >= SAME_POINT,
        None => {
            guard::share_said_in(quotes[a], quotes[b]) >= SAID_AGAIN
                || guard::share_said_in(quotes[b], quotes[a]) >= SAID_AGAIN
        }
    };
    let mut leaders: Vec<usize> = Vec::new();
    let mut weight = 0.0;
    for (k, (_, p)) in ranked.iter().enumerate() {
        if !leaders.iter().any(|&l| same(l, k)) {
            leaders.push(k);
            weight += p;
        }
    }
    weight
}

/// The items of `evidence` that back `question` (by index), with how likely each answers it:
/// those on it (they share its content words) that answer it by the answering measure (at its
/// threshold) and whose quote bears out their fact.
pub fn backing(question: &str, evidence: &[Evidence]) -> Vec<(usize, f64)> {
    let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
    let threshold = relevance::answers::threshold();
    evidence
        .iter()
        .zip(relevance::answers::answering(question, &quotes))
        .enumerate()
        .filter(|(_, (e, score))| {
            *score >= threshold
                && guard::shares_content(question, &e.quote)
                && (e.fact.trim() == e.quote.trim() || guard::supports(&e.fact, &e.quote).supported)
        })
        .map(|(i, (_, score))| (i, score))
        .collect()
}

/// Judges the coverage of `input.questions` by the evidence and proposes new searches.
pub async fn find_gaps(ctx: &Ctx, input: GapInput<'_>) -> Result<GapReport, NodeError> {
    let l = ctx.config.config.limits();
    let questions = input.questions;
    // After the last round a model's new searches cannot be run, and a model measured to be
    // wrong when it says "no" does not judge coverage: all it could add is its wording of the
    // gaps, which the evidence states as well. Not asking it spares a call that reads every
    // fact found (a tenth of a quick run with the built-in model, BENCHMARKS.md).
    if input.last_round && !model_judges(&ctx.config.config) {
        let report = by_evidence_alone(&input);
        ctx.emit(Progress::Coverage {
            iteration: input.round,
            coverage: report.coverage,
            gaps: report.gaps.len(),
        });
        return Ok(report);
    }
    let user = format!(
        "{}Research questions:\n{}\nEvidence collected so far:\n{}",
        input.brief.block(),
        numbered(questions),
        if input.evidence.is_empty() {
            "(none)\n".to_string()
        } else {
            evidence_listing(input.evidence)
        }
    );
    let (out, warnings) = ask_or::<GapsOut>(
        ctx,
        Role::Gaps,
        fill(
            prompts::GAPS,
            &[("searches", l.initial_searches.to_string())],
        ),
        user,
        600,
    )
    .await?;
    let out = out.unwrap_or_else(|| GapsOut {
        coverage: Vec::new(),
        gaps: Vec::new(),
        new_searches: Vec::new(),
    });
    // Each round's judgement stands, lower or not (seed 004's convergence check is there to see
    // it go down); a question the model did not judge keeps its level as far as the evidence
    // still bears it out. A model measured to call passages wrong when it says "no" does not
    // judge: the evidence alone does (SmolLM2 put "covered to 0%" above passages that answer).
    let judges = model_judges(&ctx.config.config);
    let answered: Vec<Answered> = questions.iter().map(|q| by_evidence(&input, q)).collect();
    let mut by_question: Vec<Coverage> = answered
        .iter()
        .enumerate()
        .map(|(i, a)| match input.before.get(i) {
            Some(c) if judges => (*c).min(a.level),
            None if judges => Coverage::Missing,
            _ => a.level,
        })
        .collect();
    for c in out.coverage.into_iter().filter(|_| judges) {
        let i = c.question.clamp(0, 1_000) as usize;
        if i >= 1 && i <= by_question.len() {
            // The model's word, as far as the evidence bears it out.
            by_question[i - 1] = c.status.min(answered[i - 1].level);
        }
    }
    if input.evidence.is_empty() {
        // Nothing found cannot cover anything, whatever the model says.
        by_question.iter_mut().for_each(|c| *c = Coverage::Missing);
    }
    let coverage = stated(&by_question, &answered);
    let user = input.brief.topic();
    let told = format!(
        "{}\n{}",
        prompts::GAPS,
        serde_json::to_string(&schemars::schema_for!(GapsOut)).unwrap_or_default()
    );
    let (gaps, proposed) = anchored(out.gaps, out.new_searches.clone(), &told, &user, questions);
    // A search must share a word with the question, the session's focus, an accepted research
    // question or a passage read.
    let read: Vec<&str> = input.evidence.iter().map(|e| e.quote.as_str()).collect();
    let anchors = format!(
        "{user} {} {} {}",
        input.brief.focus.join(" "),
        questions.join(" "),
        read.join(" ")
    );
    let mut warnings = warnings;
    let mut kept = Vec::new();
    for q in out
        .new_searches
        .into_iter()
        .filter(|q| !q.trim().is_empty())
    {
        let why = relevance::refuse_search(&q, &input.brief.query, &anchors).or_else(|| {
            (!proposed.contains(&q)).then(|| {
                "it is not a keyword query about the research (an echo of the prompt, markup or a fragment)"
                    .to_string()
            })
        });
        match why {
            Some(why) => warnings.push(relevance::refused(ctx, "search", &q, &why)),
            None => kept.push(q),
        }
    }
    let mut new_searches = distinct_searches(kept, input.searches_done, l.initial_searches);
    if new_searches.is_empty() && coverage < ctx.config.config.min_coverage {
        // The model proposed nothing usable: the best passages read so far say where to look
        // next (their distinctive terms and their pages' titles), so a run whose model writes
        // nothing useful still reaches the pages next to the first good one.
        new_searches = relevance::feedback_searches(
            &user,
            input.evidence,
            input.titles,
            input.searches_done,
            l.initial_searches.div_ceil(2),
        );
    }
    ctx.emit(Progress::Coverage {
        iteration: input.round,
        coverage,
        gaps: gaps.len(),
    });
    Ok(GapReport {
        by_question,
        coverage,
        gaps: clean_list(gaps, 5),
        new_searches,
        warnings,
    })
}

/// Whether the gap finder's word on coverage counts: not when its model is one measured to be
/// wrong when it says "no" (then the evidence alone judges, and after a run's last round the
/// model is not asked at all).
pub(crate) fn model_judges(config: &crate::config::RunConfig) -> bool {
    super::verify::unhelpful_opinion_in(config, Role::Gaps).is_none()
}

/// How far the checked evidence of `input` answers the research question `q`.
fn by_evidence(input: &GapInput<'_>, q: &str) -> Answered {
    answered(&input.brief.asked(q), input.evidence)
}

/// Where the research stands judged by the evidence alone: each research question's coverage
/// as the checked evidence bears it out, and a gap for each one it leaves open.
fn by_evidence_alone(input: &GapInput<'_>) -> GapReport {
    let answered: Vec<Answered> = input
        .questions
        .iter()
        .map(|q| by_evidence(input, q))
        .collect();
    let by_question: Vec<Coverage> = answered.iter().map(|a| a.level).collect();
    let gaps = input
        .questions
        .iter()
        .zip(&by_question)
        .filter_map(|(q, c)| match c {
            Coverage::Missing => Some(format!("No passage read answers \"{q}\"")),
            Coverage::Partial => Some(format!("The passages read answer \"{q}\" only in part")),
            Coverage::WellCovered => None,
        })
        .collect();
    let gaps = clean_list(gaps, 5);
    GapReport {
        coverage: stated(&by_question, &answered),
        by_question,
        gaps,
        new_searches: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The gaps and new searches minus those that only read back what the model was told: a weak
/// model's gaps can be its prompt or schema ("Coverage of one research question."), and a search
/// that repeats such a gap would pass as on topic through it. `told` is the prompt and the
/// schema. The rest is what it always was: a search is on topic through the question, the plan
/// or a gap.
fn anchored(
    gaps: Vec<String>,
    searches: Vec<String>,
    told: &str,
    user: &str,
    questions: &[String],
) -> (Vec<String>, Vec<String>) {
    let told = told.to_lowercase();
    let echo = |t: &String| {
        let t = t
            .trim()
            .trim_end_matches(['.', '!', '?'])
            .trim()
            .to_lowercase();
        t.split_whitespace().count() >= 3 && told.contains(&t)
    };
    let gaps: Vec<String> = gaps.into_iter().filter(|g| !echo(g)).collect();
    let mut context: Vec<&str> = vec![user];
    context.extend(questions.iter().map(String::as_str));
    context.extend(gaps.iter().map(String::as_str));
    let searches = runnable_searches(
        searches.into_iter().filter(|q| !echo(q)).collect(),
        &context,
    );
    (gaps, searches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(fact: &str, quote: &str) -> Evidence {
        Evidence {
            id: 1,
            source_id: 1,
            source_url: String::new(),
            fact: fact.into(),
            quote: quote.into(),
            question: None,
            query: String::new(),
        }
    }

    #[test]
    fn a_gap_and_search_that_read_the_schema_back_are_dropped() {
        let user = "How does Memcheck detect the use of uninitialised values?";
        let questions = vec!["Which errors does Memcheck report?".to_string()];
        let told = serde_json::to_string(&schemars::schema_for!(GapsOut)).unwrap();
        assert!(told.contains("Coverage of one research question"), "{told}");
        let (gaps, searches) = anchored(
            vec![
                "Coverage of one research question.".into(),
                "shadow memory".into(),
            ],
            vec![
                "Coverage of one research question.".into(),
                "memcheck validity bits".into(),
                "shadow memory layout".into(),
            ],
            &told,
            user,
            &questions,
        );
        assert_eq!(gaps, vec!["shadow memory"]);
        // On topic through the question, or through a gap that is.
        assert_eq!(
            searches,
            vec!["memcheck validity bits", "shadow memory layout"]
        );
    }

    #[test]
    fn coverage_is_what_checked_evidence_on_the_question_bears_out() {
        let q = "How does Memcheck detect uninitialised values?";
        let on = "Memcheck detects uninitialised values by tracking a validity bit for every bit of data.";
        let also =
            "Memcheck reports uninitialised values when they are used in a conditional jump.";
        let off = "The release notes list every change made since the previous version.";
        assert_eq!(evidence_coverage(q, &[]), Coverage::Missing);
        assert_eq!(evidence_coverage(q, &[item(off, off)]), Coverage::Missing);
        assert_eq!(evidence_coverage(q, &[item(on, on)]), Coverage::Partial);
        // Two passages do not make an answer whatever they say: well covered needs distinct
        // points expected to state most of a complete answer.
        assert_eq!(
            evidence_coverage(q, &[item(on, on), item(also, also)]),
            Coverage::Partial
        );
        let more = [
            on,
            also,
            "Memcheck detects uninitialised values with the definedness bits it keeps in shadow memory.",
            "Uninitialised values are detected by Memcheck only when a value is used, not when it is copied.",
            "Memcheck tracks uninitialised values through registers and memory to detect their use.",
            "Memcheck detects the use of uninitialised values in system calls and conditional jumps.",
            "Memcheck detects uninitialised values passed to system calls such as write.",
            "To detect uninitialised values, Memcheck checks the definedness of every value a jump depends on.",
            "Memcheck detects uninitialised values read from the heap before they are written.",
            "Memcheck detects uninitialised values on the stack as well as on the heap.",
        ];
        let items: Vec<Evidence> = more.iter().map(|t| item(t, t)).collect();
        // Each distinct point adds to the share of a complete answer; a restatement does not.
        let shares: Vec<f64> = (1..=items.len())
            .map(|n| answered(q, &items[..n]).share)
            .collect();
        assert!(
            shares.windows(2).all(|w| w[1] > w[0] || w[1] == 1.0),
            "{shares:?}"
        );
        assert_eq!(
            answered(q, &[item(on, on), item(on, on)]).share,
            answered(q, &[item(on, on)]).share
        );
        // A report states no more than the share, whatever level another reader judged.
        let two = answered(q, &[item(on, on), item(also, also)]);
        assert!(two.share < 0.5, "{two:?}");
        assert_eq!(two.score(Coverage::WellCovered), two.share);
        assert_eq!(two.score(Coverage::Missing), 0.0);
        assert_eq!(stated(&[Coverage::WellCovered], &[two]), two.share);
        assert_eq!(evidence_coverage(q, &items), Coverage::WellCovered);
        // A fact its quote does not bear out backs nothing, whatever the quote is about.
        let made_up = item("Memcheck was written in 1850 on the moon.", on);
        assert_eq!(evidence_coverage(q, &[made_up]), Coverage::Missing);
    }
}
