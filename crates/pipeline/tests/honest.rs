//! Honest reports from a weak model: the scripted model answers as a tiny real model did
//! (a writer stuck in a loop, a plan of list numbers, "all supported" for facts their quotes do
//! not state, headings picked as facts), and every guard and fallback has to hold.

mod common;

use common::*;
use research_llm::ScriptedAnswer;
use research_pipeline::eval::structural_checks;
use research_pipeline::eval::RunResult;
use research_pipeline::steps::audit::AuditStatus;
use research_pipeline::*;
use serde_json::json;

fn replace(answers: &mut Vec<ScriptedAnswer>, purpose: &str, json: serde_json::Value) {
    answers.retain(|a| a.purpose.as_deref() != Some(purpose));
    answers.push(answer(purpose, json));
}

/// How many times the run asked the writer for a draft.
fn writes(run: &common::Run) -> usize {
    run.model
        .requests()
        .into_iter()
        .filter(|r| r.purpose.as_deref() == Some("write"))
        .count()
}

fn distinct_4grams(text: &str) -> f64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    let grams: Vec<_> = words.windows(4).collect();
    let distinct: std::collections::BTreeSet<_> = grams.iter().collect();
    distinct.len() as f64 / grams.len().max(1) as f64
}

#[tokio::test]
async fn a_looping_writer_gives_an_extractive_report_not_a_loop() {
    let looped = "The fact is that ".repeat(400);
    let run = run(config(Mode::Single, Structure::Detailed), &looped).await;
    let report = &run.state.report;
    assert!(
        !report.contains("The fact is that The fact is that"),
        "{report}"
    );
    assert!(report.contains("did not pass the checks"), "{report}");
    assert!(distinct_4grams(report) > 0.6, "{report}");
    // Two tries at prose, then the passages.
    let writes = writes(&run);
    assert_eq!(writes, 2);
    // Every cited sentence is audited, and what is kept is verified or partly supported.
    let audit = &run.state.audit;
    assert!(!audit.is_empty());
    assert!(
        audit
            .iter()
            .all(|a| matches!(a.status, AuditStatus::Verified | AuditStatus::Partly)),
        "{audit:#?}"
    );
    let r = RunResult::from_state("t1", &run.state, &run.meter, Default::default());
    assert_eq!(r.audit.len(), audit.len());
    let failed: Vec<_> = structural_checks(&r)
        .into_iter()
        .filter(|c| !c.passed)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}

/// A draft whose cited sentences the sources do not say, line after line (as Gemma 3 270M
/// writes: its evidence listing echoed, then numbers), is stopped once the audit has failed
/// most of its first cited sentences: no waiting for the rest, no second try, the passages
/// instead, and the reason in the method section.
#[tokio::test]
async fn a_draft_failing_the_audit_is_stopped_before_its_end() {
    let places = [
        "Oslo", "Lima", "Accra", "Perth", "Quito", "Hanoi", "Tunis", "Riga",
    ];
    let crafts = ["weavers", "pilots", "bakers", "sailors", "miners"];
    let tools = ["abacuses", "looms", "sextants", "kilns", "lanterns"];
    let mut draft = String::from("## Abstract\n");
    for (i, place) in places.iter().enumerate() {
        for (j, craft) in crafts.iter().enumerate() {
            let (year, n, tool) = (1700 + 7 * i + j, 3 + i * j, tools[(i + j) % 5]);
            draft.push_str(&match (i + j) % 3 {
                0 => format!("In {year}, {n} {craft} from {place} compiled Rust with {tool} [1].\n"),
                1 => format!("{place} hosted {n} {craft} whose {tool} ran the borrow checker by {year} [2].\n"),
                _ => format!("Wooden {tool} carved by {craft} near {place} ({year}) freed memory {n} times faster [1].\n"),
            });
        }
    }
    let run = run(config(Mode::Single, Structure::Detailed), &draft).await;
    let report = &run.state.report;
    assert!(report.contains("did not pass the checks"), "{report}");
    assert!(report.contains("the draft was stopped there"), "{report}");
    assert!(!report.contains("Wooden"), "{report}");
    let writes = writes(&run);
    assert_eq!(writes, 1, "a draft the audit refuses is not tried again");
    // The scripted model counts four characters a token of what it streamed before the stop.
    let written = run.meter.by_node()["write_report"].completion_tokens as usize;
    assert!(
        written * 4 < draft.len() / 4,
        "stopped within its first quarter: {written} tokens of {}",
        draft.len() / 4
    );
}

