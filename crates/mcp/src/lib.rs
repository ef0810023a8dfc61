//! Research Studio as an MCP server (`research mcp`): another tool's assistant starts a checked
//! research, follows it, reads its report and sources, searches the library and checks any
//! Markdown document's citations — the same api the app and the CLI use, over the Model
//! Context Protocol on stdin and stdout.
//!
//! Why a crate of its own: the protocol (`rmcp`) is a seam like the app's IPC; the tools are a
//! few lines each over `research-api`, and nothing is decided here. A run started here is a
//! session like any other: the app shows it. Every failure is a tool error carrying the api's
//! message and the place to fix it; the server keeps serving.

#![deny(missing_docs)]

mod runs;

use std::sync::Arc;
use std::time::Duration;

use research_api::{
    Answer, ApiError, CancellationToken, CheckRequest, CheckSource, ErrorCode, KeyStore,
    PendingQuestion, ResearchRequest, ReviewPoints, SessionStatus, Studio, ThreadId,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;

use runs::{Log, LogSink, Runs, Tracked};

/// The longest a `research_status` call waits for a run to move on, in seconds.
pub const MAX_WAIT_SECONDS: u64 = 300;

/// Progress lines a status carries.
const STATUS_LINES: usize = 8;

/// The server: the studio, the keys runs use, and the runs started or continued here.
#[derive(Clone)]
pub struct McpServer {
    studio: Arc<Studio>,
    keys: Arc<dyn KeyStore>,
    runs: Runs,
    tool_router: ToolRouter<Self>,
}

/// `research`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResearchArgs {
    /// The question to research.
    pub question: String,
    /// The pipeline: standard (default), trust or review.
    #[serde(default)]
    pub pipeline: Option<String>,
    /// How much research: quick, standard (default) or comprehensive.
    #[serde(default)]
    pub depth: Option<String>,
    /// The model, as a model string (ollama:qwen2.5:7b, openai:gpt-4o-mini, local:/path.gguf);
    /// the settings' default model when absent.
    #[serde(default)]
    pub model: Option<String>,
    /// Search providers (auto, local, duckduckgo, wikipedia, …); the settings' when absent.
    #[serde(default)]
    pub search: Option<Vec<String>>,
    /// What the person already knows, for the planner (not researched again).
    #[serde(default)]
    pub known: Option<String>,
    /// Domains to focus on, for the planner ("academic", "industry", …).
    #[serde(default)]
    pub domains: Option<Vec<String>>,
    /// Notes on method, for the planner ("primary sources only", …).
    #[serde(default)]
    pub method: Option<String>,
    /// Where the run stops for an answer (given with `answer`): any of "clarify" (an ambiguous
    /// question), "plan" (the plan before searching), "report" (the report before it is
    /// final). None when absent: the best reading of the question is taken and nobody is asked.
    #[serde(default)]
    pub review: Option<Vec<String>>,
}

/// Arguments naming a run.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ThreadArgs {
    /// The run's thread id, as `research` returned it.
    pub thread: String,
}

/// `research_status`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StatusArgs {
    /// The run's thread id, as `research` returned it.
    pub thread: String,
    /// Wait up to this many seconds (at most 300) for the run to end or to ask something,
    /// sending its progress as notifications meanwhile when the request carries a progress
    /// token; 0 or absent answers at once.
    #[serde(default)]
    pub wait_seconds: Option<u64>,
}

/// `answer`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AnswerArgs {
    /// The run's thread id.
    pub thread: String,
    /// The answer to the question research_status shows: {"type": "clarify", "text": …},
    /// {"type": "approve_plan"}, {"type": "edit_plan", "plan": {"questions": […], "aspects":
    /// […], "searches": […]}}, {"type": "cancel_plan"}, {"type": "approve_report"},
    /// {"type": "revise_report", "feedback": …}, {"type": "reject_report", "reason": …},
    /// {"type": "accept_with_caveats"}, {"type": "research_more"} or {"type": "stop_run"}.
    pub answer: Answer,
}

/// Arguments naming a session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionArgs {
    /// The session id, as `research` or `sessions` returned it.
    pub session: String,
}

