//! `research`: the headless Research Studio command.

mod research;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use research_api::{
    demo::DemoConfig, ApiError, CancellationToken, ErrorCode, Event, EventSink, RunReport,
    RunStatus, Studio, ThreadId,
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

#[derive(clap::Args, Clone)]
struct DbArg {
    /// The database file (default: the app's data folder)
    #[arg(long, value_name = "PATH", global = true)]
    db: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Show a graph's structure
    Graph {
        /// Which graph
        #[arg(value_parser = ["demo", "research"])]
        name: String,
        /// Print it as a Mermaid flowchart
        #[arg(long)]
        mermaid: bool,
    },
    /// Run the demo graph: a fan-out of workers and a join
    Demo {
        #[command(flatten)]
        db: DbArg,
        /// Number of workers
        #[arg(long, default_value_t = 8)]
        workers: u32,
        /// Workers running at once
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
        /// Milliseconds each worker sleeps
        #[arg(long, default_value_t = 200)]
        task_ms: u64,
        /// Append each worker's index to this file as it finishes
        #[arg(long, value_name = "FILE")]
        exec_log: Option<PathBuf>,
        /// Print the final state as JSON on the last line
        #[arg(long)]
        json: bool,
    },
    /// Research a question: plan, search, read, check and write a cited report
    Run {
        #[command(flatten)]
        args: Box<research::RunArgs>,
        #[command(flatten)]
        db: DbArg,
    },
    /// Continue an unfinished or interrupted thread (answering its question, if it asks one)
    Resume {
        /// The thread id printed when the run started
        thread: String,
        #[command(flatten)]
        db: DbArg,
        #[command(flatten)]
        models: research::ModelArgs,
        #[command(flatten)]
        answer: research::AnswerArgs,
        /// Write the report here too (research runs)
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print the result as JSON
        #[arg(long)]
        json: bool,
    },
    /// List, show, rename or delete research sessions
    Sessions {
        #[command(subcommand)]
        action: Option<research::SessionsAction>,
        #[command(flatten)]
        db: DbArg,
        /// Print JSON
        #[arg(long, global = true)]
        json: bool,
    },
    /// Show or change settings (shared with the desktop app)
    Settings {
        #[command(subcommand)]
        action: Option<research::SettingsAction>,
        #[command(flatten)]
        db: DbArg,
        /// Print JSON
        #[arg(long, global = true)]
        json: bool,
    },
    /// List every model and search provider and whether it is ready to use
    Providers {
        #[command(flatten)]
        db: DbArg,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Export a finished report: Markdown, PDF, or its sources as BibTeX or RIS
    Export {
        /// The session id, or the run (thread) id printed by `research run`
        id: String,
        /// The format
        #[arg(long, value_parser = ["md", "pdf", "bib", "ris"])]
        format: String,
        /// Where to write it
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Paper size for PDF
        #[arg(long, value_parser = ["a4", "letter"], default_value = "a4")]
        paper: String,
        #[command(flatten)]
        db: DbArg,
    },
    /// Run the structural checks on a `research run --json` result
    Eval {
        /// The result file
        result: PathBuf,
        /// Also ask a judge model (--llm) for relevance, groundedness, completeness, quality
        /// and citation faithfulness
        #[arg(long)]
        judge: bool,
        /// The judge model
        #[arg(long, value_name = "SPEC")]
        llm: Option<String>,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Ask a model one question; streams the answer, or prints JSON valid for --schema
    Ask {
        /// The prompt ("-" reads it from standard input)
        prompt: String,
        /// The model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b, openai-compat:http://127.0.0.1:8080/v1#model
        #[arg(long, value_name = "SPEC")]
        llm: String,
        /// A JSON schema file the answer must follow
        #[arg(long, value_name = "FILE.json")]
        schema: Option<PathBuf>,
        /// A system prompt
        #[arg(long)]
        system: Option<String>,
        /// Print one JSON document with the answer, model, usage and calls
        #[arg(long)]
        json: bool,
    },
    /// Search the web, papers or news with one or more providers
    Search {
        /// The query
        query: String,
        /// Providers, comma-separated: tavily, brave, serper, searxng, duckduckgo, semantic-scholar, arxiv, wikipedia, newsapi, auto
        #[arg(
            long,
            value_name = "SPEC[,SPEC…]",
            value_delimiter = ',',
            default_value = "auto"
        )]
        search: Vec<String>,
        /// Results per provider at most
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Your SearXNG instance
        #[arg(long, value_name = "URL")]
        searxng_url: Option<String>,
        /// Print JSON
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArg,
    },
    /// Your own files: add folders, search them
    Library {
        #[command(subcommand)]
        action: LibraryAction,
        #[command(flatten)]
        db: DbArg,
    },
    /// Models for the built-in engine: list the recommended ones, download one
    Models {
        #[command(subcommand)]
        action: ModelsAction,
        #[command(flatten)]
        db: DbArg,
    },
    /// Fetch a web page or PDF and print its readable text
    Fetch {
        /// The URL
        url: String,
        /// Allow this private or local host (repeatable), e.g. your own server
        #[arg(long = "allow-host", value_name = "HOST")]
        allow_host: Vec<String>,
        /// Print one JSON document with the text and its metadata
        #[arg(long)]
        json: bool,
    },
    /// Store, list or forget API keys (kept in the OS keychain)
    Keys {
        #[command(subcommand)]
        action: KeysAction,
    },
    /// List a thread's checkpoints
    History {
        /// The thread id
        thread: String,
        #[command(flatten)]
        db: DbArg,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum LibraryAction {
    /// Add a folder and index it (Markdown, text, HTML and PDF files)
    Add {
        /// The folder
        dir: PathBuf,
    },
    /// Remove a folder and what was indexed from it
    Remove {
        /// The folder
        dir: PathBuf,
    },
    /// List the folders
    List {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Index new and changed files again
    Reindex,
    /// Search the library
    Search {
        /// The query
        query: String,
        /// Results at most
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
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
}

#[derive(Subcommand)]
enum KeysAction {
    /// Store a key: typed without echo, or read from standard input
    Set {
        /// openai, anthropic, gemini, openai-compat, tavily, brave, serper, newsapi, semantic-scholar
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

/// Prints progress on stderr, one line per event worth a line.
struct Progress;

impl EventSink for Progress {
    fn emit(&self, event: Event) {
        let line = match event {
            Event::NodeFinished { step, node, .. } => format!("step {step}: {node} finished"),
            Event::NodeRetrying {
                node,
                attempt,
                error,
                delay_ms,
            } => {
                format!("{node}: attempt {attempt} failed ({error}); retrying in {delay_ms} ms")
            }
            Event::Interrupted { interrupts } => format!(
                "waiting for input at {}",
                interrupts
                    .iter()
                    .map(|i| i.node.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => return,
        };
        eprintln!("{line}");
    }

    fn wants_updates(&self) -> bool {
        false
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("RESEARCH_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new().context("could not start the async runtime")
    {
        Ok(rt) => rt,
        Err(e) => return fail(&e),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

fn fail(e: &anyhow::Error) -> ExitCode {
    // One sentence: the API error's own message, or the outermost context.
    let message = match e.downcast_ref::<ApiError>() {
        Some(api) => api.message.clone(),
        None => format!("{e:#}"),
    };
    eprintln!("research: {message}");
    ExitCode::from(match e.downcast_ref::<ApiError>().map(|a| a.code) {
        Some(ErrorCode::InvalidInput) => 2,
        Some(ErrorCode::NotFound) => 3,
        _ => 1,
    })
}

pub(crate) fn cancel_on_ctrl_c() -> CancellationToken {
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            token.cancel();
        }
    });
    cancel
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Graph { name, mermaid } => {
            let research = name == "research";
            let text = if research {
                Studio::research_mermaid()
            } else {
                Studio::demo_mermaid()
            };
            if mermaid {
                print!("{text}");
            } else if research {
                println!("research: understand -> [clarify] -> plan -> [review] -> (search_and_extract <-> detect_gaps | orchestrate -> search_worker x N (Send) -> collect -> synthesize) -> verify -> write_report -> [review] -> [revise]");
            } else {
                println!("demo: plan -> worker x N (Send) -> summarize");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run { args, db } => research::run(*args, db.db).await,
        Command::Sessions { action, db, json } => research::sessions(action, db.db, json),
        Command::Eval {
            result,
            judge,
            llm,
            json,
        } => research::eval(result, llm, judge, json).await,
        Command::Export {
            id,
            format,
            out,
            paper,
            db,
        } => {
            let studio = Studio::open(db.db.as_deref())?;
            let format: research_api::ExportFormat = format.parse()?;
            let paper = if paper == "letter" {
                research_api::Paper::Letter
            } else {
                research_api::Paper::A4
            };
            studio.export(&id, format, paper, &out)?;
            eprintln!("exported to {}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Settings { action, db, json } => research::settings(action, db.db, json),
        Command::Providers { db, json } => research::providers(db.db, json).await,
        Command::Demo {
            db,
            workers,
            concurrency,
            task_ms,
            exec_log,
            json,
        } => {
            let studio = Studio::open(db.db.as_deref())?;
            let thread = studio.create_demo(DemoConfig {
                workers,
                concurrency,
                task_ms,
                exec_log,
            })?;
            println!("{thread}");
            std::io::stdout().flush().ok();
            let report = studio
                .run(&thread, Some(Arc::new(Progress)), cancel_on_ctrl_c())
                .await
                .map_err(|e| resumable(e, &thread))?;
            finish(&report, json)
        }
        Command::Resume {
            thread,
            db,
            models,
            answer,
            out,
            json,
        } => {
            let studio = Studio::open(db.db.as_deref())?;
            let thread = ThreadId::new(thread);
            if studio.is_research(&thread)? {
                return research::resume(&studio, thread, models, answer, json, out).await;
            }
            let report = studio
                .resume(&thread, Some(Arc::new(Progress)), cancel_on_ctrl_c())
                .await
                .map_err(|e| resumable(e, &thread))?;
            finish(&report, json)
        }
        Command::Ask {
            prompt,
            llm,
            schema,
            system,
            json,
        } => ask(prompt, llm, schema, system, json).await,
        Command::Keys { action } => keys(action),
        Command::Library { action, db } => library(action, db),
        Command::Models { action, db } => models(action, db).await,
        Command::Search {
            query,
            search,
            limit,
            searxng_url,
            json,
            db,
        } => {
            let store = research_api::OsKeychain;
            let settings = research_api::search_settings(&store, searxng_url.clone());
            // The library is optional here: web searches work even if the database does not.
            let library = Studio::open(db.db.as_deref())
                .and_then(|s| s.library())
                .ok()
                .map(Arc::new);
            let request = research_api::SearchRequest {
                query,
                providers: search,
                limit,
                searxng_url,
                library,
            };
            let outcome = research_api::search(request, &settings, &store).await?;
            for failure in &outcome.failures {
                eprintln!("warning: {}", failure.message);
            }
            if json {
                println!("{}", serde_json::to_string(&outcome)?);
            } else {
                for (i, hit) in outcome.hits.iter().enumerate() {
                    let date = hit
                        .published
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default();
                    println!(
                        "{}. {}{date} [{}]\n   {}\n   {}\n",
                        i + 1,
                        hit.title,
                        hit.provider,
                        hit.url,
                        hit.snippet
                    );
                }
                if outcome.hits.is_empty() {
                    eprintln!("no results");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Fetch {
            url,
            allow_host,
            json,
        } => {
            let doc = research_api::fetch(&url, &allow_host).await?;
            if json {
                println!("{}", serde_json::to_string(&doc)?);
            } else {
                eprintln!(
                    "{} ({:?}, {} bytes, sha256 {})",
                    doc.final_url,
                    doc.kind,
                    doc.bytes,
                    &doc.text_sha256[..12]
                );
                if let Some(title) = &doc.title {
                    println!("# {title}\n");
                }
                println!("{}", doc.text);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::History { thread, db, json } => {
            let studio = Studio::open(db.db.as_deref())?;
            let history = studio.history(&ThreadId::new(thread)).await?;
            if json {
                println!("{}", serde_json::to_string(&history)?);
            } else {
                for h in history {
                    let next = if h.next.is_empty() {
                        "(end)".to_string()
                    } else {
                        summarize_next(&h.next)
                    };
                    println!(
                        "checkpoint {:>4}  step {:>4}  {}  next: {next}",
                        h.checkpoint, h.step, h.created_at_ms
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn ask(
    prompt: String,
    llm: String,
    schema: Option<PathBuf>,
    system: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let prompt = if prompt == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("could not read the prompt from standard input")?;
        text
    } else {
        prompt
    };
    let schema = match schema {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("could not read the schema {}", path.display()))?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("the schema {} is not JSON", path.display()))?,
            )
        }
        None => None,
    };
    let structured = schema.is_some();
    let request = research_api::AskRequest {
        prompt,
        llm,
        system,
        schema,
    };
    let settings = research_api::connect_settings(&research_api::OsKeychain);
    let print = |t: &str| {
        print!("{t}");
        std::io::stdout().flush().ok();
    };
    let stream = !json && !structured;
    let answer =
        research_api::ask(request, &settings, if stream { Some(&print) } else { None }).await?;
    if json {
        println!("{}", serde_json::to_string(&answer)?);
    } else if let Some(value) = &answer.json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

async fn models(action: ModelsAction, db: DbArg) -> anyhow::Result<ExitCode> {
    let catalog = research_api::recommended_models();
    match action {
        ModelsAction::List => {
            for m in catalog {
                println!(
                    "{}\t{} (about {})\n\t{}",
                    m.id,
                    m.name,
                    research_api::human_bytes(m.approx_bytes),
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
                    return Err(research_api::ApiError::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "no recommended model is called “{model}”; choose one of {} or give a link to a .gguf file",
                            ids.join(", ")
                        ),
                    )
                    .into());
                }
            };
            let studio = Studio::open(db.db.as_deref())?;
            let dir = dir.unwrap_or_else(|| {
                studio
                    .db_path()
                    .parent()
                    .map(|d| d.join("models"))
                    .unwrap_or_else(|| PathBuf::from("models"))
            });
            let cancel = research_api::CancellationToken::new();
            let on_ctrl_c = cancel.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    on_ctrl_c.cancel();
                }
            });
            let progress = |p: research_api::DownloadProgress| {
                let total = p
                    .total
                    .map(|t| format!(" of {}", research_api::human_bytes(t)))
                    .unwrap_or_default();
                eprint!(
                    "\r{} {}{total} ({}/s)     ",
                    p.phase,
                    research_api::human_bytes(p.received),
                    research_api::human_bytes(p.bytes_per_sec)
                );
            };
            let result = research_api::download_model(
                research_api::DownloadRequest {
                    url,
                    dir,
                    file_name: known.map(|m| m.file_name.clone()),
                    sha256: None,
                },
                &progress,
                cancel,
            )
            .await;
            eprintln!();
            let done = result?;
            eprintln!(
                "saved {} ({}, sha256 {}{})",
                done.path,
                research_api::human_bytes(done.bytes),
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

fn library(action: LibraryAction, db: DbArg) -> anyhow::Result<ExitCode> {
    let library = Studio::open(db.db.as_deref())?.library()?;
    let progress = |r: &research_api::IndexReport| {
        eprint!(
            "\rscanned {} files: {} indexed, {} unchanged, {} unreadable",
            r.scanned,
            r.indexed,
            r.unchanged,
            r.failed.len()
        );
    };
    let summary = |r: &research_api::IndexReport| {
        eprintln!();
        for (path, why) in r.failed.iter().take(20) {
            eprintln!("skipped {path}: {why}");
        }
        if r.failed.len() > 20 {
            eprintln!("… and {} more unreadable files", r.failed.len() - 20);
        }
        if r.removed > 0 {
            eprintln!("{} files were gone and are no longer indexed", r.removed);
        }
    };
    match action {
        LibraryAction::Add { dir } => summary(
            &library
                .add(&dir, &progress)
                .map_err(research_api::ApiError::from)?,
        ),
        LibraryAction::Reindex => summary(
            &library
                .reindex(&progress)
                .map_err(research_api::ApiError::from)?,
        ),
        LibraryAction::Remove { dir } => {
            library.remove(&dir).map_err(research_api::ApiError::from)?;
            eprintln!("removed {} from the library", dir.display());
        }
        LibraryAction::List { json } => {
            let folders = library.folders().map_err(research_api::ApiError::from)?;
            if json {
                println!("{}", serde_json::to_string(&folders)?);
            } else if folders.is_empty() {
                eprintln!("the library is empty; add a folder with: research library add DIR");
            } else {
                for f in folders {
                    println!("{}  ({} files, {} unreadable)", f.path, f.files, f.failed);
                }
            }
        }
        LibraryAction::Search { query, limit, json } => {
            let hits = library
                .search(&query, limit)
                .map_err(research_api::ApiError::from)?;
            if json {
                println!("{}", serde_json::to_string(&hits)?);
            } else {
                for (i, hit) in hits.iter().enumerate() {
                    println!(
                        "{}. {}\n   {}\n   {}\n",
                        i + 1,
                        hit.title,
                        hit.url,
                        hit.snippet
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn keys(action: KeysAction) -> anyhow::Result<ExitCode> {
    use std::io::IsTerminal;
    let store = research_api::OsKeychain;
    match action {
        KeysAction::Set { provider } => {
            let key = if std::io::stdin().is_terminal() {
                rpassword::prompt_password(format!("Key for {provider}: "))
                    .context("could not read the key from the terminal")?
            } else {
                let mut key = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut key)
                    .context("could not read the key from standard input")?;
                key
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
                        research_api::KeySource::Keychain => "keychain".to_string(),
                        research_api::KeySource::Session => "this session".to_string(),
                        research_api::KeySource::Environment => format!("${}", k.env),
                        research_api::KeySource::Missing => {
                            format!("not set (keychain or ${})", k.env)
                        }
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

/// A failed run is saved: say how to continue it.
pub(crate) fn resumable(e: ApiError, thread: &ThreadId) -> ApiError {
    if e.code == ErrorCode::RunFailed {
        ApiError::new(
            e.code,
            format!(
                "{} (the run is saved; continue it with: research resume {thread})",
                e.message
            ),
        )
    } else {
        e
    }
}

fn summarize_next(next: &[String]) -> String {
    // "worker x20" reads better than twenty names.
    let mut parts: Vec<(String, usize)> = Vec::new();
    for n in next {
        match parts.last_mut() {
            Some((name, count)) if name == n => *count += 1,
            _ => parts.push((n.clone(), 1)),
        }
    }
    parts
        .into_iter()
        .map(|(n, c)| if c > 1 { format!("{n} x{c}") } else { n })
        .collect::<Vec<_>>()
        .join(", ")
}

fn finish(report: &RunReport, json: bool) -> anyhow::Result<ExitCode> {
    match report.status {
        RunStatus::Finished => eprintln!("finished"),
        RunStatus::Interrupted => eprintln!(
            "waiting for input; continue with: research resume {}",
            report.thread_id
        ),
        RunStatus::Cancelled => eprintln!(
            "cancelled; continue with: research resume {}",
            report.thread_id
        ),
    }
    if json {
        println!("{}", serde_json::to_string(&report.state)?);
    }
    Ok(if report.status == RunStatus::Cancelled {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}
