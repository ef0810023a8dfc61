//! The commands the page calls for research runs and sessions, and the state every command
//! reaches (the library's, the checker's and the settings' commands are in their own modules).
//! Each is a thin wrapper over `research-api` (the same functions
//! the CLI and the tests use) that maps failures to `{code, message}`. A command that touches
//! the database is async and hands the call to `Studio::blocking`: a sync command would run on
//! the UI thread, which must not wait while another process writes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use research_api::{
    Answer, ApiError, AppInfo, CancellationToken, DialogAnswer, ErrorCode, Event, EventSink,
    ExportFormat, GraphOutline, KeyStore, KeychainStatus, Mode, Paper, PendingQuestion,
    PipelineInfo, ResearchOutcome, ResearchRequest, ResearchStatus, RoleInfo, RunConfig,
    RunEstimate, SessionDetail, SessionRecord, StartedRun, Studio, ThreadId,
};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};

use crate::dialogs;

/// What every command can reach.
pub struct AppState {
    /// The database and everything in it.
    pub studio: Studio,
    /// Where keys are kept: the OS keychain, or memory for this session when there is none.
    pub keys: Arc<dyn KeyStore>,
    /// Whether the OS keychain works.
    pub keychain: KeychainStatus,
    /// The log folder.
    pub log_dir: PathBuf,
    /// Why the shared database is not in use although one is set (this machine's file is).
    pub storage_problem: Option<ApiError>,
    /// Runs in progress, by thread, so Cancel can reach them.
    pub runs: RunRegistry,
    /// The model download in progress, so it can be stopped.
    pub download: crate::downloads::DownloadSlot,
    /// Set to stop indexing the library by meaning after the batch in hand.
    pub embedding_stop: Arc<AtomicBool>,
}

type Res<T> = Result<T, ApiError>;

/// The runs going in this window, by thread: one at a time per thread, each with its cancel
/// token. A run's entry lives exactly as long as its [`RunSlot`], so a run that ends in any
/// way — a panic included — leaves no "already going" behind.
#[derive(Default)]
pub struct RunRegistry(Arc<Mutex<HashMap<String, CancellationToken>>>);

/// A run's place in the [`RunRegistry`], given back when dropped.
pub struct RunSlot {
    runs: Arc<Mutex<HashMap<String, CancellationToken>>>,
    key: String,
}

impl Drop for RunSlot {
    fn drop(&mut self) {
        self.runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.key);
    }
}

impl RunRegistry {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many runs are going.
    pub fn going(&self) -> usize {
        self.map().len()
    }

    /// Takes `thread`'s place with `cancel`, unless a run of it is going.
    pub fn start(&self, thread: &str, cancel: CancellationToken) -> Result<RunSlot, ApiError> {
        let mut runs = self.map();
        if runs.contains_key(thread) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "this run is already going; wait for it or cancel it first",
            ));
        }
        runs.insert(thread.to_string(), cancel);
        Ok(RunSlot {
            runs: self.0.clone(),
            key: thread.to_string(),
        })
    }

    /// Cancels `thread`'s run; false when none is going.
    pub fn cancel(&self, thread: &str) -> bool {
        self.map()
            .get(thread)
            .map(CancellationToken::cancel)
            .is_some()
    }

    /// The threads with a run going.
    pub fn running(&self) -> Vec<String> {
        self.map().keys().cloned().collect()
    }
}

/// Forwards engine events to the page.
struct ChannelSink(Channel<Event>);

impl EventSink for ChannelSink {
    fn emit(&self, event: Event) {
        // A closed page cannot receive; the run itself goes on and is saved.
        let _ = self.0.send(event);
    }
}

