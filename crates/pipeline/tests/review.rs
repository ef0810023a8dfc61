//! The review pipeline end to end with the scripted model: every branch of the reviewer's
//! decision (approve with and without the person's review, revise under and at the limit,
//! reject), banned words rewritten away, and a model failing mid-revision still delivering.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use common::*;
use research_graph::{FixedClock, MemoryCheckpointer, Resume, RunOptions, RunOutcome};
use research_llm::{
    ChatRequest, ChatResponse, LlmClient, LlmError, Meter, ModelRouting, PriceTable, RoleModels,
    ScriptedAnswer, ScriptedLlm, TokenSink,
};
use research_pipeline::eval::RunResult;
use research_pipeline::pipelines::review;
use research_pipeline::steps::review::{EscalationChoice, FoundBy, Severity, Verdict};
use research_pipeline::*;
use serde_json::json;

/// A reviewer's answer: every criterion at `score`, with `issues`.
fn critique(score: f64, issues: serde_json::Value, potential: f64) -> ScriptedAnswer {
    answer(
        "review",
        json!({"scores": {"accuracy": score, "completeness": score, "coherence": score,
                          "citation": score, "methodology": score, "style": score},
               "issues": issues, "summary": "Reviewed.", "improvement_potential": potential}),
    )
}

/// The analyst's answer.
fn analysis() -> ScriptedAnswer {
    answer(
        "analyze",
        json!({"themes": ["ownership rules", "garbage collection at run time", "1. 1. 1. 1. 1. 1."],
               "contradictions": [{"about": "nothing real", "first": 1, "second": 99}],
               "gaps": ["How do Rust lifetimes relate to ownership?", "assistant"],
               "confidence": 1.0}),
    )
}

/// `draft` with its citations as the sources are numbered now: in the order their hits rank
/// against the question, the garbage-collection page first, the ownership page second and the
/// borrow checker's third ([`DETAILED`] cites the ownership page as [1], the collector's as [2]).
fn cited_as_ranked(draft: &str) -> String {
    draft
        .replace("[1]", "[\u{0}]")
        .replace("[2]", "[1]")
        .replace("[\u{0}]", "[2]")
}

fn major(description: &str) -> serde_json::Value {
    json!([{"category": "coherence", "severity": "major", "location": "Ownership",
            "description": description, "fix": "Join the two paragraphs."}])
}

/// A model that answers from the script but fails every `purpose` call after the first `ok`.
struct FailingAfter {
    script: Arc<ScriptedLlm>,
    purpose: &'static str,
    ok: usize,
    seen: AtomicUsize,
}

#[async_trait]
impl LlmClient for FailingAfter {
    fn spec(&self) -> &str {
        "scripted:failing"
    }
    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        if request.purpose.as_deref() == Some(self.purpose)
            && self.seen.fetch_add(1, Ordering::SeqCst) >= self.ok
        {
            return Err(LlmError::Server {
                provider: "scripted".into(),
                status: 503,
                attempts: 3,
            });
        }
        self.script.complete(request, on_token).await
    }
}

struct Done {
    state: ResearchState,
    model: Arc<ScriptedLlm>,
}

fn review_config() -> RunConfig {
    RunConfig {
        review: ReviewPoints::none(),
        ..RunConfig::default()
    }
}

async fn run_review(config: RunConfig, answers: Vec<ScriptedAnswer>) -> Done {
    run_review_failing(config, answers, None).await
}

