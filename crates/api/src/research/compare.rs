//! Compare mode (seed 004): two configurations on the same question — single vs multi,
//! standard vs trust, two models — run side by side in one session, concurrently unless a side
//! runs the built-in model (one model in memory at a time), sharing the search and page cache;
//! then one table of what each found and spent, and the sources only one of them read.

use std::collections::BTreeSet;
use std::sync::Arc;

use research_graph::{CancellationToken, EventSink};
use research_pipeline::eval::RunResult;
use research_pipeline::steps::audit::AuditStatus;
use serde::{Deserialize, Serialize};

use super::{ResearchOutcome, ResearchRequest, ResearchStatus, SavedRun};
use crate::blocking::in_place;
use crate::keys::KeyStore;
use crate::{ApiError, ErrorCode, Studio, ThreadId};

/// One side of a comparison.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct CompareSide {
    /// Its name in the table (`A`, `B`, or the person's).
    pub label: String,
    /// The run (its question is the comparison's).
    pub request: ResearchRequest,
}

/// Two configurations to compare on one question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct CompareRequest {
    /// The question both answer.
    pub question: String,
    /// The two sides.
    pub a: CompareSide,
    /// The second side.
    pub b: CompareSide,
}

/// What one side found and spent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CompareColumn {
    /// Its label.
    pub label: String,
    /// Its run.
    pub thread_id: String,
    /// The pipeline it ran.
    pub pipeline: String,
    /// Whether it finished (none when it failed).
    pub status: Option<ResearchStatus>,
    /// Why it failed.
    pub error: Option<String>,
    /// Sources read.
    pub sources: usize,
    /// Evidence taken.
    pub evidence: usize,
    /// Research rounds.
    pub iterations: u32,
    /// Coverage of its research questions, 0–1.
    pub coverage: f64,
    /// Cited sentences the audit verified.
    pub verified_sentences: usize,
    /// Cited sentences audited.
    pub audited_sentences: usize,
    /// Supported claims / all claims.
    pub confidence: f64,
    /// Model calls.
    pub calls: u64,
    /// Tokens, prompt and completion.
    pub tokens: u64,
    /// Cost in US dollars (0 for local models).
    pub cost_usd: f64,
    /// Wall time.
    pub wall_ms: i64,
    /// Sources only this side read (URLs).
    pub only_here: Vec<String>,
}

/// Both sides, after running.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CompareOutcome {
    /// The session holding both runs.
    pub session_id: String,
    /// Whether the sides ran at the same time.
    pub concurrent: bool,
    /// The two columns.
    pub columns: Vec<CompareColumn>,
    /// Sources both read (URLs).
    pub shared_sources: Vec<String>,
}

impl CompareColumn {
    fn of(
        label: &str,
        pipeline: &str,
        thread: &ThreadId,
        outcome: &Result<ResearchOutcome, ApiError>,
    ) -> Self {
        let mut column = CompareColumn {
            label: label.to_string(),
            thread_id: thread.to_string(),
            pipeline: pipeline.to_string(),
            ..Default::default()
        };
        match outcome {
            Ok(o) => {
                column.status = Some(o.status);
                column.fill(&o.result);
            }
            Err(e) => column.error = Some(e.message.clone()),
        }
        column
    }

    fn fill(&mut self, r: &RunResult) {
        let m = &r.metadata;
        self.sources = r.sources.len();
        self.evidence = r.evidence.len();
        self.iterations = m.iterations;
        self.coverage = m.coverage;
        self.audited_sentences = r
            .audit
            .iter()
            .filter(|e| e.status != AuditStatus::Removed)
            .count();
        self.verified_sentences = r
            .audit
            .iter()
            .filter(|e| e.status == AuditStatus::Verified)
            .count();
        self.confidence = m.confidence;
        self.calls = m.llm_calls;
        self.tokens = m.prompt_tokens + m.completion_tokens;
        self.cost_usd = m.cost_usd;
        self.wall_ms = m.wall_ms;
    }
}

fn urls(outcome: &Result<ResearchOutcome, ApiError>) -> BTreeSet<String> {
    outcome
        .as_ref()
        .map(|o| o.result.sources.iter().map(|s| s.url.clone()).collect())
        .unwrap_or_default()
}

