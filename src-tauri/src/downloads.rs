//! Model downloads: the catalogue, one download at a time with its progress, and stopping it.

use std::sync::Mutex;

use research_api::{
    ApiError, CancellationToken, DownloadProgress, DownloadRequest, DownloadedModel, ErrorCode,
    RecommendedModel,
};
use tauri::ipc::Channel;
use tauri::State;

use crate::commands::AppState;

type Res<T> = Result<T, ApiError>;

/// The one model download at a time. Each download holds a numbered claim; ending clears the
/// slot only if the claim is still its own, so a stopped download winding down cannot clear
/// the one started after it (which could then be neither stopped nor kept single).
#[derive(Default)]
pub struct DownloadSlot(Mutex<(u64, Option<(u64, CancellationToken)>)>);

impl DownloadSlot {
    fn slot(&self) -> std::sync::MutexGuard<'_, (u64, Option<(u64, CancellationToken)>)> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claims the slot for a new download, unless one is going and not stopped.
    pub fn claim(&self, cancel: CancellationToken) -> Result<u64, ApiError> {
        let mut slot = self.slot();
        if slot.1.as_ref().is_some_and(|(_, c)| !c.is_cancelled()) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "a model is already downloading; wait for it or stop it first",
            ));
        }
        slot.0 += 1;
        let id = slot.0;
        slot.1 = Some((id, cancel));
        Ok(id)
    }

    /// Gives the slot back if claim `id` still holds it.
    pub fn release(&self, id: u64) {
        let mut slot = self.slot();
        if slot.1.as_ref().is_some_and(|(held, _)| *held == id) {
            slot.1 = None;
        }
    }

    /// Runs the download `start` makes with a new cancel token, holding the slot meanwhile (one
    /// download at a time; [`DownloadSlot::cancel`] reaches it).
    pub async fn hold<T, F>(&self, start: impl FnOnce(CancellationToken) -> F) -> Res<T>
    where
        F: std::future::Future<Output = Res<T>>,
    {
        let cancel = CancellationToken::new();
        let claim = self.claim(cancel.clone())?;
        let result = start(cancel).await;
        self.release(claim);
        result
    }

    /// Stops the download going; false when there is none.
    pub fn cancel(&self) -> bool {
        match &self.slot().1 {
            Some((_, c)) if !c.is_cancelled() => {
                c.cancel();
                true
            }
            _ => false,
        }
    }
}

/// The models the app offers to download.
#[tauri::command]
pub fn recommended_models() -> Vec<RecommendedModel> {
    research_api::recommended_models()
}

/// Downloads a GGUF model (a recommended one, or any direct link) into the app's data folder,
/// streaming progress; a stopped download continues next time.
#[tauri::command]
pub async fn download_model(
    state: State<'_, AppState>,
    url: String,
    on_progress: Channel<DownloadProgress>,
) -> Res<DownloadedModel> {
    let dir = state.studio.models_dir();
    tracing::info!(%url, dir = %dir.display(), "model download started");
    let send = |p| {
        let _ = on_progress.send(p);
    };
    let result = state
        .download
        .hold(|cancel| research_api::download_model(DownloadRequest::new(url, dir), &send, cancel))
        .await;
    match &result {
        Ok(m) => {
            tracing::info!(path = %m.path, bytes = m.bytes, hash_checked = m.hash_checked, "model downloaded")
        }
        Err(e) => tracing::warn!(error = %e, "model download failed"),
    }
    result
}

/// The sentence model the app offers (its size, whether it is installed).
#[tauri::command]
pub fn sentence_model_offer() -> research_api::SentenceModelOffer {
    research_api::sentence_model_offer()
}

/// Downloads and installs the sentence model, streaming progress; one download at a time,
/// stopped by [`cancel_download`] (what arrived is kept for next time).
#[tauri::command]
pub async fn download_sentence_model(
    state: State<'_, AppState>,
    on_progress: Channel<DownloadProgress>,
) -> Res<String> {
    let send = |p| {
        let _ = on_progress.send(p);
    };
    let studio = &state.studio;
    let result = state
        .download
        .hold(|cancel| studio.install_sentence_model(&send, cancel))
        .await;
    match &result {
        Ok(dir) => tracing::info!(dir = %dir.display(), "sentence model installed"),
        Err(e) => tracing::warn!(error = %e, "sentence model not installed"),
    }
    Ok(result?.display().to_string())
}

/// Stops the model download; what arrived is kept for next time.
#[tauri::command]
pub fn cancel_download(state: State<'_, AppState>) -> bool {
    state.download.cancel()
}

#[cfg(test)]
mod tests {
    use super::{CancellationToken, DownloadSlot};

    #[test]
    fn a_stopped_download_winding_down_leaves_the_next_ones_claim() {
        let slot = DownloadSlot::default();
        let first = slot.claim(CancellationToken::new()).unwrap();
        assert!(
            slot.claim(CancellationToken::new()).is_err(),
            "one at a time"
        );
        assert!(slot.cancel());
        let next_token = CancellationToken::new();
        let next = slot.claim(next_token.clone()).unwrap();
        // The stopped one ends after the next began: the next keeps its place.
        slot.release(first);
        assert!(slot.claim(CancellationToken::new()).is_err());
        assert!(slot.cancel() && next_token.is_cancelled());
        slot.release(next);
        assert!(!slot.cancel());
    }
}
