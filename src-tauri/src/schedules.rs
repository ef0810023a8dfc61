//! Schedules in the app: the session view's *Keep current* commands (a few lines each over
//! `research-api`), and the loop that runs due schedules while the app is open — a changed
//! source is said with a desktop notification and the page is told to refresh.

use std::time::Duration;

use research_api::{ApiError, ScheduleRun, ScheduleView};
use tauri::{AppHandle, Emitter, Manager, Runtime, State};

use crate::commands::AppState;

/// How often the open app looks for due schedules (they are due hours apart at the least).
const TICK: Duration = Duration::from_secs(10 * 60);

/// The event the page listens to after due schedules ran.
pub const SCHEDULES_RAN: &str = "schedules-ran";

/// A session's schedule, if it has one.
#[tauri::command]
pub async fn session_schedule(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<Option<ScheduleView>, ApiError> {
    state.studio.schedule(&session_id)
}

/// Keeps a session current every `every` (`12h`, `1d`, `1w`).
#[tauri::command]
pub async fn watch_session(
    state: State<'_, AppState>,
    session_id: String,
    every: String,
    research_again: bool,
) -> Result<ScheduleView, ApiError> {
    state
        .studio
        .watch(&session_id, &every, research_again, None)
}

/// Pauses or resumes a session's schedule.
#[tauri::command]
pub async fn pause_schedule(
    state: State<'_, AppState>,
    session_id: String,
    paused: bool,
) -> Result<(), ApiError> {
    state.studio.pause_schedule(&session_id, paused)
}

/// Stops keeping a session current.
#[tauri::command]
pub async fn unwatch_session(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<(), ApiError> {
    state.studio.unwatch(&session_id)
}

/// Runs the due schedules now and every [`TICK`] while the app is open, and takes the daily
/// backup when one is due ([`research_api::Studio::backup_if_due`]).
pub fn run_while_open<R: Runtime>(app: AppHandle<R>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let ran = {
                let state = app.state::<AppState>();
                state.studio.run_due_now(state.keys.as_ref()).await
            };
            match ran {
                Ok(runs) if !runs.is_empty() => tell(&app, &runs),
                Ok(_) => {}
                Err(e) => tracing::warn!("due schedules could not run: {}", e.message),
            }
            // The daily backup and its rotation (the api decides whether one is due), off the
            // runtime's workers: a large database takes a while to copy.
            let studio = app.state::<AppState>().studio.clone();
            match tokio::task::spawn_blocking(move || studio.backup_if_due()).await {
                Ok(Ok(Some(path))) => tracing::info!(path = %path.display(), "daily backup taken"),
                Ok(Ok(None)) => {}
                Ok(Err(e)) => tracing::warn!("the daily backup failed: {}", e.message),
                Err(e) => tracing::warn!("the daily backup stopped: {e}"),
            }
            tokio::time::sleep(TICK).await;
        }
    });
}

/// What the due schedules found: a notification for each session whose sources changed (or
/// whose run failed), and the event the page refreshes on.
fn tell<R: Runtime>(app: &AppHandle<R>, runs: &[ScheduleRun]) {
    use tauri_plugin_notification::NotificationExt;
    for run in runs.iter().filter(|r| r.changed || r.error.is_some()) {
        let title = if run.title.is_empty() {
            "A watched session"
        } else {
            &run.title
        };
        if let Err(e) = app
            .notification()
            .builder()
            .title(format!("Research Studio — {title}"))
            .body(run.outcome.clone())
            .show()
        {
            tracing::debug!("no notification: {e}");
        }
    }
    let _ = app.emit_to("main", SCHEDULES_RAN, runs);
}