#[tauri::command]
pub async fn app_info(state: State<'_, AppState>) -> Res<AppInfo> {
    let studio = &state.studio;
    let first_run = studio
        .blocking(
            |s| Ok(s.settings()?.default_model.is_none() && s.list_sessions(None)?.is_empty()),
        )
        .await?;
    // The smoke test waits for this line: the page has loaded and reached Rust.
    eprintln!("research-studio: ready");
    Ok(AppInfo {
        db_path: studio.db_path().display().to_string(),
        storage: studio.storage().to_string(),
        storage_problem: state.storage_problem.clone(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        keychain: state.keychain.clone(),
        log_dir: state.log_dir.display().to_string(),
        first_run,
    })
}

#[tauri::command]
pub fn graph_outline(
    state: State<'_, AppState>,
    pipeline: Option<String>,
    mode: Mode,
) -> Res<GraphOutline> {
    let config = RunConfig {
        mode,
        ..RunConfig::default()
    };
    state
        .studio
        .outline(pipeline.as_deref().unwrap_or_default(), &config)
}

#[tauri::command]
pub async fn run_outline(state: State<'_, AppState>, thread_id: String) -> Res<GraphOutline> {
    let thread = ThreadId::new(thread_id);
    state.studio.blocking(move |s| s.run_outline(&thread)).await
}

#[tauri::command]
pub fn estimate_run(
    state: State<'_, AppState>,
    pipeline: Option<String>,
    config: RunConfig,
) -> Res<RunEstimate> {
    state
        .studio
        .estimate(pipeline.as_deref().unwrap_or_default(), &config)
}

#[tauri::command]
pub fn pipelines(state: State<'_, AppState>) -> Vec<PipelineInfo> {
    state.studio.pipelines()
}

#[tauri::command]
pub fn roles() -> Vec<RoleInfo> {
    research_api::roles()
}

#[tauri::command]
pub fn default_config() -> RunConfig {
    RunConfig::default()
}

#[tauri::command]
pub fn form_choices() -> research_api::FormChoices {
    research_api::form_choices()
}

#[tauri::command]
pub async fn create_research(
    state: State<'_, AppState>,
    request: ResearchRequest,
) -> Res<StartedRun> {
    let (session_id, thread_id) = state
        .studio
        .blocking(move |s| s.start_research(&request))
        .await?;
    tracing::info!(session = %session_id, thread = %thread_id, "research created");
    Ok(StartedRun {
        session_id,
        thread_id,
    })
}

#[tauri::command]
pub async fn follow_up(
    state: State<'_, AppState>,
    session_id: String,
    question: String,
) -> Res<StartedRun> {
    let id = session_id.clone();
    let thread_id = state
        .studio
        .blocking(move |s| s.follow_up(&id, &question))
        .await?;
    Ok(StartedRun {
        session_id,
        thread_id,
    })
}

/// Asks a question in an open session: classified (or as `kind` says), then either answered
/// at once (a cancel) or started as a run.
#[tauri::command]
pub async fn ask_in_session(
    state: State<'_, AppState>,
    session_id: String,
    question: String,
    kind: Option<research_api::TurnKind>,
) -> Res<research_api::Turn> {
    state
        .studio
        .ask_in_session(&session_id, &question, kind, None, state.keys.as_ref())
        .await
}

/// The stages a research run can be forked from, with what each holds.
#[tauri::command]
pub async fn fork_points(
    state: State<'_, AppState>,
    thread_id: ThreadId,
) -> Res<Vec<research_api::ForkPoint>> {
    state.studio.fork_points(&thread_id).await
}

/// Forks a research run at a stage with edits: a new run in the same session (run it with
/// `run_research`).
#[tauri::command]
pub async fn fork_research(
    state: State<'_, AppState>,
    thread_id: ThreadId,
    request: research_api::ForkRequest,
) -> Res<research_api::ForkedRun> {
    state.studio.fork_research(&thread_id, &request).await
}

/// Runs two configurations on one question side by side and tabulates them, streaming each
/// side's events to its channel.
#[tauri::command]
pub async fn compare_research(
    state: State<'_, AppState>,
    request: research_api::CompareRequest,
    on_event_a: Channel<Event>,
    on_event_b: Channel<Event>,
) -> Res<research_api::CompareOutcome> {
    let a: Arc<dyn research_api::EventSink> = Arc::new(ChannelSink(on_event_a));
    let b: Arc<dyn research_api::EventSink> = Arc::new(ChannelSink(on_event_b));
    state
        .studio
        .compare(
            &request,
            state.keys.as_ref(),
            [Some(a), Some(b)],
            CancellationToken::new(),
        )
        .await
}

/// Reads again every source a session's latest report cites and records what changed.
#[tauri::command]
pub async fn recheck_sources(
    state: State<'_, AppState>,
    session_id: String,
) -> Res<research_api::Recheck> {
    state.studio.recheck(&session_id).await
}

/// Runs (or resumes, with an answer when it waits) a research thread, streaming its events.
#[tauri::command]
pub async fn run_research<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    thread_id: ThreadId,
    answer: Option<Answer>,
    on_event: Channel<Event>,
) -> Res<ResearchOutcome> {
    let key = thread_id.to_string();
    let cancel = CancellationToken::new();
    let slot = state.runs.start(&key, cancel.clone())?;
    let result = state
        .studio
        .run_research(
            &thread_id,
            answer,
            state.keys.as_ref(),
            Some(Arc::new(ChannelSink(on_event))),
            cancel,
        )
        .await;
    drop(slot);
    match &result {
        Ok(outcome) => {
            tracing::info!(thread = %key, status = ?outcome.status, "research run stopped");
            eprintln!("research-studio: run {key} {:?}", outcome.status);
            if outcome.status != ResearchStatus::Interrupted {
                notify_if_unfocused(&app, outcome);
            }
        }
        Err(e) => {
            tracing::warn!(thread = %key, code = ?e.code, "research run failed: {}", e.message);
            eprintln!("research-studio: run {key} failed: {}", e.message);
        }
    }
    result
}

