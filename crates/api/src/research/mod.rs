//! Research runs: starting one on any registered pipeline, asking a follow-up in its session,
//! running and resuming it, and the questions it waits on. The providers a run uses are in
//! `env`; what a run leaves in its session is in `sessions`.

mod compare;
mod conversation;
mod env;
mod fork;
mod recheck;
mod runner;
pub(crate) use runner::this_machine;
mod schedules;
mod sessions;

use std::sync::Arc;

use research_graph::{EventSink, RunOptions};
use research_pipeline::eval::RunResult;
use research_pipeline::{Answer, Outcome, Pipeline, Question, RunConfig, RunRequest, RunStatus};
pub use research_search::MultiSearch;
use research_store::{SessionRecord, SessionStatus, SessionStore, ThreadRecord};
use serde::{Deserialize, Serialize};

pub use self::compare::{CompareColumn, CompareOutcome, CompareRequest, CompareSide};
pub use self::conversation::{
    Turn, TurnView, MAX_CARRIED_EVIDENCE, SUMMARY_AFTER_TURNS, VERBATIM_TURNS,
};
use self::env::{storage, AuditSink};
pub use self::fork::{ForkRequest, ForkedRun};
pub use self::recheck::{LostSupport, Recheck, SourceCheck, SourceState};
pub use self::schedules::{
    ScheduleRun, ScheduleView, DEFAULT_INTERVAL, INTERVALS, MIN_EVERY_MS, SCHEDULE_LEASE_MS,
};
pub use self::sessions::{CriterionWeight, ReviewView, RunCalls, SessionDetail};
use crate::blocking::in_place;
use crate::keys::KeyStore;
use crate::{ApiError, CancellationToken, ErrorCode, Fix, Studio, ThreadId};

/// Times a failed verification may send a run back to research at most: each loop is a
/// round of searching and reading.
pub const MAX_VERIFICATION_LOOPS: u32 = 3;
/// The longest question accepted (a question, not a document).
pub const MAX_QUESTION_CHARS: usize = 4_000;

/// How long a cached search answer or page is used again.
pub const CACHE_TTL_MS: i64 = 24 * 3_600_000;

/// A research run to start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct ResearchRequest {
    /// The question.
    pub question: String,
    /// The pipeline to run (its registered name; empty for the default).
    pub pipeline: String,
    /// The review points chosen for this run; when absent, those in the settings (else the
    /// configuration's).
    pub review: Option<research_pipeline::ReviewPoints>,
    /// The run configuration.
    pub config: RunConfig,
    /// Hosts the fetcher may reach although they are local or private.
    pub allowed_hosts: Vec<String>,
    /// The SearXNG instance.
    pub searxng_url: Option<String>,
    /// The person's MCP sources (`mcp:NAME` providers) by name: a command line or an address;
    /// the settings' when empty.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub mcp_sources: std::collections::BTreeMap<String, String>,
}

/// What is saved with a research thread, so a later process resumes it the same way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct SavedRun {
    session_id: String,
    question: String,
    /// Earlier turns of the session, for a follow-up question.
    context: String,
    /// The session's sources and evidence a follow-up starts from.
    carried: research_pipeline::Carried,
    /// The run and stage a fork started from.
    forked_from: Option<RunOrigin>,
    config: RunConfig,
    allowed_hosts: Vec<String>,
    searxng_url: Option<String>,
    /// The MCP sources as they were when the run started.
    #[serde(default)]
    mcp_sources: std::collections::BTreeMap<String, String>,
}

/// Where a forked run started: the run it was forked from and the stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunOrigin {
    /// The run forked.
    pub from: String,
    /// The stage (`reading`, `plan`, `round-N`, `draft`).
    pub stage: String,
}

