//! `research run`, `research resume` of research threads, and `research eval`.

mod compare;
mod eval;
mod fork;
mod interact;
mod options;
mod progress;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use research_api::{
    Answer, ApiError, ErrorCode, ModelRouting, OsKeychain, PendingQuestion, ResearchOutcome,
    ResearchRequest, ResearchStatus, Role, RunConfig, Studio, ThreadId,
};
use research_api::{Decider, TurnKind};

pub use compare::{compare, CompareArgs};
pub use eval::{eval, EvalArgs};
pub use fork::{fork, ForkArgs};
use interact::{answer_from_flags, ask_terminal, how_to_answer};
use options::{
    config, invalid, review_points, DepthArg, ModeArg, OnTimeoutArg, ReviewPoint,
    ReviewPointParser, StructureArg, StyleArg, TrustArg, TurnArg,
};

use super::DbArg;

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
    /// Route one role to a model: ROLE=SPEC (a wrong role lists the roles); repeatable
    #[arg(long = "role", value_name = "ROLE=SPEC")]
    pub roles: Vec<String>,
}

impl ModelArgs {
    /// The routing the flags ask for, its models left empty for the settings to fill.
    fn routing_or_default(&self) -> Result<ModelRouting, ApiError> {
        Ok(ModelRouting {
            model: self.model().unwrap_or_default(),
            fast_model: self.fast_llm.clone(),
            roles: self.role_models()?,
        })
    }

    fn model(&self) -> Option<String> {
        self.llm
            .clone()
            .or_else(|| std::env::var("RESEARCH_LLM").ok().filter(|s| !s.is_empty()))
    }

    fn role_models(&self) -> Result<std::collections::BTreeMap<String, String>, ApiError> {
        let mut roles = std::collections::BTreeMap::new();
        for r in &self.roles {
            let (role, spec) = r.split_once('=').ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("--role {r}: write ROLE=SPEC, e.g. write=openai:gpt-4o"),
                )
            })?;
            let role = role.trim();
            if Role::from_name(role).is_none() {
                let known: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "--role {role}: there is no such role; use {}",
                        known.join(", ")
                    ),
                ));
            }
            roles.insert(role.into(), spec.trim().into());
        }
        Ok(roles)
    }

    fn routing(&self) -> Result<Option<ModelRouting>, ApiError> {
        let Some(model) = self.model() else {
            if self.fast_llm.is_some() || !self.roles.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    "--fast-llm and --role need --llm too",
                ));
            }
            return Ok(None);
        };
        Ok(Some(ModelRouting {
            model,
            fast_model: self.fast_llm.clone(),
            roles: self.role_models()?,
        }))
    }
}

