//! `research sessions`: list, show, rename or delete research sessions.

use std::process::ExitCode;

use super::DbArg;

#[derive(clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    action: Option<SessionsAction>,
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long, global = true)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum SessionsAction {
    /// List sessions, newest first
    List {
        /// Only sessions whose title or question contains this
        text: Option<String>,
    },
    /// Show a session's latest report and its sources
    Show {
        /// The session id
        id: String,
    },
    /// Rename a session
    Rename {
        /// The session id
        id: String,
        /// The new title
        title: String,
    },
    /// Delete a session and everything it produced
    Delete {
        /// The session id
        id: String,
    },
}

/// `research sessions`.
pub fn sessions(args: SessionsArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let json = args.json;
    match args.action.unwrap_or(SessionsAction::List { text: None }) {
        SessionsAction::List { text } => {
            let list = studio.list_sessions(text.as_deref())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                eprintln!("no sessions yet; start one with: research run \"your question\"");
            } else {
                for s in list {
                    println!("{}  {:<11}  {}", s.id, s.status, s.title);
                }
            }
        }
        SessionsAction::Show { id } => {
            let detail = studio.session(&id)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&detail)?);
            } else {
                let s = &detail.session;
                eprintln!("{} ({}), {} run(s)", s.title, s.status, detail.runs.len());
                if !detail.summary.text.is_empty() {
                    eprintln!(
                        "summary of the first {} turns: {}",
                        detail.summary.turns, detail.summary.text
                    );
                }
                for (i, t) in detail.turns.iter().enumerate() {
                    let kind = t
                        .classification
                        .as_ref()
                        .map(|c| format!("{} — {}", super::research::turn_words(c.kind), c.why))
                        .unwrap_or_default();
                    eprintln!("  {}. {}  [{kind}]", i + 1, t.question);
                    if !t.reply.is_empty() {
                        eprintln!("     {}", t.reply);
                    }
                }
                match detail.reports.last() {
                    Some(r) => println!("{}", r.markdown),
                    None => eprintln!("no report yet"),
                }
            }
        }
        SessionsAction::Rename { id, title } => {
            studio.rename_session(&id, &title)?;
            eprintln!("renamed");
        }
        SessionsAction::Delete { id } => {
            studio.delete_session(&id)?;
            eprintln!("deleted session {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
