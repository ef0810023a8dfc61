//! The standard pipeline end to end with a scripted model, an in-memory corpus behind the
//! search and fetch seams, and the engine's memory checkpointer: both modes, the review points,
//! degradation, and the behavioural checks of seed 004.

use std::sync::Arc;

use research_graph::{MemoryCheckpointer, Resume, RunOptions, RunOutcome};
use research_llm::{Budget, Meter, PriceTable, ScriptedLlm};
use research_pipeline::eval::structural_checks;
use research_pipeline::*;
use serde_json::json;

mod common;
use common::Run;
use common::*;

#[tokio::test]
async fn single_agent_run_is_grounded_and_passes_the_structural_checks() {
    let run = run(config(Mode::Single, Structure::Detailed), DETAILED).await;
    let r = result(&run);
    eprintln!("{}", r.report);
    let failed: Vec<_> = structural_checks(&r)
        .into_iter()
        .filter(|c| !c.passed)
        .collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", r.report);
    assert_grounded(&run);
    // [19] named no source: it was repaired or dropped; the model's reference list is gone.
    assert!(
        !r.report.contains("[19]") && !r.report.contains("made up"),
        "{}",
        r.report
    );
    assert!(r.report.contains("## Sources") && r.report.contains("## Method and verification"));
    // Two rounds: the gap loop asked for one more search, and the near-duplicate was skipped.
    assert_eq!(run.state.iteration, 2);
    assert!(r
        .metadata
        .queries
        .contains(&"borrow checker rules".to_string()));
    assert!(
        !r.metadata
            .queries
            .iter()
            .any(|q| q == "ownership memory rust"),
        "the reordered duplicate of a planned search is never run: {:?}",
        r.metadata.queries
    );
    // Out-of-range sentence numbers never become evidence.
    assert!(r.evidence.iter().all(|e| e.fact != "Out of range."));
    // Behavioural: coverage never goes down; confidence is supported/total; counts match.
    assert!(
        run.state.coverage_history.windows(2).all(|w| w[1] >= w[0]),
        "{:?}",
        run.state.coverage_history
    );
    let supported = r.claims.iter().filter(|c| c.supported).count();
    assert_eq!(
        r.metadata.confidence,
        supported as f64 / r.claims.len() as f64
    );
    assert_eq!(r.metadata.sources_count, r.sources.len());
    // Every model call is accounted for, per node.
    assert_eq!(r.metadata.llm_calls as usize, run.model.requests().len());
    assert!(run.meter.by_node().contains_key("search_and_extract"));
    assert_eq!(
        r.metadata
            .usage_by_node
            .values()
            .map(|u| u.calls)
            .sum::<u64>(),
        r.metadata.llm_calls,
        "per-node usage adds up to the total"
    );
    // Seed 004 counts ~9–12 calls for a single-agent run.
    assert!(
        (6..=14).contains(&r.metadata.llm_calls),
        "{} calls",
        r.metadata.llm_calls
    );
}

#[tokio::test]
async fn multi_agent_run_fans_out_and_passes_the_structural_checks() {
    let run = run(config(Mode::Multi, Structure::Detailed), DETAILED).await;
    let r = result(&run);
    let failed: Vec<_> = structural_checks(&r)
        .into_iter()
        .filter(|c| !c.passed)
        .collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", r.report);
    assert_grounded(&run);
    assert_eq!(run.state.done_workers, 3);
    assert_eq!(run.state.worker_results.len(), 3);
    let urls: std::collections::BTreeSet<_> = r.sources.iter().map(|s| &s.url).collect();
    assert_eq!(
        urls.len(),
        r.sources.len(),
        "sources are deduplicated by URL"
    );
    let ids: Vec<u32> = r.sources.iter().map(|s| s.id).collect();
    assert_eq!(
        ids,
        (1..=r.sources.len() as u32).collect::<Vec<_>>(),
        "ids are stable and dense"
    );
    assert!(run.meter.by_node().contains_key("search_worker"));
}