async fn run_review_failing(
    config: RunConfig,
    answers: Vec<ScriptedAnswer>,
    failing: Option<(&'static str, usize)>,
) -> Done {
    run_review_with(config, answers, |model| match failing {
        Some((purpose, ok)) => Arc::new(FailingAfter {
            script: model,
            purpose,
            ok,
            seen: AtomicUsize::new(0),
        }),
        None => model,
    })
    .await
}

/// A review run whose model is the script as `wrap` makes it misbehave.
async fn run_review_with(
    config: RunConfig,
    answers: Vec<ScriptedAnswer>,
    wrap: impl FnOnce(Arc<ScriptedLlm>) -> Arc<dyn LlmClient>,
) -> Done {
    let mut answers = answers;
    answers.push(analysis());
    let model = Arc::new(ScriptedLlm::new(answers));
    let client = wrap(model.clone());
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let env = Env {
        config: config.clone(),
        models: RoleModels::connect(ModelRouting::single("scripted:test"), meter, |_| {
            Ok(client.clone())
        })
        .unwrap(),
        search: corpus(),
        fetcher: corpus(),
        documents: Arc::new(MemoryDocuments::default()),
        notes: Vec::new(),
        off_the_question: Vec::new(),
    };
    let graph = review::graph(&config, Some(Arc::new(MemoryCheckpointer::new()))).unwrap();
    let out = graph
        .invoke(
            initial_state(
                "How does Rust manage memory compared with garbage collection?",
                &config,
                1_700_000_000_000,
            ),
            RunOptions::new("t1", env)
                .clock(Arc::new(FixedClock(1_700_000_000_000)))
                .recursion_limit(config.step_limit()),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("the run stopped: {out:?}")
    };
    Done { state, model }
}

fn calls(done: &Done, purpose: &str) -> Vec<ChatRequest> {
    done.model
        .requests()
        .into_iter()
        .filter(|r| r.purpose.as_deref() == Some(purpose))
        .collect()
}

#[tokio::test]
async fn an_approved_first_draft_is_delivered_and_says_it_was_reviewed() {
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    let done = run_review(review_config(), answers).await;
    let record = &done.state.review;
    assert_eq!(record.drafts.len(), 1);
    let c = record.drafts[0].critique.as_ref().unwrap();
    assert_eq!(c.verdict, Verdict::Approve, "{c:#?}");
    assert!(c.overall >= 7.5);
    assert_eq!(record.fallback, None);
    assert_eq!(done.state.outcome, Outcome::Finished);
    assert!(
        done.state.report.contains("Reviewed: approved at"),
        "{}",
        done.state.report
    );
    assert_eq!(calls(&done, "review").len(), 1);
    assert_eq!(calls(&done, "write").len(), 1);
    // The analyst's themes and gaps, guarded: no list numbers, no off-topic word, no made-up
    // contradiction; the writer was told the themes, and the report names the gap.
    let analysis = &done.state.analysis;
    assert_eq!(
        analysis.themes,
        vec!["ownership rules", "garbage collection at run time"]
    );
    assert!(analysis.contradictions.is_empty());
    assert!(analysis
        .gaps
        .contains(&"How do Rust lifetimes relate to ownership?".to_string()));
    assert!(!analysis.gaps.contains(&"assistant".to_string()));
    let claims = &done.state.claims;
    let supported = claims.iter().filter(|c| c.supported).count() as f64 / claims.len() as f64;
    assert!(
        analysis.confidence <= supported,
        "capped by the supported claims"
    );
    assert!(calls(&done, "write")[0].messages[1]
        .content
        .contains("Themes to organise the report by: ownership rules"));
    assert!(done
        .state
        .report
        .contains("Not answered by the sources read: How do Rust lifetimes relate to ownership?"));
    // The review and its draft reach the shared result (and `research run --json`).
    let result = RunResult::from_state("t1", &done.state, &Meter::default(), Default::default());
    assert_eq!(result.review.as_ref().unwrap().drafts.len(), 1);
}

#[tokio::test]
async fn a_draft_is_revised_from_the_itemised_issues_until_approved() {
    let mut answers = script(DETAILED);
    answers.push(critique(
        6.0,
        major("The two paragraphs on ownership repeat each other."),
        0.7,
    ));
    answers.push(critique(8.5, json!([]), 0.2));
    let done = run_review(review_config(), answers).await;
    let record = &done.state.review;
    assert_eq!(record.drafts.len(), 2, "{record:#?}");
    let first = record.drafts[0].critique.as_ref().unwrap();
    assert_eq!(first.verdict, Verdict::Revise);
    assert!(first
        .issues
        .iter()
        .any(|i| i.found_by == FoundBy::Model && i.severity == Severity::Major));
    // The revision was asked from the issues, and the writer saw them.
    assert!(record.drafts[1].asked.contains("repeat each other"));
    let writes = calls(&done, "write");
    assert_eq!(writes.len(), 2);
    assert!(writes[1].messages[1].content.contains("repeat each other"));
    assert!(writes[1].messages[0]
        .content
        .contains("keep every other sentence exactly as it is"));
    assert_eq!(
        record.drafts[1].critique.as_ref().unwrap().verdict,
        Verdict::Approve
    );
    assert_eq!(
        done.state.report_versions.len(),
        1,
        "the first draft is kept"
    );
    assert!(
        done.state.report.contains("on draft 2"),
        "{}",
        done.state.report
    );
}

#[tokio::test]
async fn at_the_revision_limit_the_best_draft_is_delivered_with_its_open_issues() {
    let mut config = review_config();
    config.max_revisions = 2;
    let mut answers = script(DETAILED);
    answers.push(critique(6.5, major("Transitions are abrupt."), 0.6));
    answers.push(critique(7.0, major("Transitions are still abrupt."), 0.6));
    answers.push(critique(6.0, major("Worse transitions."), 0.6));
    let done = run_review(config, answers).await;
    let record = &done.state.review;
    assert_eq!(record.drafts.len(), 3, "the first draft and two revisions");
    assert_eq!(calls(&done, "review").len(), 3);
    assert_eq!(
        record.fallback.as_deref(),
        Some("no draft was approved within 2 revisions")
    );
    let report = &done.state.report;
    // The best draft (the second, 7.0) is the report, with why and what is still open.
    assert!(report.starts_with(&record.drafts[1].report), "{report}");
    assert!(report.contains("## Review"), "{report}");
    assert!(report.contains("It is draft 2, scored"), "{report}");
    assert!(report.contains("Transitions are still abrupt."), "{report}");
    assert_eq!(done.state.outcome, Outcome::Finished);
    assert_eq!(done.state.audit, record.drafts[1].audit);
}

#[tokio::test]
async fn the_default_limit_is_seed_000s_three_drafts() {
    // Seed 000's `max_iterations: 3` counts reviews: the third review that asks for changes
    // ends the loop, so three drafts — the first and two revisions — never four.
    let mut answers = script(DETAILED);
    for score in [6.5, 6.6, 6.7, 6.8] {
        answers.push(critique(score, major("Transitions are abrupt."), 0.6));
    }
    let done = run_review(review_config(), answers).await;
    assert_eq!(done.state.review.drafts.len(), 3);
    assert_eq!(calls(&done, "review").len(), 3);
    assert_eq!(
        done.state.review.fallback.as_deref(),
        Some("no draft was approved within 2 revisions")
    );
}

#[tokio::test]
async fn a_rejected_draft_ends_the_loop_with_the_reason() {
    let mut answers = script(DETAILED);
    answers.push(critique(
        3.0,
        major("The evidence does not answer the question."),
        0.1,
    ));
    let done = run_review(review_config(), answers).await;
    let record = &done.state.review;
    assert_eq!(record.drafts.len(), 1, "no revision after a rejection");
    assert_eq!(
        record.drafts[0].critique.as_ref().unwrap().verdict,
        Verdict::Reject
    );
    assert!(record
        .fallback
        .as_deref()
        .unwrap()
        .contains("rejected the draft at 3.0/10"));
    assert!(done.state.report.contains("not approved by the reviewer"));
    assert!(!done.state.report.trim().is_empty());
}

#[tokio::test]
async fn a_model_failing_mid_revision_still_delivers_the_best_draft_with_the_reason() {
    let mut answers = script(DETAILED);
    answers.push(critique(6.0, major("Transitions are abrupt."), 0.7));
    // The first draft is written; the revision's call fails (503 after the client's retries).
    let done = run_review_failing(review_config(), answers, Some(("write", 1))).await;
    let record = &done.state.review;
    assert_eq!(record.drafts.len(), 1);
    assert!(record
        .failure
        .as_deref()
        .unwrap()
        .starts_with("revising the draft failed"));
    let report = &done.state.report;
    assert!(report.starts_with(&record.drafts[0].report), "{report}");
    assert!(report.contains("revising the draft failed"), "{report}");
    assert!(done
        .state
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::ModelFailed));
    assert_eq!(done.state.outcome, Outcome::Finished);
}