/// A question the run waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PendingQuestion {
    /// The engine's interrupt id.
    pub interrupt_id: String,
    /// The question.
    pub question: Question,
    /// When it was asked (ms since the epoch; 0 when not known).
    #[serde(default)]
    pub asked_at_ms: i64,
    /// When the run's review timeout answers it (ms since the epoch), if the run has one:
    /// resuming the run without an answer after then takes the timeout's action.
    #[serde(default)]
    pub deadline_ms: Option<i64>,
}

/// Where a research run stands as the store has it ([`Studio::research_standing`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunStanding {
    /// The session.
    pub session_id: String,
    /// The session's status.
    pub status: research_store::SessionStatus,
    /// The question it waits on, if any.
    pub question: Option<PendingQuestion>,
    /// Whether the process recorded as running it is still alive: `Some(false)` for a run whose
    /// process died mid-way (or none is recorded) or, on another machine, whose lease ran out;
    /// `None` when it cannot be told (another system than Linux).
    pub runner_alive: Option<bool>,
}

/// Where a run stands after running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ResearchStatus {
    /// The report is written (or the run was cancelled or rejected by its reviewer).
    Finished,
    /// It waits for an answer.
    Waiting,
    /// It was cancelled from outside; resume continues it.
    Interrupted,
}

/// The outcome of running or resuming a research thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResearchOutcome {
    /// The session.
    pub session_id: String,
    /// The thread.
    pub thread_id: ThreadId,
    /// Where it stands.
    pub status: ResearchStatus,
    /// The question it waits on.
    pub question: Option<PendingQuestion>,
    /// The result so far (final when finished).
    pub result: RunResult,
}

/// The question trimmed, or why it cannot be researched: empty, or too long to be a question.
pub(crate) fn checked_question(question: &str) -> Result<&str, ApiError> {
    let question = question.trim();
    if question.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the question is empty; type what you want to find out",
        ));
    }
    let chars = question.chars().count();
    if chars > MAX_QUESTION_CHARS {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the question is {chars} characters long; keep it under {MAX_QUESTION_CHARS} (put long material in a library folder instead)"
            ),
        ));
    }
    Ok(question)
}

fn title_of(question: &str) -> String {
    let line = question.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= 80 {
        line.to_string()
    } else {
        format!("{}…", line.chars().take(79).collect::<String>())
    }
}

impl Studio {
    pub(crate) fn sessions(&self) -> Arc<dyn SessionStore> {
        self.sessions.clone()
    }

    /// Creates a session and its first research thread; run it with [`Studio::run_research`].
    pub fn start_research(
        &self,
        request: &ResearchRequest,
    ) -> Result<(String, ThreadId), ApiError> {
        let request = &self.with_defaults(request.clone())?;
        self.checked(request)?;
        let question = request.question.trim();
        let pipeline = self.pipeline(&request.pipeline)?.info().name;
        let now = self.clock.now_ms();
        let session_id = uuid::Uuid::now_v7().to_string();
        let sessions = self.sessions();
        sessions.create(&SessionRecord {
            id: session_id.clone(),
            title: title_of(question),
            question: question.to_string(),
            config: serde_json::to_value(&request.config).map_err(storage)?,
            status: SessionStatus::Running,
            created_at_ms: now,
            updated_at_ms: now,
            checked_at_ms: None,
        })?;
        let saved = SavedRun {
            session_id: session_id.clone(),
            question: question.to_string(),
            context: String::new(),
            carried: Default::default(),
            forked_from: None,
            config: request.config.clone(),
            allowed_hosts: request.allowed_hosts.clone(),
            searxng_url: request.searxng_url.clone(),
            mcp_sources: request.mcp_sources.clone(),
        };
        let thread_id = self.register_run(&*sessions, &pipeline, &saved)?;
        self.first_turn(&*sessions, &session_id, &thread_id, question)?;
        Ok((session_id, thread_id))
    }

