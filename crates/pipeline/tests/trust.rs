//! The trust pipeline end to end with the scripted model over a corpus with a planted mirror,
//! a planted contradiction and a low-trust site: credibility and exclusion, cross-validation
//! across independent origins, the hallucination score's caveat and escalation, the question's
//! routing, the clarification gate and early termination — each run resumed on a graph built
//! anew at every question, as after a restart.

mod common;

use std::sync::Arc;

use common::*;
use research_graph::{MemoryCheckpointer, Resume, RunOptions, RunOutcome};
use research_llm::{ChatRequest, Meter, PriceTable, ScriptedAnswer, ScriptedLlm};
use research_pipeline::pipelines::trust;
use research_pipeline::steps::trust::corroborate::TrustMark;
use research_pipeline::*;
use serde_json::json;

const COLONY: &str = "A honeybee colony has about 50,000 workers in summer. The queen lays up to \
2,000 eggs a day in spring. Workers live about six weeks in summer and several months in winter, \
when the colony clusters to keep warm and eats the honey it stored over the year.";

fn pages() -> Vec<(&'static str, &'static str, String)> {
    vec![
        (
            "https://bees.example.org/colony",
            "The honeybee colony",
            COLONY.to_string(),
        ),
        (
            "https://mirror.example.net/colony",
            "The honeybee colony (mirror)",
            format!("{COLONY} Mirrored from bees.example.org."),
        ),
        (
            "https://news.example.com/bees",
            "Spring in the hive",
            "The queen lays up to 1,500 eggs a day in spring, beekeepers say. Hives grow fast \
when the first flowers open and the weather stays warm for weeks."
                .to_string(),
        ),
        (
            "https://science.example.edu/bees",
            "Counting bees",
            "Foragers tell each other where flowers are with the waggle dance, a figure-eight \
run. Scouts look for a new home in late spring, when a colony splits in two. Hive counts show \
that a honeybee colony has about 50,000 workers in summer."
                .to_string(),
        ),
        (
            "https://www.quora.com/bees",
            "How many bees are in a hive?",
            "A honeybee colony has about 50,000 workers in summer. Ask your own question and \
follow the topic for more answers from people like you."
                .to_string(),
        ),
    ]
}

fn bees() -> Arc<Corpus> {
    let pages = pages();
    let refs: Vec<(&str, &str, &str)> =
        pages.iter().map(|(u, t, x)| (*u, *t, x.as_str())).collect();
    corpus_of(&refs)
}

const QUESTION: &str = "How many workers does a honeybee colony have?";

/// The sources are numbered as their hits rank against the question: the colony page and its
/// mirror, the low-trust site, the news page, the .edu page.
const REPORT: &str = "## Summary\nA honeybee colony has about 50,000 workers in summer [1]. \
The queen lays up to 2,000 eggs a day in spring [1]. Honeybees fly to the moon and back every \
single night [5].\n";

fn reading(confidence: f64, complexity: &str) -> ScriptedAnswer {
    answer(
        "understand",
        json!({"intent": "the size of a honeybee colony", "class": "factual",
               "entities": ["honeybee colony"], "temporal": "", "complexity": complexity,
               "confidence": confidence,
               "question": "Which kind of bee colony do you mean?",
               "options": ["honeybees", "bumblebees"],
               "interpretation": "The number of workers in a honeybee colony"}),
    )
}

fn script_with(readings: Vec<ScriptedAnswer>, gaps: Vec<ScriptedAnswer>) -> Vec<ScriptedAnswer> {
    script_writing(readings, gaps, REPORT)
}

fn script_writing(
    readings: Vec<ScriptedAnswer>,
    gaps: Vec<ScriptedAnswer>,
    report: &str,
) -> Vec<ScriptedAnswer> {
    let mut answers = readings;
    answers.push(answer(
        "plan",
        json!({"questions": [
                   {"question": "How many eggs does the queen lay?", "level": "secondary"},
                   {"question": "How many workers does a honeybee colony have?", "level": "primary"}],
               "outline": ["colony size", "the queen"],
               "searches": [
                   {"query": "honeybee colony workers", "kind": "web", "from_year": 0, "to_year": 0},
                   {"query": "queen eggs spring", "kind": "academic", "from_year": 2019, "to_year": 2023},
                   {"query": "honeybee queen colony", "kind": "news", "from_year": 2024, "to_year": 0}]}),
    ));
    answers.push(answer(
        "extract",
        json!({"facts": [
            {"fact": "A honeybee colony has about 50,000 workers in summer.", "sentence": 1, "end_sentence": 1},
            {"fact": "The queen lays up to 2,000 eggs a day in spring.", "sentence": 2, "end_sentence": 2}]}),
    ));
    answers.extend(gaps);
    answers.push(answer(
        "orchestrate",
        json!({"sub_questions": [
            {"question": "How many workers does a colony have?", "searches": ["honeybee colony workers"]},
            {"question": "How many eggs does the queen lay?", "searches": ["queen eggs spring"]}]}),
    ));
    answers.push(answer(
        "summarize",
        json!({"answer": "About 50,000 workers.", "findings": ["50,000 workers"], "confidence": 0.8, "gaps": []}),
    ));
    answers.push(answer(
        "synthesize",
        json!({"summary": "A colony has about 50,000 workers.", "conflicts": [], "gaps": [],
               "additional_searches": [], "needs_more_research": false}),
    ));
    answers.push(answer(
        "verify",
        json!({"verdicts": [{"claim": 1, "supported": true}, {"claim": 2, "supported": true}, {"claim": 3, "supported": true}]}),
    ));
    answers.push(ScriptedAnswer {
        purpose: Some("write".into()),
        contains: None,
        text: Some(report.to_string()),
        json: None,
        delay_ms: None,
    });
    answers
}

fn covered() -> Vec<ScriptedAnswer> {
    vec![answer(
        "gaps",
        json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "well_covered"}],
               "gaps": [], "new_searches": []}),
    )]
}

fn config() -> RunConfig {
    RunConfig {
        review: ReviewPoints::none(),
        no_input: true,
        ..RunConfig::default()
    }
}

/// The bee corpus, recording every query it is asked.
struct Recording {
    corpus: Arc<Corpus>,
    seen: std::sync::Mutex<Vec<research_search::SearchQuery>>,
}