#[tokio::test]
async fn a_writer_failing_on_the_first_draft_gives_the_passages() {
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    let done = run_review_failing(review_config(), answers, Some(("write", 0))).await;
    let report = &done.state.report;
    assert!(done.state.review.drafts.is_empty());
    assert!(
        report.contains("writing the first draft failed"),
        "{report}"
    );
    // The passages read, cited: never an empty report.
    assert!(!done.state.evidence.is_empty());
    assert!(report.contains("[1]"), "{report}");
    assert!(!done.state.audit.is_empty());
}

#[tokio::test]
async fn banned_words_are_rewritten_away_and_a_users_own_word_takes_its_sentence() {
    let write = "## Summary\nRust leverages a robust borrow checker that enforces valid references [2]. \
It basically needs no garbage collector [1].\n\n## Details\nEach value has a single owner and is dropped when the owner goes out of scope [2].\n";
    let mut config = review_config();
    config.banned_words = Some(vec!["leverage".into(), "robust".into(), "basically".into()]);
    let mut answers = script(write);
    answers.push(critique(9.0, json!([]), 0.2));
    let done = run_review(config, answers).await;
    let body = &done.state.draft;
    assert!(!body.to_lowercase().contains("leverag"), "{body}");
    assert!(!body.to_lowercase().contains("robust"), "{body}");
    assert!(!body.to_lowercase().contains("basically"), "{body}");
    assert!(body.contains("uses a reliable borrow checker"), "{body}");
    // The writer was told, too.
    let writes = calls(&done, "write");
    assert!(writes[0].messages[0]
        .content
        .contains("Never use these words: leverage, robust, basically."));
}

