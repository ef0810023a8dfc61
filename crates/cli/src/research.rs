//! `research run`, `research resume` of research threads, `research sessions`, `research eval`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use research_api::{
    structural_checks, Answer, ApiError, Budget, Depth, ErrorCode, Event, EventSink, Mode,
    ModelRouting, OsKeychain, PendingQuestion, Question, ResearchOutcome, ResearchRequest,
    ResearchStatus, ReviewPoints, RunConfig, RunResult, Settings, Structure, Studio, ThreadId,
};

/// Options shared by `run` and `resume`: which models answer.
#[derive(clap::Args, Clone, Default)]
pub struct ModelArgs {
    /// The model for planning, writing and everything not routed elsewhere
    /// (default: $RESEARCH_LLM), e.g. ollama:qwen2.5:7b or local:/path/model.gguf
    #[arg(long, value_name = "SPEC")]
    pub llm: Option<String>,
    /// A faster model for extraction, checking and summaries
    #[arg(long, value_name = "SPEC")]
    pub fast_llm: Option<String>,
    /// Route one role to a model: ROLE=SPEC (roles: understand, plan, extract, gaps,
    /// orchestrate, summarize, synthesize, verify, write); repeatable
    #[arg(long = "role", value_name = "ROLE=SPEC")]
    pub roles: Vec<String>,
}

impl ModelArgs {
    fn routing(&self) -> Result<Option<ModelRouting>, ApiError> {
        let model = self
            .llm
            .clone()
            .or_else(|| std::env::var("RESEARCH_LLM").ok().filter(|s| !s.is_empty()));
        let Some(model) = model else {
            if self.fast_llm.is_some() || !self.roles.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    "--fast-llm and --role need --llm too",
                ));
            }
            return Ok(None);
        };
        let mut routing = ModelRouting::single(model);
        routing.fast_model = self.fast_llm.clone();
        for r in &self.roles {
            let (role, spec) = r.split_once('=').ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("--role {r}: write ROLE=SPEC, e.g. write=openai:gpt-4o"),
                )
            })?;
            routing.roles.insert(role.trim().into(), spec.trim().into());
        }
        Ok(Some(routing))
    }
}

/// `research run`'s options.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The question to research
    pub question: String,
    #[command(flatten)]
    pub models: ModelArgs,
    /// single: one agent in a search loop; multi: parallel workers per sub-question
    #[arg(long, value_parser = ["single", "multi"], default_value = "single")]
    pub mode: String,
    /// How much to research
    #[arg(long, value_parser = ["quick", "standard", "comprehensive"], default_value = "standard")]
    pub depth: String,
    /// The report's shape
    #[arg(long, value_parser = ["detailed", "concise", "bullet_points"], default_value = "detailed")]
    pub structure: String,
    /// Search providers, comma-separated (auto, local, tavily, brave, serper, searxng,
    /// duckduckgo, semantic-scholar, arxiv, wikipedia, newsapi)
    #[arg(long, value_name = "SPEC[,SPEC…]")]
    pub search: Option<String>,
    /// Your SearXNG instance
    #[arg(long, value_name = "URL")]
    pub searxng_url: Option<String>,
    /// Let the fetcher reach this local or private host; repeatable
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Review points that stop for an answer: clarify, plan, report (comma-separated), or none
    #[arg(long, value_name = "POINTS")]
    pub review: Option<String>,
    /// Answer the clarification question in advance
    #[arg(long, value_name = "TEXT")]
    pub answer: Option<String>,
    /// Never wait: take the best reading of the question and approve review points
    #[arg(long)]
    pub no_input: bool,
    /// Extra instructions for the writer
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Rounds of the gap loop (overrides the depth)
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Coverage at which searching stops (0–1)
    #[arg(long, value_name = "X", default_value_t = 0.7)]
    pub min_coverage: f64,
    /// The report's language (en, ja, …); default: the question's
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Stop after this many model calls
    #[arg(long, value_name = "N")]
    pub max_calls: Option<u64>,
    /// Stop after this many tokens
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Stop after this estimated cost in US dollars
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Write the report here too
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Ask the question as a follow-up in this session (its earlier questions and reports are
    /// context; its configuration is reused)
    #[arg(long, value_name = "SESSION")]
    pub follow_up: Option<String>,
    /// Print the result as one JSON document
    #[arg(long)]
    pub json: bool,
}

