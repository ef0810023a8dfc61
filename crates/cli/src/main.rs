//! `research`: the headless Research Studio command. This file parses the command line and hands
//! each command to its family's module under `commands/`.

mod commands;
mod fix;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use research_api::{ApiError, ErrorCode};

use commands::{
    ask, backups, check, export, fetch, graph, keys, library, models, research, search, sessions,
    settings, watch,
};

#[derive(Parser)]
#[command(
    name = "research",
    version,
    about = "Research Studio from the terminal: run, resume and inspect research threads"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a graph's structure
    Graph(graph::GraphArgs),
    /// Run the demo graph: a fan-out of workers and a join
    Demo(graph::DemoArgs),
    /// Research a question: plan, search, read, check and write a cited report
    Run(Box<research::RunArgs>),
    /// Start a new run in the same session from a stage of an earlier one (its reading, plan,
    /// a research round or its draft), with a changed reading or plan, other models, another
    /// pipeline, more depth or rounds, or other providers; nothing before the stage is redone
    Fork(Box<research::ForkArgs>),
    /// Run two configurations on the same question side by side (e.g. --a pipeline=standard
    /// --b pipeline=trust) and print what each found and spent, and the sources only one read
    Compare(Box<research::CompareArgs>),
    /// Read again every source a session's latest report cites; sentences a changed or vanished
    /// source no longer supports are marked in a new report version (no model call)
    Recheck(sessions::RecheckArgs),
    /// Check every sentence of a Markdown document against its sources ([N] markers): verified,
    /// partly, unsupported or contradicted, with the passage that bears it out; exits 1 when a
    /// sentence is unsupported or contradicted
    Check(Box<check::CheckArgs>),
    /// Continue an unfinished or interrupted thread (answering its question, if it asks one)
    Resume(graph::ResumeArgs),
    /// List, show, rename or delete research sessions
    Sessions(sessions::SessionsArgs),
    /// Show or change settings (shared with the desktop app)
    Settings(settings::SettingsArgs),
    /// List every model and search provider and whether it is ready to use
    Providers(settings::ProvidersArgs),
    /// Export a finished report: Markdown, PDF, Word or LaTeX in a citation style, or its sources
    /// as BibTeX, RIS or CSL-JSON
    Export(export::ExportArgs),
    /// Run the structural checks on a `research run --json` result
    Eval(research::EvalArgs),
    /// Ask a model one question; streams the answer, or prints JSON valid for --schema
    Ask(ask::AskArgs),
    /// Search the web, papers or news with one or more providers
    Search(search::SearchArgs),
    /// Your own files: add folders, search them
    Library(library::LibraryArgs),
    /// Models for the built-in engine: list the recommended ones, download one
    Models(models::ModelsArgs),
    /// Fetch a web page or PDF and print its readable text
    Fetch(fetch::FetchArgs),
    /// Store, list or forget API keys (kept in the OS keychain)
    Keys {
        #[command(subcommand)]
        action: keys::KeysAction,
    },
    /// List a thread's checkpoints
    History(graph::HistoryArgs),
    /// Keep a session current: recheck its cited sources every 12h, 1d, 1w… (and research its
    /// question again when one changed); list, pause or remove schedules; --run-due runs the due
    /// ones (from cron or a systemd timer)
    Watch(Box<watch::WatchArgs>),
    /// Back up this machine's database (consistent while runs write) into `backups/` beside it
    /// or --to DIR; API keys stay in the keychain
    Backup(backups::BackupArgs),
    /// Put a backup in the database's place after checking it; the file it replaces is kept
    /// beside it (close the app first)
    Restore(backups::RestoreArgs),
    /// Serve Research Studio to another tool's assistant over MCP on stdin and stdout
    /// (research, research_status, answer, resume, report, sources, recheck, sessions,
    /// library_search, check_document)
    Mcp(commands::DbArg),
}

fn main() -> ExitCode {
    // Before anything else: started as an extraction child, this process only extracts.
    if research_api::extraction_child::is_child_invocation() {
        research_api::extraction_child::serve();
    }
    quiet_on_a_closed_reader();
    let cli = Cli::parse();
    research_api::check_with_meaning();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("RESEARCH_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new().context("could not start the async runtime")
    {
        Ok(rt) => rt,
        Err(e) => return fail(&e),
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

/// The status a command ends with when what reads its output goes away (`research sessions list
/// | head -3`): 128 + SIGPIPE, as `cat` or `grep` end there, and quietly.
const CLOSED_READER: i32 = 141;

/// A closed reader of standard output ends the command as it ends a Unix tool: quietly, with
/// [`CLOSED_READER`]. Rust ignores SIGPIPE so that a closed socket or an extraction child's
/// pipe is an error to handle, not a kill; `print!` then panics on a closed standard output,
/// and this hook turns that one panic into the quiet exit (a run is checkpointed as it goes, so
/// `resume` continues it). Any other panic is reported as before.
fn quiet_on_a_closed_reader() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(CLOSED_READER);
        }
        report(info)
    }));
}

async fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Graph(args) => graph::graph(args),
        Command::Demo(args) => graph::demo(args).await,
        Command::Run(args) => research::run(*args).await,
        Command::Fork(args) => research::fork(*args).await,
        Command::Compare(args) => research::compare(*args).await,
        Command::Recheck(args) => sessions::recheck(args).await,
        Command::Backup(args) => backups::backup(args),
        Command::Restore(args) => backups::restore(args),
        Command::Check(args) => check::check(*args).await,
        Command::Resume(args) => graph::resume(args).await,
        Command::Sessions(args) => sessions::sessions(args).await,
        Command::Settings(args) => settings::settings(args),
        Command::Providers(args) => settings::providers(args).await,
        Command::Export(args) => export::export(args),
        Command::Eval(args) => research::eval(args).await,
        Command::Ask(args) => ask::ask(args).await,
        Command::Search(args) => search::search(args).await,
        Command::Library(args) => library::library(args),
        Command::Models(args) => models::models(args).await,
        Command::Fetch(args) => fetch::fetch(args).await,
        Command::Keys { action } => keys::keys(action),
        Command::History(args) => graph::history(args).await,
        Command::Watch(args) => watch::watch(*args).await,
        Command::Mcp(db) => {
            let server =
                research_mcp::McpServer::new(db.open()?, Arc::new(research_api::OsKeychain));
            research_mcp::serve(server)
                .await
                .map_err(|e| anyhow::anyhow!("the MCP server stopped: {e}"))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints the error as one sentence and picks the exit code: 2 for invalid input, 3 for
/// something not found, 1 otherwise.
fn fail(e: &anyhow::Error) -> ExitCode {
    // One sentence: the API error's own message and how to fix it, or the outermost context.
    let message = match e.downcast_ref::<ApiError>() {
        Some(api) => fix::with_hint(&api.message, api.fix.as_ref()),
        None => format!("{e:#}"),
    };
    eprintln!("research: {message}");
    ExitCode::from(match e.downcast_ref::<ApiError>().map(|a| a.code) {
        Some(ErrorCode::InvalidInput) => 2,
        Some(ErrorCode::NotFound) => 3,
        _ => 1,
    })
}

#[cfg(test)]
mod tests;