#[async_trait::async_trait]
impl research_search::SearchProvider for Recording {
    fn name(&self) -> &'static str {
        "recording"
    }
    async fn search(
        &self,
        query: &research_search::SearchQuery,
    ) -> Result<Vec<research_search::Hit>, research_search::SearchError> {
        self.seen.lock().unwrap().push(query.clone());
        self.corpus.search(query).await
    }
}

struct Done {
    state: ResearchState,
    searched: Vec<research_search::SearchQuery>,
    asked: Vec<Question>,
    model: Arc<ScriptedLlm>,
    meter: Arc<Meter>,
    docs: Arc<MemoryDocuments>,
}

impl Done {
    fn calls(&self, purpose: &str) -> Vec<ChatRequest> {
        self.model
            .requests()
            .into_iter()
            .filter(|r| r.purpose.as_deref() == Some(purpose))
            .collect()
    }

    fn result(&self) -> eval::RunResult {
        eval::RunResult::from_state("t1", &self.state, &self.meter, Default::default())
    }
}

/// A trust run; each question is answered by `answer` on a graph built anew over the same
/// checkpoints.
async fn run(
    config: RunConfig,
    answers: Vec<ScriptedAnswer>,
    answer: impl FnMut(&Question) -> Answer,
) -> Done {
    run_asking(QUESTION, bees(), config, answers, answer).await
}

/// [`run`] on another question over another corpus.
async fn run_asking(
    question: &str,
    web: Arc<Corpus>,
    config: RunConfig,
    answers: Vec<ScriptedAnswer>,
    answer: impl FnMut(&Question) -> Answer,
) -> Done {
    run_model(question, web, config, ScriptedLlm::new(answers), answer).await
}

/// [`run_asking`] with a model made elsewhere (one that reports a context window).
async fn run_model(
    question: &str,
    web: Arc<Corpus>,
    config: RunConfig,
    model: ScriptedLlm,
    mut answer: impl FnMut(&Question) -> Answer,
) -> Done {
    let model = Arc::new(model);
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let checkpointer: Arc<dyn research_graph::Checkpointer> = Arc::new(MemoryCheckpointer::new());
    let recording = Arc::new(Recording {
        corpus: web.clone(),
        seen: Default::default(),
    });
    let opts = || {
        let mut env = env_on(
            web.clone(),
            &config,
            model.clone(),
            meter.clone(),
            docs.clone(),
        );
        env.search = recording.clone();
        RunOptions::new("t1", env).clock(Arc::new(research_graph::FixedClock(1_795_000_000_000)))
    };
    let graph = || trust::graph(&config, Some(checkpointer.clone())).unwrap();
    let mut out = graph()
        .invoke(initial_state(question, &config, 1_795_000_000_000), opts())
        .await
        .unwrap();
    let mut asked = Vec::new();
    loop {
        match out {
            RunOutcome::Interrupted { interrupts, .. } => {
                let q: Question = serde_json::from_value(interrupts[0].payload.clone()).unwrap();
                let a = answer(&q);
                asked.push(q);
                assert!(asked.len() < 6, "the run keeps asking: {asked:#?}");
                out = graph().resume(Resume::with_value(a), opts()).await.unwrap();
            }
            RunOutcome::Finished(state) => {
                // Every item the run keeps has its own id (the store refuses two of one id):
                // also what the trust engine adds after evidence the question gate left out.
                let mut ids: Vec<u32> = state.evidence.iter().map(|e| e.id).collect();
                ids.sort_unstable();
                ids.dedup();
                assert_eq!(ids.len(), state.evidence.len(), "{:#?}", state.evidence);
                return Done {
                    state,
                    searched: recording.seen.lock().unwrap().clone(),
                    asked,
                    model,
                    meter,
                    docs,
                };
            }
            other => panic!("{other:?}"),
        }
    }
}

fn no_questions(q: &Question) -> Answer {
    panic!("nothing should be asked: {q:?}")
}

