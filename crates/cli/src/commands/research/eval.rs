//! `research eval`: the structural checks of one result (with `--judge`, the LLM judges), or a
//! case set (seed 004) run live or re-scored from the results a live run kept.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use research_api::{
    score_case, structural_checks, CaseScore, CaseSet, Check, OsKeychain, ResearchRequest,
    ResearchStatus, ReviewPoints, RunConfig, RunResult,
};

use super::options::{invalid, providers, DepthArg};
use super::{AnswerArgs, ModelArgs};
use crate::commands::DbArg;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// A result file (`research run --json`'s output) to check
    #[arg(
        required_unless_present_any = ["live", "from_snapshots"],
        conflicts_with_all = ["live", "from_snapshots"]
    )]
    result: Option<PathBuf>,
    /// Research every case of the case set now, keep each result in --snapshots and score it
    #[arg(long, conflicts_with = "from_snapshots")]
    live: bool,
    /// Score again the results a live run kept in DIR, without running anything
    #[arg(long, value_name = "DIR")]
    from_snapshots: Option<PathBuf>,
    /// The case set, a JSON file (default: the built-in set of eight questions)
    #[arg(long, value_name = "FILE")]
    cases: Option<PathBuf>,
    /// Only these cases of the set
    #[arg(long, value_name = "ID[,ID…]", value_delimiter = ',')]
    only: Vec<String>,
    /// Where a live run keeps each case's result, as ID.json (default: a new folder
    /// eval-DATE-TIME in the current one)
    #[arg(long, value_name = "DIR", requires = "live")]
    snapshots: Option<PathBuf>,
    /// Search providers for a live run, comma-separated (default: the settings')
    #[arg(long, value_name = "SPEC[,SPEC…]", requires = "live")]
    search: Option<String>,
    /// How deep a live run researches
    #[arg(long, value_enum, default_value_t = DepthArg::Quick, requires = "live")]
    depth: DepthArg,
    /// The pipeline a live run uses
    #[arg(long, value_name = "NAME", requires = "live")]
    pipeline: Option<String>,
    /// The models: of a live run's research, and with --judge the judge
    #[command(flatten)]
    models: ModelArgs,
    /// Also ask a judge model (--llm) for relevance, groundedness, completeness, quality
    /// and citation faithfulness
    #[arg(long, conflicts_with_all = ["live", "from_snapshots"])]
    judge: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    db: DbArg,
}

/// `research eval`: exits 1 when a check fails (of the result, or of any case).
pub async fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    match &args.result {
        Some(path) => one_result(path, &args).await,
        None => case_set(&args).await,
    }
}

async fn one_result(path: &Path, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let result = read_result(path)?;
    let checks = structural_checks(&result);
    let failed = checks.iter().filter(|c| !c.passed).count();
    if args.judge {
        let spec = args
            .models
            .model()
            .ok_or_else(|| invalid("--judge needs a judge model: --llm SPEC"))?;
        let settings = research_api::connect_settings(&OsKeychain);
        let model = research_api::connect_model(&spec, &settings)?;
        let verdicts = research_api::judge(model.as_ref(), &result).await?;
        if args.json {
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
    } else if args.json {
        println!("{}", serde_json::to_string_pretty(&checks)?);
    } else {
        print_checks(&checks, failed);
    }
    Ok(exit(failed == 0))
}

fn read_result(path: &Path) -> anyhow::Result<RunResult> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    Ok(serde_json::from_str(&text)
        .map_err(|e| invalid(format!("{} is not a research result: {e}", path.display())))?)
}

