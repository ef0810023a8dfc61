//! `research models`: models for the built-in engine.

use std::path::PathBuf;
use std::process::ExitCode;

use research_api::{human_bytes, ApiError, DownloadProgress, ErrorCode};

use super::DbArg;

#[derive(clap::Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    action: ModelsAction,
    #[command(flatten)]
    db: DbArg,
}

#[derive(clap::Subcommand)]
enum ModelsAction {
    /// List the recommended models
    List,
    /// Download a recommended model (by id) or any direct .gguf link; an interrupted download
    /// continues where it stopped. Prints the model string (`local:PATH`) on the last line.
    Download {
        /// A model id from `research models list`, or an http(s) link to a .gguf file
        model: String,
        /// Where to save it (default: the `models` folder beside the database)
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Make it the default model in the settings
        #[arg(long)]
        set_default: bool,
    },
    /// What each model did in your runs (with the built-in models' measurements) and what that
    /// decides it is asked for
    Measured {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

/// `research models …`.
pub async fn models(args: ModelsArgs) -> anyhow::Result<ExitCode> {
    let catalog = research_api::recommended_models();
    match args.action {
        ModelsAction::Measured { json } => {
            let measured = args.db.open()?.model_measurements()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&measured)?);
                return Ok(ExitCode::SUCCESS);
            }
            for m in measured {
                let w = &m.measured.work;
                let origin = match (m.builtin, m.your_runs) {
                    (true, 0) => "built-in measurement".to_string(),
                    (true, n) => format!("built-in measurement and {n} of your runs"),
                    (false, n) => format!("{n} of your runs"),
                };
                println!("{} ({origin})", m.model);
                println!(
                    "\tfacts restated {} (its quotes' words {}), drafts {} (refused {}), verdicts given {} of {}{}",
                    w.facts,
                    w.own_words,
                    w.drafts,
                    w.refused,
                    w.verdicts_given,
                    w.verdicts_asked,
                    m.tokens_per_second
                        .map(|t| format!(", {t:.1} tokens/s"))
                        .unwrap_or_default()
                );
                if m.decisions.is_empty() {
                    println!("\tasked for everything");
                }
                for d in &m.decisions {
                    println!("\t{d}");
                }
            }
        }
        ModelsAction::List => {
            for m in catalog {
                println!(
                    "{}\t{} (about {})\n\t{}",
                    m.id,
                    m.name,
                    human_bytes(m.approx_bytes),
                    m.note
                );
            }
        }
        ModelsAction::Download {
            model,
            dir,
            set_default,
        } => {
            let known = catalog.iter().find(|m| m.id == model);
            let url = match known {
                Some(m) => m.url.clone(),
                None if model.contains("://") => model.clone(),
                None => {
                    let ids: Vec<&str> = catalog.iter().map(|m| m.id.as_str()).collect();
                    return Err(ApiError::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "no recommended model is called “{model}”; choose one of {} or give a link to a .gguf file",
                            ids.join(", ")
                        ),
                    )
                    .into());
                }
            };
            let studio = args.db.open()?;
            let dir = dir.unwrap_or_else(|| studio.models_dir());
            let progress = |p: DownloadProgress| {
                let total = p
                    .total
                    .map(|t| format!(" of {}", human_bytes(t)))
                    .unwrap_or_default();
                eprint!(
                    "\r{} {}{total} ({}/s)     ",
                    p.phase,
                    human_bytes(p.received),
                    human_bytes(p.bytes_per_sec)
                );
            };
            let result = research_api::download_model(
                research_api::DownloadRequest::new(url, dir),
                &progress,
                super::cancel_on_ctrl_c(),
            )
            .await;
            eprintln!();
            let done = result?;
            eprintln!(
                "saved {} ({}, sha256 {}{})",
                done.path,
                human_bytes(done.bytes),
                done.sha256,
                if done.hash_checked { ", verified" } else { "" }
            );
            if set_default {
                let path = studio.settings_path();
                let mut settings = research_api::Settings::load(&path)?;
                settings.set("default_model", &done.spec)?;
                settings.save(&path)?;
                eprintln!("it is now the default model");
            }
            println!("{}", done.spec);
        }
    }
    Ok(ExitCode::SUCCESS)
}
