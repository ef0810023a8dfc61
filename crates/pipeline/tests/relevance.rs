//! Reports that answer the question whatever the model writes (issue 30): a plan that echoes its
//! schema and answers instead of asking still reads the page that answers, the refusals are
//! recorded, and a run where nothing read is on the question says so plainly.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::Run;
use common::*;
use research_graph::{FixedClock, MemoryCheckpointer, RunOptions, RunOutcome};
use research_llm::{Meter, PriceTable, ScriptedAnswer, ScriptedLlm};
use research_pipeline::eval::RunResult;
use research_pipeline::steps::audit::AuditStatus;
use research_pipeline::*;
use serde_json::json;

const Q: &str =
    "How does SQLite make sure a transaction is atomic when the power fails in the middle of a commit?";

const ANSWER: &str = "https://docs.example/atomiccommit";

fn replace(answers: &mut Vec<ScriptedAnswer>, purpose: &str, json: serde_json::Value) {
    answers.retain(|a| a.purpose.as_deref() != Some(purpose));
    answers.push(answer(purpose, json));
}

/// Pages that match any word of a search, the answering one among them. The assert() page
/// names SQLite, so the question's own search reads it too: a page off the question is read,
/// and its passages must not be cited.
fn docs(with_answer: bool) -> Arc<Corpus> {
    let mut pages = vec![
        (
            "https://docs.example/aspects",
            "Aspects of pointer passing interfaces",
            "Aspects of pointer passing interfaces are described on this page for extension writers. \
Pointer passing interfaces let an application hand a pointer to an extension without copying the object. \
The make utility is not needed to use them.",
        ),
        (
            "https://docs.example/questions",
            "Questions about the build",
            "Questions about the make utility and archive files are answered here for people who build from source. \
The make utility reads a makefile and builds archive files from the source tree. \
Archive files bundle object files so that the linker can find them later.",
        ),
        (
            "https://docs.example/assert",
            "The assert() macro",
            "The assert() macro checks internal invariants while SQLite is tested by its developers. \
Every assert() states something the developers believe is always true of the code. \
Release builds leave the assert() macros out so that they cost nothing.",
        ),
    ];
    if with_answer {
        pages.push((
            ANSWER,
            "Atomic Commit In SQLite",
            "An atomic commit means that either all changes of a transaction happen or none of them do, even when the power fails in the middle of a commit. \
SQLite writes the original content of every page a transaction changes to a rollback journal before it changes the database file. \
After a power failure SQLite finds the hot rollback journal and restores the original pages, so the transaction is rolled back and the commit stays atomic.",
        ));
    }
    corpus_of(&pages)
}

/// What a tiny model under a grammar wrote for this question: the schema's own field names as
/// searches, an answer and a field name as research questions, a JSON-schema URL as a gap search.
fn echo_script(write: &str) -> Vec<ScriptedAnswer> {
    let mut answers = script(write);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["A: 1. It uses a single-threaded database, which allows for faster data processing.",
                             "Questions", "aspects/scopes.json:https://example.org/scopes",
                             ", [3],[4],[5],[11],[12]"],
               "aspects": ["Aspects"],
               "searches": ["Questions", "Aspects"]}),
    );
    replace(
        &mut answers,
        "gaps",
        json!({"coverage": [{"question": 1, "status": "well_covered"}],
               "gaps": ["Coverage"], "new_searches": ["https://json-schema.org/draft/2020-12/Coverage", "Coverage"]}),
    );
    // The extractor takes the first sentence of whatever page it is shown.
    replace(
        &mut answers,
        "extract",
        json!({"facts": [{"fact": "The first sentence.", "sentence": 1, "end_sentence": 1}]}),
    );
    replace(&mut answers, "verify", json!({"verdicts": []}));
    answers
}

async fn run_question(c: Arc<Corpus>, answers: Vec<ScriptedAnswer>) -> (Run, RunResult) {
    let config = config(Mode::Single, Structure::Detailed);
    let model = Arc::new(ScriptedLlm::new(answers));
    let meter = Arc::new(Meter::new(config.budget, PriceTable::builtin()));
    let docs = Arc::new(MemoryDocuments::default());
    let graph = graph(&config, Some(Arc::new(MemoryCheckpointer::new()))).unwrap();
    let outcome = graph
        .invoke(
            initial_state(Q, &config, 1_700_000_000_000),
            RunOptions::new(
                "t1",
                env_on(c, &config, model.clone(), meter.clone(), docs.clone()),
            )
            .clock(Arc::new(FixedClock(1_700_000_000_000))),
        )
        .await
        .unwrap();
    let RunOutcome::Finished(state) = outcome else {
        panic!("the run stopped: {outcome:?}")
    };
    let run = Run {
        state,
        model,
        meter,
        docs,
    };
    let result = RunResult::from_state("t1", &run.state, &run.meter, BTreeMap::new());
    (run, result)
}