/// A good draft is never stopped: its cited sentences hold, and the sources section the
/// writer added despite being told not to is dropped before the audit reads it.
#[tokio::test]
async fn a_draft_whose_sentences_hold_is_not_stopped() {
    let mut draft = DETAILED.to_string();
    for i in 2..12 {
        draft.push_str(&format!("[{i}] another made-up reference\n"));
    }
    let run = run(config(Mode::Single, Structure::Detailed), &draft).await;
    let report = &run.state.report;
    assert!(!report.contains("did not pass the checks"), "{report}");
    assert!(
        report.contains("## Ownership"),
        "the writer's sections: {report}"
    );
}

#[tokio::test]
async fn a_plan_of_list_numbers_becomes_a_plan_from_the_question() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["1. 1. 2. 3. 4. 5."], "aspects": [], "searches": ["1. 1. 2. 3.", "10,"]}),
    );
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let plan = &run.state.plan;
    assert!(plan.questions[0].contains("garbage collection"), "{plan:?}");
    assert!(
        plan.searches
            .iter()
            .all(|s| s.chars().any(char::is_alphabetic)),
        "{plan:?}"
    );
    assert!(!run.state.searches_done.iter().any(|s| s.starts_with("1.")));
    assert!(
        !run.state.evidence.is_empty(),
        "the question's own words found the pages"
    );
}

/// Seed 000, row 000-03: the planner's own outputs — its approach, its confidence and its
/// concerns about the scope — are kept with the plan, shown where the plan is reviewed and in
/// the method section; a tiny model's filler among them is dropped, not shown as its view.
#[tokio::test]
async fn the_planners_approach_confidence_and_concerns_reach_the_plan_review_and_the_method() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["How does Rust manage memory without a garbage collector?",
                             "How do tracing garbage collectors compare with ownership?"],
               "aspects": ["ownership"],
               "searches": ["rust ownership memory", "garbage collection compared"],
               "methodology": "Compare the language documentation of Rust's ownership with descriptions of tracing collectors.",
               "confidence": 1.7,
               "concerns": ["The comparison may depend on the workload measured.",
                            "3. No, no, no! 4. No, no, yes!", "{\"concerns\": []}"]}),
    );
    let planned = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let plan = &planned.state.plan;
    assert!(
        plan.methodology
            .starts_with("Compare the language documentation"),
        "{plan:?}"
    );
    assert_eq!(plan.confidence, Some(1.0), "clamped to 0–1");
    assert_eq!(
        plan.concerns,
        vec!["The comparison may depend on the workload measured.".to_string()]
    );
    let review = plan.describe();
    assert!(
        review.contains("Approach: Compare the language documentation"),
        "{review}"
    );
    assert!(review.contains("confidence in the plan: 100%"), "{review}");
    assert!(
        review.contains("A concern: The comparison may depend"),
        "{review}"
    );
    assert!(!review.contains("No, no"), "{review}");
    let report = &planned.state.report;
    let method = &report[report.find("## Method").unwrap()..];
    assert!(
        method.contains("- Approach: Compare the language documentation"),
        "{method}"
    );
    assert!(
        method.contains("- The planner's concern about the scope: The comparison may depend"),
        "{method}"
    );
    // Seed 000, row 000-15: the evidence is graded in every pipeline's method section.
    assert!(method.contains("- Evidence graded: "), "{method}");
    // A plan without them says nothing of them.
    let plain = run(config(Mode::Single, Structure::Detailed), DETAILED).await;
    assert!(!plain.state.report.contains("Approach:"));
}