#[tokio::test]
async fn claims_are_cross_validated_across_independent_sources_and_mirrors_count_once() {
    let done = run(
        config(),
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    let s = &done.state;
    let urls: Vec<&str> = s.sources.iter().map(|x| x.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://bees.example.org/colony",
            "https://mirror.example.net/colony",
            "https://www.quora.com/bees",
            "https://news.example.com/bees",
            "https://science.example.edu/bees",
        ]
    );
    let t = &s.trust;
    // The low-trust site is scored under the bar, left out of the evidence, and listed with why.
    let quora = t.credibility.iter().find(|c| c.source_id == 3).unwrap();
    assert!(quora.excluded, "{quora:?}");
    assert!(s.evidence.iter().all(|e| e.source_id != 3));
    assert!(s.report.contains("## Sources left out"), "{}", s.report);
    assert!(
        s.report.contains("low-trust domain (quora.com)"),
        "{}",
        s.report
    );
    let edu = t.credibility.iter().find(|c| c.source_id == 5).unwrap();
    assert!(
        edu.score >= 0.6 && edu.why.iter().any(|w| w.contains(".edu")),
        "{edu:?}"
    );
    // The mirror is one origin with the page it copies.
    assert!(
        t.same_origin
            .iter()
            .any(|o| o.source_id == 2 && o.of == 1 && o.why.starts_with("a copy")),
        "{:?}",
        t.same_origin
    );
    // The workers claim: its own source and the independent .edu page (cited now), not the mirror.
    let workers = t
        .claims
        .iter()
        .find(|c| c.sentence.contains("50,000 workers"))
        .expect("the workers claim");
    assert_eq!(workers.mark, TrustMark::Corroborated, "{workers:#?}");
    assert_eq!(workers.origins, 2);
    assert!(
        workers.sentence.contains("[1][5] ✓✓"),
        "{}",
        workers.sentence
    );
    assert!(s.report.contains("summer [1][5] ✓✓."), "{}", s.report);
    assert!(!workers.sentence.contains("[2]"));
    // The eggs claim: contested by the news page, which states another number.
    let eggs = t
        .claims
        .iter()
        .find(|c| c.sentence.contains("2,000 eggs"))
        .expect("the eggs claim");
    assert_eq!(eggs.mark, TrustMark::Weak);
    assert_eq!(eggs.contradicted_by[0].source_id, 4);
    assert_eq!(eggs.contradicted_by[0].numbers, vec!["1,500".to_string()]);
    assert!(s.report.contains("⚠ *(contested by [4])*"), "{}", s.report);
    assert!(workers.confidence > eggs.confidence);
    // The made-up claim was removed; one of three writer claims unsupported is over 0.3.
    assert!(!s.report.contains("moon"), "{}", s.report);
    assert_eq!(
        (t.writer_claims, t.unsupported),
        (3, 1),
        "{}\n{:#?}",
        s.report,
        s.audit
    );
    assert!(t.over_threshold());
    assert!(
        s.report.contains("hallucination score 0.33"),
        "{}",
        s.report
    );
    assert!(s.report.contains("## Caveats"), "{}", s.report);
    // Cited sources show their credibility.
    assert!(s.report.contains("credibility 0."), "{}", s.report);
    // Cross-validation's new citation is evidence like any other: its quote is in the source.
    let result = done.result();
    assert!(result.trust.is_some() && result.profile.is_some());
    for e in &s.evidence {
        let source = s.sources.iter().find(|x| x.id == e.source_id).unwrap();
        let text = done.docs.get(&source.sha256).unwrap().unwrap();
        assert!(text::quote_in(&e.quote, &text::normalize(&text)), "{e:?}");
    }
    // Batched: the audit's check and one cross-validation call for every claim's passages
    // (the claims' check needs no model: every fact is its quote).
    let calls: Vec<String> = done
        .calls("verify")
        .iter()
        .map(|c| c.messages[1].content.clone())
        .collect();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    // `research eval`'s structural checks hold the trust record to its own bounds.
    let failed: Vec<String> = eval::structural_checks(&result)
        .into_iter()
        .filter(|c| !c.passed && c.name != "report_minimum_length")
        .map(|c| format!("{}: {}", c.name, c.detail))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let mut tampered = result.clone();
    let record = tampered.trust.as_mut().unwrap();
    record.claims[1].mark = TrustMark::Corroborated;
    record.hallucination = 1.5;
    let scores = eval::structural_checks(&tampered)
        .into_iter()
        .find(|c| c.name == "scores_in_bounds")
        .unwrap();
    assert!(
        !scores.passed
            && scores.detail.contains("hallucination score 1.5")
            && scores.detail.contains("a ✓✓ claim with 1 origin"),
        "{scores:?}"
    );
    // The audit's sentences are the report's.
    for entry in s
        .audit
        .iter()
        .filter(|e| e.status != steps::audit::AuditStatus::Removed)
    {
        assert!(
            text::normalize(&s.report).contains(&text::normalize(&entry.sentence)),
            "{entry:?}"
        );
    }
}

