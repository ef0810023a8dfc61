//! A pipeline registered from outside runs through `Studio` like a built-in one: started,
//! stopped at its question, resumed after the database is reopened, outlined and estimated —
//! with no change to the api, the CLI or the app. This is the test of the pipeline seam.

use std::sync::Arc;

use research_api::{CancellationToken, MemoryKeys, ResearchRequest, ResearchStatus, Role, Studio};
use research_graph::{
    Checkpointer, CompileOptions, CompiledGraph, GraphError, StateGraph, END, START,
};
use research_pipeline::eval::RunResult;
use research_pipeline::{
    Answer, Ctx, Env, Flow, OutlineStep, PipelineInfo, Question, RunConfig, RunRequest, RunView,
};

research_graph::state! {
    /// A toy pipeline's state: the question, the user's answer, the report.
    pub struct EchoState / EchoUpdate {
        /// The question.
        pub question: String => Replace,
        /// The user's answer.
        pub answer: String => Replace,
        /// The report.
        pub report: String => Replace,
    }
}

/// Asks the user one question, then has the writer model echo the answer as the report.
struct Echo;

async fn ask(state: Arc<EchoState>, ctx: Ctx) -> Result<EchoUpdate, research_graph::NodeError> {
    // The family's way to ask a person: a review timeout, when the run has one, applies.
    let (answer, timed_out) = research_pipeline::ask_person(
        &ctx,
        Question::Clarify {
            question: format!("What do you mean by {}?", state.question),
            options: vec!["this".into(), "that".into()],
            ambiguities: vec![],
        },
    )?;
    let Answer::Clarify { text } = answer else {
        return Err(research_graph::NodeError::permanent(
            "a clarification was expected",
        ));
    };
    Ok(EchoUpdate {
        answer: Some(timed_out.map_or(text, |why| format!("unanswered: {why}"))),
        ..Default::default()
    })
}

async fn write(state: Arc<EchoState>, ctx: Ctx) -> Result<EchoUpdate, research_graph::NodeError> {
    use research_llm::{ChatRequest, LlmClient, Message};
    let client = Role::Write.client(&ctx.config.models, ctx.node());
    let request = ChatRequest::new(vec![Message::user(state.answer.clone())]).purpose("write");
    let reply = client
        .complete(&request, None)
        .await
        .map_err(research_graph::NodeError::permanent)?;
    Ok(EchoUpdate {
        report: Some(format!(
            "# {}\n\n## Summary\n\n{}\n",
            state.question, reply.text
        )),
        ..Default::default()
    })
}

impl Flow for Echo {
    type State = EchoState;
    fn info(&self) -> PipelineInfo {
        PipelineInfo {
            name: "echo".into(),
            title: "Echo".into(),
            summary: "Asks what you mean and writes it down.".into(),
        }
    }
    fn roles(&self) -> Vec<Role> {
        vec![Role::Write]
    }
    fn graph(
        &self,
        _: &RunConfig,
        checkpointer: Option<Arc<dyn Checkpointer>>,
    ) -> Result<CompiledGraph<EchoState, Env>, GraphError> {
        let mut g = StateGraph::<EchoState, Env>::new();
        g.add_node("ask", ask);
        g.add_node("write", write);
        g.add_edge(START, "ask");
        g.add_edge("ask", "write");
        g.add_edge("write", END);
        g.compile(CompileOptions {
            checkpointer,
            ..Default::default()
        })
    }
    fn steps(&self, _: &RunConfig) -> Vec<OutlineStep> {
        vec![
            OutlineStep::new("ask", None, "Waiting for your answer"),
            OutlineStep::new("write", Some(Role::Write), "Writing it down"),
        ]
    }
    fn calls(&self, _: &RunConfig) -> Vec<(Role, u64)> {
        vec![(Role::Write, 1)]
    }
    fn initial(&self, request: &RunRequest) -> EchoState {
        EchoState {
            question: request.question.clone(),
            ..Default::default()
        }
    }
    fn view(&self, state: &EchoState) -> RunView {
        RunView {
            result: RunResult {
                question: state.question.clone(),
                report: state.report.clone(),
                ..Default::default()
            },
            summary: state.answer.clone(),
            ..Default::default()
        }
    }
}

fn studio(db: &std::path::Path) -> Studio {
    Studio::open(Some(db))
        .unwrap()
        .with_pipeline(Arc::new(Echo))
}