#[tokio::test]
async fn the_verifier_cannot_call_a_fact_supported_that_its_quote_does_not_state() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "extract",
        json!({"facts": [
            {"fact": "Rust was released in 1999 by 42 engineers.", "sentence": 2, "end_sentence": 2},
            {"fact": "1. Fact:", "sentence": 3, "end_sentence": 3}]}),
    );
    replace(
        &mut answers,
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": true})).collect::<Vec<_>>()}),
    );
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    // A fact that says what its quote does not became the quote itself; none is a loop or empty.
    for e in &run.state.evidence {
        assert!(!e.fact.contains("1999") && e.fact != "1. Fact:", "{e:?}");
    }
    // "All supported" from the model counts only where the quote bears the claim out.
    for c in &run.state.claims {
        let e = run
            .state
            .evidence
            .iter()
            .find(|e| e.id == c.evidence_id)
            .unwrap();
        if c.supported {
            assert!(research_check::states(&e.quote, &e.fact));
        }
    }
}

#[tokio::test]
async fn an_unsupported_sentence_is_rewritten_from_its_evidence_or_removed() {
    let write =
        "## Summary\nRust manages memory through ownership rules checked at compile time [1]. \
Rust was invented on the moon in 1850 by 7 astronauts [1].\n";
    let run = run(config(Mode::Single, Structure::Detailed), write).await;
    let report = &run.state.report;
    assert!(!report.contains("1850"), "{report}");
    let moon = run
        .state
        .audit
        .iter()
        .find(|a| a.status == AuditStatus::Removed || a.status == AuditStatus::Rewritten)
        .expect("the made-up sentence is audited");
    assert!(!moon.evidence.is_empty() || moon.status == AuditStatus::Removed);
    assert!(report.contains("Cited sentences checked against the evidence"));
}

/// A report whose sentences say what the pages they cite say (the gc page is source 1, the
/// ownership page source 2): the checker verifies them, so the model's second opinion is asked.
const STATED: &str = "## Summary\nEach value in Rust has a single owner at any time [2]. \
Rust has no garbage collector and frees memory deterministically when owners go out of scope [1].\n\n\
## Compared with garbage collection\nLanguages like Java and Go use a tracing garbage collector \
that pauses or slows programs at run time [1].\n";

#[tokio::test]
async fn the_audit_puts_verified_sentences_to_the_fast_model_and_a_no_lowers_them() {
    let mut answers = script(STATED);
    answers.retain(|a| a.purpose.as_deref() != Some("verify"));
    // The verification step's call, then the audit's: it does not find the first sentence.
    answers.push(answer(
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": true})).collect::<Vec<_>>()}),
    ));
    answers.push(answer(
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": i != 1})).collect::<Vec<_>>()}),
    ));
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let audit_calls: Vec<_> = run
        .meter
        .calls()
        .into_iter()
        .filter(|c| c.purpose == "verify" && c.node == "write_report")
        .collect();
    assert_eq!(audit_calls.len(), 1, "one batched call for the audit");
    let first = run
        .state
        .audit
        .iter()
        .find(|a| a.check.contains("the model"))
        .expect("the model's verdict is recorded");
    let lowered: Vec<_> = run
        .state
        .audit
        .iter()
        .filter(|a| a.check.starts_with("the model does not find it"))
        .collect();
    assert_eq!(lowered.len(), 1, "{:#?}", run.state.audit);
    assert_eq!(lowered[0].status, AuditStatus::Partly);
    assert!(first.status != AuditStatus::Verified || first.check.contains("the model agrees"));
    // Nothing the words check failed was raised by a yes.
    for a in &run.state.audit {
        if a.status == AuditStatus::Verified && !a.check.contains("its quote") {
            assert!(a.check.contains("the model agrees"), "{a:?}");
        }
    }
    assert_grounded(&run);
}

#[tokio::test]
async fn a_failed_audit_call_leaves_the_words_check_and_says_so() {
    let mut answers = script(STATED);
    answers.retain(|a| a.purpose.as_deref() != Some("verify"));
    answers.push(answer(
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": true})).collect::<Vec<_>>()}),
    ));
    // The audit's call gets prose, not the JSON asked for.
    answers.push(ScriptedAnswer {
        purpose: Some("verify".into()),
        contains: None,
        text: Some("All of them are supported, I think.".into()),
        json: None,
        delay_ms: None,
    });
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    assert!(run
        .state
        .audit
        .iter()
        .any(|a| a.check.contains("the model's check was unavailable")));
    assert!(!run.state.report.is_empty());
    assert!(run
        .state
        .warnings
        .iter()
        .any(|w| w.message.contains("verify")));
}

