//! The graph engine's commands: `research graph`, `demo`, `resume` and `history`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use research_api::{
    ApiError, ErrorCode, Event, EventSink, Mode, Registry, RunConfig, RunReport, RunStatus, Studio,
};

use super::research::{AnswerArgs, ModelArgs};
use super::{cancel_on_ctrl_c, resumable, DbArg};

#[derive(clap::Args)]
pub struct GraphArgs {
    /// Which graph: `demo` or a research pipeline (`--list` names them)
    #[arg(required_unless_present = "list")]
    name: Option<String>,
    /// Print it as a Mermaid flowchart
    #[arg(long)]
    mermaid: bool,
    /// List the research pipelines
    #[arg(long, conflicts_with = "name")]
    list: bool,
}

#[derive(clap::Args)]
pub struct DemoArgs {
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
}

#[derive(clap::Args)]
pub struct ResumeArgs {
    /// The thread id printed when the run started
    thread: String,
    #[command(flatten)]
    db: DbArg,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    answer: AnswerArgs,
    /// Search these providers from now on, comma-separated, as `research run --search` (a
    /// research run whose provider could not be set up, e.g. searxng without its address)
    #[arg(long, value_name = "SPEC[,SPEC…]")]
    search: Option<String>,
    /// Write the report here too (research runs)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct HistoryArgs {
    /// The thread id
    thread: String,
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// `research graph`.
pub fn graph(args: GraphArgs) -> anyhow::Result<ExitCode> {
    // The registry of the built-in pipelines: no database is opened to show one.
    let registry = Registry::builtin();
    if args.list {
        for (i, info) in registry.list().iter().enumerate() {
            let default = if i == 0 { " (default)" } else { "" };
            println!("{}{default}: {}", info.name, info.summary);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.unwrap_or_default();
    if name == "demo" {
        if args.mermaid {
            print!("{}", Studio::demo_mermaid());
        } else {
            println!("demo: plan -> worker x N (Send) -> summarize");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let pipeline = registry.get(&name).ok_or_else(|| {
        let known: Vec<String> = registry.list().into_iter().map(|p| p.name).collect();
        ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "there is no graph called {name}; choose demo or a pipeline: {}",
                known.join(", ")
            ),
        )
    })?;
    let info = pipeline.info();
    if args.mermaid {
        print!(
            "{}",
            pipeline
                .outline(&RunConfig::default())
                .map_err(ApiError::from)?
                .mermaid
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: {}", info.name, info.summary);
    for mode in [Mode::Single, Mode::Multi] {
        let config = RunConfig {
            mode,
            ..RunConfig::default()
        };
        let steps: Vec<String> = pipeline
            .outline(&config)
            .map_err(ApiError::from)?
            .steps
            .into_iter()
            .map(|s| s.node)
            .collect();
        let mode = format!("{mode:?}").to_lowercase();
        println!("  {mode}: {}", steps.join(" -> "));
    }
    Ok(ExitCode::SUCCESS)
}

/// `research demo`.
pub async fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let thread = studio.create_demo(research_api::demo::DemoConfig {
        workers: args.workers,
        concurrency: args.concurrency,
        task_ms: args.task_ms,
        exec_log: args.exec_log,
    })?;
    println!("{thread}");
    std::io::stdout().flush().ok();
    let report = studio
        .run(&thread, Some(Arc::new(Progress)), cancel_on_ctrl_c())
        .await
        .map_err(|e| resumable(e, &thread))?;
    finish(&report, args.json)
}

/// `research resume`: a research thread goes to [`super::research::resume`], a demo one runs on.
pub async fn resume(args: ResumeArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let thread = studio.run_named(&args.thread)?;
    if studio.is_research(&thread)? {
        if let Some(search) = &args.search {
            let names: Vec<String> = search
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            studio.set_research_search(&thread, names)?;
        }
        return super::research::resume(
            &studio,
            thread,
            args.models,
            args.answer,
            args.json,
            args.out,
        )
        .await;
    }
    if args.search.is_some() {
        return Err(anyhow::anyhow!(
            "--search applies to a research run; {thread} is a demo graph's thread"
        ));
    }
    let report = studio
        .resume(&thread, Some(Arc::new(Progress)), cancel_on_ctrl_c())
        .await
        .map_err(|e| resumable(e, &thread))?;
    finish(&report, args.json)
}

/// `research history`.
pub async fn history(args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let thread = studio.run_named(&args.thread)?;
    let history = studio.history(&thread).await?;
    // A research run's stages it can be forked from (none for other graphs' threads).
    let forks = studio.fork_points(&thread).await.unwrap_or_default();
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&serde_json::json!({
                "checkpoints": history,
                "fork_points": forks,
            }))?
        );
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
        if !forks.is_empty() {
            println!("\nfork points (research fork {thread} --at STAGE):");
            for f in forks {
                println!(
                    "  {:<9} checkpoint {:>4}  {}",
                    f.stage, f.checkpoint, f.holds
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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

#[cfg(test)]
mod tests {
    use super::summarize_next;

    #[test]
    fn runs_of_the_same_node_are_counted() {
        let next: Vec<String> = ["plan", "worker", "worker", "worker", "summarize"]
            .map(String::from)
            .to_vec();
        assert_eq!(summarize_next(&next), "plan, worker x3, summarize");
    }
}