#[tokio::test]
async fn report_structure_changes_the_report() {
    let detailed = run(config(Mode::Single, Structure::Detailed), DETAILED).await;
    let bullets = run(config(Mode::Single, Structure::BulletPoints), BULLETS).await;
    assert_ne!(detailed.state.report, bullets.state.report);
    let asked = |run: &Run| {
        run.model
            .requests()
            .into_iter()
            .find(|r| r.purpose.as_deref() == Some("write"))
            .unwrap()
            .messages[0]
            .content
            .clone()
    };
    assert!(asked(&bullets).contains("bullet points"));
    assert!(!asked(&detailed).contains("bullet points"));
}

#[tokio::test]
async fn the_budget_stops_a_run_at_a_checkpoint_and_a_larger_budget_resumes_it() {
    let mut cfg = config(Mode::Single, Structure::Detailed);
    cfg.budget = Budget {
        max_calls: Some(3),
        ..Default::default()
    };
    let model = Arc::new(ScriptedLlm::new(script(DETAILED)));
    let meter = Arc::new(Meter::new(cfg.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let saver = Arc::new(MemoryCheckpointer::new());
    let graph = graph(&cfg, Some(saver.clone())).unwrap();
    let err = graph
        .invoke(
            initial_state("How does Rust manage memory?", &cfg, 0),
            RunOptions::new("b1", env(&cfg, model.clone(), meter.clone(), docs.clone())),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("budget"), "{err}");
    let calls_before = model.requests().len();
    // Resume with a larger budget and the calls made so far.
    cfg.budget.max_calls = Some(50);
    let meter = Arc::new(Meter::new(cfg.budget, PriceTable::builtin()).with_history(meter.calls()));
    let outcome = graph
        .resume(
            Resume::empty(),
            RunOptions::new("b1", env(&cfg, model.clone(), meter.clone(), docs)),
        )
        .await
        .unwrap();
    assert!(matches!(outcome, RunOutcome::Finished(_)), "{outcome:?}");
    // Understand and plan were not asked again.
    let plans = model
        .requests()
        .iter()
        .filter(|r| r.purpose.as_deref() == Some("plan"))
        .count();
    assert_eq!(plans, 1);
    assert!(model.requests().len() > calls_before);
}

#[tokio::test]
async fn review_points_interrupt_and_resume_with_answers() {
    let mut cfg = config(Mode::Single, Structure::Detailed);
    cfg.review = ReviewPoints {
        clarify: true,
        plan: true,
        report: true,
    };
    let mut answers = script(DETAILED);
    answers[0] = answer(
        "understand",
        json!({"is_clear": false, "ambiguities": ["polysemy"], "question": "Which Rust?",
               "options": ["The programming language", "Iron oxide", "The video game"], "interpretation": "The programming language"}),
    );
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let graph = graph(&cfg, Some(Arc::new(MemoryCheckpointer::new()))).unwrap();
    let opts = || RunOptions::new("r1", env(&cfg, model.clone(), meter.clone(), docs.clone()));
    let out = graph
        .invoke(initial_state("rust", &cfg, 0), opts())
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("{out:?}")
    };
    let q: Question = serde_json::from_value(interrupts[0].payload.clone()).unwrap();
    assert!(
        matches!(&q, Question::Clarify { options, .. } if options.len() == 3),
        "{q:?}"
    );

    let out = graph
        .resume(
            Resume::with_value(Answer::Clarify {
                text: "The programming language".into(),
            }),
            opts(),
        )
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("{out:?}")
    };
    let q: Question = serde_json::from_value(interrupts[0].payload.clone()).unwrap();
    let Question::PlanReview { mut plan } = q else {
        panic!("{q:?}")
    };
    plan.searches = vec!["borrow checker rules".into()];

    let out = graph
        .resume(Resume::with_value(Answer::EditPlan { plan }), opts())
        .await
        .unwrap();
    let RunOutcome::Interrupted { interrupts, .. } = out else {
        panic!("{out:?}")
    };
    let q: Question = serde_json::from_value(interrupts[0].payload.clone()).unwrap();
    assert!(matches!(q, Question::ReportReview { .. }));

    let out = graph
        .resume(
            Resume::with_value(Answer::ReviseReport {
                feedback: "Shorter, please.".into(),
            }),
            opts(),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    assert_eq!(state.outcome, Outcome::Finished);
    assert_eq!(state.report_versions.len(), 1, "the first draft is kept");
    assert_eq!(
        state.searches_done[0], "borrow checker rules",
        "the edited plan was used"
    );
    assert_eq!(state.clarification, "The programming language");
    let writes: Vec<_> = model
        .requests()
        .into_iter()
        .filter(|r| r.purpose.as_deref() == Some("write"))
        .collect();
    assert_eq!(writes.len(), 2);
    assert!(writes[1].messages[1].content.contains("Shorter, please."));
    assert!(
        state
            .report
            .contains("clarification: The programming language"),
        "{}",
        state.report
    );
}

#[tokio::test]
async fn no_input_takes_the_interpretation_and_says_so() {
    let mut cfg = config(Mode::Single, Structure::Detailed);
    cfg.review = ReviewPoints {
        clarify: true,
        plan: true,
        report: true,
    };
    cfg.no_input = true;
    let mut answers = script(DETAILED);
    answers[0] = answer(
        "understand",
        json!({"is_clear": false, "ambiguities": ["polysemy"], "question": "Which Rust?",
               "options": ["The programming language", "Iron oxide"], "interpretation": "Rust, the programming language"}),
    );
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let graph = graph(&cfg, None).unwrap();
    let out = graph
        .invoke(
            initial_state("rust memory", &cfg, 0),
            RunOptions::new(
                "n1",
                env(&cfg, model, meter, Arc::new(MemoryDocuments::default())),
            ),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    assert!(
        state
            .report
            .contains("read as: Rust, the programming language"),
        "{}",
        state.report
    );
    assert!(state.report.contains("taken automatically"));
}

/// A run whose searches find nothing, with `off_the_question` as the sources judged to have
/// nothing on it: the finished run's state.
async fn finding_nothing(off_the_question: Vec<String>) -> ResearchState {
    let cfg = config(Mode::Single, Structure::Detailed);
    let mut answers = script(DETAILED);
    answers[1] = answer(
        "plan",
        json!({"questions": ["q"], "aspects": [], "searches": ["zzzz qqqq"]}),
    );
    answers[3] = answer(
        "gaps",
        json!({"coverage": [], "gaps": [], "new_searches": []}),
    );
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let mut env = env(&cfg, model, meter, Arc::new(MemoryDocuments::default()));
    env.off_the_question = off_the_question;
    let out = graph(&cfg, None)
        .unwrap()
        .invoke(
            initial_state("zzzz qqqq", &cfg, 0),
            RunOptions::new("e1", env),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    state
}

#[tokio::test]
async fn nothing_found_is_an_honest_report_not_an_empty_one() {
    let state = finding_nothing(Vec::new()).await;
    assert!(
        state
            .report
            .contains("No evidence for this question could be found"),
        "{}",
        state.report
    );
    assert!(state.report.contains("rephrase"));
    assert_eq!(state.outcome, Outcome::Finished);
}

/// A source judged to have nothing on the question (a library on another subject): the report
/// says so first, with why, and does not suggest rephrasing what no rephrasing would find.
#[tokio::test]
async fn nothing_found_in_sources_off_the_question_says_why_not_rephrase() {
    let why = "Library: nothing on this question — its nearest passage is as far as unrelated text";
    let state = finding_nothing(vec![why.to_string()]).await;
    let summary = state.report.split("## Method").next().unwrap();
    assert!(
        summary.contains("Nothing on this question was found in the sources searched")
            && summary.contains(&format!("- {why}"))
            && summary.contains("add a folder with documents on this subject"),
        "{}",
        state.report
    );
    assert!(!summary.contains("rephrase"), "{summary}");
}

/// The scripted answers of [`DETAILED`] with `plan` as the planner's answer.
fn planned(plan: serde_json::Value) -> Vec<research_llm::ScriptedAnswer> {
    let mut answers = script(DETAILED);
    answers.retain(|a| a.purpose.as_deref() != Some("plan"));
    answers.insert(
        0,
        research_llm::ScriptedAnswer {
            purpose: Some("plan".into()),
            contains: None,
            text: None,
            json: Some(plan),
            delay_ms: None,
        },
    );
    answers
}

/// Issue 52, N5: a multi-agent run crosses into the sources' language after its first round,
/// as a single-agent run does: a Japanese question over English pages searches its key terms
/// in English too, and the method says so.
#[tokio::test]
async fn a_multi_agent_run_searches_in_the_sources_language_too() {
    let cfg = config(Mode::Multi, Structure::Detailed);
    let answers = planned(json!({"questions": ["Rust はメモリをどう管理しますか？"],
                                 "aspects": ["所有権"], "searches": ["rust ownership memory"]}));
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let out = graph(&cfg, None)
        .unwrap()
        .invoke(
            initial_state("Rust はどのようにメモリを管理しますか？", &cfg, 0),
            RunOptions::new(
                "j2",
                env(&cfg, model, meter, Arc::new(MemoryDocuments::default())),
            )
            .recursion_limit(cfg.step_limit()),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    let crossing = state
        .crossing
        .as_ref()
        .unwrap_or_else(|| panic!("searched in the sources' language: {}", state.report));
    assert_eq!(crossing.language, "en");
    for search in &crossing.searches {
        assert!(
            state.searches_done.contains(search),
            "{:?}",
            state.searches_done
        );
    }
    assert!(
        state
            .report
            .contains("- language: the sources found are in English, the question in Japanese"),
        "{}",
        state.report
    );
}

#[tokio::test]
async fn japanese_questions_get_japanese_headings() {
    let cfg = config(Mode::Single, Structure::Detailed);
    // The plan's research questions in the question's language.
    let answers = planned(json!({"questions": ["Rust はメモリをどう管理しますか？"],
                                 "aspects": ["所有権"], "searches": ["rust ownership memory"]}));
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let graph = graph(&cfg, None).unwrap();
    let out = graph
        .invoke(
            initial_state("Rust はどのようにメモリを管理しますか？", &cfg, 0),
            RunOptions::new(
                "j1",
                env(
                    &cfg,
                    model.clone(),
                    meter,
                    Arc::new(MemoryDocuments::default()),
                ),
            ),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    assert_eq!(state.language, "ja");
    assert!(
        state.report.contains("## 出典") && state.report.contains("## 調査方法と検証"),
        "{}",
        state.report
    );
    // The pages are English: the question's key terms were searched in English too (the
    // model's Japanese search is not English, and goes), said in the method section.
    let crossing = state
        .crossing
        .as_ref()
        .expect("searched in the sources' language");
    assert_eq!(crossing.language, "en");
    assert_eq!(crossing.searches, ["rust memory ownership"]);
    assert!(state
        .searches_done
        .iter()
        .any(|s| s == "rust memory ownership"));
    assert!(
        state
            .report
            .contains("- language: the sources found are in English, the question in Japanese"),
        "{}",
        state.report
    );
    // The English passages answer the Japanese research question: it is covered, not named
    // among the unanswered.
    assert!(state.coverage > 0.0, "{}", state.report);
    assert!(
        !state.report.contains("答えが得られなかった"),
        "{}",
        state.report
    );
    let write = model
        .requests()
        .into_iter()
        .find(|r| r.purpose.as_deref() == Some("write"))
        .unwrap();
    assert!(write.messages[0].content.contains("Write in Japanese"));
}

#[tokio::test]
async fn more_rounds_never_mean_less_evidence() {
    let mut counts = Vec::new();
    for rounds in [1, 2, 3] {
        let mut cfg = config(Mode::Single, Structure::Detailed);
        cfg.max_iterations = Some(rounds);
        cfg.min_coverage = 1.0;
        let run = run(cfg, DETAILED).await;
        assert!(run.state.iteration <= rounds);
        counts.push(run.state.evidence.len());
    }
    assert!(counts.windows(2).all(|w| w[1] >= w[0]), "{counts:?}");
}

#[tokio::test]
async fn a_follow_up_sees_the_earlier_turn() {
    let cfg = config(Mode::Single, Structure::Detailed);
    let model = Arc::new(ScriptedLlm::new(script(DETAILED)));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let graph = graph(&cfg, None).unwrap();
    let state = follow_up_state(
        "And how does that compare with Go?",
        "Question: How does Rust manage memory?\nAnswer: through ownership checked at compile time.",
        &cfg,
        0,
    );
    let out = graph
        .invoke(
            state,
            RunOptions::new(
                "f1",
                env(
                    &cfg,
                    model.clone(),
                    meter,
                    Arc::new(MemoryDocuments::default()),
                ),
            ),
        )
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Finished(_)));
    for purpose in ["understand", "plan", "write"] {
        let request = model
            .requests()
            .into_iter()
            .find(|r| r.purpose.as_deref() == Some(purpose))
            .unwrap();
        assert!(
            request.messages[1]
                .content
                .contains("How does Rust manage memory?"),
            "{purpose} does not see the earlier turn"
        );
    }
}

#[tokio::test]
async fn coverage_is_each_rounds_judgement_so_the_convergence_check_can_fail() {
    // The second round judges the first question less covered than the first did: the coverage
    // goes down with it (the max of old and new hid this, so seed 004's "coverage never goes
    // down" check could never fail).
    let mut answers = script(DETAILED);
    let second = answers
        .iter()
        .rposition(|a| a.purpose.as_deref() == Some("gaps"))
        .unwrap();
    answers[second] = answer(
        "gaps",
        json!({"coverage": [{"question": 1, "status": "missing"}, {"question": 2, "status": "missing"}],
               "gaps": [], "new_searches": []}),
    );
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let history = &run.state.coverage_history;
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(history[0] > 0.0, "{history:?}");
    assert_eq!(history[1], 0.0, "{history:?}");
    assert_eq!(run.state.coverage, 0.0);
}

#[tokio::test]
async fn a_multi_agent_run_never_reads_more_sources_than_the_cap() {
    // Quick depth caps a run at 8 sources. Round one's three workers read two pages each (6);
    // round two has room for 2 more among three workers, so the shares must add up to 2 (each
    // worker took at least one, and the run read 9).
    let groups = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let pages: Vec<(String, String, String)> = groups
        .iter()
        .flat_map(|g| {
            (1..=3).map(move |i| {
                (
                    format!("https://example.org/{g}{i}"),
                    format!("Rust memory, {g} {i}"),
                    // No word of the question: only its own group's search finds the page.
                    format!(
                        "The {g}word notes, page {i}, say values are dropped at scope end. \
Each value has one owner at a time. The compiler checks these rules."
                    ),
                )
            })
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> = pages
        .iter()
        .map(|(u, t, x)| (u.as_str(), t.as_str(), x.as_str()))
        .collect();
    let mut answers = script(DETAILED);
    let orchestrate = |words: [&str; 3]| {
        answer(
            "orchestrate",
            json!({"sub_questions": [
                {"question": "How does ownership work?", "searches": [format!("rust {}word", words[0])]},
                {"question": "How does garbage collection compare?", "searches": [format!("rust {}word", words[1])]},
                {"question": "What does the borrow checker do?", "searches": [format!("rust {}word", words[2])]}]}),
        )
    };
    let at = |answers: &Vec<research_llm::ScriptedAnswer>, purpose: &str| {
        answers
            .iter()
            .position(|a| a.purpose.as_deref() == Some(purpose))
            .unwrap()
    };
    let o = at(&answers, "orchestrate");
    answers[o] = orchestrate(["alpha", "bravo", "charlie"]);
    answers.insert(o + 1, orchestrate(["delta", "echo", "foxtrot"]));
    let s = at(&answers, "synthesize");
    answers.insert(
        s,
        answer(
            "synthesize",
            json!({"summary": "Ownership, partly covered.", "conflicts": [], "gaps": ["more"],
                   "additional_searches": ["rust memory"], "needs_more_research": true}),
        ),
    );
    let config = RunConfig {
        depth: Depth::Quick,
        max_iterations: Some(2),
        ..config(Mode::Multi, Structure::Detailed)
    };
    let cap = config.limits().max_sources;
    let run = run_script_on(corpus_of(&refs), config, answers).await;
    assert_eq!(run.state.iteration, 2, "the run went to a second round");
    assert_eq!(run.state.worker_results.len(), 6);
    let read = run.state.sources.len();
    assert!(read <= cap, "{read} sources read, the cap is {cap}");
    assert_eq!(read, cap, "the second round fills the room that was left");
}

/// Whether the plan review point takes `plan` as a person's edit, and whether a fork from the
/// plan stage of a finished run takes it: one rule judges both.
async fn plan_taken_by_review_and_fork(plan: &Plan) -> (Result<Plan, String>, Result<(), String>) {
    let question = "How does Rust manage memory compared with garbage collection?";
    let checkpointer: Arc<dyn research_graph::Checkpointer> = Arc::new(MemoryCheckpointer::new());
    let model = Arc::new(ScriptedLlm::new(script(DETAILED)));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let opts = |thread: &str, cfg: &RunConfig| {
        RunOptions::new(thread, env(cfg, model.clone(), meter.clone(), docs.clone()))
            .clock(Arc::new(research_graph::FixedClock(0)))
    };

    let mut reviewed = config(Mode::Single, Structure::Detailed);
    reviewed.review.plan = true;
    let graph_of = |cfg: &RunConfig| graph(cfg, Some(checkpointer.clone())).unwrap();
    let out = graph_of(&reviewed)
        .invoke(
            initial_state(question, &reviewed, 0),
            opts("review", &reviewed),
        )
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Interrupted { .. }), "{out:?}");
    let review = match graph_of(&reviewed)
        .resume(
            Resume::with_value(Answer::EditPlan { plan: plan.clone() }),
            opts("review", &reviewed),
        )
        .await
    {
        Ok(RunOutcome::Finished(state)) => Ok(state.plan),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err(e.to_string()),
    };

    let plain = config(Mode::Single, Structure::Detailed);
    let out = graph_of(&plain)
        .invoke(initial_state(question, &plain, 0), opts("run", &plain))
        .await
        .unwrap();
    assert!(matches!(out, RunOutcome::Finished(_)), "{out:?}");
    let edit = fork::ForkEdit {
        plan: Some(plan.clone()),
        reading: None,
    };
    let (from, into) = (
        research_graph::ThreadId("run".into()),
        research_graph::ThreadId("fork".into()),
    );
    let fork = Pipeline::fork(
        &pipelines::standard::Standard,
        &plain,
        checkpointer.clone(),
        fork::ForkOf {
            from: &from,
            stage: fork::ForkStage::Plan,
            into: &into,
            edit: &edit,
        },
        &research_graph::FixedClock(0),
    )
    .await
    .map(|_| ())
    .map_err(|e| e.to_string());
    (review, fork)
}

#[tokio::test]
async fn a_fork_takes_the_plans_the_plan_review_point_takes() {
    // No research questions: the review point researches the question itself, so a fork must too
    // (it judged the plan against an empty question and refused it).
    let no_questions = Plan {
        questions: vec![],
        aspects: vec![],
        searches: vec!["borrow checker rules".into()],
        ..Default::default()
    };
    let (review, fork) = plan_taken_by_review_and_fork(&no_questions).await;
    let plan = review.expect("the review point takes a plan with no research questions");
    assert_eq!(
        plan.questions,
        vec!["How does Rust manage memory compared with garbage collection?".to_string()]
    );
    fork.expect("a fork takes the plan the review point takes");

    // No searches: both refuse, with the same reason.
    let no_searches = Plan {
        searches: vec![],
        ..no_questions
    };
    let (review, fork) = plan_taken_by_review_and_fork(&no_searches).await;
    let (review, fork) = (review.unwrap_err(), fork.unwrap_err());
    assert!(review.contains("no searches"), "{review}");
    assert!(fork.contains("no searches"), "{fork}");
}

/// The corpus behind a search provider that keeps every query asked. With `only_widened`, it
/// finds pages only for a query asked of every kind of source (as if a web search found
/// nothing for the plan's searches), and reaches more providers for such a query.
struct Recorded {
    corpus: Arc<Corpus>,
    asked: std::sync::Mutex<Vec<research_search::SearchQuery>>,
    only_widened: bool,
}

impl Recorded {
    fn new(only_widened: bool) -> Arc<Self> {
        Arc::new(Self {
            corpus: corpus(),
            asked: Default::default(),
            only_widened,
        })
    }
}

#[async_trait::async_trait]
impl research_search::SearchProvider for Recorded {
    fn name(&self) -> &'static str {
        "recorded"
    }
    async fn search(
        &self,
        query: &research_search::SearchQuery,
    ) -> Result<Vec<research_search::Hit>, research_search::SearchError> {
        self.asked.lock().unwrap().push(query.clone());
        if !self.only_widened || (query.kind.is_none() && query.among.len() == 3) {
            self.corpus.search(query).await
        } else {
            Ok(Vec::new())
        }
    }

    /// As a set of web, paper and news providers: a query of one kind or of the depth's kinds
    /// reaches fewer of them than one of every kind.
    fn asked_for(&self, query: &research_search::SearchQuery) -> Vec<String> {
        match (query.kind, query.among.len()) {
            (Some(kind), _) => vec![format!("{kind:?}")],
            (None, 3) => vec!["Web".into(), "Academic".into(), "News".into()],
            _ => vec!["Web".into()],
        }
    }
}

#[tokio::test]
async fn the_depth_chooses_the_kinds_of_source_searched() {
    use research_search::HitKind::{Academic, News, Web};
    for (depth, kinds) in [
        (Depth::Quick, vec![Web]),
        (Depth::Standard, vec![Web, Academic]),
        (Depth::Comprehensive, vec![Web, Academic, News]),
    ] {
        let mut config = config(Mode::Single, Structure::Detailed);
        config.depth = depth;
        let model = Arc::new(ScriptedLlm::new(script(DETAILED)));
        let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
        let docs = Arc::new(MemoryDocuments::default());
        let seen = Recorded::new(false);
        let mut env = env(&config, model, meter, docs);
        env.search = seen.clone();
        let outcome = graph(&config, Some(Arc::new(MemoryCheckpointer::new())))
            .unwrap()
            .invoke(
                initial_state("How does Rust manage memory?", &config, 1_700_000_000_000),
                RunOptions::new("t1", env),
            )
            .await
            .unwrap();
        assert!(matches!(outcome, RunOutcome::Finished(_)), "{outcome:?}");
        let seen: Vec<Vec<research_search::HitKind>> = seen
            .asked
            .lock()
            .unwrap()
            .iter()
            .map(|q| q.among.clone())
            .collect();
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|k| *k == kinds), "{depth:?}: {seen:?}");
    }
}