#[tokio::test]
async fn a_search_about_nothing_asked_is_not_run() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["How does Rust manage memory?"], "aspects": [],
               "searches": ["assistant", "rust ownership memory", "json"]}),
    );
    replace(
        &mut answers,
        "gaps",
        json!({"coverage": [{"question": 1, "status": "partial"}],
               "gaps": ["borrowing rules"], "new_searches": ["assistant response", "borrowing rules"]}),
    );
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let done = &run.state.searches_done;
    assert!(
        done.iter().any(|s| s == "rust ownership memory"),
        "{done:?}"
    );
    assert!(
        !done.iter().any(|s| s.contains("assistant") || s == "json"),
        "{done:?}"
    );
    // The dropped ones are replaced by searches from the question's own words.
    assert!(run.state.plan.searches.len() >= 2, "{:?}", run.state.plan);
}

#[tokio::test]
async fn a_plan_that_echoes_its_schema_is_not_researched() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["type':'object',"], "aspects": ["'maxLength':60"],
               "searches": ["type:'array','maxLength':60,'minItems':1,"]}),
    );
    let run = run_script(config(Mode::Single, Structure::Detailed), answers).await;
    let plan = &run.state.plan;
    assert!(
        plan.questions.iter().all(|q| !q.contains("type")),
        "{plan:?}"
    );
    assert!(
        run.state
            .searches_done
            .iter()
            .all(|s| !s.contains("maxLength")),
        "{:?}",
        run.state.searches_done
    );
    assert!(!run.state.evidence.is_empty());
}

#[tokio::test]
async fn a_looping_worker_summary_is_asked_once_more_with_stronger_repetition_control() {
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "summarize",
        json!({"answer": "the fact is that ".repeat(60), "findings": [], "confidence": 0.9, "gaps": []}),
    );
    let run = run_script(config(Mode::Multi, Structure::Detailed), answers).await;
    let summaries: Vec<_> = run
        .model
        .requests()
        .into_iter()
        .filter(|r| r.purpose.as_deref() == Some("summarize"))
        .collect();
    assert!(
        summaries.iter().any(|r| r.repeat_penalty == Some(1.3)),
        "a retry with stronger repetition control"
    );
    // Still looping after the retry: the facts stand for the summary, and no loop is kept.
    for w in &run.state.worker_results {
        assert!(!w.answer.contains("the fact is that the fact"), "{w:?}");
        assert!(w.confidence <= 1.0);
    }
}

