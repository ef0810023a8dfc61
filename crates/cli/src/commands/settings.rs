//! `research settings` (shared with the desktop app) and `research providers`.

use std::process::ExitCode;

use research_api::OsKeychain;

use super::DbArg;

#[derive(clap::Args)]
pub struct SettingsArgs {
    #[command(subcommand)]
    action: Option<SettingsAction>,
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long, global = true)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum SettingsAction {
    /// Show every setting
    List,
    /// Set one
    #[command(about = format!("Set one: {}", research_api::setting_names()))]
    Set {
        /// The setting
        key: String,
        /// Its value (lists comma-separated)
        value: String,
    },
    /// Reset one to its default
    #[command(about = format!("Reset one to its default: {}", research_api::setting_names()))]
    Unset {
        /// The setting
        key: String,
    },
}

#[derive(clap::Args)]
pub struct ProvidersArgs {
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// `research settings`.
pub fn settings(args: SettingsArgs) -> anyhow::Result<ExitCode> {
    // Not through the database: a wrong `database` setting must still be put right here.
    let path = args.db.settings_path()?;
    let mut current = research_api::Settings::load(&path)?;
    match args.action.unwrap_or(SettingsAction::List) {
        SettingsAction::List => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&current)?);
            } else {
                eprintln!("{}", path.display());
                let value = serde_json::to_value(&current)?;
                for (key, what) in research_api::SETTING_KEYS {
                    println!("{key:<14} {}", shown(&value[*key], what));
                }
            }
        }
        SettingsAction::Set { key, value } => {
            current.set(&key, &value)?;
            current.save(&path)?;
            eprintln!("{key} set");
        }
        SettingsAction::Unset { key } => {
            current.unset(&key)?;
            current.save(&path)?;
            eprintln!("{key} reset to its default");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A setting's value as `research settings` lists it; `what` describes an unset one.
fn shown(value: &serde_json::Value, what: &str) -> String {
    match value {
        serde_json::Value::Null => format!("(default; {what})"),
        serde_json::Value::Array(items) if items.is_empty() => format!("(none; {what})"),
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str())
            .collect::<Vec<_>>()
            .join(","),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `research providers`.
pub async fn providers(args: ProvidersArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let settings = studio.settings()?;
    let library = studio.library().ok();
    let list = research_api::providers(
        &OsKeychain,
        &settings,
        library.as_ref(),
        Some(&studio.models_dir()),
    )
    .await;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for p in &list {
            println!(
                "{:<7} {:<17} {:<10} {}",
                p.kind,
                p.name,
                if p.ready { "ready" } else { "not ready" },
                crate::fix::with_hint(&p.detail, p.fix.as_ref())
            );
            for model in &p.models {
                println!("{:<7} {:<17} {:<10}   {model}", "", "", "");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