#[tokio::test]
async fn coverage_is_recomputed_when_ranking_leaves_evidence_out() {
    // The workers question is answered by the quora page alone until the ranking leaves it out
    // (a low-trust domain): the question is then missing, and the overall coverage falls with
    // it. The queen's eggs stay answered by the news page.
    let pages = pages();
    let kept: Vec<(&str, &str, &str)> = pages
        .iter()
        .filter(|(u, _, _)| u.contains("news.example.com") || u.contains("quora"))
        .map(|(u, t, x)| (*u, *t, x.as_str()))
        .collect();
    let done = run_asking(
        QUESTION,
        corpus_of(&kept),
        config(),
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    let s = &done.state;
    assert!(s.trust.credibility.iter().any(|c| c.excluded));
    let researched = *s.coverage_history.last().unwrap();
    assert_eq!(
        s.coverage_by_question,
        [
            research_pipeline::Coverage::Missing,
            research_pipeline::Coverage::Partial
        ],
        "{:?}",
        s.plan.questions
    );
    assert!(s.coverage < researched, "{} vs {researched}", s.coverage);
}

#[tokio::test]
async fn the_report_names_each_research_question_nothing_read_answers() {
    let mut answers = script_with(vec![reading(0.9, "simple")], covered());
    let plan = answers
        .iter_mut()
        .find(|a| a.purpose.as_deref() == Some("plan"))
        .unwrap();
    *plan = answer(
        "plan",
        json!({"questions": [
                   {"question": "How many workers does a honeybee colony have?", "level": "primary"},
                   {"question": "How do honeybees survive the winter cold?", "level": "secondary"}],
               "outline": ["colony size"],
               "searches": [{"query": "honeybee colony workers", "kind": "web", "from_year": 0, "to_year": 0}]}),
    );
    let done = run(config(), answers, no_questions).await;
    let report = &done.state.report;
    assert!(
        report.contains(
            "- Not answered by the sources read: \"How do honeybees survive the winter cold?\""
        ),
        "{report}"
    );
    assert!(!report.contains("read: \"How many workers"), "{report}");
}

#[tokio::test]
async fn the_full_variant_asks_once_per_claim() {
    let mut config = config();
    config.trust = TrustVariant::Full;
    let done = run(
        config,
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    assert_eq!(done.state.trust.variant, TrustVariant::Full);
    // The claims' check, the audit's, then one per claim (two claims reach the report).
    let calls: Vec<String> = done
        .calls("verify")
        .iter()
        .map(|c| c.messages[1].content.clone())
        .collect();
    // The audit's check, then one call per claim that reaches the report, holding that claim
    // with every passage said to support it.
    let claims = done.state.trust.claims.len();
    assert_eq!(claims, 2);
    assert_eq!(calls.len(), 1 + claims, "{calls:#?}");
    for call in &calls[1..] {
        let distinct: std::collections::BTreeSet<&str> = call
            .lines()
            .filter(|l| l.starts_with("Claim "))
            .map(|l| l.split_once(": ").unwrap().1)
            .collect();
        assert_eq!(distinct.len(), 1, "{call}");
    }
}

#[tokio::test]
async fn a_simple_question_takes_the_fast_path_and_a_complex_one_the_orchestrator() {
    let simple = run(
        config(),
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    assert_eq!(simple.state.mode, Mode::Single);
    assert!(simple.calls("orchestrate").is_empty());
    assert!(simple
        .state
        .decisions
        .iter()
        .any(|d| d.point == "routing" && d.decision.contains("fast path")));
    let complex = run(
        config(),
        script_with(vec![reading(0.9, "complex")], covered()),
        no_questions,
    )
    .await;
    assert_eq!(complex.state.mode, Mode::Multi);
    assert_eq!(complex.calls("orchestrate").len(), 1);
    assert!(complex.state.done_workers >= 2);
}

fn asking() -> RunConfig {
    RunConfig {
        review: ReviewPoints {
            clarify: true,
            plan: false,
            report: false,
        },
        no_input: false,
        ..RunConfig::default()
    }
}

#[tokio::test]
async fn the_clarification_gate_opens_under_seven_tenths_only() {
    let clear = run(
        asking(),
        script_with(vec![reading(0.71, "simple")], covered()),
        |_| Answer::AcceptWithCaveats,
    )
    .await;
    assert!(clear
        .asked
        .iter()
        .all(|q| matches!(q, Question::Escalation { .. })));
    let vague = run(
        asking(),
        script_with(
            vec![reading(0.69, "simple"), reading(0.9, "simple")],
            covered(),
        ),
        |q| match q {
            Question::Clarify { .. } => Answer::Clarify {
                text: "honeybees".into(),
            },
            _ => Answer::AcceptWithCaveats,
        },
    )
    .await;
    assert_eq!(
        vague.asked.len(),
        2,
        "the clarification, then the escalation"
    );
    assert!(matches!(&vague.asked[0], Question::Clarify { options, .. } if options.len() == 2));
    // The answer was read with the question again.
    assert_eq!(vague.calls("understand").len(), 2);
    assert!(vague.calls("understand")[1].messages[1]
        .content
        .contains("honeybees"));
    assert_eq!(vague.state.profile.clarifications, 1);
}

#[tokio::test]
async fn a_still_vague_question_is_asked_twice_then_read_as_best_and_said() {
    let done = run(
        asking(),
        script_with(
            vec![
                reading(0.5, "simple"),
                reading(0.6, "simple"),
                reading(0.65, "simple"),
            ],
            covered(),
        ),
        |q| match q {
            Question::Clarify { .. } => Answer::Clarify {
                text: "bees".into(),
            },
            _ => Answer::AcceptWithCaveats,
        },
    )
    .await;
    assert_eq!(done.asked.len(), 3, "two clarifications and the escalation");
    let said = done
        .state
        .decisions
        .iter()
        .find(|d| d.point == "clarification" && d.automatic)
        .expect("the reading taken");
    assert!(said.decision.contains("after 2 clarifications"), "{said:?}");
    assert!(
        done.state.report.contains("after 2 clarifications"),
        "{}",
        done.state.report
    );
}

#[tokio::test]
async fn a_discovery_search_that_finds_nothing_caps_the_confidence() {
    let mut answers = script_with(vec![], covered());
    answers.insert(
        0,
        answer(
            "understand",
            json!({"intent": "x", "class": "factual", "entities": ["Zorblax quantum hive"],
                   "temporal": "", "complexity": "simple", "confidence": 0.95,
                   "question": "Which Zorblax?", "options": ["a", "b"], "interpretation": "Zorblax hives"}),
        ),
    );
    let done = run(config(), answers, no_questions).await;
    let p = &done.state.profile;
    assert_eq!(p.confidence, 0.0, "{p:?}");
    assert!(
        p.why.contains("found nothing on Zorblax quantum hive"),
        "{p:?}"
    );
    // No one to ask: the best reading is taken and said.
    assert!(done
        .state
        .decisions
        .iter()
        .any(|d| d.point == "clarification" && d.decision.contains("no one was asked")));
}

#[tokio::test]
async fn over_the_hallucination_threshold_a_person_decides() {
    let mut config = config();
    config.no_input = false;
    config.review.clarify = true;
    let stopped = run(
        config.clone(),
        script_with(vec![reading(0.9, "simple")], covered()),
        |_| Answer::StopRun,
    )
    .await;
    let Question::Escalation { reason, issues, .. } = &stopped.asked[0] else {
        panic!("{:?}", stopped.asked)
    };
    assert!(reason.contains("hallucination score 0.33"), "{reason}");
    // The trust check words its own escalation, not the reviewer's.
    let headline = stopped.asked[0].escalation_headline().unwrap();
    assert!(
        headline.starts_with("The trust check found claims its sources do not support")
            && !headline.contains("reviewer")
            && !headline.contains("/10"),
        "{headline}"
    );
    assert!(
        issues.iter().any(|i| i.location.contains("moon")),
        "{issues:?}"
    );
    assert_eq!(stopped.state.outcome, Outcome::Rejected);
    let accepted = run(
        config,
        script_with(vec![reading(0.9, "simple")], covered()),
        |_| Answer::AcceptWithCaveats,
    )
    .await;
    assert_eq!(accepted.asked.len(), 1);
    assert_eq!(accepted.state.outcome, Outcome::Finished);
    assert!(accepted.state.report.contains("## Caveats"));
    assert!(accepted
        .state
        .decisions
        .iter()
        .any(|d| d.point == "escalation" && d.decision == "accepted with caveats"));
}

#[tokio::test]
async fn accepted_at_the_escalation_the_report_is_not_sent_back_to_research() {
    // The one round ends with searches it has no round left for; the person accepts the report
    // as it is, so they are never run.
    let mut config = config();
    config.no_input = false;
    config.review.clarify = true;
    config.max_iterations = Some(1);
    let done = run(
        config,
        script_with(
            vec![reading(0.9, "simple")],
            vec![partial(json!(["honeybee drones autumn"]))],
        ),
        |_| Answer::AcceptWithCaveats,
    )
    .await;
    assert_eq!(done.asked.len(), 1, "{:?}", done.asked);
    assert!(
        !done
            .state
            .searches_done
            .iter()
            .any(|q| q.contains("drones")),
        "{:?}",
        done.state.searches_done
    );
    assert_eq!(done.calls("write").len(), 1);
    assert_eq!(done.state.outcome, Outcome::Finished);
}

#[tokio::test]
async fn with_every_review_point_off_the_escalation_asks_no_one() {
    // Input is allowed, but the person turned every review point off: over the threshold the
    // report carries its caveat and the run does not stop for them.
    let mut config = config();
    config.no_input = false;
    config.review = ReviewPoints::none();
    let done = run(
        config,
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    assert!(done.state.trust.over_threshold());
    assert!(done.asked.is_empty());
    assert_eq!(done.state.outcome, Outcome::Finished);
    assert!(
        done.state.report.contains("## Caveats"),
        "{}",
        done.state.report
    );
}

#[test]
fn the_estimate_does_not_follow_the_configured_mode() {
    // Complexity routing picks the path from the question, so the configured mode says nothing
    // about it: the estimate covers either path (the orchestrator's and the gap loop's calls).
    use research_pipeline::Flow;
    let single = RunConfig {
        mode: Mode::Single,
        ..config()
    };
    let multi = RunConfig {
        mode: Mode::Multi,
        ..config()
    };
    let calls = trust::Trust.calls(&single);
    assert_eq!(calls, trust::Trust.calls(&multi));
    for role in [Role::Orchestrate, Role::Gaps, Role::Summarize] {
        assert!(
            calls.iter().any(|(r, n)| *r == role && *n > 0),
            "{role:?}: {calls:?}"
        );
    }
}

fn partial(new_searches: serde_json::Value) -> ScriptedAnswer {
    answer(
        "gaps",
        json!({"coverage": [{"question": 1, "status": "partial"}, {"question": 2, "status": "missing"}],
               "gaps": ["the queen"], "new_searches": new_searches}),
    )
}

#[tokio::test]
async fn research_stops_early_when_a_round_reads_no_new_source() {
    // Round 1 reads every page; round 2's search finds only pages read: no round 3.
    let mut config = config();
    config.max_iterations = Some(4);
    let done = run(
        config,
        script_with(
            vec![reading(0.9, "simple")],
            vec![
                partial(json!(["honeybee hive spring"])),
                partial(json!(["honeybee colony summer"])),
            ],
        ),
        no_questions,
    )
    .await;
    assert_eq!(done.state.iteration, 2, "{:?}", done.state.decisions);
    let stop = done
        .state
        .decisions
        .iter()
        .find(|d| d.point == "early stop")
        .expect("an early stop");
    assert_eq!(
        stop.decision,
        "research stopped: the last round found no new source"
    );
    assert!(
        done.state.report.contains("research stopped:"),
        "{}",
        done.state.report
    );
}

#[tokio::test]
async fn research_stops_early_when_a_round_adds_under_five_percent_coverage() {
    // Round 1 reads two pages; round 2 reads a new one but the coverage stays where it was.
    let mut config = config();
    config.max_iterations = Some(4);
    let mut answers = script_with(
        vec![reading(0.9, "simple")],
        vec![
            partial(json!(["queen eggs spring"])),
            partial(json!(["honeybee hive summer"])),
        ],
    );
    for a in answers
        .iter_mut()
        .filter(|a| a.purpose.as_deref() == Some("plan"))
    {
        a.json = Some(json!({"questions": [
                {"question": "How many workers does a honeybee colony have?", "level": "primary"},
                {"question": "How many eggs does the queen lay?", "level": "secondary"}],
            "outline": ["colony size"],
            "searches": [{"query": "honeybee colony workers", "kind": "web", "from_year": 0, "to_year": 0}]}));
    }
    let done = run(config, answers, no_questions).await;
    let s = &done.state;
    assert_eq!(s.iteration, 2, "{:?}", s.decisions);
    assert!(
        s.sources_per_round[1] > s.sources_per_round[0],
        "{:?}",
        s.sources_per_round
    );
    let stop = s
        .decisions
        .iter()
        .find(|d| d.point == "early stop")
        .expect("an early stop");
    assert_eq!(
        stop.decision,
        "research stopped: the last round added 0% coverage, under 5%"
    );
}

#[tokio::test]
async fn when_the_passages_replace_the_prose_the_score_is_the_writers() {
    // Prose no passage read can mend: it cites sources the run never read (a made-up sentence
    // citing a source with evidence is rewritten into that evidence, and the prose stands).
    let made_up = "## Summary\nHoneybees fly to the moon and back every single night [7]. \
Each colony keeps a small dragon to guard the honey stores [8]. Queens speak fluent Latin to \
their workers at dawn [9].\n";
    let done = run(
        config(),
        script_writing(vec![reading(0.9, "simple")], covered(), made_up),
        no_questions,
    )
    .await;
    let t = &done.state.trust;
    assert!(
        done.state.report.contains("The model's prose was not used"),
        "{}",
        done.state.report
    );
    assert_eq!((t.writer_claims, t.unsupported), (3, 3), "{t:#?}");
    assert_eq!(t.hallucination, 1.0);
    assert!(
        done.state.report.contains("hallucination score 1.00"),
        "{}",
        done.state.report
    );
    assert!(done.state.report.contains("## Caveats"));
    // The passages themselves are marked like any claim.
    assert!(
        !t.claims.is_empty()
            && t.claims
                .iter()
                .all(|c| c.sentence.contains(c.mark.symbol()))
    );
}

#[tokio::test]
async fn a_run_killed_in_the_trust_engine_resumes_without_repeating_a_finished_step() {
    let config = config();
    let checkpointer: Arc<dyn research_graph::Checkpointer> = Arc::new(MemoryCheckpointer::new());
    let docs = Arc::new(MemoryDocuments::default());
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let opts = |model: &Arc<ScriptedLlm>| {
        RunOptions::new(
            "k1",
            env_on(bees(), &config, model.clone(), meter.clone(), docs.clone()),
        )
        .clock(Arc::new(research_graph::FixedClock(1_795_000_000_000)))
    };
    // The first process dies in the writing-and-trust step: its model has no writer.
    let mut first = script_with(vec![reading(0.9, "simple")], covered());
    first.retain(|a| a.purpose.as_deref() != Some("write"));
    let first = Arc::new(ScriptedLlm::new(first));
    let died = trust::graph(&config, Some(checkpointer.clone()))
        .unwrap()
        .invoke(
            initial_state(QUESTION, &config, 1_795_000_000_000),
            opts(&first),
        )
        .await;
    assert!(died.is_err(), "{died:?}");
    // A new process resumes from the last checkpoint.
    let second = Arc::new(ScriptedLlm::new(script_with(
        vec![reading(0.9, "simple")],
        covered(),
    )));
    let out = trust::graph(&config, Some(checkpointer.clone()))
        .unwrap()
        .resume(Resume::empty(), opts(&second))
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    let purposes: Vec<String> = second
        .requests()
        .into_iter()
        .filter_map(|r| r.purpose)
        .collect();
    for done in ["understand", "plan", "extract", "gaps"] {
        assert!(
            !purposes.iter().any(|p| p == done),
            "{done} again: {purposes:?}"
        );
    }
    assert!(purposes.iter().any(|p| p == "write"));
    assert!(state.report.contains("✓✓"), "{}", state.report);
    assert_eq!(state.outcome, Outcome::Finished);
}

#[tokio::test]
async fn a_claim_its_extracted_evidence_misses_is_verified_against_the_stored_text() {
    let report = "## Summary\nA honeybee colony has about 50,000 workers in summer [1]. \
Workers live about six weeks in summer and several months in winter [1].\n";
    // The colony page says more on the workers than extraction takes: the sentences that answer
    // the question best are taken, and the one on their lifespan is left in the stored text.
    let pages = pages();
    let colony = format!(
        "{COLONY} How many workers a honeybee colony has depends on the season. A honeybee \
colony has many workers and one queen. Many workers of a honeybee colony forage for the colony."
    );
    let corpus: Vec<(&str, &str, &str)> = pages
        .iter()
        .map(|(u, t, x)| {
            let text = if u.contains("bees.example.org") {
                colony.as_str()
            } else {
                x.as_str()
            };
            (*u, *t, text)
        })
        .collect();
    let done = run_asking(
        QUESTION,
        corpus_of(&corpus),
        config(),
        script_writing(vec![reading(0.9, "simple")], covered(), report),
        no_questions,
    )
    .await;
    let s = &done.state;
    let span = s
        .evidence
        .iter()
        .find(|e| e.query == "span verification")
        .unwrap_or_else(|| panic!("{:#?}\n{}", s.evidence, s.report));
    assert_eq!(span.source_id, 1);
    assert!(
        span.quote.starts_with("Workers live about six weeks"),
        "{span:?}"
    );
    let source = &s.sources[0];
    let text = done.docs.get(&source.sha256).unwrap().unwrap();
    assert!(text::quote_in(&span.quote, &text::normalize(&text)));
    let entry = s
        .audit
        .iter()
        .find(|e| e.sentence.starts_with("Workers live"))
        .expect("the sentence audited");
    assert_eq!(
        entry.status,
        steps::audit::AuditStatus::Verified,
        "{entry:?}"
    );
    assert_eq!(s.trust.unsupported, 0);
}

#[tokio::test]
async fn a_dead_end_is_recorded_never_searched_again_and_the_angle_reformulated() {
    let mut config = config();
    config.max_iterations = Some(3);
    let mut answers = vec![reading(0.9, "simple")];
    // The dead end's angle is in a research question: a search that shares no word with the
    // question or its research questions is refused before it runs, and is no dead end.
    answers.push(answer(
        "plan",
        json!({"questions": [
                   {"question": "How many workers does a honeybee colony have, and what are zorblax quantum hives?", "level": "primary"},
                   {"question": "How many eggs does the queen lay in spring?", "level": "primary"}],
               "outline": ["colony size", "the queen", "zorblax quantum hives"],
               "searches": [
                   {"query": "honeybee colony workers", "kind": "web", "from_year": 0, "to_year": 0},
                   {"query": "zorblax quantum", "kind": "web", "from_year": 0, "to_year": 0}]}),
    ));
    let mut rest = script_with(
        vec![],
        vec![
            // Round 1: the queen is missing; the only new search takes the dead end's angle.
            answer(
                "gaps",
                json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "missing"}],
                       "gaps": ["the queen", "zorblax quantum"], "new_searches": ["zorblax quantum hives"]}),
            ),
            answer(
                "gaps",
                json!({"coverage": [{"question": 1, "status": "well_covered"}, {"question": 2, "status": "well_covered"}],
                       "gaps": [], "new_searches": []}),
            ),
        ],
    );
    rest.retain(|a| a.purpose.as_deref() != Some("plan"));
    answers.extend(rest);
    let done = run(config, answers, no_questions).await;
    let s = &done.state;
    assert_eq!(s.dead_ends.len(), 1, "{:?}", s.dead_ends);
    assert_eq!(s.dead_ends[0].query, "zorblax quantum");
    assert_eq!(
        s.dead_ends[0].reason,
        steps::backtrack::DeadEndReason::NoResults
    );
    // Never again, in any wording.
    assert!(
        !s.searches_done.iter().any(|q| q.contains("hives")),
        "{:?}",
        s.searches_done
    );
    let avoided = s
        .decisions
        .iter()
        .find(|d| d.point == "dead ends avoided")
        .expect("the reworded dead end avoided");
    assert!(
        avoided.decision.contains("zorblax quantum hives"),
        "{avoided:?}"
    );
    let back = s
        .decisions
        .iter()
        .find(|d| d.point == "backtrack")
        .expect("a backtrack");
    assert!(
        back.decision.contains("\"zorblax quantum\" (no results)"),
        "{back:?}"
    );
    assert!(back.decision.contains("searching instead:"), "{back:?}");
    // The new angle ran in round 2, and found the queen.
    assert_eq!(s.iteration, 2, "{:?}", s.decisions);
    assert!(s.searches_done.len() > 2, "{:?}", s.searches_done);
    assert!(s.report.contains("backtrack: dead ends"), "{}", s.report);
}

