//! Research runs and sessions: the providers a run uses (searches and pages cached in SQLite,
//! library files read through the library, source texts stored by hash), the run itself on the
//! standard pipeline, its questions and answers, and everything it leaves in its session.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use research_fetch::{Document, FetchError, Fetcher};
use research_graph::{EventSink, Resume, RunOptions, RunOutcome};
use research_llm::{Meter, PriceTable, RoleModels};
use research_pipeline::eval::RunResult;
use research_pipeline::{
    Answer, DocumentError, Documents, Outcome, Question, ResearchState, RunConfig,
};
use research_search::{Hit, SearchError, SearchProvider, SearchQuery};
use research_store::{ClaimRow, EvidenceRow, SessionRecord, Sessions, SourceRow, ThreadRecord};
use serde::{Deserialize, Serialize};

use crate::keys::{self, KeyStore};
use crate::{ApiError, CancellationToken, ErrorCode, Event, Library, Studio, ThreadId};

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
    /// The run configuration.
    pub config: RunConfig,
    /// Hosts the fetcher may reach although they are local or private.
    pub allowed_hosts: Vec<String>,
    /// The SearXNG instance.
    pub searxng_url: Option<String>,
}

/// What is saved with a research thread, so a later process resumes it the same way.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct SavedRun {
    session_id: String,
    question: String,
    /// Earlier turns of the session, for a follow-up question.
    context: String,
    config: RunConfig,
    allowed_hosts: Vec<String>,
    searxng_url: Option<String>,
}

/// A question the run waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PendingQuestion {
    /// The engine's interrupt id.
    pub interrupt_id: String,
    /// The question.
    pub question: Question,
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

/// A session with its runs, reports and findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionDetail {
    /// The session.
    pub session: SessionRecord,
    /// Its runs: (thread id, question).
    pub runs: Vec<(String, String)>,
    /// Report versions, oldest first.
    pub reports: Vec<research_store::ReportRow>,
    /// Sources of the run that wrote the latest report (of the latest run when none has).
    pub sources: Vec<SourceRow>,
    /// Evidence of that run.
    pub evidence: Vec<EvidenceRow>,
    /// Checked claims of that run.
    pub claims: Vec<ClaimRow>,
    /// The latest report as safe HTML (citations linked as `#cite-n`), empty when none.
    pub report_html: String,
    /// How the latest report's run went (none for reports saved before it was recorded).
    pub method: Option<RunMethod>,
}

/// How a run went: the plan, the searches, the rounds and coverage, for the Method panel.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RunMethod {
    /// The reading of the question the run took: the user's clarification or the model's
    /// interpretation.
    pub interpretation: String,
    /// The plan's research questions.
    pub research_questions: Vec<String>,
    /// Coverage of each research question (0, 0.5 or 1), in plan order.
    pub question_coverage: Vec<f64>,
    /// What the last round found still missing.
    pub gaps: Vec<String>,
    /// Workers run (multi mode), over all rounds.
    pub workers: u64,
    /// Pages the searches found that could not be read, with why.
    pub unread: Vec<UnreadPage>,
    /// Counts, searches, coverage per round and usage.
    pub metadata: research_pipeline::eval::Metadata,
}

/// A page a search found that the run could not read (blocked, broken, too big, not text…).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct UnreadPage {
    /// Its address.
    pub url: String,
    /// Why, in one sentence.
    pub reason: String,
}

/// The pages named by `warnings`, each once, with the reason after "could not read URL: ".
fn unread_pages(warnings: &[research_pipeline::Warning]) -> Vec<UnreadPage> {
    let mut seen = BTreeSet::new();
    warnings
        .iter()
        .filter_map(|w| {
            let url = w.url.clone()?;
            let reason = w
                .message
                .split_once(": ")
                .map_or(w.message.as_str(), |(_, r)| r);
            seen.insert(url.clone()).then(|| UnreadPage {
                url,
                reason: reason.to_string(),
            })
        })
        .collect()
}