/// `research run`'s options.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The question to research
    pub question: String,
    /// The pipeline to run (`research graph --list`); default: the standard one
    #[arg(long, value_name = "NAME")]
    pub pipeline: Option<String>,
    #[command(flatten)]
    pub models: ModelArgs,
    /// single: one agent in a search loop; multi: parallel workers per sub-question
    #[arg(long, value_enum, default_value_t = ModeArg::Single)]
    pub mode: ModeArg,
    /// How much to research
    #[arg(long, value_enum, default_value_t = DepthArg::Standard)]
    pub depth: DepthArg,
    /// The report's shape
    #[arg(long, value_enum, default_value_t = StructureArg::Detailed)]
    pub structure: StructureArg,
    /// The report's register
    #[arg(long, value_enum, default_value_t = StyleArg::Academic)]
    pub style: StyleArg,
    /// The report body's length in words (met when the evidence allows)
    #[arg(long, value_name = "WORDS", value_parser = clap::value_parser!(u32).range(50..=20_000))]
    pub target_length: Option<u32>,
    /// Revisions the review pipeline's reviewer may ask for before the best draft is taken
    #[arg(long, value_name = "N", default_value_t = research_api::DEFAULT_MAX_REVISIONS,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(research_api::MAX_REVISIONS)))]
    pub max_revisions: u32,
    /// The trust pipeline's engine: batched (two confirming calls) or full (one per claim)
    #[arg(long, value_enum, default_value_t = TrustArg::Batched)]
    pub trust: TrustArg,
    /// Domains the trust pipeline trusts, comma-separated, or none (default: the settings'
    /// list, else the built-in one)
    #[arg(long, value_name = "DOMAIN[,DOMAIN…]")]
    pub trusted_domains: Option<String>,
    /// Domains the trust pipeline leaves out, comma-separated, or none (default: the settings'
    /// list, else the built-in one)
    #[arg(long, value_name = "DOMAIN[,DOMAIN…]")]
    pub low_trust_domains: Option<String>,
    /// Words the report may not use, comma-separated, or none (default: the settings' list, else
    /// the built-in one)
    #[arg(long, value_name = "WORD[,WORD…]")]
    pub banned_words: Option<String>,
    /// Search providers, comma-separated
    #[arg(long, value_name = "SPEC[,SPEC…]", help = format!("Search providers, comma-separated: {}", research_api::search_names()))]
    pub search: Option<String>,
    /// Your SearXNG instance
    #[arg(long, value_name = "URL")]
    pub searxng_url: Option<String>,
    /// Let the fetcher reach this local or private origin: HOST (default ports), HOST:PORT or
    /// HOST:* (every port); repeatable
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Review points that stop for an answer (comma-separated), or none
    #[arg(
        long,
        value_name = "POINTS",
        value_delimiter = ',',
        value_parser = ReviewPointParser,
        action = clap::ArgAction::Set
    )]
    pub review: Option<Vec<ReviewPoint>>,
    /// Minutes a review point waits for an answer before the run goes on without one
    #[arg(long, value_name = "MINUTES", value_parser = clap::value_parser!(u32).range(1..=i64::from(research_api::MAX_REVIEW_TIMEOUT_MINUTES)))]
    pub review_timeout: Option<u32>,
    /// What an unanswered review point does after --review-timeout
    #[arg(long, value_enum, default_value_t = OnTimeoutArg::Approve, requires = "review_timeout")]
    pub on_timeout: OnTimeoutArg,
    /// Answer the clarification question in advance
    #[arg(long, value_name = "TEXT")]
    pub answer: Option<String>,
    /// Never wait: take the best reading of the question and approve review points
    #[arg(long)]
    pub no_input: bool,
    /// Keep each model call's prompt and answer with the session (keys and secrets redacted);
    /// read them with `research sessions show ID --calls`
    #[arg(long)]
    pub record_calls: bool,
    /// Extra instructions for the writer
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// What you already know, for the planner (not researched again)
    #[arg(long, value_name = "TEXT")]
    pub known: Option<String>,
    /// Domains to focus on, for the planner (comma list: academic,industry,…)
    #[arg(long, value_name = "LIST")]
    pub domains: Option<String>,
    /// Notes on method, for the planner ("primary sources only", …)
    #[arg(long, value_name = "TEXT")]
    pub method: Option<String>,
    /// Rounds of the gap loop (overrides the depth)
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Coverage at which searching stops (0–1)
    #[arg(long, value_name = "X", default_value_t = RunConfig::default().min_coverage)]
    pub min_coverage: f64,
    /// Share of checked claims that must be supported (0–1); under it the run researches the
    /// unsupported ones again before writing
    #[arg(long, value_name = "X", default_value_t = RunConfig::default().min_supported)]
    pub min_supported: f64,
    /// Times a failed verification may send the run back to research (0: never)
    #[arg(long, value_name = "N", default_value_t = RunConfig::default().verification_loops)]
    pub verification_loops: u32,
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
    /// Ask the question in this open session: it is taken as a follow-up (the session's focus,
    /// reading, sources and evidence carry over), a topic change, or a cancel, by its words or
    /// the fast model (see --as); the session's configuration is reused
    #[arg(long, value_name = "SESSION", conflicts_with = "follow_up")]
    pub session: Option<String>,
    /// What the question asked with --session is, overriding the classification
    #[arg(long = "as", value_enum, value_name = "KIND", requires = "session")]
    pub turn: Option<TurnArg>,
    /// Ask the question as a follow-up in this session (the same as --session SESSION --as
    /// follow-up)
    #[arg(long, value_name = "SESSION")]
    pub follow_up: Option<String>,
    /// Print the result as one JSON document
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// How a waiting research thread is answered from the command line.
#[derive(clap::Args, Clone, Default)]
pub struct AnswerArgs {
    /// The clarification answer
    #[arg(long, value_name = "TEXT")]
    pub answer: Option<String>,
    /// Approve the plan or the report
    #[arg(long, conflicts_with_all = ["cancel", "revise", "reject", "edit", "plan"])]
    pub approve: bool,
    /// Replace the plan with this JSON file ({"questions": [], "aspects": [], "searches": []})
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Cancel the run at the plan review
    #[arg(long, conflicts_with_all = ["revise", "reject", "edit", "plan"])]
    pub cancel: bool,
    /// Ask for one revision of the report with this feedback
    #[arg(long, value_name = "FEEDBACK", conflicts_with_all = ["reject", "edit"])]
    pub revise: Option<String>,
    /// Reject the report, with a reason
    #[arg(long, value_name = "REASON", conflicts_with = "edit")]
    pub reject: Option<String>,
    /// Replace the report's text with your edit of it (Markdown); it is audited and reviewed
    /// again
    #[arg(long, value_name = "FILE")]
    pub edit: Option<PathBuf>,
    /// Never wait: approve review points and take the best reading
    #[arg(long)]
    pub no_input: bool,
}