#[tokio::test]
async fn research_stops_at_the_soft_budget_and_writes() {
    let mut config = config();
    config.max_iterations = Some(4);
    // Analyze, plan, five extractions and the gap check are 8 calls; writing needs about 4
    // more, so a 12-call budget has room for no second round.
    config.budget.max_calls = Some(12);
    let done = run(
        config,
        script_with(
            vec![reading(0.9, "simple")],
            vec![partial(json!(["honeybee hive spring"]))],
        ),
        no_questions,
    )
    .await;
    let stop = done
        .state
        .decisions
        .iter()
        .find(|d| d.point == "early stop")
        .expect("an early stop");
    assert!(
        stop.decision.contains("the soft budget is reached"),
        "{stop:?}"
    );
    assert_eq!(done.state.iteration, 1);
    assert_eq!(done.state.outcome, Outcome::Finished);
}

#[tokio::test]
async fn research_more_at_the_escalation_searches_for_the_unsupported_claims_in_either_mode() {
    for complexity in ["simple", "complex"] {
        let mut config = config();
        config.no_input = false;
        config.review.clarify = true;
        let done = run(
            config,
            script_with(vec![reading(0.9, complexity)], covered()),
            |_| Answer::ResearchMore,
        )
        .await;
        assert_eq!(done.asked.len(), 1, "asked once: {:?}", done.asked);
        let s = &done.state;
        assert!(s
            .decisions
            .iter()
            .any(|d| d.point == "escalation"
                && d.decision == "research more on the unsupported claims"));
        assert!(
            s.searches_done.iter().any(|q| q.contains("moon")),
            "{complexity}: {:?}",
            s.searches_done
        );
        assert_eq!(s.outcome, Outcome::Finished);
    }
}