#[tokio::test]
async fn the_persons_revision_is_reviewed_again_before_it_is_delivered() {
    let mut config = review_config();
    config.review.report = true;
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    answers.push(analysis());
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let checkpointer = Arc::new(MemoryCheckpointer::new());
    let graph = review::graph(&config, Some(checkpointer)).unwrap();
    let opts = || {
        RunOptions::new(
            "r1",
            env(&config, model.clone(), meter.clone(), docs.clone()),
        )
    };
    let out = graph
        .invoke(initial_state("rust memory", &config, 0), opts())
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("{out:?}")
    };
    let q: Question = serde_json::from_value(interrupts[0].payload.clone()).unwrap();
    assert!(matches!(q, Question::ReportReview { .. }), "{q:?}");
    let out = graph
        .resume(
            Resume::with_value(Answer::ReviseReport {
                feedback: "Shorter, please.".into(),
            }),
            opts(),
        )
        .await
        .unwrap();
    // Revised, reviewed again, and back to the person.
    let RunOutcome::Interrupted { .. } = out else {
        panic!("{out:?}")
    };
    let reviews = model
        .requests()
        .into_iter()
        .filter(|r| r.purpose.as_deref() == Some("review"))
        .count();
    assert_eq!(reviews, 2);
    let out = graph
        .resume(Resume::with_value(Answer::ApproveReport), opts())
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    assert_eq!(state.review.drafts.len(), 2);
    assert_eq!(state.review.drafts[1].asked, "Shorter, please.");
    assert_eq!(state.outcome, Outcome::Finished);
}

#[tokio::test]
async fn each_style_and_the_target_length_reach_the_writer_in_every_pipeline() {
    let mut seen = Vec::new();
    for style in [Style::Academic, Style::Technical, Style::Executive] {
        let mut config = config(Mode::Single, Structure::Detailed);
        config.style = style;
        config.target_words = Some(900);
        // The standard pipeline: the writer controls are shared.
        let run = run_script(config, script(DETAILED)).await;
        let writes: Vec<ChatRequest> = run
            .model
            .requests()
            .into_iter()
            .filter(|r| r.purpose.as_deref() == Some("write"))
            .collect();
        let system = &writes[0].messages[0].content;
        assert!(system.contains(style.rule()), "{system}");
        assert!(system.contains("about 900 words"), "{system}");
        // The plan's aspects are the sections, in the plan's order.
        assert!(
            system.contains("named for its aspect: ownership; borrowing."),
            "{system}"
        );
        // Room for 900 words, not the default 1,500 tokens.
        assert_eq!(writes[0].max_tokens, Some(2_000));
        // The scripted body is far short of 900 words: the report says so, and why.
        assert!(
            run.state.report.contains("short of the 900 asked"),
            "{}",
            run.state.report
        );
        seen.push(style.rule());
    }
    seen.dedup();
    assert_eq!(seen.len(), 3, "each style says something of its own");
}

fn critical(description: &str) -> serde_json::Value {
    json!([{"category": "accuracy", "severity": "critical", "location": "Summary",
            "description": description, "fix": "Check the ownership rules against the sources."}])
}

/// A review run that stops at its questions, each answer given to a graph built anew over the
/// same checkpoints (as after a restart).
async fn escalated_run(config: RunConfig, answers: Vec<Answer>) -> (ResearchState, Vec<Question>) {
    let mut script_answers = script(DETAILED);
    script_answers.push(critique(
        6.0,
        critical("The claim that ownership rules are checked at compile time is overstated."),
        0.6,
    ));
    let mut answers = answers.into_iter();
    let (state, asked, _) = answered_run(config, review_graph, script_answers, |_| {
        answers.next().expect("an answer for every question")
    })
    .await;
    (state, asked)
}

/// A review run with a person taking part: input allowed and one review point on (the
/// clarification, asked only for an ambiguous question), so the escalation asks them.
fn asking_config() -> RunConfig {
    let mut config = review_config();
    config.max_revisions = 0;
    config.review = ReviewPoints {
        clarify: true,
        ..ReviewPoints::none()
    };
    config
}