impl Studio {
    /// Creates the comparison's session and its two runs (not yet run): checks both sides as
    /// a new research is checked, with the settings filling what each leaves open.
    pub fn start_compare(
        &self,
        request: &CompareRequest,
    ) -> Result<(String, [(String, ThreadId); 2]), ApiError> {
        let mut a = request.a.request.clone();
        let mut b = request.b.request.clone();
        a.question = request.question.clone();
        b.question = request.question.clone();
        for side in [&mut a, &mut b] {
            // Nobody answers questions mid-comparison: review points are approved and the
            // best reading taken, on both sides alike.
            side.config.no_input = true;
        }
        // Check the second side fully before anything is created.
        let b = self.with_defaults(b)?;
        self.checked(&b)?;
        let pipeline_b = self.pipeline(&b.pipeline)?.info().name;
        let (session_id, thread_a) = self.start_research(&a)?;
        let saved = SavedRun {
            session_id: session_id.clone(),
            question: b.question.trim().to_string(),
            context: String::new(),
            carried: Default::default(),
            forked_from: None,
            config: b.config.clone(),
            allowed_hosts: b.allowed_hosts.clone(),
            searxng_url: b.searxng_url.clone(),
            mcp_sources: b.mcp_sources.clone(),
        };
        let sessions = self.sessions();
        let thread_b = self.register_run(&*sessions, &pipeline_b, &saved)?;
        let pipeline_a = self.research_run(&thread_a)?.0.info().name;
        Ok((session_id, [(pipeline_a, thread_a), (pipeline_b, thread_b)]))
    }

    /// Runs both sides of a comparison (concurrently unless a side uses the built-in model) and
    /// tabulates them. A side that fails leaves its error in its column; the other still runs.
    pub async fn compare(
        &self,
        request: &CompareRequest,
        keys_store: &dyn KeyStore,
        events: [Option<Arc<dyn EventSink>>; 2],
        cancel: CancellationToken,
    ) -> Result<CompareOutcome, ApiError> {
        let (session_id, [(pipeline_a, a), (pipeline_b, b)]) =
            in_place(|| self.start_compare(request))?;
        let local = [&a, &b].iter().any(|t| {
            self.research_run(t)
                .map(|(_, s)| {
                    s.config
                        .models
                        .models()
                        .iter()
                        .any(|m| m.starts_with("local:"))
                })
                .unwrap_or(false)
        });
        let [events_a, events_b] = events;
        let (ra, rb) = if local {
            let ra = self
                .run_research(&a, None, keys_store, events_a, cancel.clone())
                .await;
            let rb = self
                .run_research(&b, None, keys_store, events_b, cancel)
                .await;
            (ra, rb)
        } else {
            tokio::join!(
                self.run_research(&a, None, keys_store, events_a, cancel.clone()),
                self.run_research(&b, None, keys_store, events_b, cancel),
            )
        };
        let (ua, ub) = (urls(&ra), urls(&rb));
        let label = |side: &CompareSide, default: &str| {
            if side.label.trim().is_empty() {
                default.to_string()
            } else {
                side.label.trim().to_string()
            }
        };
        let mut col_a = CompareColumn::of(&label(&request.a, "A"), &pipeline_a, &a, &ra);
        let mut col_b = CompareColumn::of(&label(&request.b, "B"), &pipeline_b, &b, &rb);
        col_a.only_here = ua.difference(&ub).cloned().collect();
        col_b.only_here = ub.difference(&ua).cloned().collect();
        // The session's status is its last run's: say what the comparison as a whole did.
        let status = if ra.is_err() && rb.is_err() {
            research_store::SessionStatus::Failed
        } else {
            research_store::SessionStatus::Finished
        };
        let now = self.clock.now_ms();
        if let Err(e) = in_place(|| self.sessions().set_status(&session_id, status, now)) {
            tracing::warn!("could not update the session: {e}");
        }
        if let (Err(ea), Err(_)) = (&ra, &rb) {
            return Err(ApiError::new(
                ErrorCode::RunFailed,
                format!("both sides failed; the first: {}", ea.message),
            ));
        }
        Ok(CompareOutcome {
            session_id,
            concurrent: !local,
            columns: vec![col_a, col_b],
            shared_sources: ua.intersection(&ub).cloned().collect(),
        })
    }
}
