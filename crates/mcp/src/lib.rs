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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use research_api::{
    ApiError, CancellationToken, CheckRequest, CheckSource, KeyStore, ResearchOutcome,
    ResearchRequest, Studio, ThreadId,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::task::JoinHandle;

/// A run this server started, while it goes.
type Running = JoinHandle<Result<ResearchOutcome, ApiError>>;

/// The server: the studio, the keys runs use, and the runs started here.
#[derive(Clone)]
pub struct McpServer {
    studio: Arc<Studio>,
    keys: Arc<dyn KeyStore>,
    runs: Arc<Mutex<HashMap<String, Running>>>,
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
}

/// Arguments naming a run.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ThreadArgs {
    /// The run's thread id, as `research` returned it.
    pub thread: String,
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
            runs: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Start a checked research on a question. Returns its session and thread at once; follow it with research_status, then read it with report and sources. Nobody is asked anything mid-way: the best reading of the question is taken."
    )]
    async fn research(&self, Parameters(args): Parameters<ResearchArgs>) -> CallToolResult {
        answer(self.start(args))
    }

    #[tool(
        description = "Where a run started with research stands: running, finished (with the report's first lines) or failed (with why)."
    )]
    async fn research_status(&self, Parameters(args): Parameters<ThreadArgs>) -> CallToolResult {
        answer(self.status(&args.thread).await)
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
            let (library, ranking) = self.studio.library_for_search()?;
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
        let (session, thread) = self.studio.start_research(&request)?;
        let (studio, keys) = (self.studio.clone(), self.keys.clone());
        let id = thread.clone();
        let run = tokio::spawn(async move {
            studio
                .run_research(&id, None, keys.as_ref(), None, CancellationToken::new())
                .await
        });
        self.runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(thread.to_string(), run);
        Ok(json(
            &serde_json::json!({"session": session, "thread": thread.to_string(), "status": "running"}),
        ))
    }

    /// Where a run stands: still going here, or its outcome once it ended.
    async fn status(&self, thread: &str) -> Result<CallToolResult, ApiError> {
        let finished = {
            let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
            match runs.get(thread) {
                Some(run) if !run.is_finished() => {
                    return Ok(json(
                        &serde_json::json!({"thread": thread, "status": "running"}),
                    ))
                }
                Some(_) => runs.remove(thread),
                None => None,
            }
        };
        let outcome = match finished {
            Some(run) => run.await.map_err(|e| {
                ApiError::new(
                    research_api::ErrorCode::RunFailed,
                    format!("the run stopped unexpectedly: {e}"),
                )
            })?,
            // Not started here, or already reported: what the store says.
            None => {
                let id = ThreadId::from(thread);
                if !self.studio.is_research(&id)? {
                    return Err(ApiError::new(
                        research_api::ErrorCode::NotFound,
                        format!("no research run {thread}"),
                    ));
                }
                let waiting = self.studio.research_question(&id).await?;
                return Ok(json(&serde_json::json!({
                    "thread": thread,
                    "status": if waiting.is_some() { "waiting" } else { "ended" },
                })));
            }
        };
        match outcome {
            Ok(outcome) => {
                let summary: String = outcome.result.report.lines().take(12).collect::<Vec<_>>().join("\n");
                Ok(json(&serde_json::json!({
                    "thread": thread,
                    "session": outcome.session_id,
                    "status": outcome.status,
                    "report_begins": summary,
                })))
            }
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "the run failed: {} (it is saved: `research resume {thread}` continues it from its last checkpoint)",
                e.message
            ))])),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Research Studio: checked research with cited reports. Start with research, poll research_status, then read report and sources; check_document checks any Markdown's citations.",
        )
    }
}

/// Serves `server` on stdin and stdout until the client closes them.
pub async fn serve(server: McpServer) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