#[tokio::test]
async fn a_model_measured_wrong_when_it_says_no_is_not_asked_and_the_checker_decides() {
    // Its every answer is "no": were it asked, nothing would be supported.
    let mut answers = script(STATED);
    answers.retain(|a| a.purpose.as_deref() != Some("verify"));
    answers.push(answer(
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": false})).collect::<Vec<_>>()}),
    ));
    let mut config = config(Mode::Single, Structure::Detailed);
    // The scripted model under the name of one measured against people (research_check::opinion).
    config.models =
        research_llm::ModelRouting::single("local:/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    let run = run_script(config, answers).await;
    assert!(
        run.model
            .requests()
            .iter()
            .all(|r| r.purpose.as_deref() != Some("verify")),
        "the model was asked for verdicts"
    );
    // The checker alone: claims it verifies are supported, and the confidence counts them.
    assert!(
        run.state.claims.iter().any(|c| c.supported),
        "{:?}",
        run.state.claims
    );
    assert!(run.state.confidence > 0.0);
    let verified = run
        .state
        .audit
        .iter()
        .find(|a| a.status == AuditStatus::Verified && a.check.contains("no second opinion"))
        .expect("the audit says why no second opinion was asked");
    assert!(
        verified.check.contains("SmolLM2-135M"),
        "{}",
        verified.check
    );
}

#[tokio::test]
async fn a_model_measured_wrong_when_it_says_no_does_not_judge_coverage() {
    // Its every coverage judgement is "missing", next to passages that answer.
    let missing = || {
        let mut answers = script(STATED);
        replace(
            &mut answers,
            "gaps",
            json!({"coverage": [{"question": 1, "status": "missing"}, {"question": 2, "status": "missing"}],
                   "gaps": [], "new_searches": []}),
        );
        answers
    };
    // Any other model's word stands, as far as the evidence bears it out.
    let trusted = run_script(config(Mode::Single, Structure::Detailed), missing()).await;
    assert_eq!(trusted.state.coverage, 0.0);
    let mut config = config(Mode::Single, Structure::Detailed);
    config.models =
        research_llm::ModelRouting::single("local:/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    let measured = run_script(config, missing()).await;
    assert!(
        measured.state.coverage > 0.0,
        "the evidence alone judges: {:?}",
        measured.state.coverage_by_question
    );
    assert!(
        !measured.state.report.contains("covered to 0%"),
        "{}",
        measured.state.report
    );
}

#[tokio::test]
async fn a_model_measured_wrong_when_it_says_no_is_not_asked_for_gaps_after_the_last_round() {
    let gaps_asked = |run: &common::Run| {
        run.model
            .requests()
            .iter()
            .filter(|r| r.purpose.as_deref() == Some("gaps"))
            .count()
    };
    let mut one_round = config(Mode::Single, Structure::Detailed);
    one_round.max_iterations = Some(1);
    // Any other model is asked: its word on coverage counts.
    let trusted = run_script(one_round.clone(), script(STATED)).await;
    assert_eq!(gaps_asked(&trusted), 1);
    // No search it proposed could be run and its coverage would not count: not asked.
    let measured =
        research_llm::ModelRouting::single("local:/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    // Before the last round it is asked as any model is: its searches can still be run.
    let mut two_rounds = one_round.clone();
    two_rounds.max_iterations = Some(2);
    two_rounds.models = measured.clone();
    assert_eq!(gaps_asked(&run_script(two_rounds, script(STATED)).await), 1);
    let mut last_round = one_round;
    last_round.models = measured;
    let run = run_script(last_round, script(STATED)).await;
    assert_eq!(gaps_asked(&run), 0);
    assert_eq!(
        run.state.coverage_by_question.len(),
        run.state.plan.questions.len()
    );
    assert!(
        run.state.coverage > 0.0,
        "{:?}",
        run.state.coverage_by_question
    );
    // What the evidence leaves open is named, a question at a time.
    for (q, c) in run
        .state
        .plan
        .questions
        .iter()
        .zip(&run.state.coverage_by_question)
    {
        let named = run.state.gaps.iter().any(|g| g.contains(q.as_str()));
        assert_eq!(
            named,
            *c != Coverage::WellCovered,
            "{q}: {:?}",
            run.state.gaps
        );
    }
}

#[tokio::test]
async fn a_model_measured_to_copy_and_to_fail_the_checks_is_asked_for_numbers_and_no_draft() {
    let extract_schema = |run: &common::Run| {
        let asked: Vec<_> = run
            .model
            .requests()
            .into_iter()
            .filter(|r| r.purpose.as_deref() == Some("extract"))
            .collect();
        assert!(!asked.is_empty());
        asked[0]
            .schema
            .clone()
            .expect("extraction asks for JSON")
            .schema
    };
    let item = |schema: &serde_json::Value| schema["properties"]["facts"]["items"].clone();
    // Any other model restates each fact.
    let other = run_script(config(Mode::Single, Structure::Detailed), script(STATED)).await;
    assert!(item(&extract_schema(&other))["properties"]["fact"].is_object());
    // The scripted model under the name of one measured to copy (research_pipeline::measured).
    let mut answers = script(STATED);
    replace(
        &mut answers,
        "extract",
        json!({"facts": [{"sentence": 1, "end_sentence": 1}, {"sentence": 2, "end_sentence": 2}]}),
    );
    let mut measured = config(Mode::Single, Structure::Detailed);
    measured.models =
        research_llm::ModelRouting::single("local:/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    let run = run_script(measured.clone(), answers).await;
    let numbers = item(&extract_schema(&run));
    assert!(numbers["properties"].get("fact").is_none(), "{numbers}");
    assert_eq!(numbers["required"], json!(["sentence", "end_sentence"]));
    // Its facts are its quotes, verbatim.
    assert!(!run.state.evidence.is_empty());
    for e in &run.state.evidence {
        assert_eq!(e.fact, e.quote);
    }
    // Its drafts were measured refused too: it is not asked for one, the report is the
    // passages, and says why; the run's estimate counts no such call.
    assert_eq!(writes(&run), 0);
    assert_eq!(writes(&other), 1);
    let estimated = |c: &RunConfig| {
        pipelines::standard::Standard
            .calls(c)
            .into_iter()
            .find(|(r, _)| *r == Role::Write)
            .map_or(0, |(_, n)| n)
    };
    assert_eq!(estimated(&measured), 0);
    assert_eq!(estimated(&config(Mode::Single, Structure::Detailed)), 1);
    let report = &run.state.report;
    assert!(
        report.contains("so it was not asked for one")
            && report.contains("This model was not asked for a summary"),
        "{report}"
    );
    assert!(run
        .state
        .audit
        .iter()
        .any(|a| a.status == AuditStatus::Verified));
}

#[tokio::test]
async fn a_failed_verification_sends_the_run_back_to_research_once() {
    // Seed 001's loop: under the share of supported claims asked for, research goes back for
    // what the unsupported claims are about, a bounded number of times, then writes.
    let mut answers = script(DETAILED);
    replace(
        &mut answers,
        "verify",
        json!({"verdicts": (1..=20).map(|i| json!({"claim": i, "supported": false})).collect::<Vec<_>>()}),
    );
    let mut config = config(Mode::Single, Structure::Detailed);
    config.min_supported = 0.9;
    let run = run_script(config.clone(), answers.clone()).await;
    let s = &run.state;
    let looped: Vec<_> = s
        .decisions
        .iter()
        .filter(|d| d.point == "verification")
        .collect();
    assert_eq!(looped.len(), 2, "{:#?}", s.decisions);
    assert!(
        looped[0]
            .decision
            .contains("researching again for the unsupported ones"),
        "{looped:?}"
    );
    // Still under the share after it: the method section says why it did not go again
    // (issue 52, N6: a loop that gives up is never silent).
    assert!(
        looped[1]
            .decision
            .contains("not researched again: the 1 research round(s) it allows for them were run"),
        "{looped:?}"
    );
    assert_eq!(s.verification_loops, 1);
    assert_eq!(s.outcome, Outcome::Finished);
    // The caveat warns under the same share the loop researched again under, not a second one.
    assert!(
        s.report.contains(
            "of the checked claims were supported by their quotes; treat the conclusions with care"
        ),
        "{}",
        s.report
    );
    assert!(s.report.contains("- verification: "), "{}", s.report);
    // Its searches ran: the round after verification searched for the unsupported claims.
    let searched_again = looped[0]
        .decision
        .rsplit_once('(')
        .unwrap()
        .1
        .trim_end_matches(')')
        .split("; ")
        .all(|q| s.searches_done.iter().any(|d| d == q));
    assert!(searched_again, "{looped:?} {:?}", s.searches_done);
    // Loops off: verification researches nothing, and says so.
    config.verification_loops = 0;
    let off = run_script(config, answers).await;
    let said: Vec<_> = off
        .state
        .decisions
        .iter()
        .filter(|d| d.point == "verification")
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].decision.contains("the verification loop is off"),
        "{said:?}"
    );
    assert!(off.state.report.contains("the verification loop is off"));
    assert_eq!(off.state.verification_loops, 0);
}

#[tokio::test]
async fn an_academic_report_is_asked_for_an_abstract_and_a_conclusion() {
    // Seed 000's frame for the academic register; the others keep the summary first.
    for (style, framed) in [(Style::Academic, true), (Style::Technical, false)] {
        let mut config = config(Mode::Single, Structure::Detailed);
        config.style = style;
        let run = run(config, DETAILED).await;
        let write = run
            .model
            .requests()
            .into_iter()
            .find(|r| r.purpose.as_deref() == Some("write"))
            .expect("the writer was asked");
        let system = &write.messages[0].content;
        assert_eq!(
            system.contains("`## Abstract`") && system.contains("`## Conclusion`"),
            framed,
            "{style:?}: {system}"
        );
    }
}

/// Seed 000, row 000-19: the frame is checked, not only asked for. A writer that opens with a
/// summary and ends without a conclusion is named in the method section, by the reviewer's
/// checks and by the evaluation; one that keeps the frame is not.
#[tokio::test]
async fn an_academic_report_without_its_abstract_or_conclusion_is_named() {
    let mut config = config(Mode::Single, Structure::Detailed);
    config.style = Style::Academic;
    let unframed = run(config.clone(), DETAILED).await;
    let report = &unframed.state.report;
    assert!(
        report.contains("does not keep the academic frame asked for: it does not open with an abstract; it has no conclusion"),
        "{report}"
    );
    let brief = steps::Brief::default();
    let input = steps::review::ReviewInput {
        brief: &brief,
        body: DETAILED,
        audit: &[],
        rejected: None,
        questions: &[],
        sources: &[],
        evidence: &[],
        version: 1,
        outline: &[],
    };
    let (issues, _) = steps::review::check(&input, &config);
    let frame: Vec<_> = issues
        .iter()
        .filter(|i| i.location == "structure")
        .collect();
    assert_eq!(frame.len(), 2, "{issues:?}");
    assert!(frame
        .iter()
        .all(|i| i.severity == steps::review::Severity::Major));

    let framed_body = DETAILED
        .replace(
            "## Summary\n",
            &format!(
                "## Abstract\n{} ",
                "Rust frees memory without a collector [1].".repeat(20)
            ),
        )
        .replace(
            "## References\n[1] made up\n",
            "## Conclusion\nOwnership rules prevent data races at compile time without a garbage collector [2].\n",
        );
    let framed = run(config.clone(), &framed_body).await;
    assert!(
        !framed.state.report.contains("academic frame"),
        "{}",
        framed.state.report
    );
    let mut result = RunResult::from_state("t", &framed.state, &framed.meter, Default::default());
    let frame = |result: &RunResult| {
        structural_checks(result)
            .into_iter()
            .find(|c| c.name == "academic_frame")
            .expect("the frame is checked")
    };
    assert!(
        frame(&result).passed,
        "{:?}\n{}",
        frame(&result),
        result.report
    );
    // The same report with an abstract longer than asked fails the evaluation's check.
    result.report = result.report.replacen(
        "## Abstract\n",
        &format!(
            "## Abstract\n{} ",
            "Rust frees memory deterministically. ".repeat(60)
        ),
        1,
    );
    let failed = frame(&result);
    assert!(
        !failed.passed && failed.detail.contains("abstract is"),
        "{failed:?}"
    );
}

#[tokio::test]
async fn the_planner_is_told_what_the_person_already_knows_and_nothing_else_is() {
    let mut config = config(Mode::Single, Structure::Detailed);
    config.background = Background {
        known: "Rust has no garbage collector.".into(),
        domains: vec!["compilers".into(), " ".into()],
        method: "primary sources only".into(),
    };
    let run = run(config, DETAILED).await;
    let requests = run.model.requests();
    let plan = requests
        .iter()
        .find(|r| r.purpose.as_deref() == Some("plan"))
        .expect("the planner was asked");
    let user = &plan.messages[1].content;
    assert!(
        user.contains("What the person already knows (do not research it again): Rust has no garbage collector."),
        "{user}"
    );
    assert!(user.contains("Domains to focus on: compilers\n"), "{user}");
    assert!(
        user.contains("Notes on method: primary sources only"),
        "{user}"
    );
    // Only the planner: the writer is not told.
    let write = requests
        .iter()
        .find(|r| r.purpose.as_deref() == Some("write"))
        .unwrap();
    assert!(write
        .messages
        .iter()
        .all(|m| !m.content.contains("already knows")));
    assert_eq!(
        Background::default().block(),
        "",
        "nothing said, nothing told"
    );
    let long = Background {
        known: "x".repeat(2_001),
        ..Default::default()
    };
    assert!(long.invalid().unwrap().contains("over 2000 characters"));
}