#[tokio::test]
async fn the_plan_is_a_tree_whose_typed_searches_reach_the_providers_with_their_years() {
    let done = run(
        config(),
        script_with(vec![reading(0.9, "simple")], covered()),
        no_questions,
    )
    .await;
    let s = &done.state;
    // Primary questions first; the outline is the report's sections.
    use research_pipeline::steps::tree::{Level, SearchKind};
    let levels: Vec<Level> = s.tree.questions.iter().map(|q| q.level).collect();
    assert_eq!(levels, [Level::Primary, Level::Secondary]);
    assert_eq!(
        s.plan.questions[0],
        "How many workers does a honeybee colony have?"
    );
    assert_eq!(s.plan.aspects, ["colony size", "the queen"]);
    let academic = s
        .tree
        .searches
        .iter()
        .find(|t| t.query == "queen eggs spring")
        .unwrap();
    assert_eq!(
        (academic.kind, academic.from_year, academic.to_year),
        (SearchKind::Academic, Some(2019), Some(2023))
    );
    // What the search provider was asked.
    let asked = |text: &str| {
        done.searched
            .iter()
            .find(|q| q.text == text)
            .unwrap_or_else(|| panic!("{text} not searched: {:?}", done.searched))
            .clone()
    };
    let q = asked("queen eggs spring");
    assert_eq!(q.kind, Some(research_search::HitKind::Academic));
    assert_eq!(q.years, research_search::Years::new(Some(2019), Some(2023)));
    let news = asked("honeybee queen colony");
    assert_eq!(news.kind, Some(research_search::HitKind::News));
    assert_eq!(news.years.unwrap().from, Some(2024));
    assert_eq!(news.years.unwrap().to, None);
    assert_eq!(asked("honeybee colony workers").years, None);
    assert!(done.result().tree.is_some());
}