/// A long run that ends while the user looks elsewhere says so with a system notification.
fn notify_if_unfocused<R: Runtime>(app: &AppHandle<R>, outcome: &ResearchOutcome) {
    use tauri_plugin_notification::NotificationExt;
    let focused = app
        .get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(true);
    if focused
        || app
            .try_state::<tauri_plugin_notification::Notification<R>>()
            .is_none()
    {
        return;
    }
    let body = match outcome.status {
        ResearchStatus::Waiting => "The research needs your answer.".to_string(),
        _ => format!(
            "The report is ready: {} sources, {} claims checked.",
            outcome.result.sources.len(),
            outcome.result.claims.len()
        ),
    };
    if let Err(e) = app
        .notification()
        .builder()
        .title("Research Studio")
        .body(body)
        .show()
    {
        tracing::debug!("no notification: {e}");
    }
}

#[tauri::command]
pub fn cancel_run(state: State<'_, AppState>, thread_id: ThreadId) -> bool {
    state.runs.cancel(thread_id.as_str())
}

#[tauri::command]
pub fn running(state: State<'_, AppState>) -> Vec<String> {
    state.runs.running()
}

#[tauri::command]
pub async fn pending_question(
    state: State<'_, AppState>,
    thread_id: ThreadId,
) -> Res<Option<PendingQuestion>> {
    state.studio.research_question(&thread_id).await
}

/// The audit's findings on a person's edit of a thread's report draft, before it is sent.
#[tauri::command]
pub async fn check_draft(
    state: State<'_, AppState>,
    thread_id: ThreadId,
    draft: String,
) -> Res<Vec<research_api::DraftFinding>> {
    state
        .studio
        .blocking(move |s| s.check_draft(&thread_id, &draft))
        .await
}

/// The steps a thread has gone through, oldest first (the live graph marks them done when a run
/// is resumed).
#[tauri::command]
pub async fn run_history(
    state: State<'_, AppState>,
    thread_id: ThreadId,
) -> Res<Vec<research_api::CheckpointInfo>> {
    state.studio.history(&thread_id).await
}

/// Asks a pending question in a native dialog.
#[tauri::command]
pub async fn ask_native<R: Runtime>(
    app: AppHandle<R>,
    pending: PendingQuestion,
) -> Res<DialogAnswer> {
    dialogs::ask(app, pending).await
}

/// What a run's model calls have used so far.
#[tauri::command]
pub async fn run_usage(
    state: State<'_, AppState>,
    thread_id: ThreadId,
) -> Res<research_api::UsageTotals> {
    state
        .studio
        .blocking(move |s| s.run_usage(&thread_id))
        .await
}

#[tauri::command]
pub async fn list_sessions(
    state: State<'_, AppState>,
    text: Option<String>,
) -> Res<Vec<SessionRecord>> {
    state
        .studio
        .blocking(move |s| s.list_sessions(text.as_deref().filter(|t| !t.trim().is_empty())))
        .await
}

#[tauri::command]
pub async fn session(state: State<'_, AppState>, id: String) -> Res<SessionDetail> {
    state.studio.blocking(move |s| s.session(&id)).await
}

/// Every model call of a session's runs, with the prompts and answers its runs kept.
#[tauri::command]
pub async fn model_calls(
    state: State<'_, AppState>,
    session_id: String,
) -> Res<Vec<research_api::RunCalls>> {
    state
        .studio
        .blocking(move |s| s.model_calls(&session_id))
        .await
}

#[tauri::command]
pub async fn rename_session(state: State<'_, AppState>, id: String, title: String) -> Res<()> {
    state
        .studio
        .blocking(move |s| s.rename_session(&id, &title))
        .await
}

/// Deletes a session after a native confirmation; false when the user kept it.
#[tauri::command]
pub async fn delete_session<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Res<bool> {
    let detail = {
        let id = id.clone();
        state.studio.blocking(move |s| s.session(&id)).await?
    };
    if state
        .runs
        .running()
        .iter()
        .any(|t| detail.runs.iter().any(|(r, _)| r == t))
    {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "this session has a run going; cancel it before deleting the session",
        ));
    }
    let text = format!(
        "Delete “{}”?\n\nIts reports, sources and history are removed from this computer. This cannot be undone.",
        detail.session.title
    );
    if !dialogs::confirm(app, "Delete session", text, "Delete").await? {
        return Ok(false);
    }
    state
        .studio
        .blocking(move |s| s.delete_session(&id))
        .await?;
    Ok(true)
}