#[tokio::test]
async fn open_critical_issues_escalate_and_research_more_writes_anew() {
    let config = asking_config();
    let (state, asked) = escalated_run(
        config,
        vec![Answer::ResearchMore, Answer::AcceptWithCaveats],
    )
    .await;
    assert_eq!(asked.len(), 2, "{asked:#?}");
    let Question::Escalation { reason, issues, .. } = &asked[0] else {
        panic!("{asked:?}")
    };
    assert!(
        asked[0]
            .escalation_headline()
            .unwrap()
            .starts_with("The reviewer could not resolve everything: "),
        "{:?}",
        asked[0]
    );
    assert!(
        reason.contains("1 critical issue is still open"),
        "{reason}"
    );
    assert!(issues[0].description.contains("overstated"));
    let record = &state.review;
    assert_eq!(record.drafts.len(), 2, "a new draft after the new research");
    let choices: Vec<EscalationChoice> = record.escalations.iter().map(|e| e.choice).collect();
    assert_eq!(
        choices,
        vec![EscalationChoice::ResearchMore, EscalationChoice::Accept]
    );
    // The issue became the gap, and searches from it ran after the first research.
    assert!(state.searches_done.iter().any(|s| s.contains("ownership")));
    assert_eq!(
        record.fallback.as_deref(),
        Some("you accepted the best draft with its open issues")
    );
    assert!(state.report.contains("## Review"), "{}", state.report);
    assert!(state.report.contains("overstated"), "{}", state.report);
    assert_eq!(state.outcome, Outcome::Finished);
    assert!(state
        .decisions
        .iter()
        .any(|d| d.point == "escalation" && d.decision == "research more"));
}

/// Issue 52, N4: research more in multi mode runs the searches for the open issues, as in
/// single mode — not an orchestrator's new plan that was only told of them.
#[tokio::test]
async fn research_more_in_multi_mode_searches_for_the_open_issues() {
    let mut config = asking_config();
    config.mode = Mode::Multi;
    let (state, _) = escalated_run(
        config,
        vec![Answer::ResearchMore, Answer::AcceptWithCaveats],
    )
    .await;
    let asked_at = state
        .decisions
        .iter()
        .position(|d| d.point == "escalation" && d.decision.starts_with("research more"))
        .expect("research more was chosen");
    assert!(asked_at < state.decisions.len());
    let issue_searches: Vec<&String> = state
        .searches_done
        .iter()
        .filter(|s| s.contains("compile") || s.contains("overstated"))
        .collect();
    assert!(!issue_searches.is_empty(), "{:?}", state.searches_done);
    assert_eq!(
        state.review.drafts.len(),
        2,
        "a new draft after the new research"
    );
}

#[tokio::test]
async fn stopping_at_the_escalation_keeps_the_best_draft() {
    let config = asking_config();
    let (state, _) = escalated_run(config, vec![Answer::StopRun]).await;
    assert_eq!(state.outcome, Outcome::Rejected);
    assert!(state
        .report
        .contains("you stopped the run at the escalation"));
    assert!(state.report.starts_with(&state.review.drafts[0].report));
}

#[tokio::test]
async fn with_every_review_point_off_the_escalation_asks_no_one() {
    // Input is allowed, but every review point is off (`--review none` from a script): the
    // escalation is taken as the trust pipeline takes it, and the run never waits.
    let mut config = review_config();
    config.max_revisions = 0;
    config.no_input = false;
    let (state, asked) = escalated_run(config, Vec::new()).await;
    assert!(asked.is_empty(), "{asked:#?}");
    assert!(state.review.escalations[0].automatic);
    assert_eq!(state.outcome, Outcome::Finished);
    assert!(
        state.report.contains("every review point is off"),
        "{}",
        state.report
    );
}

#[tokio::test]
async fn without_input_the_escalation_is_accepted_and_said() {
    let mut config = review_config();
    config.max_revisions = 0;
    config.no_input = true;
    let (state, asked) = escalated_run(config, Vec::new()).await;
    assert!(asked.is_empty());
    assert!(state.review.escalations[0].automatic);
    assert!(state
        .report
        .contains("the run takes no input, so the best draft is given with them"));
}