/// How a waiting research thread is answered from the command line.
#[derive(clap::Args, Clone, Default)]
pub struct AnswerArgs {
    /// The clarification answer
    #[arg(long, value_name = "TEXT")]
    pub answer: Option<String>,
    /// Approve the plan or the report
    #[arg(long)]
    pub approve: bool,
    /// Replace the plan with this JSON file ({"questions": [], "aspects": [], "searches": []})
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Cancel the run at the plan review
    #[arg(long)]
    pub cancel: bool,
    /// Ask for one revision of the report with this feedback
    #[arg(long, value_name = "FEEDBACK")]
    pub revise: Option<String>,
    /// Reject the report, with a reason
    #[arg(long, value_name = "REASON")]
    pub reject: Option<String>,
    /// Never wait: approve review points and take the best reading
    #[arg(long)]
    pub no_input: bool,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, message)
}

fn config(
    args: &RunArgs,
    models: ModelRouting,
    settings: &Settings,
) -> Result<RunConfig, ApiError> {
    let review_points = args
        .review
        .clone()
        .or_else(|| settings.review.as_ref().map(|r| r.join(",")))
        .unwrap_or_else(|| "clarify".into());
    let search = args
        .search
        .clone()
        .or_else(|| settings.search.as_ref().map(|s| s.join(",")))
        .unwrap_or_else(|| "auto".into());
    let mut review = ReviewPoints::none();
    for point in review_points
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match point {
            "clarify" => review.clarify = true,
            "plan" => review.plan = true,
            "report" => review.report = true,
            "none" => {}
            other => {
                return Err(invalid(format!(
                    "--review {other}: use clarify, plan, report or none"
                )))
            }
        }
    }
    Ok(RunConfig {
        mode: if args.mode == "multi" {
            Mode::Multi
        } else {
            Mode::Single
        },
        depth: match args.depth.as_str() {
            "quick" => Depth::Quick,
            "comprehensive" => Depth::Comprehensive,
            _ => Depth::Standard,
        },
        structure: match args.structure.as_str() {
            "concise" => Structure::Concise,
            "bullet_points" => Structure::BulletPoints,
            _ => Structure::Detailed,
        },
        models,
        system_prompt: args.system_prompt.clone(),
        max_iterations: args.max_iterations,
        min_coverage: args.min_coverage,
        search: search
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        budget: Budget {
            max_calls: args.max_calls,
            max_tokens: args.max_tokens,
            max_cost_usd: args.max_cost,
        },
        review,
        no_input: args.no_input,
        language: args.language.clone(),
    })
}

/// Prints a research run's progress on stderr.
struct RunProgress;

impl EventSink for RunProgress {
    fn emit(&self, event: Event) {
        let line = match event {
            Event::NodeStarted { node, .. } => match node.as_str() {
                "understand" => "reading the question".to_string(),
                "plan" => "planning".to_string(),
                "detect_gaps" => "looking for gaps".to_string(),
                "orchestrate" => "splitting the question among workers".to_string(),
                "synthesize" => "combining the workers' findings".to_string(),
                "verify" => "checking claims against their quotes".to_string(),
                "write_report" | "revise_report" => "writing the report".to_string(),
                _ => return,
            },
            Event::Custom { payload, task, .. } => match payload["type"].as_str() {
                Some("assigned") => format!(
                    "  worker {}: {}",
                    task.map_or(0, |t| t + 1),
                    payload["question"].as_str().unwrap_or("")
                ),
                Some("searching") => {
                    format!("  searching: {}", payload["query"].as_str().unwrap_or(""))
                }
                Some("skipped") => format!(
                    "  skipped (same as \"{}\"): {}",
                    payload["similar_to"].as_str().unwrap_or(""),
                    payload["query"].as_str().unwrap_or("")
                ),
                Some("read") => format!(
                    "  read {} ({} facts)",
                    payload["url"].as_str().unwrap_or(""),
                    payload["facts"]
                ),
                Some("warning") => {
                    format!("  warning: {}", payload["message"].as_str().unwrap_or(""))
                }
                Some("coverage") => format!(
                    "  round {}: coverage {:.0}%",
                    payload["iteration"],
                    payload["coverage"].as_f64().unwrap_or(0.0) * 100.0
                ),
                _ => return,
            },
            Event::NodeRetrying { node, error, .. } => {
                format!("  {node} failed ({error}); retrying")
            }
            _ => return,
        };
        eprintln!("{line}");
    }