/// `sessions`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionsArgs {
    /// Only sessions whose title or question holds this text.
    #[serde(default)]
    pub text: Option<String>,
}

/// `library_search`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LibraryArgs {
    /// What to search for.
    pub query: String,
    /// Results at most (10 when absent, 50 at most).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `check_document`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// The Markdown document whose sentences cite sources as [1], [2], …
    pub text: String,
    /// Where each source is read from, a file path or an http(s) URL: the first is [1].
    pub sources: Vec<String>,
}

/// A tool's answer: `value` as JSON text.
fn json(value: &impl serde::Serialize) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{}} ({e})"));
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The api's failure as a tool error: its message and where to fix it.
fn failed(e: ApiError) -> CallToolResult {
    let fix = e
        .fix
        .map(|f| format!(" (fix it in: {f:?})"))
        .unwrap_or_default();
    CallToolResult::error(vec![ContentBlock::text(format!("{}{fix}", e.message))])
}

fn answer(result: Result<CallToolResult, ApiError>) -> CallToolResult {
    result.unwrap_or_else(failed)
}

#[tool_router]
impl McpServer {
    /// A server over `studio`, runs reading keys from `keys`.
    pub fn new(studio: Studio, keys: Arc<dyn KeyStore>) -> Self {
        Self {
            studio: Arc::new(studio),
            keys,
            runs: Runs::default(),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Start a checked research on a question. Returns its session and thread at once; follow it with research_status, then read it with report and sources. Unless review names points to stop at (clarify, plan, report), nobody is asked anything mid-way: the best reading of the question is taken."
    )]
    async fn research(&self, Parameters(args): Parameters<ResearchArgs>) -> CallToolResult {
        answer(self.start(args))
    }

    #[tool(
        description = "Where a run stands: running (with its latest progress), waiting (with the question to answer with answer), finished (with the report's first lines), or interrupted or failed (continue it with resume). wait_seconds waits for it to move on, sending progress notifications."
    )]
    async fn research_status(
        &self,
        Parameters(args): Parameters<StatusArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let wait = Duration::from_secs(args.wait_seconds.unwrap_or(0).min(MAX_WAIT_SECONDS));
        if !wait.is_zero() {
            self.wait(&args.thread, wait, &context).await;
        }
        answer(self.status(&args.thread).await)
    }

    #[tool(
        description = "Answer the question a run waits on (research_status shows it) and continue the run: a clarification, the plan's review, the report's review or an escalation."
    )]
    async fn answer(&self, Parameters(args): Parameters<AnswerArgs>) -> CallToolResult {
        answer(self.continue_with(&args.thread, Some(args.answer)).await)
    }

    #[tool(
        description = "Continue a run that was interrupted, failed, or whose process ended mid-way (a restarted server), from its last checkpoint."
    )]
    async fn resume(&self, Parameters(args): Parameters<ThreadArgs>) -> CallToolResult {
        answer(self.continue_with(&args.thread, None).await)
    }

    #[tool(
        description = "Recheck the sources a session's latest report cites: whether each is unchanged, changed or gone, and which cited sentences a changed source no longer supports (a new report version records them)."
    )]
    async fn recheck(&self, Parameters(args): Parameters<SessionArgs>) -> CallToolResult {
        answer(self.studio.recheck(&args.session).await.map(|r| json(&r)))
    }

    #[tool(
        description = "The latest report of a session, in Markdown: every cited sentence checked against the passage it cites, the method section saying how."
    )]
    async fn report(&self, Parameters(args): Parameters<SessionArgs>) -> CallToolResult {
        // The latest report alone: the session's whole record renders every version as HTML.
        answer(
            self.studio
                .latest_report(&args.session, "ask research_status how its run is going")
                .map(|report| CallToolResult::success(vec![ContentBlock::text(report.markdown)])),
        )
    }

    #[tool(
        description = "The sources the latest report of a session cites: number, title, address, kind."
    )]
    async fn sources(&self, Parameters(args): Parameters<SessionArgs>) -> CallToolResult {
        answer(self.studio.session(&args.session).map(|detail| {
            let sources: Vec<serde_json::Value> = detail
                .sources
                .iter()
                .map(|s| {
                    serde_json::json!({"id": s.source_id, "title": s.title, "url": s.url, "kind": s.kind})
                })
                .collect();
            json(&sources)
        }))
    }

    #[tool(description = "The research sessions, newest first: id, title, status.")]
    async fn sessions(&self, Parameters(args): Parameters<SessionsArgs>) -> CallToolResult {
        answer(self.studio.list_sessions(args.text.as_deref()).map(|list| {
            let rows: Vec<serde_json::Value> = list
                .iter()
                .map(|s| serde_json::json!({"id": s.id, "title": s.title, "status": s.status}))
                .collect();
            json(&rows)
        }))
    }

    #[tool(
        description = "Search the local library (the folders added to Research Studio): the best passages' files, titles and snippets."
    )]
    async fn library_search(&self, Parameters(args): Parameters<LibraryArgs>) -> CallToolResult {
        answer((|| {
            if args.query.trim().is_empty() {
                return Err(ApiError::new(
                    research_api::ErrorCode::InvalidInput,
                    "the query is empty",
                ));
            }
            let (library, ranking) = self.studio.library_for_search(&args.query)?;
            let hits = library
                .search(&args.query, args.limit.unwrap_or(10).clamp(1, 50))
                .map_err(ApiError::from)?;
            Ok(json(&serde_json::json!({"ranking": ranking, "hits": hits})))
        })())
    }

    #[tool(
        description = "Check the citations of any Markdown document: each sentence citing [N] is checked against source N (a file path or an http(s) URL, the first being [1]); verified, partly, unsupported or contradicted, with the passage and the reason."
    )]
    async fn check_document(&self, Parameters(args): Parameters<CheckArgs>) -> CallToolResult {
        let request = CheckRequest {
            document: args.text,
            sources: args
                .sources
                .into_iter()
                .enumerate()
                .map(|(i, location)| CheckSource {
                    id: i + 1,
                    location,
                })
                .collect(),
            session: None,
        };
        answer(
            self.studio
                .check_document(request)
                .await
                .map(|c| json(&c.audit)),
        )
    }
}