/// A run that stops at its questions; each answer goes to a graph built anew over the same
/// checkpoints (as after a restart). `build` makes the pipeline's graph; the model answers
/// from `script_answers` (and the analyst's answer).
async fn answered_run(
    config: RunConfig,
    build: fn(&RunConfig, Option<Arc<dyn research_graph::Checkpointer>>) -> ResearchGraph,
    mut script_answers: Vec<ScriptedAnswer>,
    mut answer: impl FnMut(&Question) -> Answer,
) -> (ResearchState, Vec<Question>, Arc<ScriptedLlm>) {
    script_answers.push(analysis());
    let model = Arc::new(ScriptedLlm::new(script_answers));
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let checkpointer: Arc<dyn research_graph::Checkpointer> = Arc::new(MemoryCheckpointer::new());
    let opts = || {
        RunOptions::new(
            "a1",
            env(&config, model.clone(), meter.clone(), docs.clone()),
        )
    };
    let mut out = build(&config, Some(checkpointer.clone()))
        .invoke(initial_state("rust memory ownership", &config, 0), opts())
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
                out = build(&config, Some(checkpointer.clone()))
                    .resume(Resume::with_value(a), opts())
                    .await
                    .unwrap();
            }
            RunOutcome::Finished(state) => return (state, asked, model),
            other => panic!("{other:?}"),
        }
    }
}

type ResearchGraph = research_graph::CompiledGraph<ResearchState, Env>;

/// The script with a reviewer that approves.
fn approving() -> Vec<ScriptedAnswer> {
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    answers
}

fn review_graph(c: &RunConfig, cp: Option<Arc<dyn research_graph::Checkpointer>>) -> ResearchGraph {
    review::graph(c, cp).unwrap()
}

fn standard_graph(
    c: &RunConfig,
    cp: Option<Arc<dyn research_graph::Checkpointer>>,
) -> ResearchGraph {
    graph(c, cp).unwrap()
}

/// The person's edit: the draft as shown, one sentence citing a source that does not say it
/// and one citing a source the run never read.
fn edit_of(q: &Question) -> Answer {
    let Question::ReportReview { draft, .. } = q else {
        panic!("{q:?}")
    };
    assert!(!draft.is_empty(), "the question carries the draft to edit");
    Answer::EditReport {
        draft: format!(
            "{draft}\n\nThe ownership model was invented in 1950 by a committee of Java developers [1]. \
Every Rust program also runs a tracing garbage collector each second [9].\n"
        ),
    }
}

#[tokio::test]
async fn an_edited_draft_is_audited_and_reviewed_again_across_a_restart() {
    for (name, build) in [
        ("review", review_graph as fn(&_, _) -> _),
        ("standard", standard_graph as fn(&_, _) -> _),
    ] {
        let mut config = review_config();
        config.review.report = true;
        let mut edits = 0;
        let (state, asked, model) = answered_run(config, build, approving(), |q| {
            if edits == 0 {
                edits += 1;
                edit_of(q)
            } else {
                Answer::ApproveReport
            }
        })
        .await;
        // Asked, edited, asked again about the audited edit, approved.
        assert_eq!(asked.len(), 2, "{name}: {asked:#?}");
        let Question::ReportReview { report, .. } = &asked[1] else {
            panic!("{asked:?}")
        };
        assert!(
            !report.contains("[9]"),
            "{name}: the unread source is caught: {report}"
        );
        assert!(
            !report.contains("committee of Java developers"),
            "{name}: {report}"
        );
        assert!(
            report.contains("edited by hand and audited again"),
            "{name}"
        );
        let broken = state
            .audit
            .iter()
            .find(|e| e.sentence.contains("[9]"))
            .unwrap_or_else(|| panic!("{name}: {:#?}", state.audit));
        assert_eq!(
            broken.status,
            research_pipeline::steps::audit::AuditStatus::Removed
        );
        assert_eq!(state.outcome, Outcome::Finished, "{name}");
        assert_eq!(
            state.report_versions.len(),
            1,
            "{name}: the draft before the edit is kept"
        );
        assert!(state
            .decisions
            .iter()
            .any(|d| d.decision.starts_with("edited by you")));
        let reviews = model
            .requests()
            .iter()
            .filter(|r| r.purpose.as_deref() == Some("review"))
            .count();
        if name == "review" {
            // The reviewer saw the writer's draft and then the person's.
            assert_eq!(reviews, 2);
            assert_eq!(state.review.drafts.len(), 2);
            assert_eq!(state.review.drafts[1].asked, "your edit of the draft");
        } else {
            assert_eq!(reviews, 0);
        }
    }
}

#[tokio::test]
async fn an_empty_edit_is_refused_without_losing_the_run() {
    assert!(Answer::EditReport {
        draft: " \n".into()
    }
    .problem()
    .is_some());
    assert!(Answer::EditReport {
        draft: "x".repeat(MAX_EDITED_DRAFT_CHARS + 1)
    }
    .problem()
    .is_some());
    assert!(Answer::EditReport {
        draft: "A report.".into()
    }
    .problem()
    .is_none());
}