/// Runs an independent checker of `tests/tools` on `result`, with the corpus pages written to
/// files under `dir` and each page's URL mapped to its file.
fn checker(script: &str, result: &eval::RunResult, dir: &std::path::Path, args: &[&str]) -> String {
    let file = dir.join("result.json");
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/tools")
        .join(script);
    let out = std::process::Command::new("python3")
        .arg(path)
        .arg(&file)
        .args(args)
        .output()
        .expect("python3 runs the checker");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{script} failed:\n{text}\n--- report ---\n{}",
        result.report
    );
    text
}

#[tokio::test]
async fn a_trust_report_passes_both_independent_checkers() {
    both_checkers_pass(None, None).await;
}

#[tokio::test]
async fn a_trust_report_read_four_pages_a_call_passes_both_independent_checkers() {
    both_checkers_pass(Some(128_000), None).await;
}

/// Issue 52: a small model's window reads a page a call, unless the person set a call budget:
/// then short pages share it.
#[tokio::test]
async fn a_small_window_shares_calls_only_under_a_call_budget() {
    both_checkers_pass(Some(4_096), None).await;
    both_checkers_pass(Some(4_096), Some(60)).await;
}

/// A trust run over the bee pages written without thousands separators, by a model with this
/// context window (and this call budget), checked by both independent checkers.
async fn both_checkers_pass(window: Option<usize>, max_calls: Option<u64>) {
    // The grounding checker compares a sentence's "50,000" as "50000" with the source's words,
    // where the comma splits it ("50 000"): the pages here write their numbers without one.
    let plain = |t: &str| {
        t.replace("50,000", "50000")
            .replace("2,000", "2000")
            .replace("1,500", "1500")
    };
    let pages: Vec<(&str, &str, String)> = pages()
        .into_iter()
        .map(|(u, t, x)| (u, t, plain(&x)))
        .collect();
    let web = {
        let refs: Vec<(&str, &str, &str)> =
            pages.iter().map(|(u, t, x)| (*u, *t, x.as_str())).collect();
        corpus_of(&refs)
    };
    let dir = tempfile::tempdir().unwrap();
    let mut maps = Vec::new();
    for (url, _, text) in pages.clone() {
        let (origin, rest) = url.split_at(url.find("://").unwrap() + 3);
        let host = rest.split('/').next().unwrap();
        let folder = dir.path().join(host);
        let file = folder.join(&rest[host.len() + 1..]);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        maps.push(format!("{origin}{host}/={}", folder.display()));
    }
    // The sources are numbered as their hits rank against this question: the news page, the
    // colony page, its mirror, the low-trust site (left out), the .edu page.
    let report = "## Summary\nA honeybee colony has about 50000 workers in summer [2]. The queen \
lays up to 2000 eggs a day in spring [2]. Workers live about six weeks in summer and several \
months in winter, when the colony clusters to keep warm [2].\n\n## Spring\nScouts look for a \
new home in late spring, when a colony splits in two [5]. Hives grow fast when the first flowers \
open and the weather stays warm for weeks [1]. Foragers tell each other where flowers are with \
the waggle dance, a figure-eight run [5].\n";
    let mut answers = script_writing(vec![reading(0.9, "simple")], covered(), report);
    for a in answers
        .iter_mut()
        .filter(|a| a.purpose.as_deref() == Some("extract"))
    {
        a.json = Some(json!({"facts": [
            {"fact": "A honeybee colony has about 50000 workers in summer.", "sentence": 1, "end_sentence": 1},
            {"fact": "The queen lays up to 2000 eggs a day in spring.", "sentence": 2, "end_sentence": 2}]}));
    }
    let mut model = ScriptedLlm::new(answers);
    if let Some(tokens) = window {
        model = model.with_context_tokens(tokens);
    }
    let mut config = config();
    config.budget.max_calls = max_calls;
    let done = run_model(
        "What do honeybee workers, queens and colonies do in spring and summer?",
        web,
        config,
        model,
        no_questions,
    )
    .await;
    let (calls, pages) = (done.calls("extract").len(), done.state.sources.len());
    match (window, max_calls) {
        (Some(w), _) if w >= 16_000 => assert_eq!(calls, pages.div_ceil(4)),
        // Short pages share 4,096 tokens, four at most.
        (Some(_), Some(_)) => assert!(
            calls < pages && calls >= pages.div_ceil(4),
            "{calls} calls for {pages} pages"
        ),
        _ => assert_eq!(calls, pages, "a page a call"),
    }
    let result = done.result();
    let mut args: Vec<&str> = vec![""];
    args.extend(maps.iter().map(String::as_str));
    args.push("--require-audit");
    let grounding = checker("check_grounding.py", &result, dir.path(), &args);
    assert!(grounding.contains("grounding ok"), "{grounding}");
    let usable = checker("check_usable.py", &result, dir.path(), &[]);
    assert!(usable.contains("usable ok"), "{usable}");
    assert!(
        done.state.trust.count(TrustMark::Corroborated) >= 1,
        "{}",
        done.state.report
    );
}