    /// Refuses a research request (its settings filled in) that cannot run, with why.
    pub(crate) fn checked(&self, request: &ResearchRequest) -> Result<(), ApiError> {
        checked_question(&request.question)?;
        if request.config.models.model.trim().is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "no model is chosen (e.g. ollama:qwen2.5:7b or local:/path/model.gguf)",
            )
            .fix(crate::Fix::Model));
        }
        if !(0.0..=1.0).contains(&request.config.min_coverage) {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "the minimum coverage must be between 0 and 1",
            ));
        }
        if let Some(why) = request.config.background.invalid() {
            return Err(ApiError::new(ErrorCode::InvalidInput, why));
        }
        if !(0.0..=1.0).contains(&request.config.min_supported) {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "the share of supported claims must be between 0 and 1",
            ));
        }
        if request.config.verification_loops > MAX_VERIFICATION_LOOPS {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "at most {MAX_VERIFICATION_LOOPS} verification loops can be allowed, not {}",
                    request.config.verification_loops
                ),
            ));
        }
        // A provider that cannot be searched is refused here, before a session exists: a run
        // that could never start is never left running.
        for name in &request.config.search {
            if let Some(why) = crate::search::unknown_search_name(name, &request.mcp_sources) {
                return Err(ApiError::new(ErrorCode::InvalidInput, why));
            }
        }
        let config = &request.config;
        if config.max_revisions > crate::MAX_REVISIONS {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "at most {} revisions can be allowed, not {}",
                    crate::MAX_REVISIONS,
                    config.max_revisions
                ),
            ));
        }
        if let Some(timeout) = config.review_timeout {
            if !(1..=crate::MAX_REVIEW_TIMEOUT_MINUTES).contains(&timeout.minutes) {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "a review point waits between 1 and {} minutes, not {}",
                        crate::MAX_REVIEW_TIMEOUT_MINUTES,
                        timeout.minutes
                    ),
                ));
            }
        }
        // Last: what is on this machine, once what was asked is known to be right.
        checked_models(&request.config.models)
    }

    /// `request` with the user's settings filling what it leaves open: the default and fast
    /// models, the search providers (an empty list), the SearXNG address, and the hosts the
    /// fetcher may reach. The one place settings become run defaults.
    pub fn with_defaults(&self, mut request: ResearchRequest) -> Result<ResearchRequest, ApiError> {
        let settings = self.settings()?;
        let models = &mut request.config.models;
        if models.model.trim().is_empty() {
            models.model = settings.default_model.clone().unwrap_or_default();
        }
        if models.fast_model.is_none() {
            models.fast_model = settings.fast_model.clone();
        }
        if request.config.search.is_empty() {
            request.config.search = settings
                .search
                .clone()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| RunConfig::default().search);
        }
        if request.searxng_url.is_none() {
            request.searxng_url = settings.searxng_url.clone();
        }
        if request.mcp_sources.is_empty() {
            request.mcp_sources = settings.mcp_sources.clone();
        }
        let review = match request.review.take() {
            Some(review) => Some(review),
            None => settings.review_points()?,
        };
        if let Some(review) = review {
            request.config.review = review;
        }
        if request.config.banned_words.is_none() {
            request.config.banned_words = settings.banned_words.clone();
        }
        if request.config.trusted_domains.is_none() {
            request.config.trusted_domains = settings.trusted_domains.clone();
        }
        if request.config.low_trust_domains.is_none() {
            request.config.low_trust_domains = settings.low_trust_domains.clone();
        }
        for host in settings.allowed_hosts {
            if !request.allowed_hosts.contains(&host) {
                request.allowed_hosts.push(host);
            }
        }
        request.config.measured = self.measurements();
        Ok(request)
    }

    /// The pipeline registered as `name` (the default one for an empty name).
    pub(crate) fn pipeline(&self, name: &str) -> Result<Arc<dyn Pipeline>, ApiError> {
        let name = name.trim();
        let found = if name.is_empty() {
            self.registry.default_pipeline()
        } else {
            self.registry.get(name)
        };
        found.ok_or_else(|| {
            let known: Vec<String> = self.registry.list().into_iter().map(|p| p.name).collect();
            ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "there is no pipeline called {name}; choose one of: {}",
                    known.join(", ")
                ),
            )
        })
    }

    /// The pipeline a research thread runs on (the one it started with).
    /// What is saved with a research thread, read once: the pipeline it started on (it resumes
    /// on the same one) and how it runs.
    fn research_run(&self, thread: &ThreadId) -> Result<(Arc<dyn Pipeline>, SavedRun), ApiError> {
        let record = self.record(thread)?;
        let pipeline = self.registry.get(&record.graph).ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!("run {thread} is a {} run, not a research run", record.graph),
            )
        })?;
        let saved = serde_json::from_value(record.config).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!("the saved configuration of run {thread} is unreadable: {e}"),
            )
        })?;
        Ok((pipeline, saved))
    }

    /// Registers a new research thread of `saved.session_id` on `pipeline`.
    fn register_run(
        &self,
        sessions: &dyn SessionStore,
        pipeline: &str,
        saved: &SavedRun,
    ) -> Result<ThreadId, ApiError> {
        let thread_id = ThreadId::new(uuid::Uuid::now_v7().to_string());
        self.register_run_as(sessions, pipeline, saved, thread_id)
    }

    /// Registers `thread_id` (already holding its first checkpoint, for a fork) as a research
    /// thread of `saved.session_id` on `pipeline`.
    fn register_run_as(
        &self,
        sessions: &dyn SessionStore,
        pipeline: &str,
        saved: &SavedRun,
        thread_id: ThreadId,
    ) -> Result<ThreadId, ApiError> {
        let now = self.clock.now_ms();
        self.threads.insert(&ThreadRecord {
            thread_id: thread_id.to_string(),
            graph: pipeline.into(),
            config: serde_json::to_value(saved).map_err(storage)?,
            created_at_ms: now,
        })?;
        sessions.add_run(&saved.session_id, thread_id.as_str(), &saved.question, now)?;
        Ok(thread_id)
    }

    /// The question a research thread waits on, if any.
    pub async fn research_question(
        &self,
        thread: &ThreadId,
    ) -> Result<Option<PendingQuestion>, ApiError> {
        let (pipeline, saved) = self.research_run(thread)?;
        let interrupts = pipeline
            .waiting_on(&saved.config, self.cp(), thread)
            .await?;
        Ok(pending_question(interrupts, &saved.config))
    }

    /// Where `thread` stands as the store has it, for a process that did not run it (a
    /// restarted MCP server, another window): its session, the session's status, and the
    /// question it waits on. A `Running` status no process answers for is a run whose process
    /// ended mid-way: [`Studio::run_research`] continues it from its last checkpoint.
    pub async fn research_standing(&self, thread: &ThreadId) -> Result<RunStanding, ApiError> {
        let (_, saved) = self.research_run(thread)?;
        let sessions = self.sessions();
        let status = in_place(|| sessions.get(&saved.session_id))?
            .map(|s| s.status)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!("the session of run {thread} is gone"),
                )
            })?;
        let runner = in_place(|| sessions.runner(thread.as_str()))?;
        Ok(RunStanding {
            session_id: saved.session_id,
            status,
            question: self.research_question(thread).await?,
            // No process recorded: none claims it (a killed one leaves its record behind).
            runner_alive: match runner.as_deref() {
                Some(r) => runner::alive(r, in_place(|| runner::store_ms(sessions.as_ref()))),
                None => Some(false),
            },
        })
    }

    /// The outline of the pipeline `thread` runs, for its configuration.
    pub fn run_outline(&self, thread: &ThreadId) -> Result<crate::GraphOutline, ApiError> {
        let (pipeline, saved) = self.research_run(thread)?;
        self.outline(&pipeline.info().name, &saved.config)
    }

    /// Whether `thread` is a research run (of any registered pipeline).
    pub fn is_research(&self, thread: &ThreadId) -> Result<bool, ApiError> {
        Ok(self.registry.get(&self.record(thread)?.graph).is_some())
    }

    /// Changes the search providers of a research thread before it is resumed (a provider that
    /// could not be set up, or one the person wants instead), checked as a new run's are.
    pub fn set_research_search(
        &self,
        thread: &ThreadId,
        search: Vec<String>,
    ) -> Result<(), ApiError> {
        let (_, mut saved) = self.research_run(thread)?;
        if search.is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "no search provider is chosen; use {}",
                    crate::search::search_names()
                ),
            ));
        }
        // The MCP sources a resume reads: the run's copy and what is set up now.
        let mut sources = saved.mcp_sources.clone();
        sources.extend(self.settings()?.mcp_sources);
        for name in &search {
            if let Some(why) = crate::search::unknown_search_name(name, &sources) {
                return Err(ApiError::new(ErrorCode::InvalidInput, why));
            }
        }
        saved.config.search = search;
        self.save_run(thread, &saved)
    }

    /// Writes a research thread's run settings back (after a change before a resume).
    fn save_run(&self, thread: &ThreadId, saved: &SavedRun) -> Result<(), ApiError> {
        self.threads
            .set_config(
                thread.as_str(),
                &serde_json::to_value(saved).map_err(storage)?,
            )
            .map_err(ApiError::from)
    }

    /// Changes the models of a research thread before it is resumed (e.g. after a provider
    /// failed part-way).
    pub fn set_research_models(
        &self,
        thread: &ThreadId,
        models: research_llm::ModelRouting,
    ) -> Result<(), ApiError> {
        let (_, mut saved) = self.research_run(thread)?;
        checked_models(&models)?;
        saved.config.models = models;
        self.save_run(thread, &saved)
    }

    /// Runs a research thread: from its start the first time, then from its last checkpoint
    /// (after a failure, a cancel or a killed process), with `answer` when it waits on a
    /// question.
    pub async fn run_research(
        &self,
        thread: &ThreadId,
        answer: Option<Answer>,
        keys_store: &dyn KeyStore,
        events: Option<Arc<dyn EventSink>>,
        cancel: CancellationToken,
    ) -> Result<ResearchOutcome, ApiError> {
        let (pipeline, saved) = in_place(|| self.research_run(thread))?;
        let sessions = self.sessions();
        let env = match in_place(|| {
            self.research_env(thread, &saved, keys_store, &sessions, events.clone())
        }) {
            Ok(env) => env,
            Err(e) => {
                // What the run needs cannot be set up (a provider's key or address): a run that
                // never started is marked failed, not left running forever; once the cause is
                // put right, `resume` starts it.
                let started = pipeline
                    .has_started(&saved.config, self.cp(), thread)
                    .await
                    .unwrap_or(true);
                if !started {
                    self.record_failure(&*sessions, &saved.session_id, thread.as_str(), &e);
                }
                return Err(e);
            }
        };
        let sink: Arc<dyn EventSink> = Arc::new(AuditSink {
            sessions: sessions.clone(),
            session: saved.session_id.clone(),
            thread: thread.to_string(),
            clock: self.clock.clone(),
            next: events,
        });
        // This run's own token: a hold lost by this run stops it, not a sibling sharing `cancel`
        // (compare runs two on one).
        let cancel = cancel.child_token();
        let mut opts = RunOptions::new(thread.clone(), env)
            .recursion_limit(saved.config.step_limit())
            .cancel(cancel.clone())
            .clock(self.clock.clone())
            .max_concurrency(4);
        opts.events = Some(sink);
        let started = pipeline
            .has_started(&saved.config, self.cp(), thread)
            .await?;
        let set_status = |status: SessionStatus| {
            let now = self.clock.now_ms();
            if let Err(e) = in_place(|| sessions.set_status(&saved.session_id, status, now)) {
                tracing::warn!("could not update the session: {e}");
            }
        };
        if !started && answer.is_some() {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "the run has not asked anything yet",
            ));
        }
        if let Some(problem) = answer.as_ref().and_then(Answer::problem) {
            return Err(ApiError::new(ErrorCode::InvalidInput, problem));
        }
        let answer = if started {
            self.due_answer(pipeline.as_ref(), &saved, thread, answer)
                .await?
        } else {
            answer
        };
        // What the session said before this call: a resume the run refuses (it has finished,
        // or still needs its answer) changes nothing, and must not mark it failed.
        let before = in_place(|| sessions.get(&saved.session_id))
            .ok()
            .flatten()
            .map(|s| s.status);
        // This process runs it until the call returns (or the process dies, which leaves the
        // record behind: `research_standing` tells that apart). Another live process running it
        // (the app, a CLI, an MCP server) keeps it.
        let runner = runner::Runner::claim(sessions.clone(), thread, cancel)?;
        set_status(SessionStatus::Running);
        let result = if started {
            pipeline
                .resume(&saved.config, answer, self.cp(), opts)
                .await
        } else {
            let request = RunRequest {
                question: saved.question.clone(),
                context: saved.context.clone(),
                carried: saved.carried.clone(),
                config: saved.config.clone(),
                now_ms: self.clock.now_ms(),
            };
            pipeline.start(request, self.cp(), opts).await
        };
        // Taken over by another process: what this one found is not written over the other's.
        runner.still_held()?;
        let run = match result {
            Ok(run) => run,
            Err(
                e @ (research_graph::GraphError::AlreadyFinished(_)
                | research_graph::GraphError::ResumeValueRequired(_)),
            ) => {
                set_status(before.unwrap_or(SessionStatus::Finished));
                return Err(ApiError::from(e));
            }
            Err(e) => {
                let error = failed_run(e, thread);
                self.record_failure(&*sessions, &saved.session_id, thread.as_str(), &error);
                return Err(error);
            }
        };
        let (status, question) = match &run.status {
            RunStatus::Finished => (ResearchStatus::Finished, None),
            RunStatus::Waiting(interrupts) => (
                ResearchStatus::Waiting,
                pending_question(interrupts.clone(), &saved.config),
            ),
            RunStatus::Cancelled => (ResearchStatus::Interrupted, None),
        };
        in_place(|| self.save_research(&*sessions, &saved, thread, &run))?;
        set_status(match (status, &run.view.result.metadata.outcome) {
            (ResearchStatus::Waiting, _) => SessionStatus::Waiting,
            (ResearchStatus::Interrupted, _) => SessionStatus::Interrupted,
            (_, Outcome::Cancelled) => SessionStatus::Cancelled,
            (_, Outcome::Rejected) => SessionStatus::Rejected,
            _ => SessionStatus::Finished,
        });
        Ok(ResearchOutcome {
            session_id: saved.session_id,
            thread_id: thread.clone(),
            status,
            question,
            result: run.view.result,
        })
    }
}

