//! `research keys`: API keys in the OS keychain.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use research_api::KeySource;

#[derive(clap::Subcommand)]
pub enum KeysAction {
    /// Store a key: typed without echo, or read from standard input
    Set {
        /// The provider
        #[arg(help = research_api::key_names())]
        provider: String,
    },
    /// Show which providers have a key, and where it comes from (masked)
    List {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Forget a stored key
    Delete {
        /// The provider
        provider: String,
    },
}

/// `research keys …`.
pub fn keys(action: KeysAction) -> anyhow::Result<ExitCode> {
    let store = research_api::OsKeychain;
    match action {
        KeysAction::Set { provider } => {
            let key = if std::io::stdin().is_terminal() {
                rpassword::prompt_password(format!("Key for {provider}: "))
                    .context("could not read the key from the terminal")?
            } else {
                super::read_stdin("the key")?
            };
            research_api::set_key(&store, &provider, &key)?;
            eprintln!("stored the key for {provider} in the OS keychain");
        }
        KeysAction::Delete { provider } => {
            research_api::delete_key(&store, &provider)?;
            eprintln!("forgot the stored key for {provider}");
        }
        KeysAction::List { json } => {
            let keys = research_api::list_keys(&store);
            if json {
                println!("{}", serde_json::to_string(&keys)?);
            } else {
                for k in keys {
                    let source = match k.source {
                        KeySource::Keychain => "keychain".to_string(),
                        KeySource::Session => "this session".to_string(),
                        KeySource::Environment => format!("${}", k.env),
                        KeySource::Missing => format!("not set (keychain or ${})", k.env),
                    };
                    println!(
                        "{:<17} {:<12} {source}",
                        k.provider,
                        k.masked.unwrap_or_default()
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
