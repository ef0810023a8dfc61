//! What the desktop app needs beyond the CLI's commands: the keychain's availability, the
//! outline of the graph a run will walk, connection tests, and the shapes its native dialogs
//! answer with. Kept here (GUI-free) so the Tauri crate stays glue and the tests reach it.

use std::time::Instant;

use research_pipeline::RunConfig;
use serde::{Deserialize, Serialize};

use crate::keys::{KeyStore, OsKeychain};
use crate::{ApiError, ErrorCode, Studio, ThreadId};

/// Whether API keys can be kept in the OS keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct KeychainStatus {
    /// Keys are saved in the OS keychain.
    pub available: bool,
    /// Why not, when not (keys are then kept only until the app quits).
    pub detail: String,
}

/// Checks the OS keychain with a real write, read and delete: a reachable but locked keychain
/// accepts the connection and only fails on the write.
pub fn probe_keychain() -> KeychainStatus {
    let store = OsKeychain;
    let probe = "research-studio-probe";
    let result = store
        .set(probe, "probe")
        .and_then(|()| store.get(probe))
        .and_then(|got| {
            let _ = store.delete(probe);
            match got.as_deref() {
                Some("probe") => Ok(()),
                _ => Err(ApiError::new(
                    ErrorCode::Storage,
                    "the OS keychain did not return what was saved",
                )),
            }
        });
    match result {
        Ok(()) => KeychainStatus {
            available: true,
            detail: String::new(),
        },
        Err(e) => KeychainStatus {
            available: false,
            detail: e.message,
        },
    }
}

/// A new research: its session and first run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StartedRun {
    /// The session.
    pub session_id: String,
    /// The run's thread.
    pub thread_id: ThreadId,
}

/// The steps a run walks, in order, for the live graph view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct GraphOutline {
    /// The pipeline.
    pub pipeline: research_pipeline::PipelineInfo,
    /// Node names in the order a run reaches them.
    pub nodes: Vec<String>,
    /// Each step with its model role and what the run does there.
    pub steps: Vec<research_pipeline::OutlineStep>,
    /// The whole graph as a Mermaid diagram.
    pub mermaid: String,
}

/// Every model role, with the words the app shows and whether the fast model answers it.
pub fn roles() -> Vec<research_pipeline::RoleInfo> {
    research_pipeline::Role::ALL
        .into_iter()
        .map(research_pipeline::Role::info)
        .collect()
}

impl Studio {
    /// The outline of `pipeline` (the default one for an empty name) for `config`.
    pub fn outline(&self, pipeline: &str, config: &RunConfig) -> Result<GraphOutline, ApiError> {
        let pipeline = self.pipeline(pipeline)?;
        let outline = pipeline.outline(config)?;
        Ok(GraphOutline {
            pipeline: pipeline.info(),
            nodes: outline.steps.iter().map(|s| s.node.clone()).collect(),
            steps: outline.steps,
            mermaid: outline.mermaid,
        })
    }

    /// What a run of `pipeline` with `config` is expected to use: shown before it starts, so
    /// the user can set a budget knowingly. A guide, not a promise (the budget enforces).
    pub fn estimate(
        &self,
        pipeline: &str,
        config: &RunConfig,
    ) -> Result<research_pipeline::RunEstimate, ApiError> {
        // Priced with the models the run would get: settings fill what `config` leaves open.
        let request = self.with_defaults(crate::ResearchRequest {
            config: config.clone(),
            ..Default::default()
        })?;
        Ok(self.pipeline(pipeline)?.estimate(&request.config))
    }
}

/// The kind of answer a person types in the page's own field rather than picks in a dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TextAnswer {
    /// What the question means, in the person's words.
    Clarify,
    /// The plan, edited.
    EditPlan,
    /// Feedback for the writer to revise the report from.
    ReviseReport,
    /// Why the report is rejected.
    RejectReport,
    /// The report draft, edited.
    EditReport,
}

/// What a native question dialog returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DialogAnswer {
    /// A complete answer: resume the run with it.
    Answer {
        /// The answer.
        answer: research_pipeline::Answer,
    },
    /// The user wants to type (free text, an edited plan, feedback or a reason).
    NeedsText {
        /// What the text is.
        kind: TextAnswer,
    },
    /// The dialog was closed without a choice: the run keeps waiting.
    Dismissed,
}

/// The result of testing one provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ConnectionTest {
    /// It answered usefully.
    pub ok: bool,
    /// What happened, in one sentence.
    pub detail: String,
    /// How long it took.
    pub latency_ms: u64,
    /// Where to fix it, when it failed and there is one place.
    pub fix: Option<crate::Fix>,
}

impl Studio {
    /// Tests a model (by model string) or a search provider (by name) with one small request.
    pub async fn test_connection(
        &self,
        target: &str,
        keys: &dyn KeyStore,
    ) -> Result<ConnectionTest, ApiError> {
        let target = target.trim();
        let started = Instant::now();
        let result: Result<String, ApiError> = if target.contains(':') {
            let mut connect = crate::keys::connect_settings(keys);
            if let Some(url) = self.settings()?.ollama_url {
                connect.ollama_url = url;
            }
            crate::ask(
                crate::AskRequest {
                    prompt: "Reply with the single word OK.".into(),
                    llm: target.to_string(),
                    system: None,
                    schema: None,
                },
                &connect,
                None,
            )
            .await
            .map(|a| {
                format!(
                    "{} answered: {}",
                    a.model,
                    a.text.trim().chars().take(60).collect::<String>()
                )
            })
        } else {
            let request =
                self.search_request("honeybee".into(), vec![target.to_string()], 1, None)?;
            crate::search(
                request.clone(),
                &crate::search_settings(keys, request.searxng_url),
                keys,
            )
            .await
            .and_then(|out| match out.failures.first() {
                Some(f) => Err(ApiError {
                    fix: f.fix.clone(),
                    ..ApiError::new(ErrorCode::ProviderFailed, f.message.clone())
                }),
                None => Ok(format!(
                    "{} answered with {} result(s)",
                    target,
                    out.hits.len()
                )),
            })
        };
        let latency_ms = started.elapsed().as_millis() as u64;
        Ok(match result {
            Ok(detail) => ConnectionTest {
                ok: true,
                detail,
                latency_ms,
                fix: None,
            },
            Err(e) => ConnectionTest {
                ok: false,
                detail: e.message,
                latency_ms,
                fix: e.fix,
            },
        })
    }
}