#[tokio::test]
async fn an_unanswered_review_point_takes_the_timeout_action_and_says_so() {
    for (then, outcome, words) in [
        (
            TimeoutAction::Approve,
            Outcome::Finished,
            "approved (no answer within 10 minutes)",
        ),
        (
            TimeoutAction::Stop,
            Outcome::Rejected,
            "rejected: no answer within 10 minutes",
        ),
    ] {
        let mut config = review_config();
        config.review.report = true;
        config.review_timeout = Some(ReviewTimeout { minutes: 10, then });
        let (state, asked, _) =
            answered_run(config, standard_graph, approving(), |_| Answer::TimedOut).await;
        assert_eq!(asked.len(), 1);
        assert_eq!(state.outcome, outcome);
        let d = state
            .decisions
            .iter()
            .find(|d| d.point == "report review")
            .unwrap();
        assert_eq!(d.decision, words);
        assert!(d.automatic);
    }
    // The plan review under stop.
    let mut config = review_config();
    config.review.plan = true;
    config.review_timeout = Some(ReviewTimeout {
        minutes: 1,
        then: TimeoutAction::Stop,
    });
    let (state, _, _) = answered_run(config, review_graph, approving(), |_| Answer::TimedOut).await;
    assert_eq!(state.outcome, Outcome::Cancelled);
    assert!(state
        .decisions
        .iter()
        .any(|d| d.decision == "cancelled (no answer within 1 minute)" && d.automatic));
}

#[tokio::test]
async fn a_timed_out_answer_is_refused_by_a_run_without_a_timeout() {
    let mut config = review_config();
    config.review.report = true;
    let model = Arc::new(ScriptedLlm::new(script(DETAILED)));
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let g = graph(&config, Some(Arc::new(MemoryCheckpointer::new()))).unwrap();
    let opts = || {
        RunOptions::new(
            "n1",
            env(&config, model.clone(), meter.clone(), docs.clone()),
        )
    };
    let out = g
        .invoke(initial_state("rust memory", &config, 0), opts())
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Interrupted { .. }));
    let err = g
        .resume(Resume::with_value(Answer::TimedOut), opts())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no review timeout"), "{err}");
}

/// A provider with a small window that says so (HTTP 400 "context length exceeded") when the
/// writer's prompt is longer than `limit` characters; the estimate did not predict it.
struct SmallWindow {
    script: Arc<ScriptedLlm>,
    limit: usize,
}

#[async_trait]
impl LlmClient for SmallWindow {
    fn spec(&self) -> &str {
        "scripted:small-window"
    }
    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        let prompt: usize = request.messages.iter().map(|m| m.content.len()).sum();
        if request.purpose.as_deref() == Some("write") && prompt > self.limit {
            return Err(LlmError::ContextOverflow {
                provider: "small".into(),
                message: format!(
                    "this model's maximum context length is {} characters",
                    self.limit
                ),
            });
        }
        self.script.complete(request, on_token).await
    }
}

#[tokio::test]
async fn a_context_overflow_the_provider_reports_is_retried_with_less_and_said() {
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    // Measure the writer's prompt, then give the provider a window just under it.
    let full = run_review(review_config(), answers.clone()).await;
    let write = &calls(&full, "write")[0];
    let size: usize = write.messages.iter().map(|m| m.content.len()).sum();
    let done = run_review_with(review_config(), answers, |script| {
        Arc::new(SmallWindow {
            script,
            limit: size - 200,
        })
    })
    .await;
    assert_eq!(done.state.review.drafts.len(), 1, "the draft was written");
    assert!(done.state.review.failure.is_none());
    let overflow: Vec<&Warning> = done
        .state
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::ContextOverflow)
        .collect();
    assert_eq!(overflow.len(), 1, "{:#?}", done.state.warnings);
    assert!(
        overflow[0].message.contains("cut to 1/2"),
        "{}",
        overflow[0].message
    );
    assert!(overflow[0].detail.contains("maximum context length"));
    let sent = calls(&done, "write");
    let sizes: Vec<usize> = sent
        .iter()
        .map(|r| r.messages.iter().map(|m| m.content.len()).sum())
        .collect();
    assert!(
        sizes[0] < size - 200,
        "the call that succeeded was cut: {sizes:?}"
    );
    // The question heads the prompt and survives the cut.
    assert!(sent[0].messages[1].content.contains("Rust"));
}

