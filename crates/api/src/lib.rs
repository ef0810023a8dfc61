//! The one facade of Research Studio that the `research` CLI, the desktop app and the tests call.
//!
//! It owns the database location, typed ids, run configurations and the mapping of every failure
//! to an [`ApiError`] with a code the UI can branch on. Nothing here knows about a terminal or a
//! window: progress goes to an [`EventSink`], and cancellation comes in as a token.
#![deny(missing_docs)]

pub use research_pipeline::report::days_from_civil;

mod app;
pub mod archive;
mod ask;
pub mod backups;
pub mod bindings;
mod blocking;
mod check;
mod choices;
mod database;
pub mod demo;
mod error;
mod export;
pub(crate) mod in_flight;
mod keys;
mod meaning;
mod measurements;
mod models;
mod progress;
mod providers;
mod research;
mod search;
mod sentence_model;
mod settings;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use app::{
    probe_keychain, roles, ConnectionTest, DialogAnswer, GraphOutline, KeychainStatus, StartedRun,
    TextAnswer,
};
pub use ask::{ask, AskAnswer, AskRequest, MAX_PROMPT_CHARS};
pub use check::{
    check_document, read_check_document, read_check_sources, read_weights, second_opinion,
    CheckMeaning, CheckRequest, CheckSource, CheckStatus, CheckWeights, CheckedSentence,
    CheckedSourceText, ChosenDocument, DocumentCheck, MAX_CHECK_DOCUMENT_BYTES,
    MAX_CHECK_SENTENCES,
};
pub use choices::{form_choices, Choice, FormChoices, ProbeModel, SettingKey};
pub use database::DATABASE_ENV;
pub use error::{ApiError, ErrorCode, Fix};
pub use export::{file_stem, fonts_dir, CitationStyleChoice, ExportFormat, ExportOptions};
pub use keys::{
    connect_settings, delete_key, key_names, list_keys, resolve as resolve_key, set_key, KeySource,
    KeyStatus, KeyStore, KeyedProvider, MemoryKeys, OsKeychain, KEYED_PROVIDERS,
};
pub use meaning::{time_left, EmbedProgress, DISTILLED_FROM};
pub use measurements::ModelMeasurement;
pub use models::{
    download_model, human_bytes, recommended_models, DownloadProgress, DownloadRequest,
    DownloadedModel, FileKind, RecommendedModel,
};
pub use progress::ProgressLines;
pub use providers::{providers, ProviderStatus, PROBE_MODELS};
pub use research::{
    CompareColumn, CompareOutcome, CompareRequest, CompareSide, CriterionWeight, ForkRequest,
    ForkedRun, LostSupport, MultiSearch, PendingQuestion, Recheck, ResearchOutcome,
    ResearchRequest, ResearchStatus, ReviewView, RunCalls, RunOrigin, RunStanding, ScheduleRun,
    ScheduleView, SessionDetail, SourceCheck, SourceState, Turn, TurnView, CACHE_TTL_MS,
    MAX_CARRIED_EVIDENCE, MAX_QUESTION_CHARS, MIN_EVERY_MS, SCHEDULE_LEASE_MS, SUMMARY_AFTER_TURNS,
    VERBATIM_TURNS,
};
pub use research_export::{CitationStyle, Paper};
/// The extraction child every binary answers first thing in `main` (see [`research_fetch::child`]).
pub use research_fetch::child as extraction_child;
pub use research_fetch::{Document, DocumentKind};
pub use research_graph::{
    CancellationToken, CheckpointInfo, Event, EventLog, EventSink, Interrupt, ThreadId,
};
use research_graph::{
    Checkpointer, Clock, CompiledGraph, Resume, RunOptions, RunOutcome, SystemClock,
};
pub use research_library::{ImportReport, IndexReport, Library, LibraryFolder};
pub use research_llm::ConnectSettings;
pub use research_llm::{Budget, Flow, LlmClient, ModelRouting, UsageTotals};
pub use research_pipeline::eval::judge::{judge as judge_report, Verdicts};
pub use research_pipeline::{
    OutlineStep, Pipeline, PipelineInfo, Progress, Registry, Role, RoleInfo, RunEstimate,
    RunMethod, UnreadPage,
};
pub use sentence_model::{
    install_sentence_model, sentence_model_offer, SentenceModelOffer, SentenceModelSource,
};

/// Connects to the model named by `spec` (`research ask`, `research eval --judge`).
pub fn connect_model(
    spec: &str,
    settings: &ConnectSettings,
) -> Result<Arc<dyn LlmClient>, ApiError> {
    Ok(research_llm::connect(spec, settings)?)
}