#[tokio::test]
async fn a_large_window_reads_four_pages_a_call_and_each_fact_keeps_its_page() {
    let mut answers = script_with(vec![reading(0.9, "simple")], covered());
    // The pages are read in the order their hits rank against the question. Sentence numbers run
    // on across the pages of a call: the colony page shows 3, its mirror 3, the low-trust page 2,
    // so the news page's first sentence is number 9. A fact from 3 to 5 runs over the colony
    // page's end and is read as its sentence 3.
    for a in answers
        .iter_mut()
        .filter(|a| a.purpose.as_deref() == Some("extract"))
    {
        a.json = Some(json!({"facts": [
            {"fact": "A honeybee colony has about 50,000 workers in summer.", "sentence": 1, "end_sentence": 1},
            {"fact": "Workers live about six weeks in summer.", "sentence": 3, "end_sentence": 5},
            {"fact": "Beekeepers say the queen lays up to 1,500 eggs a day in spring.", "sentence": 9, "end_sentence": 9}]}));
    }
    // The fifth page (the science page), alone in the next call.
    let at = answers
        .iter()
        .rposition(|a| a.purpose.as_deref() == Some("extract"))
        .unwrap();
    answers.insert(
        at + 1,
        answer(
            "extract",
            json!({"facts": [{"fact": "Counted hives hold about 50,000 workers in summer.", "sentence": 3, "end_sentence": 3}]}),
        ),
    );
    let done = run_model(
        QUESTION,
        bees(),
        config(),
        ScriptedLlm::new(answers).with_context_tokens(128_000),
        no_questions,
    )
    .await;
    let s = &done.state;
    assert_eq!(s.sources.len(), 5);
    let calls = done.calls("extract");
    assert_eq!(
        calls.len(),
        2,
        "five pages: four in one call, one in the next"
    );
    let first = &calls[0].messages[1].content;
    assert!(first.contains("Page 4: Spring in the hive"), "{first}");
    assert!(first.contains("[9] The queen lays up to 1,500"), "{first}");
    assert!(calls[0].messages[0]
        .content
        .contains("run on from one page"));
    // The lone page's call reads as a one-page call always did.
    let second = &calls[1].messages[1].content;
    assert!(
        !second.contains("Page 1:") && second.contains("[1] Foragers tell each other"),
        "{second}"
    );
    let by = |url: &str| s.sources.iter().find(|x| x.url.contains(url)).unwrap().id;
    let of = |fact: &str| {
        s.evidence
            .iter()
            .find(|e| e.fact == fact)
            .map(|e| e.source_id)
    };
    assert_eq!(
        of("Beekeepers say the queen lays up to 1,500 eggs a day in spring."),
        Some(by("news.example.com")),
        "{:#?}",
        s.evidence
    );
    assert_eq!(
        of("Counted hives hold about 50,000 workers in summer."),
        Some(by("science.example.edu")),
        "{:#?}",
        s.evidence
    );
    let lives = s
        .evidence
        .iter()
        .find(|e| e.fact == "Workers live about six weeks in summer.")
        .expect("the fact running over its page's end");
    assert_eq!(lives.source_id, by("bees.example.org/colony"));
    assert!(lives.quote.starts_with("Workers live") && !lives.quote.contains("Mirrored"));
}

#[tokio::test]
async fn a_complex_question_too_stops_at_the_soft_budget_and_writes() {
    // Defect 5: the multi-agent path went round while the synthesis asked for more, whatever
    // it cost; it now keeps to the soft budget like the single agent's gap loop.
    let mut config = config();
    config.max_iterations = Some(4);
    config.budget.max_calls = Some(16);
    let mut answers = script_with(vec![reading(0.9, "complex")], covered());
    let synthesis = answers
        .iter_mut()
        .find(|a| a.purpose.as_deref() == Some("synthesize"))
        .unwrap();
    *synthesis = answer(
        "synthesize",
        json!({"summary": "A colony has about 50,000 workers.", "conflicts": [], "gaps": ["drones"],
               "additional_searches": ["honeybee drones mating"], "needs_more_research": true}),
    );
    let done = run(config, answers, no_questions).await;
    let s = &done.state;
    assert_eq!(s.mode, Mode::Multi, "{:?}", s.decisions);
    let stop = s
        .decisions
        .iter()
        .find(|d| d.point == "early stop")
        .unwrap_or_else(|| panic!("no early stop: {:#?}", s.decisions));
    assert!(
        stop.decision.contains("the soft budget is reached"),
        "{stop:?}"
    );
    assert_eq!(s.iteration, 1, "{:#?}", s.decisions);
    assert_eq!(s.outcome, Outcome::Finished);
    assert!(s.report.contains("research stopped"), "{}", s.report);
}
