//! Native dialogs (GTK, AppKit, Win32 through `tauri-plugin-dialog`), shown from Rust so the
//! webview needs no dialog permission. Every dialog blocks a worker thread, never the main one.

use std::path::PathBuf;

use research_api::{
    Answer, ApiError, DialogAnswer, ErrorCode, PendingQuestion, Question, TextAnswer,
};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::{
    DialogExt, MessageDialogButtons, MessageDialogKind, MessageDialogResult,
};

/// Titles the end-to-end tests look the dialogs up by.
pub const CLARIFY_TITLE: &str = "Clarify the question";
/// The plan review dialog's title.
pub const PLAN_TITLE: &str = "Review the plan";
/// The report review dialog's title.
pub const REPORT_TITLE: &str = "Review the report";
/// The title of the escalation dialog (the E2E tests find the dialog by it).
pub const ESCALATION_TITLE: &str = "Open issues in the report";

const OTHER: &str = "Other…";

/// Runs a blocking dialog call off the async runtime's threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the dialog failed: {e}")))
}

/// A button label: short enough for a dialog, unique among its siblings.
fn label(text: &str, taken: &[String]) -> String {
    let mut out: String = text.trim().chars().take(48).collect();
    if text.trim().chars().count() > 48 {
        out.push('…');
    }
    while taken.contains(&out) {
        out.push(' ');
    }
    out
}

fn message<R: Runtime>(
    app: &AppHandle<R>,
    title: &str,
    text: String,
    buttons: MessageDialogButtons,
) -> tauri_plugin_dialog::MessageDialogBuilder<R> {
    app.dialog()
        .message(text)
        .title(title)
        .kind(MessageDialogKind::Info)
        .buttons(buttons)
}

/// Asks `pending` in a native dialog. Choices that need typing come back as
/// [`DialogAnswer::NeedsText`] for the page to ask in its own field.
pub async fn ask<R: Runtime>(
    app: AppHandle<R>,
    pending: PendingQuestion,
) -> Result<DialogAnswer, ApiError> {
    let headline = pending.question.escalation_headline();
    match pending.question {
        Question::Clarify {
            question, options, ..
        } => {
            // Dialogs have at most three buttons: two readings and "Other…", which opens the
            // page's own field listing every reading plus free text.
            let mut labels: Vec<String> = Vec::new();
            for option in options.iter().take(2) {
                let l = label(option, &labels);
                labels.push(l);
            }
            let mut text = question.clone();
            if !options.is_empty() {
                text.push_str("\n\nPossible readings:");
                for (i, o) in options.iter().enumerate() {
                    text.push_str(&format!("\n{}. {o}", i + 1));
                }
            }
            if options.len() > 2 {
                text.push_str("\n\nChoose “Other…” for the other readings or to type your own.");
            }
            let buttons = match labels.as_slice() {
                [a, b] => {
                    MessageDialogButtons::YesNoCancelCustom(a.clone(), b.clone(), OTHER.into())
                }
                [a] => MessageDialogButtons::OkCancelCustom(a.clone(), OTHER.into()),
                _ => MessageDialogButtons::OkCustom(OTHER.into()),
            };
            let dialog = message(&app, CLARIFY_TITLE, text, buttons);
            let result = blocking(move || dialog.blocking_show_with_result()).await?;
            Ok(match result {
                MessageDialogResult::Custom(l) if l == OTHER => DialogAnswer::NeedsText {
                    kind: TextAnswer::Clarify,
                },
                MessageDialogResult::Custom(l) => match labels.iter().position(|x| *x == l) {
                    Some(i) => DialogAnswer::Answer {
                        answer: Answer::Clarify {
                            text: options[i].clone(),
                        },
                    },
                    None => DialogAnswer::Dismissed,
                },
                _ => DialogAnswer::Dismissed,
            })
        }
        Question::PlanReview { plan } => {
            let text = plan.describe();
            let dialog = message(
                &app,
                PLAN_TITLE,
                text,
                MessageDialogButtons::YesNoCancelCustom(
                    "Approve".into(),
                    "Edit…".into(),
                    "Cancel the run".into(),
                ),
            );
            let result = blocking(move || dialog.blocking_show_with_result()).await?;
            Ok(match result {
                MessageDialogResult::Custom(l) if l == "Approve" => DialogAnswer::Answer {
                    answer: Answer::ApprovePlan,
                },
                MessageDialogResult::Custom(l) if l == "Edit…" => DialogAnswer::NeedsText {
                    kind: TextAnswer::EditPlan,
                },
                MessageDialogResult::Custom(l) if l == "Cancel the run" => DialogAnswer::Answer {
                    answer: Answer::CancelPlan,
                },
                _ => DialogAnswer::Dismissed,
            })
        }
        Question::Escalation { issues, .. } => {
            let mut text = headline.unwrap_or_default();
            for i in &issues {
                text.push_str(&format!("\n• {} ({})", i.description, i.location));
            }
            text.push_str("\n\nAccept the best draft with these as caveats, research more with them as gaps, or stop the run (the draft is kept).");
            let dialog = message(
                &app,
                ESCALATION_TITLE,
                text,
                MessageDialogButtons::YesNoCancelCustom(
                    "Accept with caveats".into(),
                    "Research more".into(),
                    "Stop".into(),
                ),
            );
            let result = blocking(move || dialog.blocking_show_with_result()).await?;
            Ok(match result {
                MessageDialogResult::Custom(l) if l == "Accept with caveats" => {
                    DialogAnswer::Answer {
                        answer: Answer::AcceptWithCaveats,
                    }
                }
                MessageDialogResult::Custom(l) if l == "Research more" => DialogAnswer::Answer {
                    answer: Answer::ResearchMore,
                },
                MessageDialogResult::Custom(l) if l == "Stop" => DialogAnswer::Answer {
                    answer: Answer::StopRun,
                },
                _ => DialogAnswer::Dismissed,
            })
        }
        Question::ReportReview { report, .. } => {
            let words = report.split_whitespace().count();
            let text = format!(
                "The draft report is ready ({words} words) and shown behind this dialog.\n\nApprove it as final, ask for changes (the writer revises it from your feedback, or you edit the text yourself; either is checked and shown to you again), or reject it (your reason is kept with the session)."
            );
            let dialog = message(
                &app,
                REPORT_TITLE,
                text,
                MessageDialogButtons::YesNoCancelCustom(
                    "Approve".into(),
                    "Request changes…".into(),
                    "Reject…".into(),
                ),
            );
            let result = blocking(move || dialog.blocking_show_with_result()).await?;
            Ok(match result {
                MessageDialogResult::Custom(l) if l == "Approve" => DialogAnswer::Answer {
                    answer: Answer::ApproveReport,
                },
                MessageDialogResult::Custom(l) if l == "Request changes…" => {
                    DialogAnswer::NeedsText {
                        kind: TextAnswer::ReviseReport,
                    }
                }
                MessageDialogResult::Custom(l) if l == "Reject…" => DialogAnswer::NeedsText {
                    kind: TextAnswer::RejectReport,
                },
                _ => DialogAnswer::Dismissed,
            })
        }
    }
}