/// The audit event that says why a run failed (its payload: the error's `code` and `message`),
/// read by [`Studio::failure`].
const RUN_FAILED: &str = "run_failed";

impl Studio {
    /// Marks `session` failed and keeps why its run `thread` failed in the run's audit trail, so
    /// `sessions show`, the app and an export's advice can say it later.
    fn record_failure(
        &self,
        sessions: &dyn SessionStore,
        session: &str,
        thread: &str,
        error: &ApiError,
    ) {
        let now = self.clock.now_ms();
        if let Err(e) = in_place(|| sessions.set_status(session, SessionStatus::Failed, now)) {
            tracing::warn!("could not update the session: {e}");
        }
        let payload = serde_json::json!({"code": error.code, "message": error.message});
        if let Err(e) = in_place(|| sessions.add_event(session, thread, now, RUN_FAILED, &payload))
        {
            tracing::warn!("could not save why the run failed: {e}");
        }
    }

    /// Why run `thread` last failed, when it did and that was kept (runs from before it was
    /// kept have none).
    pub fn failure(&self, thread: &str) -> Result<Option<String>, ApiError> {
        let events = in_place(|| self.sessions().events(thread))?;
        Ok(events
            .into_iter()
            .rev()
            .find(|(_, kind, _)| kind == RUN_FAILED)
            .and_then(|(_, _, payload)| payload["message"].as_str().map(String::from)))
    }

