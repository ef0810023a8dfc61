//! `research compare`: two configurations on the same question, side by side, then a table.

use std::process::ExitCode;

use clap::ValueEnum;
use research_api::{CompareColumn, CompareOutcome, CompareRequest, CompareSide, OsKeychain};

use super::options::{invalid, DepthArg, ModeArg, TrustArg};
use super::{request_of, RunArgs};
use research_api::{ApiError, ResearchRequest};

/// `research compare`'s options: `research run`'s, then what each side changes.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// What side A changes, comma-separated KEY=VALUE: pipeline, mode, depth, trust, rounds,
    /// llm, fast-llm, search (PROVIDER+PROVIDER…), label; e.g. pipeline=standard
    #[arg(long = "a", value_name = "KEY=VALUE[,…]", default_value = "")]
    pub a: String,
    /// What side B changes, as --a; e.g. pipeline=trust or llm=ollama:qwen2.5:7b
    #[arg(long = "b", value_name = "KEY=VALUE[,…]", default_value = "")]
    pub b: String,
    #[command(flatten)]
    pub run: RunArgs,
}

fn value<T: ValueEnum>(key: &str, v: &str) -> Result<T, ApiError> {
    T::from_str(v, true).map_err(|_| {
        let known: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|x| x.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        invalid(format!("{key}={v}: use one of {}", known.join(", ")))
    })
}

/// `base` with the side's `KEY=VALUE` changes.
fn side(spec: &str, base: &ResearchRequest) -> Result<CompareSide, ApiError> {
    let mut side = CompareSide {
        label: String::new(),
        request: base.clone(),
    };
    let r = &mut side.request;
    for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, v) = pair
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .ok_or_else(|| invalid(format!("{pair}: write KEY=VALUE, e.g. pipeline=trust")))?;
        match key {
            "pipeline" => r.pipeline = v.into(),
            "mode" => r.config.mode = value::<ModeArg>(key, v)?.into(),
            "depth" => r.config.depth = value::<DepthArg>(key, v)?.into(),
            "trust" => r.config.trust = value::<TrustArg>(key, v)?.into(),
            "rounds" => {
                r.config.max_iterations = Some(
                    v.parse()
                        .ok()
                        .filter(|n: &u32| *n >= 1)
                        .ok_or_else(|| invalid(format!("rounds={v}: give a number from 1")))?,
                )
            }
            "llm" => r.config.models.model = v.into(),
            "fast-llm" | "fast_llm" => r.config.models.fast_model = Some(v.into()),
            "search" => r.config.search = v.split('+').map(|p| p.trim().to_string()).collect(),
            "label" => side.label = v.into(),
            _ => {
                return Err(invalid(format!(
                    "{key}: a side changes pipeline, mode, depth, trust, rounds, llm, fast-llm, search or label"
                )))
            }
        }
    }
    Ok(side)
}

/// `research compare`.
pub async fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let run = &args.run;
    if run.session.is_some() || run.follow_up.is_some() {
        return Err(invalid("a comparison starts its own session; leave out --session").into());
    }
    let question = super::super::arg_or_stdin(run.question.clone(), "the question")?;
    let base = request_of(run, question.clone())?;
    let request = CompareRequest {
        question,
        a: side(&args.a, &base)?,
        b: side(&args.b, &base)?,
    };
    let studio = run.db.open()?;
    eprintln!("running both sides…");
    let outcome = studio
        .compare(
            &request,
            &OsKeychain,
            [None, None],
            super::super::cancel_on_ctrl_c(),
        )
        .await?;
    if run.json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        print!("{}", table(&outcome));
    }
    Ok(ExitCode::SUCCESS)
}

/// How a row of the table shows a column.
type Cell = Box<dyn Fn(&CompareColumn) -> String>;

/// The comparison as a plain-text table, then the sources only one side read.
pub fn table(outcome: &CompareOutcome) -> String {
    let [a, b] = [&outcome.columns[0], &outcome.columns[1]];
    let head = |c: &CompareColumn| format!("{} ({})", c.label, c.pipeline);
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    let rows: Vec<(&str, Cell)> = vec![
        (
            "status",
            Box::new(|c| match (&c.status, &c.error) {
                (_, Some(e)) => format!("failed: {e}"),
                (Some(s), None) => format!("{s:?}").to_lowercase(),
                (None, None) => "-".into(),
            }),
        ),
        ("sources", Box::new(|c| c.sources.to_string())),
        ("evidence", Box::new(|c| c.evidence.to_string())),
        ("rounds", Box::new(|c| c.iterations.to_string())),
        ("coverage", Box::new(move |c| pct(c.coverage))),
        (
            "verified sentences",
            Box::new(|c| format!("{}/{}", c.verified_sentences, c.audited_sentences)),
        ),
        ("confidence", Box::new(move |c| pct(c.confidence))),
        ("model calls", Box::new(|c| c.calls.to_string())),
        ("tokens", Box::new(|c| c.tokens.to_string())),
        ("cost", Box::new(|c| format!("${:.4}", c.cost_usd))),
        (
            "wall time",
            Box::new(|c| format!("{:.1} s", c.wall_ms as f64 / 1000.0)),
        ),
        (
            "only this side read",
            Box::new(|c| c.only_here.len().to_string()),
        ),
    ];
    let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 2;
    let col = head(a).len().max(12) + 2;
    let mut out = format!("{:width$}{:col$}{}\n", "", head(a), head(b));
    for (name, f) in &rows {
        out.push_str(&format!("{name:width$}{:col$}{}\n", f(a), f(b)));
    }
    for c in [a, b] {
        if !c.only_here.is_empty() {
            out.push_str(&format!("\nonly {} read:\n", c.label));
            for url in &c.only_here {
                out.push_str(&format!("  {url}\n"));
            }
        }
    }
    out.push_str(&format!(
        "\nboth read {} source(s); session {}{}\n",
        outcome.shared_sources.len(),
        outcome.session_id,
        if outcome.concurrent {
            ""
        } else {
            " (run one after the other: a side uses the built-in model)"
        }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_the_sources_only_one_side_read() {
        let side = |label: &str, only: &[&str]| CompareColumn {
            label: label.into(),
            pipeline: "standard".into(),
            sources: 2 + only.len(),
            only_here: only.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let outcome = CompareOutcome {
            session_id: "s1".into(),
            concurrent: true,
            columns: vec![side("narrow", &[]), side("multi", &["file:///doc/c.html"])],
            shared_sources: vec!["file:///doc/a.html".into(), "file:///doc/b.html".into()],
        };
        let text = table(&outcome);
        assert!(text.contains("narrow (standard)") && text.contains("multi (standard)"));
        assert!(
            text.contains("\nonly multi read:\n  file:///doc/c.html\n"),
            "{text}"
        );
        assert!(!text.contains("only narrow read"), "{text}");
        assert!(text.contains("both read 2 source(s); session s1"), "{text}");
    }
}