    fn wants_updates(&self) -> bool {
        false
    }
}

fn read_line(prompt: &str) -> anyhow::Result<String> {
    eprint!("{prompt}");
    std::io::stderr().flush().ok();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("could not read the answer")?;
    Ok(line.trim().to_string())
}

/// Asks the person at the terminal.
fn ask_terminal(question: &Question) -> anyhow::Result<Answer> {
    match question {
        Question::Clarify {
            question, options, ..
        } => {
            eprintln!("\n{question}");
            for (i, o) in options.iter().enumerate() {
                eprintln!("  {}. {o}", i + 1);
            }
            let line = read_line("Your choice (a number, or your own words): ")?;
            let text = line
                .parse::<usize>()
                .ok()
                .and_then(|n| options.get(n.wrapping_sub(1)).cloned())
                .unwrap_or(line);
            Ok(Answer::Clarify { text })
        }
        Question::PlanReview { plan } => {
            eprintln!("\nResearch questions:");
            for q in &plan.questions {
                eprintln!("  - {q}");
            }
            eprintln!("Searches:");
            for s in &plan.searches {
                eprintln!("  - {s}");
            }
            loop {
                let line = read_line("Approve the plan? [y]es / [e]dit searches / [c]ancel: ")?;
                match line.to_lowercase().chars().next() {
                    Some('y') | None => return Ok(Answer::ApprovePlan),
                    Some('c') => return Ok(Answer::CancelPlan),
                    Some('e') => {
                        let line = read_line("Searches, separated by ';': ")?;
                        let mut plan = plan.clone();
                        plan.searches = line
                            .split(';')
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.is_empty())
                            .collect();
                        return Ok(Answer::EditPlan { plan });
                    }
                    _ => {}
                }
            }
        }
        Question::ReportReview { report } => {
            eprintln!("\n{report}\n");
            loop {
                let line =
                    read_line("Approve the report? [y]es / [r]evise with feedback / re[j]ect: ")?;
                match line.to_lowercase().chars().next() {
                    Some('y') | None => return Ok(Answer::ApproveReport),
                    Some('r') => {
                        let feedback = read_line("What should change? ")?;
                        return Ok(Answer::ReviseReport { feedback });
                    }
                    Some('j') => {
                        let reason = read_line("Why? ")?;
                        return Ok(Answer::RejectReport { reason });
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The answer the flags give for `question`, if they give one.
fn answer_from_flags(question: &Question, a: &AnswerArgs) -> anyhow::Result<Option<Answer>> {
    Ok(match question {
        Question::Clarify { .. } => a.answer.clone().map(|text| Answer::Clarify { text }),
        Question::PlanReview { .. } => {
            if let Some(path) = &a.plan {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("could not read {}", path.display()))?;
                let plan = serde_json::from_str(&text)
                    .map_err(|e| invalid(format!("{} is not a plan: {e}", path.display())))?;
                Some(Answer::EditPlan { plan })
            } else if a.cancel {
                Some(Answer::CancelPlan)
            } else if a.approve || a.no_input {
                Some(Answer::ApprovePlan)
            } else {
                None
            }
        }
        Question::ReportReview { .. } => {
            if let Some(feedback) = &a.revise {
                Some(Answer::ReviseReport {
                    feedback: feedback.clone(),
                })
            } else if let Some(reason) = &a.reject {
                Some(Answer::RejectReport {
                    reason: reason.clone(),
                })
            } else if a.approve || a.no_input {
                Some(Answer::ApproveReport)
            } else {
                None
            }
        }
    })
}

fn how_to_answer(q: &PendingQuestion, thread: &ThreadId) -> String {
    match &q.question {
        Question::Clarify {
            question, options, ..
        } => format!(
            "the run asks: {question} (options: {}); answer with: research resume {thread} --answer TEXT",
            options.join(" | ")
        ),
        Question::PlanReview { .. } => format!(
            "the plan waits for review; continue with: research resume {thread} --approve | --plan FILE | --cancel"
        ),
        Question::ReportReview { .. } => format!(
            "the report waits for review; continue with: research resume {thread} --approve | --revise TEXT | --reject TEXT"
        ),
    }
}

/// Runs a research thread until it finishes or waits on a question nobody here can answer.
async fn drive(
    studio: &Studio,
    thread: &ThreadId,
    mut answer: Option<Answer>,
    flags: &AnswerArgs,
) -> anyhow::Result<ResearchOutcome> {
    let keys = OsKeychain;
    let interactive = std::io::stdin().is_terminal() && !flags.no_input;
    let mut used_flags = answer.is_some();
    loop {
        let outcome = studio
            .run_research(
                thread,
                answer.take(),
                &keys,
                Some(Arc::new(RunProgress)),
                crate::cancel_on_ctrl_c(),
            )
            .await
            .map_err(|e| crate::resumable(e, thread))?;
        let Some(pending) = outcome.question.clone() else {
            return Ok(outcome);
        };
        // Flags answer the first question they fit; a terminal answers the rest.
        let from_flags = if used_flags {
            None
        } else {
            answer_from_flags(&pending.question, flags)?
        };
        answer = match from_flags {
            Some(a) => {
                used_flags = true;
                Some(a)
            }
            None if interactive => Some(ask_terminal(&pending.question)?),
            None => {
                eprintln!("{}", how_to_answer(&pending, thread));
                return Ok(outcome);
            }
        };
    }
}

fn finish(
    outcome: &ResearchOutcome,
    json: bool,
    out: Option<&PathBuf>,
) -> anyhow::Result<ExitCode> {
    let r = &outcome.result;
    if let Some(path) = out {
        if !r.report.is_empty() {
            std::fs::write(path, &r.report)
                .with_context(|| format!("could not write {}", path.display()))?;
            eprintln!("report written to {}", path.display());
        }
    }
    if json {
        let mut value = serde_json::to_value(r)?;
        if let Some(map) = value.as_object_mut() {
            map.insert("session_id".into(), outcome.session_id.clone().into());
            map.insert("status".into(), serde_json::to_value(outcome.status)?);
            map.insert(
                "pending_question".into(),
                serde_json::to_value(&outcome.question)?,
            );
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else if outcome.status == ResearchStatus::Finished && !r.report.is_empty() {
        println!("{}", r.report);
    }
    let m = &r.metadata;
    match outcome.status {
        ResearchStatus::Finished => eprintln!(
            "done: {} sources, {} evidence items, {}/{} claims supported, {} model calls, {} tokens",
            m.sources_count,
            m.evidence_count,
            m.claims_supported,
            m.claims_total,
            m.llm_calls,
            m.prompt_tokens + m.completion_tokens
        ),
        ResearchStatus::Waiting => {}
        ResearchStatus::Interrupted => {
            eprintln!(
                "cancelled; continue with: research resume {}",
                outcome.thread_id
            );
            return Ok(ExitCode::from(130));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `research run`.
pub async fn run(args: RunArgs, db: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let question = if args.question == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("could not read the question from standard input")?;
        text
    } else {
        args.question.clone()
    };
    let studio = Studio::open(db.as_deref())?;
    if let Some(session) = &args.follow_up {
        let thread = studio.follow_up(session, &question)?;
        eprintln!("{thread}");
        let flags = AnswerArgs {
            answer: args.answer.clone(),
            no_input: args.no_input,
            ..Default::default()
        };
        let outcome = drive(&studio, &thread, None, &flags).await?;
        return finish(&outcome, args.json, args.out.as_ref());
    }
    let settings = studio.settings()?;
    let mut model_args = args.models.clone();
    if model_args.llm.is_none() && std::env::var("RESEARCH_LLM").map_or(true, |v| v.is_empty()) {
        model_args.llm = settings.default_model.clone();
    }
    if model_args.fast_llm.is_none() {
        model_args.fast_llm = settings.fast_model.clone();
    }
    let models = model_args.routing()?.ok_or_else(|| {
        invalid("no model is chosen; pass --llm SPEC (e.g. ollama:qwen2.5:7b, local:/path/model.gguf), set RESEARCH_LLM, or `research settings set default_model SPEC`")
    })?;
    let mut allowed_hosts = settings.allowed_hosts.clone();
    allowed_hosts.extend(args.allow_hosts.iter().cloned());
    let request = ResearchRequest {
        question,
        config: config(&args, models, &settings)?,
        allowed_hosts,
        searxng_url: args.searxng_url.clone().or(settings.searxng_url.clone()),
    };
    let (_session, thread) = studio.start_research(&request)?;
    eprintln!("{thread}");
    let flags = AnswerArgs {
        answer: args.answer.clone(),
        no_input: args.no_input,
        ..Default::default()
    };
    let outcome = drive(&studio, &thread, None, &flags).await?;
    finish(&outcome, args.json, args.out.as_ref())
}

/// `research resume` of a research thread.
pub async fn resume(
    studio: &Studio,
    thread: ThreadId,
    models: ModelArgs,
    flags: AnswerArgs,
    json: bool,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    if let Some(routing) = models.routing()? {
        studio.set_research_models(&thread, routing)?;
    }
    // A waiting run needs its answer before it can go on.
    let answer = match studio.research_question(&thread).await? {
        Some(pending) => match answer_from_flags(&pending.question, &flags)? {
            Some(a) => Some(a),
            None if std::io::stdin().is_terminal() && !flags.no_input => {
                Some(ask_terminal(&pending.question)?)
            }
            None => {
                return Err(invalid(how_to_answer(&pending, &thread)).into());
            }
        },
        None => None,
    };
    let outcome = drive(studio, &thread, answer, &flags).await?;
    finish(&outcome, json, out.as_ref())
}

/// `research sessions …`.
#[derive(clap::Subcommand)]
pub enum SessionsAction {
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
pub fn sessions(
    action: Option<SessionsAction>,
    db: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let studio = Studio::open(db.as_deref())?;
    match action.unwrap_or(SessionsAction::List { text: None }) {
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

/// `research eval RESULT.json`: the structural checks, and with `--judge` the LLM judges.
pub async fn eval(
    path: PathBuf,
    llm: Option<String>,
    judge: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
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
        let model = research_llm_connect(&spec, &settings)?;
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
        return Ok(if failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if json {
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

/// `research settings …`.
#[derive(clap::Subcommand)]
pub enum SettingsAction {
    /// Show every setting
    List,
    /// Set one: default_model, fast_model, search, searxng_url, ollama_url, allowed_hosts, review
    Set {
        /// The setting
        key: String,
        /// Its value (lists comma-separated)
        value: String,
    },
    /// Reset one to its default
    Unset {
        /// The setting
        key: String,
    },
}

/// `research settings`.
pub fn settings(
    action: Option<SettingsAction>,
    db: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let studio = Studio::open(db.as_deref())?;
    let path = studio.settings_path();
    let mut current = studio.settings()?;
    match action.unwrap_or(SettingsAction::List) {
        SettingsAction::List => {
            if json {
                println!("{}", serde_json::to_string_pretty(&current)?);
            } else {
                eprintln!("{}", path.display());
                let value = serde_json::to_value(&current)?;
                for (key, what) in research_api::SETTING_KEYS {
                    let shown = match &value[*key] {
                        serde_json::Value::Null => format!("(default; {what})"),
                        serde_json::Value::Array(items) if items.is_empty() => {
                            format!("(none; {what})")
                        }
                        serde_json::Value::Array(items) => items
                            .iter()
                            .filter_map(|i| i.as_str())
                            .collect::<Vec<_>>()
                            .join(","),
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    println!("{key:<14} {shown}");
                }
            }
        }
        SettingsAction::Set { key, value } => {
            current.set(&key, &value)?;
            current.save(&path)?;
            eprintln!("{key} set");
        }
        SettingsAction::Unset { key } => {
            current.unset(&key)?;
            current.save(&path)?;
            eprintln!("{key} reset to its default");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `research providers`.
pub async fn providers(db: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let studio = Studio::open(db.as_deref())?;
    let settings = studio.settings()?;
    let library = studio.library().ok();
    let list = research_api::providers(&OsKeychain, &settings, library.as_ref()).await;
    if json {
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        for p in &list {
            println!(
                "{:<7} {:<17} {:<10} {}",
                p.kind,
                p.name,
                if p.ready { "ready" } else { "not ready" },
                p.detail
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_checks(checks: &[research_api::Check], failed: usize) {
    for c in checks {
        if c.passed {
            println!("pass  {}", c.name);
        } else {
            println!("FAIL  {}: {}", c.name, c.detail);
        }
    }
    println!("{}/{} checks passed", checks.len() - failed, checks.len());
}

fn research_llm_connect(
    spec: &str,
    settings: &research_api::ConnectSettings,
) -> Result<std::sync::Arc<dyn research_api::LlmClient>, ApiError> {
    research_api::connect_model(spec, settings)
}
