//! The database the app opens at start, and the one it could not open: a damaged file or one
//! written by a newer build leaves the window up with the problem and its fix (the newest
//! backup), instead of an app that will not start. Restoring the backup opens it in place.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use research_api::{ApiError, ErrorCode, Fix, KeyStore, MemoryKeys, OsKeychain, Studio};
use tauri::{AppHandle, Manager, Runtime, State};

use crate::commands::AppState;

/// The database the app could not open, and why.
pub struct Unopened {
    /// What went wrong, with its fix (the newest backup, when there is one).
    pub problem: ApiError,
    /// The file it could not open.
    pub db: PathBuf,
}

/// The database file the app uses: `RESEARCH_STUDIO_DB`, or the app's data folder's.
pub fn db_path() -> Option<PathBuf> {
    std::env::var_os("RESEARCH_STUDIO_DB").map(PathBuf::from)
}

/// Opens the database and makes the app's state from it, or keeps why it could not.
pub fn open<R: Runtime>(app: &AppHandle<R>, log_dir: PathBuf) -> Result<(), ApiError> {
    let path = match db_path() {
        Some(p) => p,
        None => research_api::default_db_path()?,
    };
    // A shared database that cannot be opened leaves the app on this machine's file, with the
    // problem said in the window: its Settings can then put the address right.
    let (studio, storage_problem) = match Studio::open_or_local(Some(&path)) {
        Ok(opened) => opened,
        Err(problem) => {
            tracing::error!("the database could not be opened: {}", problem.message);
            app.manage(Unopened { problem, db: path });
            return Ok(());
        }
    };
    if let Some(problem) = &storage_problem {
        tracing::warn!("the shared database is not in use: {}", problem.message);
    }
    let keychain = research_api::probe_keychain();
    let keys: Arc<dyn KeyStore> = if keychain.available {
        Arc::new(OsKeychain)
    } else {
        tracing::warn!("no OS keychain: {}", keychain.detail);
        Arc::new(MemoryKeys::default())
    };
    tracing::info!(db = %studio.db_path().display(), keychain = keychain.available, "Research Studio started");
    app.manage(AppState {
        studio,
        keys,
        keychain,
        log_dir,
        storage_problem,
        runs: Default::default(),
        download: Default::default(),
        embedding_stop: Default::default(),
    });
    crate::schedules::run_while_open(app.clone());
    Ok(())
}

/// Why the database could not be opened, when it could not (the page then shows only that).
#[tauri::command]
pub fn database_problem<R: Runtime>(app: AppHandle<R>) -> Option<ApiError> {
    if app.try_state::<AppState>().is_some() {
        return None;
    }
    app.try_state::<Unopened>().map(|u| u.problem.clone())
}

/// Puts the newest backup in place of the database the app could not open, once the person
/// confirms what will be replaced (the damaged file is kept beside it, never deleted), and
/// opens it; false when they kept the file as it is.
#[tauri::command]
pub async fn restore_newest_backup<R: Runtime>(app: AppHandle<R>) -> Result<bool, ApiError> {
    let Some(unopened) = app.try_state::<Unopened>() else {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "the database is open; restore a backup from the command line",
        ));
    };
    let backup = match &unopened.problem.fix {
        Some(Fix::RestoreBackup {
            backup: Some(backup),
        }) => PathBuf::from(backup),
        _ => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                "there is no backup beside the database to restore",
            )
            .fix(Fix::DataFolder))
        }
    };
    let db = unopened.db.clone();
    let text = format!(
        "The backup {} will take the place of {}. The file there now is kept beside it, renamed \
         with today's date; nothing is deleted. Sessions made after the backup was taken are not \
         in it.",
        backup.display(),
        db.display()
    );
    if !crate::dialogs::confirm(app.clone(), "Restore the backup", text, "Restore").await? {
        return Ok(false);
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let replaced = tauri::async_runtime::spawn_blocking(move || restore(&db, &backup, now))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the restore stopped: {e}")))??;
    if let Some(kept) = replaced {
        tracing::warn!("the damaged database is kept at {}", kept.display());
    }
    let log_dir = app
        .path()
        .app_log_dir()
        .unwrap_or_else(|_| std::env::temp_dir().join("research-studio-logs"));
    open(&app, log_dir)?;
    match app.try_state::<AppState>() {
        Some(_) => Ok(true),
        None => Err(database_problem(app).unwrap_or_else(|| {
            ApiError::new(
                ErrorCode::Storage,
                "the restored database could not be opened",
            )
        })),
    }
}

fn restore(db: &Path, backup: &Path, now: i64) -> Result<Option<PathBuf>, ApiError> {
    research_api::backups::restore(db, backup, now)
}

/// Restores a backup while the database is open (Settings → Backups): the person picks one in
/// the backups folder and confirms what it replaces; the app then restarts, and the backup is
/// put in place before anything reads the database (`Studio::restore_at_next_start`). False when
/// they chose nothing or kept the database as it is.
#[tauri::command]
pub async fn restore_backup<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<bool, ApiError> {
    let going = state.runs.going();
    if going > 0 {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            format!(
                "{going} run{} going in this window; a restore restarts the app, so stop {} first",
                if going == 1 { " is" } else { "s are" },
                if going == 1 { "it" } else { "them" }
            ),
        ));
    }
    let folder = state
        .studio
        .blocking(|s| Ok(s.backup_status()?.folder))
        .await?;
    let Some(backup) = crate::dialogs::pick_in(
        app.clone(),
        "Choose a backup to restore",
        false,
        Some(("Research Studio backup", &["sqlite3"])),
        Some(PathBuf::from(folder)),
    )
    .await?
    else {
        return Ok(false);
    };
    let text = format!(
        "The backup {} will take the place of the database, and the app starts again to put it \
         there. The database as it is now is kept beside it, renamed with today's date; nothing \
         is deleted. Sessions made after the backup was taken are not in it.",
        backup.display()
    );
    if !crate::dialogs::confirm(app.clone(), "Restore a backup", text, "Restore and restart")
        .await?
    {
        return Ok(false);
    }
    state
        .studio
        .blocking(move |s| s.restore_at_next_start(&backup).map(|_| ()))
        .await?;
    tracing::warn!("restarting to restore a backup");
    app.restart()
}

/// What the restore asked for at the last start did, when one was pending as the app opened
/// the database (the window says it when it starts).
#[tauri::command]
pub fn restored(state: State<'_, AppState>) -> Option<research_api::backups::Restored> {
    state.studio.restored().cloned()
}

/// Saves every session the database the app could not open still holds, one session file
/// each, in a folder the person picks — before a backup takes its place. The file is only read.
/// `None` when no folder was chosen.
#[tauri::command]
pub async fn salvage_sessions<R: Runtime>(
    app: AppHandle<R>,
) -> Result<Option<research_api::archive::Salvage>, ApiError> {
    let Some(unopened) = app.try_state::<Unopened>() else {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "the database is open; export a session from its page",
        ));
    };
    let db = unopened.db.clone();
    let Some(folder) = crate::dialogs::pick(
        app.clone(),
        "Choose a folder to save the sessions in",
        true,
        None,
    )
    .await?
    else {
        return Ok(None);
    };
    let studio = tauri::async_runtime::spawn_blocking(move || Studio::open_read_only(&db))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the salvage stopped: {e}")))??;
    Ok(Some(studio.salvage_sessions(&folder).await?))
}