impl RunMethod {
    fn from_state(state: &ResearchState, result: &RunResult) -> Self {
        Self {
            interpretation: if state.clarification.is_empty() {
                state.understanding.interpretation.clone()
            } else {
                state.clarification.clone()
            },
            research_questions: state.plan.questions.clone(),
            question_coverage: state
                .coverage_by_question
                .iter()
                .map(|c| c.score())
                .collect(),
            gaps: state.gaps.clone(),
            workers: state.done_workers,
            unread: unread_pages(&state.warnings),
            metadata: result.metadata.clone(),
        }
    }
}

fn storage(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

/// Source texts in the session database.
struct StoreDocuments {
    sessions: Arc<Sessions>,
    clock: Arc<dyn research_graph::Clock>,
}

impl Documents for StoreDocuments {
    fn put(&self, text: &str) -> Result<String, DocumentError> {
        self.sessions
            .put_document(text, self.clock.now_ms())
            .map_err(|e| DocumentError(e.to_string()))
    }
    fn get(&self, sha256: &str) -> Result<Option<String>, DocumentError> {
        self.sessions
            .document(sha256)
            .map_err(|e| DocumentError(e.to_string()))
    }
}

/// Several providers queried at once, their hits merged by rank with duplicate URLs removed; a
/// provider that fails is logged while another answers.
pub struct MultiSearch {
    providers: Vec<(String, Arc<dyn SearchProvider>)>,
}

impl MultiSearch {
    /// Searches all of `providers`.
    pub fn new(providers: Vec<(String, Arc<dyn SearchProvider>)>) -> Self {
        Self { providers }
    }

    /// The merged hits and each failing provider's error.
    pub async fn search_all(&self, query: &SearchQuery) -> (Vec<Hit>, Vec<(String, SearchError)>) {
        let answers =
            futures::future::join_all(self.providers.iter().map(|(_, p)| p.search(query))).await;
        let mut lists = Vec::new();
        let mut failures = Vec::new();
        for ((name, _), answer) in self.providers.iter().zip(answers) {
            match answer {
                Ok(hits) => lists.push(hits),
                Err(e) => failures.push((name.clone(), e)),
            }
        }
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
        for rank in 0..longest {
            for list in &lists {
                if let Some(hit) = list.get(rank) {
                    if seen.insert(normal_url(&hit.url)) {
                        hits.push(hit.clone());
                    }
                }
            }
        }
        if lists.is_empty() {
            // Report that every provider failed by returning no hits and all failures.
            hits.clear();
        }
        (hits, failures)
    }
}

/// A URL without scheme, `www.`, fragment or trailing slash, for duplicate detection.
pub(crate) fn normal_url(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    url.trim_end_matches('/')
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.")
        .to_lowercase()
}

#[async_trait]
impl SearchProvider for MultiSearch {
    fn name(&self) -> &'static str {
        "multi"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let (hits, failures) = self.search_all(query).await;
        if !failures.is_empty() && failures.len() == self.providers.len() {
            let detail: Vec<String> = failures.iter().map(|(n, e)| format!("{n}: {e}")).collect();
            return Err(SearchError::Config(format!(
                "every search provider failed ({})",
                detail.join("; ")
            )));
        }
        for (name, e) in failures {
            tracing::warn!("search provider {name} failed: {e}");
        }
        Ok(hits)
    }
}

/// Search answers cached in SQLite for [`CACHE_TTL_MS`] (seed 004's `cached_search`). The
/// local library is never cached: it changes when the user edits files.
struct CachedSearch {
    key: String,
    inner: Arc<dyn SearchProvider>,
    sessions: Arc<Sessions>,
    clock: Arc<dyn research_graph::Clock>,
}