impl McpServer {
    /// Starts a research thread and runs it in the background.
    fn start(&self, args: ResearchArgs) -> Result<CallToolResult, ApiError> {
        let mut request = ResearchRequest {
            question: args.question,
            pipeline: args.pipeline.unwrap_or_default(),
            ..Default::default()
        };
        request.config.no_input = true;
        if let Some(depth) = args.depth {
            request.config.depth = serde_json::from_value(serde_json::Value::String(depth.clone()))
                .map_err(|_| {
                    ApiError::new(
                        research_api::ErrorCode::InvalidInput,
                        format!("no depth `{depth}`: quick, standard or comprehensive"),
                    )
                })?;
        }
        if let Some(model) = args.model {
            request.config.models = research_api::ModelRouting::single(model);
        }
        if let Some(search) = args.search {
            request.config.search = search;
        }
        request.config.background = research_api::Background {
            known: args.known.unwrap_or_default(),
            domains: args.domains.unwrap_or_default(),
            method: args.method.unwrap_or_default(),
        };
        if let Some(points) = args.review.filter(|p| !p.is_empty()) {
            request.config.review = review_points(&points)?;
            request.config.no_input = false;
        }
        let (session, thread) = self.studio.start_research(&request)?;
        self.spawn(&thread, None)?;
        Ok(json(
            &serde_json::json!({"session": session, "thread": thread.to_string(), "status": "running"}),
        ))
    }

