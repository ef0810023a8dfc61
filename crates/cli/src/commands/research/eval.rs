//! `research eval RESULT.json`: the structural checks, and with `--judge` the LLM judges.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use research_api::{structural_checks, Check, OsKeychain, RunResult};

use super::options::invalid;

#[derive(clap::Args)]
pub struct EvalArgs {
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
}

/// `research eval`: exits 1 when a structural check fails.
pub async fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let EvalArgs {
        result: path,
        judge,
        llm,
        json,
    } = args;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let result: RunResult = serde_json::from_str(&text)
        .map_err(|e| invalid(format!("{} is not a research result: {e}", path.display())))?;
    let checks = structural_checks(&result);
    let failed = checks.iter().filter(|c| !c.passed).count();
    if judge {
        let spec = llm
            .or_else(|| std::env::var("RESEARCH_LLM").ok().filter(|s| !s.is_empty()))
            .ok_or_else(|| invalid("--judge needs a judge model: --llm SPEC"))?;
        let settings = research_api::connect_settings(&OsKeychain);
        let model = research_api::connect_model(&spec, &settings)?;
        let verdicts = research_api::judge(model.as_ref(), &result).await?;
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &serde_json::json!({"checks": checks, "judge": verdicts})
                )?
            );
        } else {
            print_checks(&checks, failed);
            println!("{}", serde_json::to_string_pretty(&verdicts)?);
        }
    } else if json {
        println!("{}", serde_json::to_string_pretty(&checks)?);
    } else {
        print_checks(&checks, failed);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_checks(checks: &[Check], failed: usize) {
    for c in checks {
        if c.passed {
            println!("pass  {}", c.name);
        } else {
            println!("FAIL  {}: {}", c.name, c.detail);
        }
    }
    println!("{}/{} checks passed", checks.len() - failed, checks.len());
}