/// Runs the LLM-as-judge evaluators on a result.
pub async fn judge(model: &dyn LlmClient, result: &RunResult) -> Result<Verdicts, ApiError> {
    Ok(judge_report(model, result).await?)
}
pub use research_pipeline::conversation::{Classification, Decider, TurnKind};
pub use research_pipeline::fork::ForkPoint;
pub use research_pipeline::report::date as report_date;
pub use research_pipeline::steps::audit::{DraftFinding, DraftProblem};
pub use research_pipeline::{
    eval::cases::{score as score_case, CaseScore, CaseSet, EvalCase},
    eval::{structural_checks, Check, RunResult},
    Answer, Background, Depth, Mode, Plan, Question, ReviewPoints, ReviewTimeout, RunConfig,
    Structure, Style, TimeoutAction, TrustVariant, DEFAULT_MAX_REVISIONS,
    MAX_REVIEW_TIMEOUT_MINUTES, MAX_REVISIONS,
};
pub use research_search::{Hit, HitKind, SearchSettings};
pub use research_store::{SessionRecord, SessionStatus};
pub use search::{
    auto_providers, search, search_names, search_settings, ProviderFailure, SearchOutcome,
    SearchRequest,
};
pub use settings::{setting_names, Settings, BUILTIN_LISTS, SETTINGS_FILE, SETTING_KEYS};

/// Fetches one page or PDF and extracts its readable text (`research fetch`).
pub async fn fetch(url: &str, allowed_hosts: &[String]) -> Result<Document, ApiError> {
    use research_fetch::Fetcher;
    let policy = research_fetch::FetchPolicy {
        allowed_hosts: research_fetch::AllowedHosts::new(allowed_hosts.iter().cloned()),
        extractor: research_fetch::Extractor::for_this_program(),
        ..Default::default()
    };
    Ok(research_fetch::HttpFetcher::new(policy)?.fetch(url).await?)
}
use research_store::{ThreadRecord, ThreadStore};
use serde::{Deserialize, Serialize};

/// The desktop app's identifier; the CLI uses the same data folder so both see the same sessions.
pub const APP_IDENTIFIER: &str = "dev.researchstudio.app";

/// The database file used when none is given: `<data dir>/dev.researchstudio.app/research.sqlite3`.
pub fn default_db_path() -> Result<PathBuf, ApiError> {
    let dirs = directories::BaseDirs::new().ok_or_else(|| {
        ApiError::new(
            ErrorCode::Storage,
            "could not find a home folder to keep the database in",
        )
        .fix(Fix::DataFolder)
    })?;
    Ok(dirs
        .data_dir()
        .join(APP_IDENTIFIER)
        .join("research.sqlite3"))
}

/// What the desktop app shows at start-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct AppInfo {
    /// The database file in use.
    pub db_path: String,
    /// Where sessions and runs are kept, as a person is told ([`Studio::storage`]).
    #[serde(default)]
    pub storage: String,
    /// Why the shared database is not in use although one is set (this machine's file is).
    #[serde(default)]
    pub storage_problem: Option<ApiError>,
    /// The app's version.
    pub version: String,
    /// Where API keys are kept.
    pub keychain: KeychainStatus,
    /// The folder of the app's log files.
    pub log_dir: String,
    /// Nothing is set up yet (no default model and no session): show the onboarding.
    pub first_run: bool,
}

/// What the desktop app remembers between launches that the CLI has no use for: the choices of
/// the last research started and whether the onboarding was dismissed. The app keeps it with
/// `tauri-plugin-store`, beside the database; shared settings (models, URLs) live in
/// [`Settings`] instead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Preferences {
    /// Mode of the last research.
    pub mode: Option<Mode>,
    /// Depth of the last research.
    pub depth: Option<Depth>,
    /// Report structure of the last research.
    pub structure: Option<Structure>,
    /// Report language of the last research (`None`: the question's).
    pub language: Option<String>,
    /// Search providers of the last research, as typed.
    pub search: Option<String>,
    /// Review points of the last research.
    pub review: Option<ReviewPoints>,
    /// The onboarding was dismissed or completed.
    pub onboarding_done: bool,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Reached the end.
    Finished,
    /// Waits for an answer.
    Interrupted,
    /// Cancelled; can be resumed.
    Cancelled,
}

/// The result of running or resuming a thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunReport {
    /// The thread.
    pub thread_id: ThreadId,
    /// How it ended.
    pub status: RunStatus,
    /// The final state, as JSON.
    pub state: serde_json::Value,
    /// Pending questions when interrupted.
    pub interrupts: Vec<Interrupt>,
}