    /// Runs `thread` (from its start, its last checkpoint, or with `answer`) in the background,
    /// unless it runs here already.
    fn spawn(&self, thread: &ThreadId, answer: Option<Answer>) -> Result<(), ApiError> {
        if !self.runs.begin(thread.as_str()) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("run {thread} is running; research_status shows how it goes"),
            ));
        }
        let log = Arc::new(Log::default());
        let steps = match self.studio.run_outline(thread) {
            Ok(outline) => outline.steps,
            Err(e) => {
                self.runs.abandon(thread.as_str());
                return Err(e);
            }
        };
        let sink = Arc::new(LogSink::new(steps, log.clone()));
        let (studio, keys, id, ended) = (
            self.studio.clone(),
            self.keys.clone(),
            thread.clone(),
            log.clone(),
        );
        let task = tokio::spawn(async move {
            let outcome = studio
                .run_research(
                    &id,
                    answer,
                    keys.as_ref(),
                    Some(sink),
                    CancellationToken::new(),
                )
                .await;
            ended.changed.notify_waiters();
            outcome
        });
        self.runs
            .insert(thread.to_string(), Tracked::new(task, log));
        Ok(())
    }

    /// Continues `thread` with `answer` (or from its last checkpoint), unless it runs here now.
    async fn continue_with(
        &self,
        thread: &str,
        answer: Option<Answer>,
    ) -> Result<CallToolResult, ApiError> {
        if self.runs.running(thread) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("run {thread} is running; research_status shows how it goes"),
            ));
        }
        let id = ThreadId::from(thread);
        let standing = self.studio.research_standing(&id).await?;
        if standing.status == SessionStatus::Running && standing.runner_alive != Some(false) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                match standing.runner_alive {
                    Some(_) => format!("run {thread} is running in another process"),
                    None => format!(
                        "run {thread} is marked running and whether its process still runs cannot be told here; stop it there first"
                    ),
                },
            ));
        }
        match (&answer, &standing.question) {
            (Some(a), Some(pending)) => {
                if let Some(problem) = a.problem() {
                    return Err(ApiError::new(ErrorCode::InvalidInput, problem));
                }
                // Said now, not later in research_status: the run keeps waiting.
                if !pending.question.takes(a) {
                    return Err(ApiError::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "run {thread} waits on a {}, which takes {}",
                            pending.question.kind_words(),
                            pending.question.answer_kinds().join(", ")
                        ),
                    ));
                }
            }
            (Some(_), None) => {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "run {thread} waits on no question; research_status shows where it stands"
                    ),
                ))
            }
            (None, Some(_)) => {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!("run {thread} waits on a question: answer it with answer"),
                ))
            }
            (None, None) if !standing.status.resumable() => {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "run {thread} is {}; there is nothing to continue",
                        standing.status
                    ),
                ))
            }
            (None, None) => {}
        }
        self.spawn(&id, answer)?;
        Ok(json(
            &serde_json::json!({"session": standing.session_id, "thread": thread, "status": "running"}),
        ))
    }

    /// Waits up to `wait` for `thread` to end or ask, sending its new progress lines as
    /// progress notifications when the request carries a token.
    async fn wait(&self, thread: &str, wait: Duration, context: &RequestContext<RoleServer>) {
        let Some(log) = self.runs.log(thread) else {
            return;
        };
        let token = context.meta.get_progress_token();
        let deadline = tokio::time::Instant::now() + wait;
        let mut sent = 0;
        loop {
            let changed = log.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (count, lines) = log.since(sent);
            if let Some(token) = &token {
                for line in lines {
                    sent += 1;
                    let note = ProgressNotificationParam::new(token.clone(), sent as f64)
                        .with_message(line.trim().to_string());
                    if context.peer.notify_progress(note).await.is_err() {
                        return;
                    }
                }
            }
            sent = count;
            if !self.runs.running(thread) || context.ct.is_cancelled() {
                return;
            }
            if tokio::time::Instant::now() >= deadline {
                return;
            }
            // Woken by a line or the run's end (its task ends just after it says so: looked at
            // again shortly), or the deadline.
            let poll = (tokio::time::Instant::now() + Duration::from_millis(200)).min(deadline);
            tokio::select! {
                _ = &mut changed => {}
                _ = tokio::time::sleep_until(poll) => {}
                _ = context.ct.cancelled() => return,
            }
        }
    }

    /// Where a run stands: still going here (with its latest progress), how it ended here,
    /// or what the store says of a run this process did not run.
    async fn status(&self, thread: &str) -> Result<CallToolResult, ApiError> {
        let progress = self
            .runs
            .log(thread)
            .map(|l| l.last(STATUS_LINES))
            .unwrap_or_default();
        if self.runs.running(thread) {
            return Ok(json(&serde_json::json!({
                "thread": thread, "status": "running", "progress": progress,
            })));
        }
        let ended = self.runs.ended(thread).await;
        let id = ThreadId::from(thread);
        if !self.studio.is_research(&id)? {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no research run {thread}"),
            ));
        }
        let standing = self.studio.research_standing(&id).await?;
        // How it failed here, unless it has moved on since (resumed elsewhere).
        if let Some(Err(e)) = ended {
            if matches!(
                standing.status,
                SessionStatus::Failed | SessionStatus::Running
            ) {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "the run failed: {} (everything up to its last step is saved: resume continues it)",
                    e.message
                ))]));
            }
        }
        let mut out = serde_json::json!({
            "thread": thread,
            "session": standing.session_id,
            "progress": progress,
        });
        if let Some(pending) = &standing.question {
            out["status"] = "waiting".into();
            out["question"] = question_view(pending);
            return Ok(json(&out));
        }
        if standing.status == SessionStatus::Running {
            match standing.runner_alive {
                // Another process on this machine runs it now.
                Some(true) => {
                    out["status"] = "running".into();
                    out["note"] = "another process runs it".into();
                    return Ok(json(&out));
                }
                // Its process died mid-run (a killed or crashed server): continued here from its
                // last checkpoint, nothing done before done again.
                Some(false) => {
                    self.spawn(&id, None)?;
                    out["status"] = "running".into();
                    out["note"] =
                        "its process stopped mid-run; it goes on here from its last checkpoint"
                            .into();
                    return Ok(json(&out));
                }
                None => {
                    out["status"] = "running".into();
                    out["note"] = "the store says it runs; whether its process still does cannot be told here".into();
                    return Ok(json(&out));
                }
            }
        }
        out["status"] = match standing.status {
            // Running by the store, yet no process is known to run it: resume continues it.
            SessionStatus::Running | SessionStatus::Interrupted => "interrupted".into(),
            other => other.as_str().into(),
        };
        match standing.status {
            SessionStatus::Finished => {
                if let Ok(report) = self.studio.latest_report(
                    &standing.session_id,
                    "ask research_status how its run is going",
                ) {
                    let begins: String = report
                        .markdown
                        .lines()
                        .take(12)
                        .collect::<Vec<_>>()
                        .join("\n");
                    out["report_begins"] = begins.into();
                }
            }
            SessionStatus::Running | SessionStatus::Interrupted | SessionStatus::Failed => {
                out["next"] = "resume continues it from its last checkpoint".into();
            }
            _ => {}
        }
        Ok(json(&out))
    }
}

