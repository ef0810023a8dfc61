//! Settings, the app's own preferences, API keys and providers: thin wrappers over
//! `research-api`, as the CLI's `settings`, `keys` and `providers` are.

use std::sync::Arc;

use research_api::{
    ApiError, ConnectionTest, ErrorCode, KeyStatus, Preferences, ProviderStatus, Settings,
};
use tauri::{AppHandle, Runtime, State};

use crate::commands::AppState;
use crate::dialogs;

type Res<T> = Result<T, ApiError>;

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> Res<Settings> {
    state.studio.settings()
}

/// Sets one setting (checked as `research settings set` checks it); empty text unsets it.
#[tauri::command]
pub fn set_setting<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    key: String,
    value: String,
) -> Res<Settings> {
    let path = state.studio.settings_path();
    let mut settings = state.studio.settings()?;
    if value.trim().is_empty() {
        settings.unset(&key)?;
    } else {
        settings.set(&key, &value)?;
    }
    settings.save(&path)?;
    // The store plugin shares the file: reload its copy so it never writes an old one back.
    if let Ok(store) = tauri_plugin_store::StoreExt::store(&app, &path) {
        let _ = store.reload();
    }
    Ok(settings)
}

/// The app's own preferences file, beside the database (so a profile is one folder).
fn preferences_store<R: Runtime>(
    app: &AppHandle<R>,
    state: &AppState,
) -> Res<Arc<tauri_plugin_store::Store<R>>> {
    let path = state.studio.db_path().with_file_name("preferences.json");
    tauri_plugin_store::StoreExt::store(app, path).map_err(|e| {
        ApiError::new(
            ErrorCode::Storage,
            format!("could not open the preferences: {e}"),
        )
    })
}

/// What the app remembers between launches (last research choices, onboarding dismissed).
#[tauri::command]
pub fn preferences<R: Runtime>(app: AppHandle<R>, state: State<'_, AppState>) -> Res<Preferences> {
    let store = preferences_store(&app, &state)?;
    // A file edited into nonsense falls back to defaults rather than locking the user out.
    Ok(store
        .get("preferences")
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default())
}

/// Saves the app's preferences.
#[tauri::command]
pub fn save_preferences<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    preferences: Preferences,
) -> Res<()> {
    let store = preferences_store(&app, &state)?;
    let value = serde_json::to_value(&preferences)
        .map_err(|e| ApiError::new(ErrorCode::Storage, e.to_string()))?;
    store.set("preferences", value);
    store.save().map_err(|e| {
        ApiError::new(
            ErrorCode::Storage,
            format!("could not save the preferences: {e}"),
        )
    })
}

#[tauri::command]
pub fn list_keys(state: State<'_, AppState>) -> Vec<KeyStatus> {
    research_api::list_keys(state.keys.as_ref())
}

#[tauri::command]
pub fn set_key(state: State<'_, AppState>, provider: String, key: String) -> Res<Vec<KeyStatus>> {
    research_api::set_key(state.keys.as_ref(), &provider, &key)?;
    Ok(research_api::list_keys(state.keys.as_ref()))
}

/// Asks in a native dialog before a stored key is removed (the removal itself is `delete_key`,
/// so that it stays testable without a display).
#[tauri::command]
pub async fn confirm_delete_key<R: Runtime>(app: AppHandle<R>, provider: String) -> Res<bool> {
    let text = format!(
        "Delete the API key for {provider}?\n\nIt is removed from the system keychain; research with {provider} needs a key again."
    );
    dialogs::confirm(app, "Delete API key", text, "Delete").await
}

#[tauri::command]
pub fn delete_key(state: State<'_, AppState>, provider: String) -> Res<Vec<KeyStatus>> {
    research_api::delete_key(state.keys.as_ref(), &provider)?;
    Ok(research_api::list_keys(state.keys.as_ref()))
}

#[tauri::command]
pub async fn provider_status(state: State<'_, AppState>) -> Res<Vec<ProviderStatus>> {
    let settings = state.studio.settings()?;
    let library = state.studio.library().ok();
    let models_dir = state.studio.models_dir();
    Ok(research_api::providers(
        state.keys.as_ref(),
        &settings,
        library.as_ref(),
        Some(&models_dir),
    )
    .await)
}

#[tauri::command]
pub async fn test_connection(state: State<'_, AppState>, target: String) -> Res<ConnectionTest> {
    state
        .studio
        .test_connection(&target, state.keys.as_ref())
        .await
}

/// Asks for a GGUF model file with the native picker; returns its model string.
#[tauri::command]
pub async fn choose_model_file<R: Runtime>(app: AppHandle<R>) -> Res<Option<String>> {
    let picked = dialogs::pick(
        app,
        "Choose a GGUF model",
        false,
        Some(("GGUF model", &["gguf"])),
    )
    .await?;
    Ok(picked.map(|p| format!("local:{}", p.display())))
}

/// What each model did in the person's runs, with the built-in measurements, and what that
/// decides it is asked for.
#[tauri::command]
pub async fn model_measurements(
    state: State<'_, AppState>,
) -> Res<Vec<research_api::ModelMeasurement>> {
    state.studio.blocking(|s| s.model_measurements()).await
}

/// The backups beside the database: where, the newest, how many, the rotation kept.
#[tauri::command]
pub async fn backup_status(state: State<'_, AppState>) -> Res<research_api::backups::BackupStatus> {
    state.studio.blocking(|s| s.backup_status()).await
}

/// Checks the whole database with SQLite's integrity check, read-only (as `research backup
/// --check` does): the problems found, none when it is sound.
#[tauri::command]
pub async fn check_database(state: State<'_, AppState>) -> Res<Vec<String>> {
    state
        .studio
        .blocking(|s| research_api::backups::check_whole(s.db_path()))
        .await
}

/// Backs up now (as `research backup` does), then the backups as they are.
#[tauri::command]
pub async fn back_up_now(state: State<'_, AppState>) -> Res<research_api::backups::BackupStatus> {
    state
        .studio
        .blocking(|s| {
            s.backup(None)?;
            s.backup_status()
        })
        .await
}
