//! The Research Studio desktop shell: glue between the web UI and `research-api`.
//!
//! Commands are thin: take the arguments, call the API, map the error to `{code, message}`.
//! Run progress streams to the page over a `tauri::ipc::Channel` owned by that one call.

use std::path::PathBuf;
use std::sync::Arc;

use research_api::{
    demo::DemoConfig, ApiError, AppInfo, CancellationToken, ErrorCode, Event, EventSink, RunReport,
    Studio,
};
use tauri::ipc::Channel;
use tauri::Manager;

/// What every command can reach.
struct AppState {
    studio: Studio,
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
fn app_info(state: tauri::State<'_, AppState>) -> AppInfo {
    AppInfo {
        db_path: state.studio.db_path().display().to_string(),
        autorun_demo: std::env::var_os("RESEARCH_STUDIO_AUTORUN_DEMO").is_some(),
    }
}

#[tauri::command]
async fn run_demo(
    state: tauri::State<'_, AppState>,
    workers: u32,
    concurrency: u32,
    task_ms: u64,
    on_event: Channel<Event>,
) -> Result<RunReport, ApiError> {
    let studio = &state.studio;
    let thread = studio.create_demo(DemoConfig {
        workers,
        concurrency,
        task_ms,
        exec_log: None,
    })?;
    let report = studio
        .run(
            &thread,
            Some(Arc::new(ChannelSink(on_event))),
            CancellationToken::new(),
        )
        .await?;
    tracing::info!(thread = %thread, status = ?report.status, "demo run ended");
    // The smoke test waits for this line on stderr.
    eprintln!("research-studio: demo run {thread} {:?}", report.status);
    Ok(report)
}

fn db_path() -> Option<PathBuf> {
    std::env::var_os("RESEARCH_STUDIO_DB").map(PathBuf::from)
}

/// Starts the app.
pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("RESEARCH_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_store::Builder::default().build())
        .setup(|app| {
            let studio = Studio::open(db_path().as_deref()).map_err(|e| {
                ApiError::new(
                    ErrorCode::Storage,
                    format!("Research Studio could not open its database: {}", e.message),
                )
            })?;
            app.manage(AppState { studio });
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![app_info, run_demo])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("research-studio: {e}");
        std::process::exit(1);
    }
}