/// `research run`.
pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let question = super::arg_or_stdin(args.question.clone(), "the question")?;
    writable_out(args.out.as_deref())?;
    let studio = args.db.open()?;
    let flags = AnswerArgs {
        answer: args.answer.clone(),
        no_input: args.no_input,
        ..Default::default()
    };
    let in_session = match (&args.session, &args.follow_up) {
        (Some(session), _) => Some((session, args.turn.map(Into::into))),
        (None, Some(session)) => Some((session, Some(TurnKind::FollowUp))),
        (None, None) => None,
    };
    if let Some((session, kind)) = in_session {
        // Models named on the command line take this turn over from the session's own (the
        // api checks them before the turn is recorded: a mistaken flag leaves no turn behind).
        let routing = args.models.routing()?;
        let session = studio.session_named(session)?;
        let turn = studio
            .ask_in_session(&session, &question, kind, routing, &OsKeychain)
            .await?;
        eprintln!(
            "{} ({} {}: {})",
            turn_words(turn.classification.kind),
            match turn.classification.by {
                Decider::Rules => "by its words",
                Decider::Model => "by the model",
                Decider::Person => "as you chose",
            },
            if turn.classification.by == Decider::Person {
                ""
            } else {
                "— override with --as"
            },
            turn.classification.why
        );
        for url in &turn.dropped_sources {
            eprintln!("left out (its stored text changed): {url}");
        }
        let Some(thread) = turn.thread_id.clone() else {
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({ "turn": turn }))?
                );
            } else {
                println!("{}", turn.reply.clone().unwrap_or_default());
            }
            return Ok(ExitCode::SUCCESS);
        };
        eprintln!("{}", run_line(&thread, &session));
        let outcome = drive(&studio, &thread, None, &flags).await?;
        return finish_turn(&outcome, Some(&turn), args.json, args.out.as_ref());
    }
    // What the flags leave open (models, providers, review points, hosts) the api fills from
    // the settings.
    let request = request_of(&args, question)?;
    let (session, thread) = studio.start_research(&request)?;
    eprintln!("{}", run_line(&thread, &session));
    let outcome = drive(&studio, &thread, None, &flags).await?;
    finish(&outcome, args.json, args.out.as_ref())
}

