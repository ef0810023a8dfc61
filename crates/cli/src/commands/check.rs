//! `research check`: checks every sentence of a Markdown document against its sources.

use std::path::PathBuf;
use std::process::ExitCode;

use research_api::{CheckSource, CheckStatus, CheckWeights, DocumentCheck};

use super::DbArg;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The Markdown document whose `[N]` markers cite the sources
    document: PathBuf,
    /// The source of marker [N]: a file (read as the library reads files) or an http(s) URL
    /// (fetched through the same guard as runs); repeatable
    #[arg(long = "source", value_name = "N=PATH|URL")]
    sources: Vec<CheckSource>,
    /// Check against the sources of this session's latest run instead (its [N] numbers)
    #[arg(long, value_name = "ID", conflicts_with = "sources")]
    session: Option<String>,
    /// Allow this private or local origin for URL sources (repeatable): HOST, HOST:PORT or HOST:*
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_host: Vec<String>,
    /// Calibrate your own: a weights file (the format of crates/check/weights.txt) fitted on
    /// your own judgements, instead of the committed weights
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// A model's second opinion (e.g. local:/path/model.gguf, ollama:qwen2.5:7b): it is asked
    /// whether each verified or partly said sentence is in its passage; a "no" lowers verified to
    /// partly, nothing is raised
    #[arg(long, value_name = "SPEC")]
    llm: Option<String>,
    /// Print {"audit": [...]}: one entry per sentence (sentence, sources, status, passage,
    /// check, score, signals, model)
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    db: DbArg,
}

/// `research check`: the exit status is 1 when a sentence is unsupported or contradicted.
pub async fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let weights: CheckWeights = match &args.weights {
        Some(path) => research_api::read_weights(path)?,
        None => CheckWeights::active().clone(),
    };
    let markdown = research_api::read_check_document(&args.document)?;
    let sources = match &args.session {
        Some(id) => {
            let studio = args.db.open()?;
            studio.check_sources_of_session(&studio.session_named(id)?)?
        }
        None => research_api::read_check_sources(&args.sources, &args.allow_host).await?,
    };
    let mut found = research_api::check_document(&markdown, &sources, &weights)?;
    if let Some(llm) = &args.llm {
        let connect = research_api::connect_settings(&research_api::OsKeychain);
        if let Some(problem) = research_api::second_opinion(&mut found, llm, &connect).await? {
            eprintln!("research: {problem}");
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        print_text(&found);
    }
    Ok(if found.fails() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_text(found: &DocumentCheck) {
    for s in &found.audit {
        println!(
            "{} {} — {}",
            s.status.symbol(),
            s.sentence,
            s.status.as_str()
        );
        println!("    {}", s.check);
        if !s.passage.is_empty() {
            let source = s.source.map(|n| format!("[{n}] ")).unwrap_or_default();
            println!("    {source}\"{}\"", s.passage.trim());
        }
    }
    let counts: Vec<String> = CheckStatus::ALL
        .iter()
        .map(|&st| format!("{} {}", found.count(st), st.as_str()))
        .collect();
    eprintln!("{} sentences: {}", found.audit.len(), counts.join(", "));
    if let Some(m) = found
        .legend
        .iter()
        .find(|m| m.status == CheckStatus::Verified)
    {
        eprintln!("{} verified: {}", m.symbol, m.meaning);
    }
}