#[async_trait]
impl SearchProvider for CachedSearch {
    fn name(&self) -> &'static str {
        "cached"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let now = self.clock.now_ms();
        if let Ok(Some(value)) =
            self.sessions
                .cached_search(&self.key, &query.text, query.limit, now, CACHE_TTL_MS)
        {
            if let Ok(hits) = serde_json::from_value::<Vec<Hit>>(value) {
                return Ok(hits);
            }
        }
        let hits = self.inner.search(query).await?;
        if let Ok(value) = serde_json::to_value(&hits) {
            if let Err(e) =
                self.sessions
                    .cache_search(&self.key, &query.text, query.limit, &value, now)
            {
                tracing::warn!("could not cache a search: {e}");
            }
        }
        Ok(hits)
    }
}

/// Web pages through the guarded HTTP fetcher (cached), library files through the library.
struct RoutedFetcher {
    web: Arc<dyn Fetcher>,
    library: Option<Arc<Library>>,
    sessions: Arc<Sessions>,
    clock: Arc<dyn research_graph::Clock>,
}

#[derive(Serialize, Deserialize)]
struct PageMeta {
    final_url: String,
    title: Option<String>,
    kind: research_fetch::DocumentKind,
    content_type: String,
    bytes: usize,
}

#[async_trait]
impl Fetcher for RoutedFetcher {
    async fn fetch(&self, url: &str) -> Result<Document, FetchError> {
        if url.starts_with("file:") {
            let Some(library) = self.library.clone() else {
                return Err(FetchError::NoText {
                    url: url.into(),
                    reason: "there is no library to read it from".into(),
                });
            };
            let owned = url.to_string();
            return tokio::task::spawn_blocking(move || library.read(&owned))
                .await
                .map_err(|e| FetchError::NoText {
                    url: url.into(),
                    reason: e.to_string(),
                })?;
        }
        let now = self.clock.now_ms();
        if let Ok(Some((meta, text))) = self.sessions.cached_page(url, now, CACHE_TTL_MS) {
            if let Ok(meta) = serde_json::from_value::<PageMeta>(meta) {
                return Ok(Document {
                    url: url.into(),
                    final_url: meta.final_url,
                    title: meta.title,
                    text_sha256: research_pipeline::sha256_hex(&text),
                    text,
                    kind: meta.kind,
                    content_type: meta.content_type,
                    bytes: meta.bytes,
                });
            }
        }
        let doc = self.web.fetch(url).await?;
        let meta = PageMeta {
            final_url: doc.final_url.clone(),
            title: doc.title.clone(),
            kind: doc.kind,
            content_type: doc.content_type.clone(),
            bytes: doc.bytes,
        };
        if let Ok(meta) = serde_json::to_value(meta) {
            if let Err(e) = self.sessions.cache_page(url, &meta, &doc.text, now) {
                tracing::warn!("could not cache {url}: {e}");
            }
        }
        Ok(doc)
    }
}

/// Saves every event of a run to its audit trail and passes it on.
struct AuditSink {
    sessions: Arc<Sessions>,
    session: String,
    thread: String,
    clock: Arc<dyn research_graph::Clock>,
    next: Option<Arc<dyn EventSink>>,
}

impl EventSink for AuditSink {
    fn emit(&self, event: Event) {
        // Tokens are the report being typed: too many to keep, and the report itself is kept.
        if !matches!(event, Event::Token { .. }) {
            if let Ok(mut value) = serde_json::to_value(&event) {
                let kind = value["type"].as_str().unwrap_or("event").to_string();
                if let Some(map) = value.as_object_mut() {
                    map.remove("type");
                    // Node updates can be large (whole evidence lists): keep their keys only.
                    if let Some(update) = map.get_mut("update") {
                        if let Some(obj) = update.as_object() {
                            let keys: Vec<String> = obj
                                .iter()
                                .filter(|(_, v)| !v.is_null())
                                .map(|(k, _)| k.clone())
                                .collect();
                            *update = serde_json::json!(keys);
                        }
                    }
                }
                if let Err(e) = self.sessions.add_event(
                    &self.session,
                    &self.thread,
                    self.clock.now_ms(),
                    &kind,
                    &value,
                ) {
                    tracing::warn!("could not save an event: {e}");
                }
            }
        }
        if let Some(next) = &self.next {
            next.emit(event);
        }
    }
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
    pub(crate) fn sessions(&self) -> Result<Arc<Sessions>, ApiError> {
        Ok(Arc::new(Sessions::open(&self.path)?))
    }