/// A case set, run live or re-scored from a live run's snapshots.
async fn case_set(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let set = match &args.cases {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("could not read {}", path.display()))?;
            CaseSet::parse(&text).map_err(|e| invalid(format!("{}: {e}", path.display())))?
        }
        None => CaseSet::builtin(),
    };
    let cases = set.only(&args.only).map_err(invalid)?;
    let (dir, scores) = match &args.from_snapshots {
        Some(dir) => {
            let mut scores = Vec::new();
            for case in &cases {
                let file = snapshot(dir, &case.id);
                if !file.exists() {
                    return Err(invalid(format!(
                        "{} has no result for case {:?} ({} is missing); run the set with --live first",
                        dir.display(),
                        case.id,
                        file.display()
                    ))
                    .into());
                }
                scores.push(score_case(case, &read_result(&file)?));
            }
            (dir.clone(), scores)
        }
        None => live(args, &cases).await?,
    };
    let passed = scores.iter().filter(|s| s.passed).count();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "snapshots": dir,
                "passed": passed,
                "total": scores.len(),
                "cases": scores,
            }))?
        );
    } else {
        for s in &scores {
            print_case(s);
        }
        println!(
            "{passed}/{} cases passed; results in {}",
            scores.len(),
            dir.display()
        );
    }
    Ok(exit(passed == scores.len()))
}

/// Researches each case now, keeping its result (as `research run --json` prints it) before it
/// is scored, so that `--from-snapshots` scores the same reports again.
async fn live(
    args: &EvalArgs,
    cases: &[&research_api::EvalCase],
) -> anyhow::Result<(PathBuf, Vec<CaseScore>)> {
    let studio = args.db.open()?;
    let dir = match &args.snapshots {
        Some(dir) => dir.clone(),
        None => PathBuf::from(format!(
            "eval-{}",
            research_api::backups::stamp(studio.now_ms())
        )),
    };
    // Results of an earlier run are never overwritten: a new folder, or one without them.
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("could not create the folder {}", dir.display()))?;
    if let Some(case) = cases.iter().find(|c| snapshot(&dir, &c.id).exists()) {
        return Err(invalid(format!(
            "{} already holds a result for case {:?}; choose another --snapshots folder, or score it with --from-snapshots",
            dir.display(),
            case.id
        ))
        .into());
    }
    let config = RunConfig {
        depth: args.depth.into(),
        models: args.models.routing_or_default()?,
        search: providers(args.search.as_deref()),
        // An evaluation never waits on a person.
        review: ReviewPoints::none(),
        no_input: true,
        ..RunConfig::default()
    };
    let flags = AnswerArgs {
        no_input: true,
        ..Default::default()
    };
    let mut scores = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        eprintln!(
            "case {} of {}: {} — {}",
            n + 1,
            cases.len(),
            case.id,
            case.question
        );
        let request = ResearchRequest {
            question: case.question.clone(),
            pipeline: args.pipeline.clone().unwrap_or_default(),
            config: config.clone(),
            ..Default::default()
        };
        let (session, thread) = studio.start_research(&request)?;
        eprintln!("{}", super::run_line(&thread, &session));
        let outcome = super::drive(&studio, &thread, None, &flags).await?;
        if outcome.status != ResearchStatus::Finished {
            eprintln!(
                "case {} did not finish ({:?}); it is scored as it stands",
                case.id, outcome.status
            );
        }
        let mut value = serde_json::to_value(&outcome.result)?;
        if let Some(map) = value.as_object_mut() {
            map.insert("session_id".into(), outcome.session_id.clone().into());
            map.insert("status".into(), serde_json::to_value(outcome.status)?);
        }
        let file = snapshot(&dir, &case.id);
        std::fs::write(&file, serde_json::to_vec_pretty(&value)?)
            .with_context(|| format!("could not write {}", file.display()))?;
        let score = score_case(case, &outcome.result);
        eprintln!(
            "case {}: {}",
            case.id,
            if score.passed { "passed" } else { "failed" }
        );
        scores.push(score);
    }
    Ok((dir, scores))
}

fn snapshot(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

fn exit(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn print_case(score: &CaseScore) {
    let failed: Vec<&Check> = score.checks.iter().filter(|c| !c.passed).collect();
    if failed.is_empty() {
        println!("pass  {} ({} checks)", score.id, score.checks.len());
    } else {
        let said: Vec<String> = failed
            .iter()
            .map(|c| format!("{}: {}", c.name, c.detail))
            .collect();
        println!("FAIL  {}: {}", score.id, said.join("; "));
    }
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