/// The research request the flags describe; what they leave open (models, providers, review
/// points, hosts) the api fills from the settings.
fn request_of(args: &RunArgs, question: String) -> Result<ResearchRequest, ApiError> {
    Ok(ResearchRequest {
        question,
        pipeline: args.pipeline.clone().unwrap_or_default(),
        review: args.review.clone().map(review_points),
        config: config(args, args.models.routing_or_default()?),
        allowed_hosts: args.allow_hosts.clone(),
        searxng_url: args.searxng_url.clone(),
        ..Default::default()
    })
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
    writable_out(out.as_deref())?;
    if let Some(routing) = models.routing()? {
        studio.set_research_models(&thread, routing)?;
    }
    // A waiting run needs its answer before it can go on.
    let answer = match studio.research_question(&thread).await? {
        Some(pending) => match answer_from_flags(&pending.question, &flags)? {
            Some(a) => Some(a),
            // Past its review timeout: the run takes the action chosen for it.
            None if is_due(&pending) => None,
            None if std::io::stdin().is_terminal() && !flags.no_input => ask_terminal(&pending)?,
            None => {
                return Err(invalid(how_to_answer(&pending, &thread)).into());
            }
        },
        None => None,
    };
    let outcome = drive(studio, &thread, answer, &flags).await?;
    finish(&outcome, json, out.as_ref())
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
    let steps = studio.run_outline(thread)?.steps;
    loop {
        let outcome = studio
            .run_research(
                thread,
                answer.take(),
                &keys,
                Some(Arc::new(progress::RunProgress::new(steps.clone()))),
                super::cancel_on_ctrl_c(),
            )
            .await
            .map_err(|e| super::resumable(e, thread))?;
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
            None if is_due(&pending) => None,
            // A terminal answer, or none by the review timeout (the run then takes its action).
            None if interactive => ask_terminal(&pending)?,
            None => {
                eprintln!("{}", how_to_answer(&pending, thread));
                return Ok(outcome);
            }
        };
    }
}

/// Whether `pending` is past its review timeout, so a resume without an answer goes on.
fn is_due(pending: &PendingQuestion) -> bool {
    pending
        .deadline_ms
        .is_some_and(|deadline| interact::now_ms() >= deadline)
}

pub(crate) fn turn_words(kind: TurnKind) -> &'static str {
    match kind {
        TurnKind::First => "first question",
        TurnKind::FollowUp => "follow-up",
        TurnKind::TopicChange => "topic change",
        TurnKind::Cancel => "cancelled",
    }
}

/// Refuses an `--out` path the report could not be written to, before any work: a folder, or a
/// file in a folder that does not exist (found after every model call, it cost the whole run).
pub(crate) fn writable_out(out: Option<&std::path::Path>) -> anyhow::Result<()> {
    let Some(path) = out else { return Ok(()) };
    if path.is_dir() {
        return Err(invalid(format!(
            "--out {} is a folder; give the report's file name (e.g. {}/report.md)",
            path.display(),
            path.display()
        ))
        .into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(invalid(format!(
            "--out {}: the folder {} does not exist",
            path.display(),
            parent.display()
        ))
        .into());
    }
    Ok(())
}

/// The line that names a run as it starts and ends: both ids, labelled. Every command takes
/// either (`research history`, `resume` and `fork` a session's latest run; `sessions show`,
/// `recheck`, `watch` and `check --session` a run's session).
pub(crate) fn run_line(thread: &ThreadId, session: &str) -> String {
    format!("run {thread} (session {session})")
}

fn finish(
    outcome: &ResearchOutcome,
    json: bool,
    out: Option<&PathBuf>,
) -> anyhow::Result<ExitCode> {
    finish_turn(outcome, None, json, out)
}

fn finish_turn(
    outcome: &ResearchOutcome,
    turn: Option<&research_api::Turn>,
    json: bool,
    out: Option<&PathBuf>,
) -> anyhow::Result<ExitCode> {
    let r = &outcome.result;
    if let Some(path) = out {
        if !r.report.is_empty() {
            std::fs::write(path, &r.report).with_context(|| {
                format!(
                    "could not write {} (the report is saved in session {}: research export {} \
                     --format md --out FILE writes it)",
                    path.display(),
                    outcome.session_id,
                    outcome.session_id
                )
            })?;
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
            if let Some(turn) = turn {
                map.insert("turn".into(), serde_json::to_value(turn)?);
            }
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else if outcome.status == ResearchStatus::Finished && !r.report.is_empty() {
        println!("{}", r.report);
    }
    let m = &r.metadata;
    match outcome.status {
        ResearchStatus::Finished => eprintln!(
            "done: {} sources, {} evidence items, {}/{} claims supported, {} model calls, {} tokens; {}",
            m.sources_count,
            m.evidence_count,
            m.claims_supported,
            m.claims_total,
            m.llm_calls,
            m.prompt_tokens + m.completion_tokens,
            run_line(&outcome.thread_id, &outcome.session_id)
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