/// A thread as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ThreadSummary {
    /// The thread.
    pub thread_id: ThreadId,
    /// Which graph it runs.
    pub graph: String,
    /// When it was created (ms since the epoch).
    pub created_at_ms: i64,
}

/// How far the library is indexed by meaning (its passages' vectors from the sentence model).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LibraryMeaning {
    /// Whether the sentence model is installed (`scripts/fetch-embedder.sh`).
    pub installed: bool,
    /// Passage vectors stored.
    #[ts(type = "number")]
    pub vectors: u64,
    /// Passages in the library.
    #[ts(type = "number")]
    pub passages: u64,
    /// Whether indexing by meaning is due: the model is installed and some passages have no
    /// vector yet. The app then indexes in the background without being asked — after a
    /// folder is added, and at start for what an earlier session left — and `research library
    /// add` goes on to it; a new user never needs to know the step exists.
    pub due: bool,
}

/// An open Research Studio database. Cloning it is cheap: the clones share its connections.
#[derive(Clone)]
pub struct Studio {
    checkpointer: Arc<dyn Checkpointer>,
    threads: Arc<dyn ThreadStore>,
    sessions: Arc<dyn research_store::SessionStore>,
    /// This machine's library index (in the same database as the rest).
    library: Arc<dyn research_library::LibraryIndex>,
    /// Its vectors as searches read them, shared by every library this process makes on it.
    vectors: Arc<research_library::VectorSearch>,
    /// Where its records are, as a person is told (SQLite's file or a shared server).
    storage: String,
    clock: Arc<dyn Clock>,
    path: PathBuf,
    registry: Registry,
    /// The sentence-embedding model, loaded on first use (`None` inside: not installed, or it
    /// failed to load, which is logged).
    embedder: Arc<std::sync::OnceLock<Option<Arc<dyn research_embed::Embedder>>>>,
    /// Pages being fetched and searches being run by any run of this process, so two at once
    /// ask the network once ([`in_flight`]).
    pages: Arc<in_flight::PagesInFlight>,
    searches: Arc<in_flight::SearchesInFlight>,
    /// The restore asked for at the last start, applied when this one opened the database.
    restored: Option<backups::Restored>,
    /// The upgraded copy a damaged file of an earlier schema is read through (read-only
    /// Studios), removed when the Studio goes.
    _salvage_copy: Option<Arc<tempfile::TempDir>>,
}

const DEMO: &str = "demo";

/// The installed sentence model (`scripts/fetch-embedder.sh`, or the folder
/// `RESEARCH_STUDIO_EMBEDDER` names), loaded once per process and shared by the library's
/// ranking and the citation checker; `None` when it is not installed or does not load (logged).
/// Looked for again while it is not installed, so a model installed from the app
/// ([`install_sentence_model`]) is used without a restart; one that fails to load is not
/// tried again.
fn sentence_model() -> Option<Arc<research_embed::BertEmbedder>> {
    static MODEL: Mutex<Option<Option<Arc<research_embed::BertEmbedder>>>> = Mutex::new(None);
    let mut model = MODEL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(loaded) = model.as_ref() {
        return loaded.clone();
    }
    let dir = research_embed::locate_model()?;
    let loaded = match research_embed::BertEmbedder::load(&dir) {
        Ok(m) => Some(Arc::new(m)),
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "the embedding model did not load; the library ranks by keywords alone and the checker reads words alone");
            None
        }
    };
    *model = Some(loaded.clone());
    loaded
}

/// Lets the citation checker read meaning with the installed sentence model, loaded on the
/// first check that needs it: the program (`research`, the app) calls this once at start, so
/// the audit, `research check`, trust marks, recheck and MCP all read with the same checker.
/// Without the model the checker reads words alone, with the weights fitted that way. Where
/// `scripts/fetch-entailment.sh` installed the entailment reader (or `RESEARCH_STUDIO_ENTAILMENT`
/// names one), the checker reads entailment with it as well.
pub fn check_with_meaning() {
    research_check::meaning::install(|| {
        sentence_model().map(|m| m as Arc<dyn research_embed::TokenEmbedder>)
    });
    research_check::meaning::install_entailment(|| {
        let dir = research_entail::locate_model()?;
        match research_entail::OnnxEntailment::load(&dir) {
            Ok(reader) => Some(Arc::new(reader) as Arc<dyn research_entail::Entailment>),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "the entailment reader did not load; the checker reads without it");
                None
            }
        }
    });
}