/// The review points named in `points`.
fn review_points(points: &[String]) -> Result<ReviewPoints, ApiError> {
    let mut review = ReviewPoints::none();
    for p in points {
        match p.trim().to_lowercase().as_str() {
            "clarify" => review.clarify = true,
            "plan" => review.plan = true,
            "report" => review.report = true,
            other => {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("no review point `{other}`: clarify, plan or report"),
                ))
            }
        }
    }
    Ok(review)
}

/// The question a run waits on, and the answers it takes, as an assistant reads them.
fn question_view(pending: &PendingQuestion) -> serde_json::Value {
    let answers = pending.question.answer_kinds();
    serde_json::json!({
        "asked": pending.question,
        "answers": answers,
        "deadline_ms": pending.deadline_ms,
    })
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            // The client shows this name: ours, not the protocol library's.
            .with_server_info(
                rmcp::model::Implementation::new("research-studio", env!("CARGO_PKG_VERSION"))
                    .with_title("Research Studio"),
            )
            .with_instructions(
            "Research Studio: checked research with cited reports. Start with research, follow it with research_status (wait_seconds waits, with progress notifications), answer a review point with answer, continue an interrupted run with resume, then read report and sources; recheck sees whether the cited sources changed; check_document checks any Markdown's citations.",
        )
    }
}

/// Serves `server` on stdin and stdout until the client closes them.
pub async fn serve(server: McpServer) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