/// Seed 000, row 000-16: the gaps the analyst names send the research back to search — the
/// gap's key terms, not a gap a search guard refuses ("assistant") — and the analyst reads
/// again; a gap already searched is not searched twice, and the method says so.
#[tokio::test]
async fn the_analysts_gaps_go_back_to_search_and_the_analyst_reads_again() {
    let mut answers = script(DETAILED);
    answers.push(critique(9.0, json!([]), 0.2));
    let config = review_config();
    let done = run_review(config.clone(), answers).await;
    let state = &done.state;
    assert_eq!(state.gap_rounds, 1, "{:?}", state.decisions);
    let gap_search = state
        .searches_done
        .iter()
        .find(|s| s.contains("lifetimes"))
        .unwrap_or_else(|| panic!("the gap was searched: {:?}", state.searches_done));
    assert!(!state.searches_done.iter().any(|s| s == "assistant"));
    let gaps: Vec<&str> = state
        .decisions
        .iter()
        .filter(|d| d.point == "gaps")
        .map(|d| d.decision.as_str())
        .collect();
    assert_eq!(gaps.len(), 2, "{gaps:?}");
    assert!(
        gaps[0].contains("searched for them (") && gaps[0].contains(gap_search.as_str()),
        "{gaps:?}"
    );
    assert!(
        gaps[1].contains("not searched: nothing new to search for about them"),
        "{gaps:?}"
    );
    assert_eq!(
        calls(&done, "analyze").len(),
        2,
        "once before, once after the gap search"
    );
    assert!(config.limits().gap_rounds >= 1);
}

#[tokio::test]
async fn an_answer_that_never_parses_is_asked_again_with_a_simpler_schema() {
    let mut answers = vec![
        // The analyst's answer is prose twice (the first ask and the repair)…
        ScriptedAnswer {
            purpose: Some("analyze".into()),
            text: Some("The themes are ownership and borrowing.".into()),
            ..Default::default()
        },
        ScriptedAnswer {
            purpose: Some("analyze".into()),
            text: Some("Ownership, borrowing.".into()),
            ..Default::default()
        },
    ];
    // …then JSON for the simpler form (the script's analysis answer follows).
    answers.extend(script(DETAILED));
    answers.push(critique(9.0, json!([]), 0.2));
    let done = run_review(review_config(), answers).await;
    let analyses = calls(&done, "analyze");
    // Ask, repair, simpler (the analyst reads again after the gap search it sends the run to).
    assert!(analyses.len() >= 3, "ask, repair, simpler");
    let last_system = &analyses[2].messages.last().unwrap().content;
    assert!(
        last_system.contains("_simple")
            || analyses[2]
                .schema
                .as_ref()
                .is_some_and(|s| s.name.ends_with("_simple"))
    );
    assert!(
        !done.state.analysis.themes.is_empty(),
        "the simpler answer was used"
    );
    let parse: Vec<&Warning> = done
        .state
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::ParseFailed)
        .collect();
    assert_eq!(parse.len(), 1, "{:#?}", done.state.warnings);
    assert!(parse[0]
        .message
        .contains("a simpler form was asked for and used"));
}

#[tokio::test]
async fn a_revision_changes_only_the_sections_its_issues_name() {
    let mut answers = script(&cited_as_ranked(DETAILED));
    // The revision rewrites every section, though the issue names only "Ownership".
    answers.push(ScriptedAnswer {
        purpose: Some("write".into()),
        text: Some("## Summary\nRust manages its memory through ownership rules that are checked at compile time [2].\n\n\
## Ownership\nEach value in Rust has a single owner at any time [2]. When the owner goes out of scope, the value is dropped [2].\n\n\
## Compared with garbage collection\nGarbage collectors are always slow [1].\n".into()),
        ..Default::default()
    });
    answers.push(critique(
        6.0,
        major("The two paragraphs on ownership repeat each other."),
        0.7,
    ));
    answers.push(critique(8.5, json!([]), 0.2));
    let done = run_review(review_config(), answers).await;
    let drafts = &done.state.review.drafts;
    assert_eq!(drafts.len(), 2);
    let (first, revised) = (&drafts[0].body, &drafts[1].body);
    // The named section is the writer's new text (as the audit left it).
    assert!(
        revised.contains("Each value in Rust has a single owner at any time [2]."),
        "{revised}"
    );
    assert!(!first.contains("Each value in Rust has a single owner at any time [2]."));
    // The others are as they were, the verified summary word for word.
    assert!(!revised.contains("always slow"), "{revised}");
    let summary = |b: &str| b.split("## Ownership").next().unwrap().to_string();
    assert_eq!(summary(revised).trim(), summary(first).trim());
    assert!(
        revised.contains("Tracing collectors in Java and Go"),
        "{revised}"
    );
    assert!(
        done.state
            .report
            .contains("The revision was held to its issues: 2 sections they did not name"),
        "{}",
        done.state.report
    );
}