impl Studio {
    /// Opens the database at `path`, or at [`default_db_path`] when `None`.
    pub fn open(path: Option<&Path>) -> Result<Self, ApiError> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => default_db_path()?,
        };
        let restored = Self::restore_pending(&path);
        let stores = database::open(&path)?;
        Ok(Self::on(path, stores).with_restored(restored))
    }

    /// Like [`Studio::open`], but when the shared database cannot be opened (a wrong address,
    /// a server that is down), this machine's file is opened instead and the problem returned
    /// beside it: the app must still start, so its Settings can put the address right.
    pub fn open_or_local(path: Option<&Path>) -> Result<(Self, Option<ApiError>), ApiError> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => default_db_path()?,
        };
        let restored = Self::restore_pending(&path);
        match database::open(&path) {
            Ok(stores) => Ok((Self::on(path, stores).with_restored(restored), None)),
            Err(problem) if database::shared_address(&path).ok().flatten().is_some() => {
                let local = database::open_local(&path)?;
                Ok((Self::on(path, local), Some(problem)))
            }
            Err(e) => Err(e),
        }
    }

    fn on(path: PathBuf, stores: database::Stores) -> Self {
        let vectors =
            research_library::VectorSearch::kept_in(meaning::vector_folder(&path, &stores.shown));
        Self {
            checkpointer: stores.checkpointer,
            threads: stores.threads,
            sessions: stores.sessions,
            library: stores.library,
            vectors: Arc::new(vectors),
            storage: stores.shown,
            _salvage_copy: stores.copy,
            clock: Arc::new(SystemClock),
            path,
            registry: Registry::builtin(),
            embedder: Arc::default(),
            pages: Arc::default(),
            searches: Arc::default(),
            restored: None,
        }
    }

    /// Makes `pipeline` runnable here besides the built-in ones (its threads resume on it).
    pub fn with_pipeline(mut self, pipeline: Arc<dyn Pipeline>) -> Self {
        self.registry = self.registry.with(pipeline);
        self
    }

    /// The pipelines a research can run on, the default first.
    pub fn pipelines(&self) -> Vec<PipelineInfo> {
        self.registry.list()
    }

    /// Uses `clock` for new threads and checkpoints (tests).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The user's library: this machine's folders, indexed in this database (on a shared
    /// server, apart from other machines' folders). Adding and re-indexing a folder with it
    /// index by keywords only, so a folder is searchable at once; [`Studio::embed_library`] adds
    /// the meaning index.
    pub fn library(&self) -> Result<Library, ApiError> {
        Ok(Library::on(self.library.clone())
            .with_vector_search(self.vectors.clone())
            .with_extractor(research_fetch::Extractor::for_this_program()))
    }

    /// The installed sentence-embedding model (`scripts/fetch-embedder.sh`, or the folder
    /// `RESEARCH_STUDIO_EMBEDDER` names), loaded once; `None` when it is not installed or does
    /// not load (logged).
    pub fn embedder(&self) -> Option<Arc<dyn research_embed::Embedder>> {
        if let Some(e) = self.embedder.get() {
            return e.clone();
        }
        // Not installed is asked again next time (the app may install it meanwhile).
        let model = sentence_model().map(|m| m as Arc<dyn research_embed::Embedder>)?;
        self.embedder.get_or_init(|| Some(model)).clone()
    }

    /// The settings file shared with the desktop app (next to the database).
    pub fn settings_path(&self) -> PathBuf {
        Settings::path_for(&self.path)
    }

    /// The user's settings.
    pub fn settings(&self) -> Result<Settings, ApiError> {
        Settings::load(&self.settings_path())
    }

    /// Now, by this Studio's clock (ms since the epoch): what "now" means for schedules and
    /// records, injected in tests.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Where sessions, runs and checkpoints are kept, as a person is told: this machine's
    /// SQLite file, or the PostgreSQL server a team shares (`DATABASE_URL` or the `database`
    /// setting).
    pub fn storage(&self) -> &str {
        &self.storage
    }

    /// The database file.
    pub fn db_path(&self) -> &Path {
        &self.path
    }

    /// Where downloaded models go: `models/` beside the database.
    pub fn models_dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(|d| d.join("models"))
            .unwrap_or_else(|| PathBuf::from("models"))
    }

    fn cp(&self) -> Arc<dyn Checkpointer> {
        self.checkpointer.clone()
    }

    /// The demo graph as Mermaid.
    pub fn demo_mermaid() -> String {
        demo::graph(None).map(|g| g.mermaid()).unwrap_or_default()
    }

    /// A research pipeline (the default one for an empty name) as Mermaid.
    pub fn research_mermaid(&self, pipeline: &str) -> Result<String, ApiError> {
        Ok(self
            .pipeline(pipeline)?
            .outline(&RunConfig::default())?
            .mermaid)
    }

    /// Registers a new demo thread; run it with [`Studio::run`].
    pub fn create_demo(&self, config: demo::DemoConfig) -> Result<ThreadId, ApiError> {
        if config.workers == 0 || config.workers > 10_000 {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "--workers must be between 1 and 10000",
            ));
        }
        if config.concurrency == 0 {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "--concurrency must be at least 1",
            ));
        }
        let thread_id = ThreadId::new(uuid::Uuid::now_v7().to_string());
        self.threads.insert(&ThreadRecord {
            thread_id: thread_id.to_string(),
            graph: DEMO.into(),
            config: serde_json::to_value(&config)
                .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?,
            created_at_ms: self.clock.now_ms(),
        })?;
        Ok(thread_id)
    }

    fn record(&self, thread: &ThreadId) -> Result<ThreadRecord, ApiError> {
        self.threads.get(thread.as_str())?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("there is no run with id {thread}"),
            )
        })
    }

    fn demo_config(record: &ThreadRecord) -> Result<demo::DemoConfig, ApiError> {
        serde_json::from_value(record.config.clone()).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!(
                    "the saved configuration of run {} is unreadable: {e}",
                    record.thread_id
                ),
            )
        })
    }

    /// Runs a newly created thread from its start.
    pub async fn run(
        &self,
        thread: &ThreadId,
        events: Option<Arc<dyn EventSink>>,
        cancel: CancellationToken,
    ) -> Result<RunReport, ApiError> {
        let (graph, opts) = self.prepare(thread, events, cancel)?;
        report(
            thread,
            graph.invoke(demo::DemoState::default(), opts).await?,
        )
    }

    /// Continues an unfinished or interrupted thread from its latest checkpoint.
    pub async fn resume(
        &self,
        thread: &ThreadId,
        events: Option<Arc<dyn EventSink>>,
        cancel: CancellationToken,
    ) -> Result<RunReport, ApiError> {
        let (graph, opts) = self.prepare(thread, events, cancel)?;
        report(thread, graph.resume(Resume::empty(), opts).await?)
    }

    /// The thread's graph and its run options, from the configuration saved with the thread.
    #[allow(clippy::type_complexity)]
    fn prepare(
        &self,
        thread: &ThreadId,
        events: Option<Arc<dyn EventSink>>,
        cancel: CancellationToken,
    ) -> Result<
        (
            CompiledGraph<demo::DemoState, demo::DemoConfig>,
            RunOptions<demo::DemoConfig>,
        ),
        ApiError,
    > {
        let config = Self::demo_config(&self.record(thread)?)?;
        let graph = demo::graph(Some(self.cp()))?;
        Ok((graph, self.options(thread, config, events, cancel)))
    }

    fn options(
        &self,
        thread: &ThreadId,
        config: demo::DemoConfig,
        events: Option<Arc<dyn EventSink>>,
        cancel: CancellationToken,
    ) -> RunOptions<demo::DemoConfig> {
        let concurrency = config.concurrency as usize;
        let mut opts = RunOptions::new(thread.clone(), config)
            .max_concurrency(concurrency)
            .cancel(cancel)
            .clock(self.clock.clone());
        opts.events = events;
        opts
    }

    /// The checkpoints of a thread, oldest first.
    pub async fn history(&self, thread: &ThreadId) -> Result<Vec<CheckpointInfo>, ApiError> {
        self.record(thread)?;
        Ok(demo::graph(Some(self.cp()))?.history(thread).await?)
    }

    /// Every registered thread, newest first.
    pub fn threads(&self) -> Result<Vec<ThreadSummary>, ApiError> {
        Ok(self
            .threads
            .list()?
            .into_iter()
            .map(|r| ThreadSummary {
                thread_id: ThreadId::new(r.thread_id),
                graph: r.graph,
                created_at_ms: r.created_at_ms,
            })
            .collect())
    }
}

fn report<S: Serialize>(thread: &ThreadId, outcome: RunOutcome<S>) -> Result<RunReport, ApiError> {
    let (status, interrupts) = match &outcome {
        RunOutcome::Finished(_) => (RunStatus::Finished, Vec::new()),
        RunOutcome::Interrupted { interrupts, .. } => (RunStatus::Interrupted, interrupts.clone()),
        RunOutcome::Cancelled(_) => (RunStatus::Cancelled, Vec::new()),
    };
    let state = serde_json::to_value(outcome.state())
        .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    Ok(RunReport {
        thread_id: thread.clone(),
        status,
        state,
        interrupts,
    })
}