    /// Creates a session and its first research thread; run it with [`Studio::run_research`].
    pub fn start_research(
        &self,
        request: &ResearchRequest,
    ) -> Result<(String, ThreadId), ApiError> {
        let question = request.question.trim();
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
        if request.config.models.model.trim().is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "no model is chosen; pass --llm (e.g. ollama:qwen2.5:7b or local:/path/model.gguf)",
            ));
        }
        for model in request.config.models.models() {
            model
                .parse::<research_llm::ModelSpec>()
                .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
        }
        if !(0.0..=1.0).contains(&request.config.min_coverage) {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "the minimum coverage must be between 0 and 1",
            ));
        }
        let now = self.clock.now_ms();
        let session_id = uuid::Uuid::now_v7().to_string();
        let sessions = self.sessions()?;
        sessions.create(&SessionRecord {
            id: session_id.clone(),
            title: title_of(question),
            question: question.to_string(),
            config: serde_json::to_value(&request.config).map_err(storage)?,
            status: "running".into(),
            created_at_ms: now,
            updated_at_ms: now,
        })?;
        let saved = SavedRun {
            session_id: session_id.clone(),
            question: question.to_string(),
            context: String::new(),
            config: request.config.clone(),
            allowed_hosts: request.allowed_hosts.clone(),
            searxng_url: request.searxng_url.clone(),
        };
        let thread_id = self.register_run(&sessions, &saved)?;
        Ok((session_id, thread_id))
    }

    /// Registers a new research thread of `saved.session_id` with what it needs to run.
    fn register_run(&self, sessions: &Sessions, saved: &SavedRun) -> Result<ThreadId, ApiError> {
        let now = self.clock.now_ms();
        let thread_id = ThreadId::new(uuid::Uuid::now_v7().to_string());
        self.threads.insert(&ThreadRecord {
            thread_id: thread_id.to_string(),
            graph: research_pipeline::STANDARD.into(),
            config: serde_json::to_value(saved).map_err(storage)?,
            created_at_ms: now,
        })?;
        sessions.add_run(&saved.session_id, thread_id.as_str(), &saved.question, now)?;
        Ok(thread_id)
    }

    /// Asks a follow-up question in an existing session: a new run that knows the session's
    /// earlier questions and the summaries of their reports. Returns the new run's thread.
    pub fn follow_up(&self, session_id: &str, question: &str) -> Result<ThreadId, ApiError> {
        let question = question.trim();
        if question.is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "the question is empty",
            ));
        }
        if question.chars().count() > MAX_QUESTION_CHARS {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("the question is longer than {MAX_QUESTION_CHARS} characters"),
            ));
        }
        let sessions = self.sessions()?;
        if sessions.get(session_id)?.is_none() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no session with id {session_id}"),
            ));
        }
        let runs = sessions.runs(session_id)?;
        let last = runs
            .last()
            .map(|r| ThreadId::new(r.0.clone()))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!("session {session_id} has no runs"),
                )
            })?;
        let previous = self.saved_run(&last)?;
        let reports = sessions.reports(session_id)?;
        // The last three turns: each question with the summary of its latest report.
        let mut turns = Vec::new();
        for (thread, asked) in runs.iter().rev().take(3).rev() {
            let summary = reports
                .iter()
                .rev()
                .find(|r| &r.thread_id == thread)
                .map(|r| summary_of(&r.markdown))
                .unwrap_or_else(|| "(no report)".into());
            turns.push(format!("Question: {asked}\nAnswer (summary): {summary}"));
        }
        let saved = SavedRun {
            question: question.to_string(),
            context: turns.join("\n\n"),
            ..previous
        };
        self.register_run(&sessions, &saved)
    }

    fn saved_run(&self, thread: &ThreadId) -> Result<SavedRun, ApiError> {
        let record = self.record(thread)?;
        if record.graph != research_pipeline::STANDARD {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("run {thread} is a {} run, not a research run", record.graph),
            ));
        }
        serde_json::from_value(record.config).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!("the saved configuration of run {thread} is unreadable: {e}"),
            )
        })
    }

    /// The question a research thread waits on, if any.
    pub async fn research_question(
        &self,
        thread: &ThreadId,
    ) -> Result<Option<PendingQuestion>, ApiError> {
        let saved = self.saved_run(thread)?;
        let graph = research_pipeline::graph(&saved.config, Some(self.cp()))?;
        let state = match graph.get_state(thread, None).await {
            Ok(state) => state,
            Err(research_graph::GraphError::ThreadNotFound(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(state.interrupts.into_iter().next().and_then(|i| {
            serde_json::from_value::<Question>(i.payload)
                .ok()
                .map(|question| PendingQuestion {
                    interrupt_id: i.id,
                    question,
                })
        }))
    }

    /// Whether `thread` is a research run.
    pub fn is_research(&self, thread: &ThreadId) -> Result<bool, ApiError> {
        Ok(self.record(thread)?.graph == research_pipeline::STANDARD)
    }

    /// Changes the models of a research thread before it is resumed (e.g. after a provider
    /// failed part-way).
    pub fn set_research_models(
        &self,
        thread: &ThreadId,
        models: research_llm::ModelRouting,
    ) -> Result<(), ApiError> {
        let mut saved = self.saved_run(thread)?;
        for model in models.models() {
            model
                .parse::<research_llm::ModelSpec>()
                .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
        }
        saved.config.models = models;
        self.threads
            .set_config(
                thread.as_str(),
                &serde_json::to_value(&saved).map_err(storage)?,
            )
            .map_err(ApiError::from)
    }

    fn research_env(
        &self,
        thread: &ThreadId,
        saved: &SavedRun,
        keys_store: &dyn KeyStore,
        sessions: &Arc<Sessions>,
        events: Option<Arc<dyn EventSink>>,
    ) -> Result<research_pipeline::Env, ApiError> {
        // Calls made before a resume count against the same budget.
        let history: Vec<research_llm::CallRecord> = sessions
            .calls(thread.as_str())?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        let ledger = sessions.clone();
        let thread_key = thread.to_string();
        let meter = Arc::new(
            Meter::new(saved.config.budget, PriceTable::builtin())
                .with_history(history)
                .on_call(move |call| {
                    if let Ok(value) = serde_json::to_value(call) {
                        if let Err(e) = ledger.add_call(&thread_key, &value) {
                            tracing::warn!("could not record a model call: {e}");
                        }
                        // Live counters (tokens, cost) in the app.
                        if let Some(sink) = &events {
                            sink.emit(Event::Custom {
                                node: call.node.clone(),
                                task: None,
                                payload: serde_json::json!({"type": "llm_call", "call": value}),
                            });
                        }
                    }
                }),
        );
        let mut settings = keys::connect_settings(keys_store);
        if let Some(url) = self.settings()?.ollama_url {
            settings.ollama_url = url;
        }
        let models = RoleModels::connect(saved.config.models.clone(), meter, |spec| {
            research_llm::connect(spec, &settings)
        })
        .map_err(ApiError::from)?;

        let library = Arc::new(self.library()?);
        let library_has_folders = library.folders().map(|f| !f.is_empty()).unwrap_or(false);
        let search_settings = crate::search_settings(keys_store, saved.searxng_url.clone());
        let names =
            crate::search::expand_providers(&saved.config.search, keys_store, library_has_folders);
        if names.is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "no search provider is chosen",
            ));
        }
        let mut providers: Vec<(String, Arc<dyn SearchProvider>)> = Vec::new();
        for name in &names {
            let provider: Arc<dyn SearchProvider> = if name == "local" {
                library.clone()
            } else {
                Arc::new(CachedSearch {
                    key: name.clone(),
                    inner: research_search::provider(name, &search_settings)?,
                    sessions: sessions.clone(),
                    clock: self.clock.clone(),
                })
            };
            providers.push((name.clone(), provider));
        }
        let mut allowed = saved.allowed_hosts.clone();
        if let Some(url) = &saved.searxng_url {
            if let Some(host) = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(String::from))
            {
                allowed.push(host);
            }
        }
        let web = research_fetch::HttpFetcher::new(research_fetch::FetchPolicy {
            allowed_hosts: research_fetch::AllowedHosts::new(allowed),
            ..Default::default()
        })?;
        Ok(research_pipeline::Env {
            config: saved.config.clone(),
            models,
            search: Arc::new(MultiSearch::new(providers)),
            fetcher: Arc::new(RoutedFetcher {
                web: Arc::new(web),
                library: Some(library),
                sessions: sessions.clone(),
                clock: self.clock.clone(),
            }),
            documents: Arc::new(StoreDocuments {
                sessions: sessions.clone(),
                clock: self.clock.clone(),
            }),
        })
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
        let saved = self.saved_run(thread)?;
        let sessions = self.sessions()?;
        let env = self.research_env(thread, &saved, keys_store, &sessions, events.clone())?;
        let meter = env.models.meter().clone();
        let routing = env.models.routing().clone();
        let graph = research_pipeline::graph(&saved.config, Some(self.cp()))?;
        let sink: Arc<dyn EventSink> = Arc::new(AuditSink {
            sessions: sessions.clone(),
            session: saved.session_id.clone(),
            thread: thread.to_string(),
            clock: self.clock.clone(),
            next: events,
        });
        let mut opts = RunOptions::new(thread.clone(), env)
            .cancel(cancel)
            .clock(self.clock.clone())
            .max_concurrency(4);
        opts.events = Some(sink);
        let started = match graph.history(thread).await {
            Ok(history) => history.is_empty(),
            Err(research_graph::GraphError::ThreadNotFound(_)) => true,
            Err(e) => return Err(e.into()),
        };
        let set_status = |status: &str| {
            if let Err(e) = sessions.set_status(&saved.session_id, status, self.clock.now_ms()) {
                tracing::warn!("could not update the session: {e}");
            }
        };
        set_status("running");
        let result = if started {
            if answer.is_some() {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "the run has not asked anything yet",
                ));
            }
            let init = research_pipeline::follow_up_state(
                &saved.question,
                &saved.context,
                &saved.config,
                self.clock.now_ms(),
            );
            graph.invoke(init, opts).await
        } else {
            let resume = match answer {
                Some(a) => Resume::with_value(a),
                None => Resume::empty(),
            };
            graph.resume(resume, opts).await
        };
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(e) => {
                set_status("failed");
                return Err(ApiError::from(e));
            }
        };
        let models: BTreeMap<String, String> = [
            "understand",
            "plan",
            "extract",
            "gaps",
            "orchestrate",
            "summarize",
            "synthesize",
            "verify",
            "write",
        ]
        .iter()
        .map(|r| (r.to_string(), routing.model_for(r).to_string()))
        .collect();
        let (status, question, state) = match outcome {
            RunOutcome::Finished(state) => (ResearchStatus::Finished, None, state),
            RunOutcome::Interrupted { state, interrupts } => {
                let first = interrupts.into_iter().next();
                let question = first.and_then(|i| {
                    serde_json::from_value::<Question>(i.payload)
                        .ok()
                        .map(|q| PendingQuestion {
                            interrupt_id: i.id,
                            question: q,
                        })
                });
                (ResearchStatus::Waiting, question, state)
            }
            RunOutcome::Cancelled(state) => (ResearchStatus::Interrupted, None, state),
        };
        let result = RunResult::from_state(thread.as_str(), &state, &meter, models);
        self.save_research(&sessions, &saved, thread, &state, &result)?;
        set_status(match (status, &state.outcome) {
            (ResearchStatus::Waiting, _) => "waiting",
            (ResearchStatus::Interrupted, _) => "interrupted",
            (_, Outcome::Cancelled) => "cancelled",
            (_, Outcome::Rejected) => "rejected",
            _ => "finished",
        });
        Ok(ResearchOutcome {
            session_id: saved.session_id,
            thread_id: thread.clone(),
            status,
            question,
            result,
        })
    }

    fn save_research(
        &self,
        sessions: &Sessions,
        saved: &SavedRun,
        thread: &ThreadId,
        state: &ResearchState,
        result: &RunResult,
    ) -> Result<(), ApiError> {
        let sources: Vec<SourceRow> = state
            .sources
            .iter()
            .map(|s| SourceRow {
                source_id: s.id,
                url: s.url.clone(),
                title: s.title.clone(),
                kind: s.kind.clone(),
                sha256: s.sha256.clone(),
                accessed_at_ms: s.accessed_at_ms,
            })
            .collect();
        let evidence: Vec<EvidenceRow> = state
            .evidence
            .iter()
            .map(|e| EvidenceRow {
                evidence_id: e.id,
                source_id: e.source_id,
                fact: e.fact.clone(),
                quote: e.quote.clone(),
            })
            .collect();
        let claims: Vec<ClaimRow> = state
            .claims
            .iter()
            .map(|c| ClaimRow {
                evidence_id: c.evidence_id,
                text: c.text.clone(),
                supported: c.supported,
            })
            .collect();
        sessions.save_findings(
            &saved.session_id,
            thread.as_str(),
            &sources,
            &evidence,
            &claims,
        )?;
        if !state.report.is_empty() {
            let known: BTreeSet<String> = sessions
                .reports(&saved.session_id)?
                .into_iter()
                .filter(|r| r.thread_id == thread.as_str())
                .map(|r| r.markdown)
                .collect();
            if !known.contains(&state.report) {
                let provenance = serde_json::json!({
                    "app_version": env!("CARGO_PKG_VERSION"),
                    "models": result.metadata.models,
                    "search": saved.config.search,
                    "config": saved.config,
                    "llm_calls": result.metadata.llm_calls,
                    "prompt_tokens": result.metadata.prompt_tokens,
                    "completion_tokens": result.metadata.completion_tokens,
                    "cost_usd": result.metadata.cost_usd,
                    "method": RunMethod::from_state(state, result),
                });
                sessions.add_report(
                    &saved.session_id,
                    thread.as_str(),
                    &state.report,
                    &provenance,
                    self.clock.now_ms(),
                )?;
            }
        }
        Ok(())
    }

    /// What a run's model calls have used so far (a resumed run's counters start from it).
    pub fn run_usage(&self, thread: &ThreadId) -> Result<research_llm::UsageTotals, ApiError> {
        let calls: Vec<research_llm::CallRecord> = self
            .sessions()?
            .calls(thread.as_str())?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        Ok(
            Meter::new(research_llm::Budget::default(), PriceTable::builtin())
                .with_history(calls)
                .totals(),
        )
    }

    /// Sessions, newest first, optionally only those matching `text`.
    pub fn list_sessions(&self, text: Option<&str>) -> Result<Vec<SessionRecord>, ApiError> {
        Ok(self.sessions()?.list(text)?)
    }

    /// A session with its runs, reports, and the sources and evidence behind its latest report.
    pub fn session(&self, id: &str) -> Result<SessionDetail, ApiError> {
        let sessions = self.sessions()?;
        let session = sessions.get(id)?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("there is no session with id {id}"),
            )
        })?;
        let runs = sessions.runs(id)?;
        let reports = sessions.reports(id)?;
        // Findings come from the run that wrote the report shown, so its citations resolve even
        // while a follow-up has not written its own yet.
        let latest = reports
            .last()
            .map(|r| r.thread_id.clone())
            .or_else(|| runs.last().map(|r| r.0.clone()))
            .unwrap_or_default();
        let sources = sessions.sources(&latest)?;
        let known: BTreeSet<u32> = sources.iter().map(|s| s.source_id).collect();
        let method = reports
            .last()
            .and_then(|r| serde_json::from_value(r.provenance.get("method")?.clone()).ok());
        Ok(SessionDetail {
            method,
            report_html: reports
                .last()
                .map(|r| research_export::html(&r.markdown, &known))
                .unwrap_or_default(),
            reports,
            sources,
            evidence: sessions.evidence(&latest)?,
            claims: sessions.claims(&latest)?,
            runs,
            session,
        })
    }

    /// The stored text of a source, by its hash (to show and highlight a quote).
    pub fn source_text(&self, sha256: &str) -> Result<String, ApiError> {
        self.sessions()?
            .document(sha256)?
            .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "that source's text is not stored"))
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, title: &str) -> Result<(), ApiError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ApiError::new(ErrorCode::InvalidInput, "the title is empty"));
        }
        if !self.sessions()?.rename(id, title, self.clock.now_ms())? {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no session with id {id}"),
            ));
        }
        Ok(())
    }

    /// Deletes a session and everything it produced.
    pub fn delete_session(&self, id: &str) -> Result<(), ApiError> {
        if !self.sessions()?.delete(id)? {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no session with id {id}"),
            ));
        }
        Ok(())
    }

    /// The session a thread belongs to.
    pub fn session_of(&self, thread: &ThreadId) -> Result<Option<String>, ApiError> {
        Ok(self.sessions()?.session_of(thread.as_str())?)
    }
}

