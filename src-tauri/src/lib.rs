//! The Research Studio desktop shell: glue between the web UI and `research-api`.
//!
//! Commands (in [`commands`]) are thin: take the arguments, call the API, map the error to
//! `{code, message}`. A run's progress streams to the page over a `tauri::ipc::Channel` owned by
//! that one call; native dialogs are shown from Rust ([`dialogs`]), so the page needs no
//! permission beyond its own commands and the menu event.

pub mod checking;
pub mod commands;
pub mod database;
pub mod dialogs;
pub mod downloads;
pub mod library;
pub mod schedules;
pub mod settings;

use anyhow::Context;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{Emitter, Manager, Runtime};

/// Logs to stderr and to daily files in the app's log folder (a week kept).
fn init_logging(dir: &std::path::Path) -> anyhow::Result<()> {
    use tracing_subscriber::prelude::*;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let files = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .max_log_files(7)
        .filename_prefix("research-studio")
        .filename_suffix("log")
        .build(dir)
        .context("opening the log file")?;
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_env("RESEARCH_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
    };
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(tracing_subscriber::EnvFilter::from_env("RESEARCH_LOG")),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(files)
                .with_filter(filter()),
        )
        .try_init();
    Ok(())
}

/// The app menu. Its accelerators are the app's shortcuts: GTK activates them before the focused
/// web view sees the key, and the page acts on the `menu` event each item sends.
fn menu<R: Runtime>(app: &tauri::AppHandle<R>) -> tauri::Result<Menu<R>> {
    let item =
        |id: &str, text: &str, accel: &str| MenuItem::with_id(app, id, text, true, Some(accel));
    let file = Submenu::with_items(
        app,
        "File",
        true,
        &[
            &item("new-research", "New research", "CmdOrCtrl+N")?,
            &item("export-md", "Export as Markdown…", "CmdOrCtrl+E")?,
            &item("export-pdf", "Export as PDF…", "CmdOrCtrl+Shift+E")?,
            &item("export-docx", "Export as Word document…", "CmdOrCtrl+Alt+E")?,
            &PredefinedMenuItem::separator(app)?,
            &item("library", "Library", "CmdOrCtrl+L")?,
            &item("settings", "Settings", "CmdOrCtrl+,")?,
            &PredefinedMenuItem::separator(app)?,
            &PredefinedMenuItem::quit(app, None)?,
        ],
    )?;
    let edit = Submenu::with_items(
        app,
        "Edit",
        true,
        &[
            &PredefinedMenuItem::undo(app, None)?,
            &PredefinedMenuItem::redo(app, None)?,
            &PredefinedMenuItem::separator(app)?,
            &PredefinedMenuItem::cut(app, None)?,
            &PredefinedMenuItem::copy(app, None)?,
            &PredefinedMenuItem::paste(app, None)?,
            &PredefinedMenuItem::select_all(app, None)?,
        ],
    )?;
    Menu::with_items(app, &[&file, &edit])
}

/// Every command the page may call (the tests register the same list on a mock app).
pub fn invoke_handler<R: Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static
{
    tauri::generate_handler![
        commands::app_info,
        database::database_problem,
        database::restore_newest_backup,
        database::restore_backup,
        database::restored,
        database::salvage_sessions,
        commands::graph_outline,
        commands::run_outline,
        commands::pipelines,
        commands::roles,
        commands::default_config,
        commands::form_choices,
        commands::estimate_run,
        commands::create_research,
        commands::follow_up,
        commands::ask_in_session,
        commands::fork_points,
        commands::model_calls,
        commands::fork_research,
        commands::compare_research,
        commands::recheck_sources,
        commands::run_research,
        commands::cancel_run,
        commands::running,
        commands::pending_question,
        commands::run_history,
        commands::ask_native,
        commands::run_usage,
        commands::list_sessions,
        commands::session,
        commands::rename_session,
        commands::delete_session,
        commands::export_session,
        commands::import_session,
        commands::source_text,
        commands::check_draft,
        commands::export_report,
        commands::citation_styles,
        commands::open_external,
        settings::get_settings,
        settings::set_setting,
        settings::preferences,
        settings::save_preferences,
        settings::list_keys,
        settings::set_key,
        settings::confirm_delete_key,
        settings::backup_status,
        settings::model_measurements,
        settings::check_database,
        settings::back_up_now,
        settings::delete_key,
        settings::provider_status,
        settings::test_connection,
        library::library_folders,
        library::library_add,
        library::library_import,
        library::library_remove,
        library::library_reindex,
        settings::choose_model_file,
        library::library_meaning,
        library::library_embed,
        library::library_embed_stop,
        checking::choose_check_document,
        checking::choose_check_source,
        checking::check_document,
        schedules::session_schedule,
        schedules::watch_session,
        schedules::pause_schedule,
        schedules::unwatch_session,
        downloads::recommended_models,
        downloads::download_model,
        downloads::cancel_download,
        downloads::sentence_model_offer,
        downloads::download_sentence_model,
    ]
}

/// The development server (`devUrl` in `tauri.conf.json`), the app's page in dev builds only.
const DEV_URL: &str = "http://127.0.0.1:5173";

/// Whether the window may show `url`: the app's own page only — its bundled assets, or the dev
/// server in a dev build. Anything else (a link in a report, a page that redirects, a script
/// that sets `location`) is refused here, whatever the UI does: the window holds the app's IPC.
/// External links go to the system browser through the opener.
fn app_page(url: &tauri::Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" if url.host_str() == Some("tauri.localhost") => true,
        "http" if cfg!(dev) => {
            tauri::Url::parse(DEV_URL).is_ok_and(|dev| dev.origin() == url.origin())
        }
        "about" => url.as_str() == "about:blank",
        _ => false,
    }
}

/// Starts the app.
pub fn run() {
    research_api::check_with_meaning();
    let result = tauri::Builder::default()
        // First: a second launch focuses the running window instead of opening another.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.unminimize();
                let _ = w.set_focus();
            }
        }))
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_store::Builder::default().build())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(
            tauri::plugin::Builder::<tauri::Wry>::new("navigation-guard")
                .on_navigation(|_, url| {
                    let allowed = app_page(url);
                    if !allowed {
                        tracing::warn!(%url, "refused to navigate the window away from the app");
                    }
                    allowed
                })
                .build(),
        )
        .menu(menu)
        .on_menu_event(|app, event| {
            let _ = app.emit_to("main", "menu", event.id().0.as_str());
        })
        .setup(|app| {
            let log_dir = app
                .path()
                .app_log_dir()
                .unwrap_or_else(|_| std::env::temp_dir().join("research-studio-logs"));
            if let Err(e) = init_logging(&log_dir) {
                eprintln!("research-studio: logging to files is off: {e:#}");
            }
            database::open(app.handle(), log_dir).map_err(|e| {
                anyhow::anyhow!("Research Studio could not open its database: {}", e.message)
            })?;
            Ok(())
        })
        .invoke_handler(invoke_handler())
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("research-studio: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod navigation_tests {
    use super::*;

    #[test]
    fn the_window_shows_the_app_and_nothing_else() {
        let url = |u: &str| tauri::Url::parse(u).unwrap();
        assert!(app_page(&url("tauri://localhost/index.html")));
        assert!(app_page(&url("http://tauri.localhost/")));
        for away in [
            "https://example.org/",
            "http://127.0.0.1:11434/api/tags",
            "file:///etc/passwd",
            "tauri://evil.example/",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
        ] {
            assert!(!app_page(&url(away)), "{away}");
        }
    }
}