#[tokio::test]
async fn a_registered_pipeline_runs_stops_resumes_after_reopening_and_is_outlined() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"answers": [{"purpose": "write", "text": "You meant the honeybee."}]}"#,
    )
    .unwrap();
    let keys = MemoryKeys::default();
    let config = RunConfig {
        models: research_api::ModelRouting::single(format!("scripted:{}", script.display())),
        search: vec!["wikipedia".into()],
        ..RunConfig::default()
    };

    let first = studio(&db);
    assert!(first.pipelines().iter().any(|p| p.name == "echo"));
    let outline = first.outline("echo", &config).unwrap();
    assert_eq!(outline.nodes, ["ask", "write"]);
    assert_eq!(outline.steps[1].role, Some(Role::Write));
    assert!(outline.mermaid.contains("ask"));
    let estimate = first.estimate("echo", &config).unwrap();
    assert_eq!(estimate.calls, 1);
    assert_eq!(estimate.cost_usd, Some(0.0));

    let (session, thread) = first
        .start_research(&ResearchRequest {
            question: "bees".into(),
            pipeline: "echo".into(),
            config: config.clone(),
            ..Default::default()
        })
        .unwrap();
    let waiting = first
        .run_research(&thread, None, &keys, None, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(waiting.status, ResearchStatus::Waiting);
    assert!(matches!(
        waiting.question.unwrap().question,
        Question::Clarify { .. }
    ));
    drop(first);

    // A new process: the thread resumes on the pipeline it started with.
    let second = studio(&db);
    assert!(second.is_research(&thread).unwrap());
    let pending = second.research_question(&thread).await.unwrap().unwrap();
    assert!(matches!(pending.question, Question::Clarify { .. }));
    let done = second
        .run_research(
            &thread,
            Some(Answer::Clarify {
                text: "the insect".into(),
            }),
            &keys,
            None,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(done.status, ResearchStatus::Finished);
    assert!(done.result.report.contains("You meant the honeybee."));
    assert_eq!(done.result.metadata.llm_calls, 1);
    assert_eq!(done.result.metadata.models["write"], config.models.model);
    let detail = second.session(&session).unwrap();
    assert_eq!(detail.reports.len(), 1);
    assert_eq!(detail.reports[0].provenance["summary"], "the insect");

    // A follow-up runs on the same pipeline; without it registered, the thread is refused.
    let follow = second.follow_up(&session, "and wasps?").unwrap();
    assert!(second.is_research(&follow).unwrap());
    let plain = Studio::open(Some(&db)).unwrap();
    let refused = plain
        .run_research(&follow, None, &keys, None, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(refused.message.contains("echo"), "{}", refused.message);
    assert!(plain
        .start_research(&ResearchRequest {
            question: "bees".into(),
            pipeline: "echo".into(),
            config,
            ..Default::default()
        })
        .unwrap_err()
        .message
        .contains("standard"));
}

/// Settings fill what a request leaves open, in one place: models, providers, review points,
/// the SearXNG address and the allowed hosts; what the request says wins.
#[test]
fn settings_fill_what_a_request_leaves_open() {
    let dir = tempfile::tempdir().unwrap();
    let studio = Studio::open(Some(&dir.path().join("studio.sqlite3"))).unwrap();
    let mut settings = studio.settings().unwrap();
    settings.set("default_model", "ollama:qwen2.5:7b").unwrap();
    settings.set("fast_model", "ollama:qwen2.5:3b").unwrap();
    settings.set("search", "wikipedia,arxiv").unwrap();
    settings.set("review", "report").unwrap();
    settings
        .set("searxng_url", "http://127.0.0.1:8888")
        .unwrap();
    settings.set("allowed_hosts", "intranet.local").unwrap();
    settings.set("banned_words", "Basically, robust").unwrap();
    assert!(settings.set("banned_words", "two words").is_err());
    settings.save(&studio.settings_path()).unwrap();

    let filled = studio
        .with_defaults(ResearchRequest {
            question: "q".into(),
            config: RunConfig {
                search: vec![],
                ..RunConfig::default()
            },
            allowed_hosts: vec!["docs.local".into()],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(filled.config.models.model, "ollama:qwen2.5:7b");
    assert_eq!(
        filled.config.models.fast_model.as_deref(),
        Some("ollama:qwen2.5:3b")
    );
    assert_eq!(filled.config.search, ["wikipedia", "arxiv"]);
    assert!(filled.config.review.report && !filled.config.review.clarify);
    assert_eq!(filled.searxng_url.as_deref(), Some("http://127.0.0.1:8888"));
    assert_eq!(filled.allowed_hosts, ["docs.local", "intranet.local"]);
    assert_eq!(
        filled.config.banned_words,
        Some(vec!["basically".to_string(), "robust".to_string()])
    );
    assert_eq!(filled.config.banned(), ["basically", "robust"]);

    let chosen = studio
        .with_defaults(ResearchRequest {
            question: "q".into(),
            config: RunConfig {
                models: research_api::ModelRouting::single("openai:gpt-4o-mini"),
                search: vec!["local".into()],
                ..RunConfig::default()
            },
            review: Some(research_api::ReviewPoints::none()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(chosen.config.models.model, "openai:gpt-4o-mini");
    // Emptied, the setting is the built-in list again.
    let mut settings = studio.settings().unwrap();
    settings.set("banned_words", "").unwrap();
    assert_eq!(settings.banned_words, None);
    assert!(RunConfig::default().banned().contains(&"delve".to_string()));
    assert_eq!(chosen.config.search, ["local"]);
    assert!(!chosen.config.review.report && !chosen.config.review.clarify);
}

/// A clock the test moves.
struct Hands(std::sync::atomic::AtomicI64);

impl research_graph::Clock for Hands {
    fn now_ms(&self) -> i64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A review timeout counts from the asking, across a restart: before the deadline a resume
/// without an answer still needs one and a timed-out answer is refused; after it, the resume takes
/// the timeout's action.
#[tokio::test]
async fn a_question_past_its_review_timeout_is_answered_by_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        r#"{"answers": [{"purpose": "write", "text": "A report."}]}"#,
    )
    .unwrap();
    let keys = MemoryKeys::default();
    let t0: i64 = 1_800_000_000_000;
    let clock = Arc::new(Hands(std::sync::atomic::AtomicI64::new(t0)));
    let open = || studio(&db).with_clock(clock.clone());
    let config = RunConfig {
        models: research_api::ModelRouting::single(format!("scripted:{}", script.display())),
        review_timeout: Some(research_api::ReviewTimeout {
            minutes: 10,
            then: research_api::TimeoutAction::Approve,
        }),
        ..RunConfig::default()
    };
    let first = open();
    let (session, thread) = first
        .start_research(&ResearchRequest {
            question: "bees".into(),
            pipeline: "echo".into(),
            config,
            ..Default::default()
        })
        .unwrap();
    let waiting = first
        .run_research(&thread, None, &keys, None, CancellationToken::new())
        .await
        .unwrap();
    let pending = waiting.question.unwrap();
    assert_eq!(pending.asked_at_ms, t0);
    assert_eq!(pending.deadline_ms, Some(t0 + 600_000));
    drop(first);

    let second = open();
    clock
        .0
        .store(t0 + 300_000, std::sync::atomic::Ordering::SeqCst);
    let early = second
        .run_research(
            &thread,
            Some(Answer::TimedOut),
            &keys,
            None,
            CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(early.code, research_api::ErrorCode::Conflict, "{early:?}");
    let still = second
        .run_research(&thread, None, &keys, None, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(still.code, research_api::ErrorCode::NeedsInput, "{still:?}");
    // Refused, and the session still says it waits (not "failed").
    assert_eq!(
        second.session(&session).unwrap().session.status.as_str(),
        "waiting"
    );
    let pending = second.research_question(&thread).await.unwrap().unwrap();
    assert_eq!(
        pending.deadline_ms,
        Some(t0 + 600_000),
        "the deadline counts from the first asking"
    );

    clock
        .0
        .store(t0 + 600_000, std::sync::atomic::Ordering::SeqCst);
    let done = second
        .run_research(&thread, None, &keys, None, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(done.status, ResearchStatus::Finished);
    let detail = second.session(&session).unwrap();
    assert_eq!(
        detail.reports[0].provenance["summary"],
        "unanswered: no answer within 10 minutes"
    );
    // Resuming a finished run is refused and leaves it finished, its report in place.
    let again = second
        .run_research(&thread, None, &keys, None, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(again.code, research_api::ErrorCode::Conflict, "{again:?}");
    let detail = second.session(&session).unwrap();
    assert_eq!(detail.session.status.as_str(), "finished");
    assert_eq!(detail.reports.len(), 1);
}

/// The api refuses revisions and review timeouts past the limits the forms are given
/// (`form_choices`), so the CLI, the app and the api share one bound.
#[test]
fn revisions_and_review_timeouts_past_the_limits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let studio = studio(&dir.path().join("studio.sqlite3"));
    let limits = research_api::form_choices();
    let request = |max_revisions: u32, minutes: Option<u32>| ResearchRequest {
        question: "bees".into(),
        pipeline: "echo".into(),
        config: RunConfig {
            models: research_api::ModelRouting::single("ollama:m"),
            max_revisions,
            review_timeout: minutes.map(|minutes| research_api::ReviewTimeout {
                minutes,
                then: research_api::TimeoutAction::Stop,
            }),
            ..RunConfig::default()
        },
        ..Default::default()
    };
    let max = limits.max_revisions;
    let week = limits.review_timeout_max_minutes;
    assert!(studio.start_research(&request(max, Some(week))).is_ok());
    for bad in [
        request(max + 1, None),
        request(0, Some(week + 1)),
        request(0, Some(0)),
    ] {
        let e = studio.start_research(&bad).unwrap_err();
        assert_eq!(e.code, research_api::ErrorCode::InvalidInput, "{e}");
    }
}