/// The first section after the title of a report (its summary), cut to about 1,200 characters.
fn summary_of(report: &str) -> String {
    let mut out = String::new();
    for line in report
        .lines()
        .skip_while(|l| !l.starts_with("## "))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
    {
        out.push_str(line.trim());
        out.push(' ');
    }
    let out = out.trim();
    if out.chars().count() > 1_200 {
        format!("{}…", out.chars().take(1_200).collect::<String>())
    } else {
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use research_llm::{Budget, Meter, PriceTable};
    use research_pipeline::{initial_state, RunConfig, Warning};

    use super::*;

    #[test]
    fn the_method_lists_each_unreadable_page_once_with_its_reason() {
        let mut state = initial_state("Why?", &RunConfig::default(), 0);
        let page = |url: &str, message: &str| Warning {
            node: "search_and_extract".into(),
            message: message.into(),
            url: Some(url.into()),
        };
        state.warnings = vec![
            page(
                "https://a.example/x",
                "could not read https://a.example/x: the server answered 404",
            ),
            Warning {
                node: "search_and_extract".into(),
                message: "the search \"bees\" failed: timeout".into(),
                url: None,
            },
            page(
                "https://a.example/x",
                "could not read https://a.example/x: the server answered 404",
            ),
            page(
                "https://b.example/big.pdf",
                "could not read https://b.example/big.pdf: it is larger than 5 MB",
            ),
        ];
        let meter = Meter::new(Budget::default(), PriceTable::builtin());
        let result = RunResult::from_state("t", &state, &meter, Default::default());
        let method = RunMethod::from_state(&state, &result);
        assert_eq!(
            method.unread,
            vec![
                UnreadPage {
                    url: "https://a.example/x".into(),
                    reason: "the server answered 404".into()
                },
                UnreadPage {
                    url: "https://b.example/big.pdf".into(),
                    reason: "it is larger than 5 MB".into()
                },
            ]
        );
    }
}