/// Seed 000, rows 000-07 and 000-12: a search carries its kind (one that asks for papers goes
/// to paper providers), and a search that finds nothing on its kind of source is tried on every
/// other kind before the round gives up; the method section says which.
#[tokio::test]
async fn searches_carry_their_kind_and_one_that_found_nothing_is_tried_on_every_kind() {
    let cfg = config(Mode::Single, Structure::Detailed);
    let answers = planned(
        json!({"questions": ["How does Rust manage memory without a garbage collector?"],
                                 "aspects": ["ownership"],
                                 "searches": ["rust ownership papers", "rust borrow checker rules"]}),
    );
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(Budget::default(), PriceTable::builtin()));
    let search = Recorded::new(true);
    let mut env = env(&cfg, model, meter, Arc::new(MemoryDocuments::default()));
    env.search = search.clone();
    let out = graph(&cfg, None)
        .unwrap()
        .invoke(
            initial_state(
                "How does Rust manage memory compared with garbage collection?",
                &cfg,
                0,
            ),
            RunOptions::new("k1", env).recursion_limit(cfg.step_limit()),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = out else {
        panic!("{out:?}")
    };
    let asked = search.asked.lock().unwrap().clone();
    let of = |text: &str| -> Vec<&research_search::SearchQuery> {
        asked.iter().filter(|q| q.text == text).collect()
    };
    // Asked for papers, it went to paper providers first; a plain search to the depth's kinds.
    let papers = of("rust ownership papers");
    assert_eq!(
        papers.first().map(|q| q.kind),
        Some(Some(research_search::HitKind::Academic)),
        "{asked:?}"
    );
    let plain = of("rust borrow checker rules");
    assert_eq!(plain.first().map(|q| q.kind), Some(None), "{asked:?}");
    // Both found nothing, and were asked again of every kind, which found the pages.
    for q in [papers, plain] {
        assert_eq!(q.len(), 2, "{asked:?}");
        assert_eq!(q[1].among.len(), 3);
    }
    assert!(!state.sources.is_empty(), "the widened searches read pages");
    assert!(
        state.report.contains(
            "\"rust ownership papers\" found nothing on paper sources; tried on every kind of source"
        ),
        "{}",
        state.report
    );
}