/// Exports a session as one file where the user chooses (`research sessions export`); the path,
/// or `None` when the save dialog was cancelled.
#[tauri::command]
pub async fn export_session<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Res<Option<String>> {
    let title = {
        let id = id.clone();
        state
            .studio
            .blocking(move |s| s.session(&id))
            .await?
            .session
            .title
    };
    let ext = research_api::archive::EXTENSION;
    let Some(mut path) = dialogs::save_path(
        app,
        "Export session",
        format!("{}.{ext}", research_api::file_stem(&title, "session")),
        ("Research Studio session", &[ext]),
    )
    .await?
    else {
        return Ok(None);
    };
    if path.extension().is_none() {
        path.set_extension(ext);
    }
    state.studio.export_session(&id, &path).await?;
    Ok(Some(path.display().to_string()))
}

/// Imports a session file the user picks (`research sessions import`); `None` when the dialog
/// was cancelled.
#[tauri::command]
pub async fn import_session<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Res<Option<research_api::archive::Imported>> {
    const EXT: &[&str] = &[research_api::archive::EXTENSION];
    let Some(path) = dialogs::pick(
        app,
        "Import session",
        false,
        Some(("Research Studio session", EXT)),
    )
    .await?
    else {
        return Ok(None);
    };
    Ok(Some(state.studio.import_session(&path).await?))
}

#[tauri::command]
pub async fn source_text(state: State<'_, AppState>, sha256: String) -> Res<String> {
    state.studio.blocking(move |s| s.source_text(&sha256)).await
}

/// The citation styles an export can use, the one in use marked.
#[tauri::command]
pub fn citation_styles(state: State<'_, AppState>) -> Res<Vec<research_api::CitationStyleChoice>> {
    state.studio.citation_styles()
}

/// Exports the session's latest report where the user chooses; the path, or `None` when the
/// save dialog was cancelled.
#[tauri::command]
pub async fn export_report<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    session_id: String,
    format: String,
    style: Option<String>,
) -> Res<Option<String>> {
    let format: ExportFormat = format.parse()?;
    let (ext, kind) = format.file();
    // Fail before the dialog when there is nothing to export.
    let report = state.studio.report_for_export(&session_id)?;
    let name = research_api::file_stem(&report.question, "report");
    let Some(mut path) = dialogs::save_path(
        app.clone(),
        "Export report",
        format!("{name}.{ext}"),
        (kind, &[ext]),
    )
    .await?
    else {
        return Ok(None);
    };
    if path.extension().is_none() {
        path.set_extension(ext);
    }
    let studio = &state.studio;
    let options = research_api::ExportOptions {
        paper: Paper::default(),
        style,
    };
    studio.export(&session_id, format, &options, &path)?;
    // The chosen style was remembered in the settings file the store plugin shares.
    if let Ok(store) = tauri_plugin_store::StoreExt::store(&app, state.studio.settings_path()) {
        let _ = store.reload();
    }
    tracing::info!(path = %path.display(), "report exported");
    Ok(Some(path.display().to_string()))
}

/// Opens a link of a report or a source in the system browser (or file manager for library
/// files); nothing external ever opens inside the app.
#[tauri::command]
pub fn open_external<R: Runtime>(app: AppHandle<R>, url: String) -> Res<()> {
    use tauri_plugin_opener::OpenerExt;
    let parsed = url::Url::parse(&url).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("`{url}` is not a link: {e}"),
        )
    })?;
    match parsed.scheme() {
        "http" | "https" | "mailto" => app.opener().open_url(url, None::<&str>),
        "file" => app.opener().reveal_item_in_dir(
            parsed
                .to_file_path()
                .map_err(|()| ApiError::new(ErrorCode::InvalidInput, "not a local file"))?,
        ),
        other => {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("links of kind `{other}:` are not opened"),
            ))
        }
    }
    .map_err(|e| ApiError::new(ErrorCode::Storage, format!("could not open the link: {e}")))
}

#[cfg(test)]
mod tests {
    use super::{CancellationToken, RunRegistry};

    #[test]
    fn a_run_that_panics_gives_its_place_back() {
        let runs = RunRegistry::default();
        let slot = runs.start("t1", CancellationToken::new()).unwrap();
        assert!(
            runs.start("t1", CancellationToken::new()).is_err(),
            "one at a time"
        );
        assert_eq!(runs.running(), ["t1"]);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let _slot = slot;
            panic!("a run fails badly");
        }));
        assert!(panicked.is_err());
        assert!(
            runs.running().is_empty(),
            "no \"already going\" left behind"
        );
        let again = runs.start("t1", CancellationToken::new()).unwrap();
        assert!(runs.cancel("t1"));
        drop(again);
        assert!(!runs.cancel("t1"));
    }
}
