//! `research fork`: a new run in the same session from a stage of an earlier one, with edits.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use research_api::{ForkRequest, Plan};

use super::options::{invalid, DepthArg};
use super::{drive, finish, AnswerArgs, ModelArgs};
use crate::commands::DbArg;

/// `research fork`.
#[derive(clap::Args)]
pub struct ForkArgs {
    /// The research run to fork (its thread id)
    pub run: String,
    /// The stage to start from: reading, plan, round-N or draft (`research history RUN` lists
    /// the run's stages and what each holds)
    #[arg(long, value_name = "STAGE")]
    pub at: String,
    /// A new plan, as JSON ({"questions": [], "aspects": [], "searches": []}), at the plan stage
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// A new reading of the question, at the reading stage
    #[arg(long, value_name = "TEXT")]
    pub reading: Option<String>,
    #[command(flatten)]
    pub models: ModelArgs,
    /// Another pipeline (standard, review, trust)
    #[arg(long)]
    pub pipeline: Option<String>,
    /// Another depth
    #[arg(long, value_enum)]
    pub depth: Option<DepthArg>,
    /// Another number of research rounds
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Other search providers, comma-separated
    #[arg(long, value_name = "SPEC[,SPEC…]")]
    pub search: Option<String>,
    /// Never wait: approve review points and take the best reading
    #[arg(long)]
    pub no_input: bool,
    /// Write the report here too
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print the result as one JSON document
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// `research fork`.
pub async fn fork(args: ForkArgs) -> anyhow::Result<ExitCode> {
    super::writable_out(args.out.as_deref())?;
    let studio = args.db.open()?;
    let plan = match &args.plan {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("could not read {}", path.display()))?;
            Some(serde_json::from_str::<Plan>(&text).map_err(|e| {
                invalid(format!(
                    "{} is not a plan ({e}); write {{\"questions\": [], \"aspects\": [], \"searches\": []}}",
                    path.display()
                ))
            })?)
        }
        None => None,
    };
    let request = ForkRequest {
        at: args.at.clone(),
        reading: args.reading.clone(),
        plan,
        models: args.models.routing()?,
        pipeline: args.pipeline.clone(),
        depth: args.depth.map(Into::into),
        max_iterations: args.max_iterations,
        search: args.search.as_ref().map(|s| {
            s.split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        }),
    };
    let forked = studio
        .fork_research(&studio.run_named(&args.run)?, &request)
        .await?;
    eprintln!(
        "forked at {} (checkpoint {}): {}",
        forked.point.stage, forked.point.checkpoint, forked.point.holds
    );
    eprintln!("{}", super::run_line(&forked.thread_id, &forked.session_id));
    let flags = AnswerArgs {
        no_input: args.no_input,
        ..Default::default()
    };
    let outcome = drive(&studio, &forked.thread_id, None, &flags).await?;
    finish(&outcome, args.json, args.out.as_ref())
}
