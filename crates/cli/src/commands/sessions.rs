//! `research sessions`: list, show, rename, delete, export or import research sessions.

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
        /// Every model call of its runs instead of the report: node, model, tokens, time, and
        /// the prompt and answer of runs started with `--record-calls`
        #[arg(long)]
        calls: bool,
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
    /// Write a session with everything it produced (runs, reports and versions, the texts its
    /// sources had, checks, conversation) to one file that `research sessions import` reads
    /// on another machine or data folder
    Export {
        /// The session id (or a run's)
        id: String,
        /// The file to write (default: the session's title, `.research-session`, in the current
        /// folder)
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// Import a session file written by `research sessions export`, keeping its ids (a session
    /// already here is left as it is)
    Import {
        /// The session file
        file: std::path::PathBuf,
    },
    /// Save every session a damaged database still holds, one session file each, before a
    /// backup takes its place (`research restore`): the file is only read, never written
    Salvage {
        /// The folder to save the session files in
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
    },
}

/// `research sessions`.
pub async fn sessions(args: SessionsArgs) -> anyhow::Result<ExitCode> {
    let json = args.json;
    if let Some(SessionsAction::Salvage { out }) = &args.action {
        // Read-only: a damaged file is never opened the usual way (which refuses it).
        let studio = research_api::Studio::open_read_only(&args.db.path()?)?;
        let salvage = studio.salvage_sessions(out).await?;
        if json {
            println!("{}", serde_json::to_string_pretty(&salvage)?);
        } else {
            for s in &salvage.saved {
                println!("{}", s.file);
            }
            for s in &salvage.lost {
                eprintln!(
                    "not saved: session {} (\"{}\"): {}",
                    s.id, s.title, s.problem
                );
            }
            eprintln!(
                "saved {} session(s) to {}; {} could not be read whole",
                salvage.saved.len(),
                out.display(),
                salvage.lost.len()
            );
        }
        return Ok(if salvage.lost.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let studio = args.db.open()?;
    match args.action.unwrap_or(SessionsAction::List { text: None }) {
        SessionsAction::List { text } => {
            let list = studio.list_sessions(text.as_deref())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if list.is_empty() {
                match &text {
                    Some(text) => eprintln!("no session matches \"{text}\""),
                    None => {
                        eprintln!("no sessions yet; start one with: research run \"your question\"")
                    }
                }
            } else {
                for s in list {
                    let checked = s
                        .checked_at_ms
                        .map(|at| format!("  (sources checked {})", research_api::report_date(at)))
                        .unwrap_or_default();
                    println!("{}  {:<11}  {}{checked}", s.id, s.status, s.title);
                }
            }
        }
        SessionsAction::Show { id, calls: true } => {
            let runs = studio.model_calls(&studio.session_named(&id)?)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                print_calls(&runs);
            }
        }
        SessionsAction::Show { id, calls: false } => {
            let detail = studio.session(&studio.session_named(&id)?)?;
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
                match (detail.reports.last(), &detail.failure, detail.runs.last()) {
                    (Some(r), _, _) => println!("{}", r.markdown),
                    (None, Some(why), Some((thread, _))) => eprintln!(
                        "no report: its run failed ({why}); once that is put right, finish it \
                         with `research resume {thread}` (--llm and --search change what it uses)"
                    ),
                    _ => eprintln!("no report yet"),
                }
            }
        }
        SessionsAction::Rename { id, title } => {
            studio.rename_session(&studio.session_named(&id)?, &title)?;
            eprintln!("renamed");
        }
        SessionsAction::Delete { id } => {
            let id = studio.session_named(&id)?;
            studio.delete_session(&id)?;
            eprintln!("deleted session {id}");
        }
        SessionsAction::Export { id, out } => {
            let file = match out {
                Some(file) => file,
                None => {
                    let title = studio.session(&studio.session_named(&id)?)?.session.title;
                    research_api::archive::default_file(std::path::Path::new("."), &title)
                }
            };
            let (id, bytes) = studio.export_session(&id, &file).await?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"session_id": id, "file": file, "bytes": bytes})
                );
            } else {
                eprintln!(
                    "exported session {id} to {} ({bytes} bytes)",
                    file.display()
                );
            }
        }
        SessionsAction::Salvage { .. } => unreachable!("handled before the database is opened"),
        SessionsAction::Import { file } => {
            let imported = studio.import_session(&file).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&imported)?);
            } else if imported.already_here {
                eprintln!(
                    "session {} (\"{}\") is here already; nothing was imported",
                    imported.session_id, imported.title
                );
            } else {
                eprintln!(
                    "imported session {} (\"{}\"): {} run(s), {} report version(s)",
                    imported.session_id, imported.title, imported.runs, imported.reports
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Each run's model calls as text: a line per call, then its kept prompt and answer.
fn print_calls(runs: &[research_api::RunCalls]) {
    for run in runs {
        println!("# {} ({})", run.question, run.thread);
        if run.calls.is_empty() {
            println!("no model calls");
        }
        for (i, c) in run.calls.iter().enumerate() {
            println!(
                "\n## {}. {} · {} · {}  ({} + {} tokens, {} ms{})",
                i + 1,
                c.node,
                c.purpose,
                c.model,
                c.prompt_tokens,
                c.completion_tokens,
                c.latency_ms,
                if c.failed { ", failed" } else { "" }
            );
            let Some(e) = &c.exchange else {
                println!("(prompt and answer not kept: start a run with --record-calls)");
                continue;
            };
            for m in &e.messages {
                println!("\n[{}]\n{}", m.role, m.content);
            }
            if let Some(schema) = &e.schema {
                println!("\n[schema]\n{schema}");
            }
            match (&e.answer, &e.error) {
                (Some(a), _) => println!("\n[answer]\n{a}"),
                (None, Some(err)) => println!("\n[error]\n{err}"),
                (None, None) => {}
            }
        }
    }
}

/// `research recheck`.
#[derive(clap::Args)]
pub struct RecheckArgs {
    /// The session whose latest report's sources are read again
    session: String,
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// `research recheck`: reads again every source the session's latest report cites, and records
/// what changed as a new report version.
pub async fn recheck(args: RecheckArgs) -> anyhow::Result<ExitCode> {
    use research_api::SourceState;
    let studio = args.db.open()?;
    let found = studio
        .recheck(&studio.session_named(&args.session)?)
        .await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(ExitCode::SUCCESS);
    }
    for c in &found.sources {
        let state = match &c.state {
            SourceState::Unchanged => "unchanged".to_string(),
            SourceState::Changed { kept, lost } => {
                format!("changed: {lost} of {} quotes gone", kept + lost)
            }
            SourceState::Gone { why } => format!("gone: {why}"),
            SourceState::Unchecked { why } => format!("not read now: {why}"),
        };
        println!("[{}] {state}  {}", c.source_id, c.url);
    }
    for lost in &found.lost {
        println!("⚠ {} — {}", lost.sentence, lost.why);
    }
    match found.version {
        Some(v) => eprintln!("recorded as report version {v} with what changed"),
        None => eprintln!("nothing changed; every cited source says what it said"),
    }
    Ok(ExitCode::SUCCESS)
}