#[tokio::test]
async fn an_echoed_plan_still_reads_the_answering_page_and_the_report_is_about_it() {
    let looped = "The fact is that ".repeat(400);
    let (run, result) = run_question(docs(true), echo_script(&looped)).await;
    let state = &run.state;
    // The question's own terms were searched first; no echo was searched.
    let first = &state.searches_done[0];
    assert!(
        first.contains("sqlite") && first.contains("atomic"),
        "{:?}",
        state.searches_done
    );
    for echo in ["Questions", "Aspects", "Coverage"] {
        assert!(
            !state.searches_done.iter().any(|s| s.contains(echo)),
            "{echo} was searched: {:?}",
            state.searches_done
        );
    }
    assert!(
        !state.searches_done.iter().any(|s| s.contains("://")),
        "{:?}",
        state.searches_done
    );
    // The answer and the field name were refused as research questions, with why.
    assert!(
        state.plan.questions.iter().all(|q| !q.starts_with("A:")),
        "{:?}",
        state.plan
    );
    let refused = &result.metadata.refused;
    assert!(
        refused
            .iter()
            .any(|r| r.contains("\"Questions\"") && r.contains("search")),
        "{refused:?}"
    );
    assert!(
        refused
            .iter()
            .any(|r| r.contains("A: 1.") && r.contains("answer")),
        "{refused:?}"
    );
    assert!(
        refused.iter().any(|r| r.contains("json-schema.org")),
        "{refused:?}"
    );
    // The merged hits were ranked against the question: the answering page first, and read.
    let top = &result.ranked_hits[0];
    assert_eq!((top.url.as_str(), top.round, top.picked), (ANSWER, 1, true));
    let answer = state
        .sources
        .iter()
        .find(|s| s.url == ANSWER)
        .expect("the answering page was read");
    // The report (the passages, as the writer looped) is about it and cites nothing else.
    let report = &state.report;
    assert!(report.contains(&format!("[{}]", answer.id)), "{report}");
    assert!(report.contains("rollback journal"), "{report}");
    for off in ["make utility", "assert()", "pointer passing"] {
        assert!(!report.contains(off), "{off} in the report:\n{report}");
    }
    // The method section says how many passages were on the question and what was refused.
    assert!(
        report.contains("Passages that answer the question:"),
        "{report}"
    );
    assert!(report.contains("refused"), "{report}");
    // A refused question's "[11]" is listed without it: no citation of a source the report lacks
    // (Gemma wrote such a list as a research question; the checkers read it as citations).
    assert!(!report.contains("[11]"), "{report}");
    assert!(result.metadata.evidence_on_question >= 1);
    assert!(result.metadata.evidence_on_question < state.evidence.len());
    assert_grounded(&run);
}

#[tokio::test]
async fn the_extractive_report_gives_the_passages_ranked_highest_against_the_question() {
    let looped = "The fact is that ".repeat(400);
    let (run, _) = run_question(docs(true), echo_script(&looped)).await;
    let report = &run.state.report;
    let answer = run.state.sources.iter().find(|s| s.url == ANSWER).unwrap();
    // The first passage given (the academic report's abstract opens with it) is from the
    // answering page.
    let first_item = report
        .lines()
        .find(|l| !l.starts_with(['#', '>']) && l.contains("]"))
        .expect("a passage");
    let first_cited = first_item.split(']').next().unwrap_or_default();
    assert!(
        first_cited.ends_with(&format!("[{}", answer.id)),
        "{first_item}\n{report}"
    );
}

#[tokio::test]
async fn nothing_on_the_question_read_gives_the_honest_nothing_found_report() {
    let looped = "The fact is that ".repeat(400);
    let (run, result) = run_question(docs(false), echo_script(&looped)).await;
    let state = &run.state;
    assert!(!state.evidence.is_empty(), "pages were read");
    let report = &state.report;
    assert!(
        report.contains(&format!("Nothing found that answers \"{Q}\"")),
        "{report}"
    );
    assert!(report.contains("What was searched"), "{report}");
    assert!(report.contains("What was found instead"), "{report}");
    // What was found instead is quoted, cited and audited: grounded, not presented as an answer.
    assert!(!state.audit.is_empty());
    assert!(
        state
            .audit
            .iter()
            .all(|a| matches!(a.status, AuditStatus::Verified)),
        "{:?}",
        state.audit
    );
    assert!(
        report.contains("Passages that answer the question: 0 of"),
        "{report}"
    );
    // Confidence and coverage count only what is on the question: nothing.
    assert_eq!(result.metadata.evidence_on_question, 0);
    assert_eq!(state.confidence, 0.0);
    assert_eq!(state.coverage, 0.0);
    assert!(state.claims.is_empty());
    assert_grounded(&run);
}

#[tokio::test]
async fn the_report_names_each_research_question_nothing_read_answers() {
    let mut answers = echo_script(&"The fact is that ".repeat(400));
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["How does SQLite keep a commit atomic when the power fails?",
                             "Who designed the WAL format of SQLite in 2010?"],
               "aspects": ["atomic commit"],
               "searches": ["sqlite atomic commit power failure"]}),
    );
    let (run, _) = run_question(docs(true), answers).await;
    let report = &run.state.report;
    let caveats = report
        .split("## Caveats")
        .nth(1)
        .and_then(|c| c.split("\n## ").next())
        .unwrap_or_else(|| panic!("no caveats:\n{report}"));
    assert!(
        caveats.contains(
            "Not answered by the sources read: \"Who designed the WAL format of SQLite in 2010?\""
        ),
        "{report}"
    );
    assert!(!caveats.contains("keep a commit atomic"), "{report}");
}