    /// The answer a resume runs with: the one given, else the review timeout's when the
    /// question waiting is past its deadline. A timed-out answer given before then is refused.
    async fn due_answer(
        &self,
        pipeline: &dyn Pipeline,
        saved: &SavedRun,
        thread: &ThreadId,
        answer: Option<Answer>,
    ) -> Result<Option<Answer>, ApiError> {
        let interrupts = pipeline
            .waiting_on(&saved.config, self.cp(), thread)
            .await?;
        let pending = pending_question(interrupts, &saved.config);
        if let (Some(a), Some(p)) = (&answer, &pending) {
            // An answer to another question would fail the run at its review point: it is
            // refused here, and the run keeps waiting.
            if !p.question.takes(a) {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "the run waits on a {}, which takes {}; `{}` answers another question",
                        p.question.kind_words(),
                        p.question.answer_kinds().join(", "),
                        a.kind()
                    ),
                ));
            }
        }
        if answer.is_some() && answer != Some(Answer::TimedOut) {
            return Ok(answer);
        }
        let due = pending
            .and_then(|q| q.deadline_ms)
            .is_some_and(|deadline| self.clock.now_ms() >= deadline);
        match answer {
            Some(_) if !due => Err(ApiError::new(
                ErrorCode::Conflict,
                "the question is not past its review timeout yet; answer it instead",
            )),
            _ if due => Ok(Some(Answer::TimedOut)),
            _ => Ok(None),
        }
    }
}

