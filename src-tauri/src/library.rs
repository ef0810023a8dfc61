//! The library: its folders, adding and removing one with the native picker, importing a
//! reference manager's export, indexing by keywords and by meaning (stoppable), each a thin
//! wrapper over `research-api`.

use std::sync::atomic::Ordering;

use research_api::{ApiError, ImportReport, IndexReport, LibraryFolder};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};

use crate::commands::AppState;
use crate::dialogs;

type Res<T> = Result<T, ApiError>;

#[tauri::command]
pub async fn library_folders(state: State<'_, AppState>) -> Res<Vec<LibraryFolder>> {
    state.studio.blocking(|s| Ok(s.library()?.folders()?)).await
}

/// Asks for a folder with the native picker and indexes it, reporting progress.
#[tauri::command]
pub async fn library_add<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    on_progress: Channel<IndexReport>,
) -> Res<Option<IndexReport>> {
    let Some(folder) = dialogs::pick(app, "Add a folder to the library", true, None).await? else {
        return Ok(None);
    };
    let report = state
        .studio
        .blocking(move |s| {
            Ok(s.library()?.add(&folder, &|r| {
                let _ = on_progress.send(r.clone());
            })?)
        })
        .await?;
    Ok(Some(report))
}

/// Asks for a reference manager's export (BibTeX or CSL-JSON with attached files) with the
/// native picker and adds it to the library, reporting the indexing's progress.
#[tauri::command]
pub async fn library_import<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    on_progress: Channel<IndexReport>,
) -> Res<Option<ImportReport>> {
    const EXPORTS: &[&str] = &["bib", "json"];
    let Some(export) = dialogs::pick(
        app,
        "Import a reference manager's export",
        false,
        Some(("BibTeX or CSL-JSON", EXPORTS)),
    )
    .await?
    else {
        return Ok(None);
    };
    let report = state
        .studio
        .blocking(move |s| {
            Ok(s.library()?.import(&export, &|r| {
                let _ = on_progress.send(r.clone());
            })?)
        })
        .await?;
    Ok(Some(report))
}

#[tauri::command]
pub async fn library_remove<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    path: String,
) -> Res<bool> {
    let text = format!(
        "Remove {path} from the library?\n\nIts files stay on disk; only the index is removed."
    );
    if !dialogs::confirm(app, "Remove folder", text, "Remove").await? {
        return Ok(false);
    }
    state
        .studio
        .blocking(move |s| Ok(s.library()?.remove(std::path::Path::new(&path))?))
        .await?;
    Ok(true)
}

/// How far the library is indexed by meaning.
#[tauri::command]
pub async fn library_meaning(state: State<'_, AppState>) -> Res<research_api::LibraryMeaning> {
    state.studio.blocking(|s| s.library_meaning()).await
}

/// Indexes the library by meaning (the installed sentence model), reporting progress, until
/// done or [`library_embed_stop`].
#[tauri::command]
pub async fn library_embed(
    state: State<'_, AppState>,
    on_progress: Channel<research_api::EmbedProgress>,
) -> Res<u64> {
    let stop = state.embedding_stop.clone();
    stop.store(false, Ordering::SeqCst);
    state
        .studio
        .blocking(move |s| {
            let done = s.embed_library(
                &|progress| {
                    let _ = on_progress.send(progress);
                },
                &|| stop.load(Ordering::SeqCst),
            )?;
            Ok(done as u64)
        })
        .await
}

/// Stops indexing by meaning after the batch in hand (what was done is kept).
#[tauri::command]
pub fn library_embed_stop(state: State<'_, AppState>) {
    state.embedding_stop.store(true, Ordering::SeqCst);
}

#[tauri::command]
pub async fn library_reindex(
    state: State<'_, AppState>,
    on_progress: Channel<IndexReport>,
) -> Res<IndexReport> {
    state
        .studio
        .blocking(move |s| {
            Ok(s.library()?.reindex(&|r| {
                let _ = on_progress.send(r.clone());
            })?)
        })
        .await
}