/// A page that says what a page read before it says (a manual's source text beside its rendered
/// page) is read once: one of the two is a source, the other a warning naming both, and the
/// room goes to the next page.
#[tokio::test]
async fn a_page_and_its_copy_are_read_once() {
    const PAGE: &str = "# Memory in Rust\n\nRust manages memory through ownership: every value has \
exactly one owner, a variable, and when that variable goes out of scope the value is dropped and its \
memory returned. Borrowing lends a value without moving it; shared references allow reading from many \
places while a mutable reference allows changing from one. The compiler's borrow checker proves these \
rules before the program runs, so there is no collector pausing threads, no dangling pointer, no double \
free and no data race in safe code. Smart pointers such as Box, Rc and Arc give heap allocation, shared \
ownership with counting, and thread-safe counting when a single owner is not enough.";
    let source = format!(
        ".. _memory:\n\n{}\n\n.. seealso:: :ref:`ownership`",
        PAGE.replace("Box", "``Box``")
    );
    let pages = corpus_with(&[
        ("https://example.org/memory.html", "Memory in Rust", PAGE),
        (
            "https://example.org/_sources/memory.rst.txt",
            "Memory in Rust",
            &source,
        ),
    ]);
    let run = run_script_on(
        pages,
        config(Mode::Single, Structure::Detailed),
        script(DETAILED),
    )
    .await;
    let urls: Vec<&str> = run.state.sources.iter().map(|s| s.url.as_str()).collect();
    let copies = urls.iter().filter(|u| u.contains("memory")).count();
    assert_eq!(copies, 1, "{urls:?}");
    let repeated: Vec<&Warning> = run
        .state
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Repeated)
        .collect();
    assert_eq!(repeated.len(), 1, "{:?}", run.state.warnings);
    assert!(repeated[0].message.contains("read once"));
    // The method says so; the copy is not called unread.
    let report = &run.state.report;
    assert!(
        report.contains("Pages that said what a page already read says (a copy), read once: 1"),
        "{report}"
    );
    assert!(!report.contains("memory.rst.txt"), "{report}");
    // The other pages were read as before.
    assert!(urls.iter().any(|u| u.ends_with("/ownership")), "{urls:?}");
}