/// Asks to confirm a destructive action; true when confirmed.
pub async fn confirm<R: Runtime>(
    app: AppHandle<R>,
    title: &str,
    text: String,
    action: &str,
) -> Result<bool, ApiError> {
    let dialog = app
        .dialog()
        .message(text)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            action.to_string(),
            "Cancel".into(),
        ));
    let action = action.to_string();
    let result = blocking(move || dialog.blocking_show_with_result()).await?;
    Ok(matches!(result, MessageDialogResult::Custom(l) if l == action))
}

/// Asks where to save a file; `None` when cancelled.
pub async fn save_path<R: Runtime>(
    app: AppHandle<R>,
    title: &str,
    file_name: String,
    filter: (&str, &[&str]),
) -> Result<Option<PathBuf>, ApiError> {
    let dialog = app
        .dialog()
        .file()
        .set_title(title)
        .set_file_name(file_name)
        .add_filter(filter.0, filter.1);
    let picked = blocking(move || dialog.blocking_save_file()).await?;
    picked
        .map(|p| {
            p.into_path().map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("that place cannot be saved to: {e}"),
                )
            })
        })
        .transpose()
}

/// Asks for a folder (library) or a file (a GGUF model); `None` when cancelled.
pub async fn pick<R: Runtime>(
    app: AppHandle<R>,
    title: &str,
    folder: bool,
    filter: Option<(&'static str, &'static [&'static str])>,
) -> Result<Option<PathBuf>, ApiError> {
    // Start at home rather than GTK's "Recent", where a folder cannot be chosen at all.
    let home = app.path().home_dir().ok();
    pick_in(app, title, folder, filter, home).await
}

/// [`pick`], starting in `start` (a backups folder) when it is given.
pub async fn pick_in<R: Runtime>(
    app: AppHandle<R>,
    title: &str,
    folder: bool,
    filter: Option<(&'static str, &'static [&'static str])>,
    start: Option<PathBuf>,
) -> Result<Option<PathBuf>, ApiError> {
    let mut dialog = app.dialog().file().set_title(title);
    if let Some(start) = start {
        dialog = dialog.set_directory(start);
    }
    if let Some((name, ext)) = filter {
        dialog = dialog.add_filter(name, ext);
    }
    let picked = blocking(move || {
        if folder {
            dialog.blocking_pick_folder()
        } else {
            dialog.blocking_pick_file()
        }
    })
    .await?;
    picked
        .map(|p| {
            p.into_path().map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("that path cannot be used: {e}"),
                )
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn labels_are_short_and_unique() {
        let long = "a".repeat(80);
        let first = label(&long, &[]);
        assert_eq!(first.chars().count(), 49);
        let second = label(&long, std::slice::from_ref(&first));
        assert_ne!(first, second);
    }
}
