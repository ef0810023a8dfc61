//! Checking a document's citations: choosing it and its sources with the native picker, and
//! the checker itself (`research check` in the CLI).

use research_api::ApiError;
use tauri::{AppHandle, Runtime, State};

use crate::commands::AppState;
use crate::dialogs;

type Res<T> = Result<T, ApiError>;

/// Asks for a Markdown or text document to check with the native picker and reads it.
#[tauri::command]
pub async fn choose_check_document<R: Runtime>(
    app: AppHandle<R>,
) -> Res<Option<research_api::ChosenDocument>> {
    let filter = Some(("Markdown or text", &["md", "markdown", "txt"][..]));
    let Some(path) = dialogs::pick(app, "Choose a document to check", false, filter).await? else {
        return Ok(None);
    };
    Ok(Some(research_api::ChosenDocument::read(&path)?))
}

/// Asks for a source file of a checked document with the native picker; returns its path.
#[tauri::command]
pub async fn choose_check_source<R: Runtime>(app: AppHandle<R>) -> Res<Option<String>> {
    let picked = dialogs::pick(app, "Choose a source", false, None).await?;
    Ok(picked.map(|p| p.display().to_string()))
}

/// Checks a document against its sources (the citation checker).
#[tauri::command]
pub async fn check_document(
    state: State<'_, AppState>,
    request: research_api::CheckRequest,
) -> Res<research_api::DocumentCheck> {
    state.studio.check_document(request).await
}