/// The first question among `interrupts` that is a research question, with its deadline
/// under `config`'s review timeout.
fn pending_question(
    interrupts: Vec<research_graph::Interrupt>,
    config: &RunConfig,
) -> Option<PendingQuestion> {
    interrupts.into_iter().next().and_then(|i| {
        serde_json::from_value::<research_pipeline::Asked>(i.payload)
            .ok()
            .map(|asked| PendingQuestion {
                interrupt_id: i.id,
                deadline_ms: config
                    .review_timeout
                    .filter(|_| asked.asked_at_ms > 0)
                    .map(|t| t.deadline_ms(asked.asked_at_ms)),
                asked_at_ms: asked.asked_at_ms,
                question: asked.question,
            })
    })
}

/// A run's failure as the person reads it. A full disk is said plainly, with the way back:
/// everything up to the last checkpoint is kept, so the run resumes once there is room.
/// Refuses models a run could not use: a spec that does not parse, or one naming a model or
/// script file that is not there (checked before a session exists, and before a resume changes
/// a run's models).
pub(crate) fn checked_models(models: &research_llm::ModelRouting) -> Result<(), ApiError> {
    for model in models.models() {
        let spec = model
            .parse::<research_llm::ModelSpec>()
            .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
        if let Some(missing) = spec.missing_file() {
            return Err(ApiError::new(ErrorCode::InvalidInput, missing.to_string()).fix(Fix::Model));
        }
    }
    Ok(())
}

fn failed_run(e: research_graph::GraphError, thread: &ThreadId) -> ApiError {
    if matches!(
        e,
        research_graph::GraphError::Checkpoint(research_graph::CheckpointError::DiskFull)
    ) {
        return ApiError::new(
            ErrorCode::Storage,
            "the disk holding the database is full; nothing read so far is lost — free some space, then resume the run",
        )
        .fix(Fix::ResumeRun {
            thread: thread.to_string(),
        });
    }
    ApiError::from(e)
}
