//! What a run leaves in its session (sources, evidence, claims, each new report with its
//! provenance, method and summary), and reading, renaming and deleting sessions.

use std::collections::BTreeSet;

use research_llm::{Meter, PriceTable};
use research_pipeline::steps::audit::{check_draft, DraftFinding, SourceTexts};
use research_pipeline::steps::review::{Criterion, Issue, ReviewRecord};
use research_pipeline::Evidence;
use research_pipeline::Run;
use research_store::{
    ClaimRow, EvidenceRow, ReportRow, SessionRecord, SessionStatus, SessionStore, SourceRow,
};
use serde::{Deserialize, Serialize};

use super::SavedRun;
use crate::{ApiError, ErrorCode, RunMethod, Studio, ThreadId};

/// A session with its runs, reports and findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionDetail {
    /// The session.
    pub session: SessionRecord,
    /// The run configuration it was started with (`session.config` read; none when that is
    /// not one).
    pub config: Option<research_pipeline::RunConfig>,
    /// Its runs: (thread id, question).
    pub runs: Vec<(String, String)>,
    /// Report versions, oldest first.
    pub reports: Vec<research_store::ReportRow>,
    /// Sources of the run that wrote the latest report (of the latest run when none has).
    pub sources: Vec<SourceRow>,
    /// Evidence of that run.
    pub evidence: Vec<EvidenceRow>,
    /// Checked claims of that run.
    pub claims: Vec<ClaimRow>,
    /// The latest report as safe HTML (citations linked as `#cite-n`), empty when none.
    pub report_html: String,
    /// How the latest report's run went (none for reports saved before it was recorded).
    pub method: Option<RunMethod>,
    /// The conversation: each question with what it was taken to be (sessions from before
    /// turns were kept have none).
    pub turns: Vec<super::TurnView>,
    /// The kept summary of a long conversation's earlier turns.
    pub summary: research_store::ConversationSummary,
    /// Each report version as safe HTML, in the order of `reports` (its citations linked to
    /// its own run's sources).
    pub reports_html: Vec<String>,
    /// Where each forked run started, by thread id.
    pub forks: std::collections::BTreeMap<String, super::RunOrigin>,
    /// The trust pipeline's record of the latest report (credibility, cross-validated claims,
    /// hallucination score); none for other pipelines.
    pub trust: Option<research_pipeline::steps::trust::TrustRecord>,
    /// The review pipeline's record of the latest report (every draft with its review, and
    /// what each revision fixed); none for other pipelines.
    pub review: Option<ReviewView>,
    /// Why the session's latest run failed, while the session stands failed (none otherwise,
    /// and for runs that failed before it was kept).
    pub failure: Option<String>,
}

/// The model calls of one run of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunCalls {
    /// The run's thread id.
    pub thread: String,
    /// The question it researched.
    pub question: String,
    /// Its calls, in order.
    pub calls: Vec<research_llm::CallRecord>,
}

/// One criterion and its weight in a draft's overall score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CriterionWeight {
    /// The criterion.
    pub criterion: Criterion,
    /// Its share of the overall score (the six sum to 1).
    pub weight: f64,
}

/// The reviewer's work on a report, as the Review view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReviewView {
    /// Every draft with its review, the fallback's reason and the escalations.
    pub record: ReviewRecord,
    /// The criteria's weights in the overall score.
    pub weights: Vec<CriterionWeight>,
    /// For each draft (in the order of `record.drafts`), the issues of it that the next draft
    /// no longer has; empty for the last.
    pub fixed: Vec<Vec<Issue>>,
    /// The version of the best-scored draft (the one delivered when none was approved).
    pub best: Option<u32>,
}

impl From<ReviewRecord> for ReviewView {
    fn from(record: ReviewRecord) -> Self {
        ReviewView {
            weights: Criterion::ALL
                .iter()
                .map(|c| CriterionWeight {
                    criterion: *c,
                    weight: c.weight(),
                })
                .collect(),
            fixed: (0..record.drafts.len())
                .map(|i| record.fixed_by_next(i))
                .collect(),
            best: record.best().map(|d| d.version),
            record,
        }
    }
}

impl Studio {
    pub(super) fn save_research(
        &self,
        sessions: &dyn SessionStore,
        saved: &SavedRun,
        thread: &ThreadId,
        run: &Run,
    ) -> Result<(), ApiError> {
        let (result, method) = (&run.view.result, &run.view.method);
        let sources: Vec<SourceRow> = result
            .sources
            .iter()
            .map(|s| SourceRow {
                source_id: s.id,
                url: s.url.clone(),
                title: s.title.clone(),
                kind: s.kind.clone(),
                sha256: s.sha256.clone(),
                accessed_at_ms: s.accessed_at_ms,
                citation: s.citation.clone(),
            })
            .collect();
        let evidence: Vec<EvidenceRow> = result
            .evidence
            .iter()
            .map(|e| EvidenceRow {
                evidence_id: e.id,
                source_id: e.source_id,
                fact: e.fact.clone(),
                quote: e.quote.clone(),
            })
            .collect();
        let claims: Vec<ClaimRow> = result
            .claims
            .iter()
            .map(|c| ClaimRow {
                evidence_id: c.evidence_id,
                text: c.text.clone(),
                supported: c.supported,
            })
            .collect();
        sessions.save_findings(
            &saved.session_id,
            thread.as_str(),
            &sources,
            &evidence,
            &claims,
        )?;
        // The run is saved either way: its models' measurements are worth less than it.
        if let Err(e) = self.record_model_work(sessions, thread.as_str()) {
            tracing::warn!("what the models did in this run was not recorded: {e}");
        }
        if !result.report.is_empty() {
            let known: BTreeSet<String> = sessions
                .reports(&saved.session_id)?
                .into_iter()
                .filter(|r| r.thread_id == thread.as_str())
                .map(|r| r.markdown)
                .collect();
            if !known.contains(&result.report) {
                let provenance = serde_json::json!({
                    "app_version": env!("CARGO_PKG_VERSION"),
                    "models": result.metadata.models,
                    "search": saved.config.search,
                    "config": saved.config,
                    "llm_calls": result.metadata.llm_calls,
                    "prompt_tokens": result.metadata.prompt_tokens,
                    "completion_tokens": result.metadata.completion_tokens,
                    "cost_usd": result.metadata.cost_usd,
                    "method": method,
                    "summary": run.view.summary,
                    "trust": result.trust,
                    "review": result.review,
                });
                sessions.add_report(
                    &saved.session_id,
                    thread.as_str(),
                    &result.report,
                    &provenance,
                    self.clock.now_ms(),
                )?;
            }
        }
        Ok(())
    }

    /// What a run's model calls have used so far (a resumed run's counters start from it).
    pub fn run_usage(&self, thread: &ThreadId) -> Result<research_llm::UsageTotals, ApiError> {
        let calls: Vec<research_llm::CallRecord> = self
            .sessions()
            .calls(thread.as_str())?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        Ok(
            Meter::new(research_llm::Budget::default(), PriceTable::builtin())
                .with_history(calls)
                .totals(),
        )
    }

    /// Every model call of a session's runs, in order, with the prompt and answer of those made
    /// while the run kept them ([`research_pipeline::RunConfig::record_calls`]).
    pub fn model_calls(&self, session: &str) -> Result<Vec<RunCalls>, ApiError> {
        self.existing_session(session)?;
        let sessions = self.sessions();
        sessions
            .runs(session)?
            .into_iter()
            .map(|(thread, question)| {
                let calls = sessions
                    .calls(&thread)?
                    .into_iter()
                    .filter_map(|v| serde_json::from_value(v).ok())
                    .collect();
                Ok(RunCalls {
                    thread,
                    question,
                    calls,
                })
            })
            .collect()
    }

    /// Sessions, newest first, optionally only those matching `text`.
    pub fn list_sessions(&self, text: Option<&str>) -> Result<Vec<SessionRecord>, ApiError> {
        Ok(self.sessions().list(text)?)
    }

    /// A session with its runs, reports, and the sources and evidence behind its latest report.
    pub fn session(&self, id: &str) -> Result<SessionDetail, ApiError> {
        let sessions = self.sessions();
        let session = self.existing_session(id)?;
        let runs = sessions.runs(id)?;
        let reports = sessions.reports(id)?;
        // Findings come from the run that wrote the report shown, so its citations resolve even
        // while a follow-up has not written its own yet.
        let latest = reports
            .last()
            .map(|r| r.thread_id.clone())
            .or_else(|| runs.last().map(|r| r.0.clone()))
            .unwrap_or_default();
        let sources = sessions.sources(&latest)?;
        let known: BTreeSet<u32> = sources.iter().map(|s| s.source_id).collect();
        let method = reports
            .last()
            .and_then(|r| serde_json::from_value(r.provenance.get("method")?.clone()).ok());
        let mut reports_html = Vec::new();
        for r in &reports {
            let known: BTreeSet<u32> = sessions
                .sources(&r.thread_id)?
                .iter()
                .map(|s| s.source_id)
                .collect();
            reports_html.push(research_export::html(&r.markdown, &known));
        }
        let mut forks = std::collections::BTreeMap::new();
        for (thread, _) in &runs {
            if let Ok((_, saved)) = self.research_run(&ThreadId::new(thread.clone())) {
                if let Some(origin) = saved.forked_from {
                    forks.insert(thread.clone(), origin);
                }
            }
        }
        let trust = reports
            .last()
            .and_then(|r| serde_json::from_value(r.provenance.get("trust")?.clone()).ok());
        let review = reports
            .last()
            .and_then(|r| {
                serde_json::from_value::<ReviewRecord>(r.provenance.get("review")?.clone()).ok()
            })
            .map(ReviewView::from);
        let failure = match (session.status, runs.last()) {
            (SessionStatus::Failed, Some((thread, _))) => self.failure(thread)?,
            _ => None,
        };
        Ok(SessionDetail {
            failure,
            reports_html,
            forks,
            trust,
            review,
            method,
            report_html: reports
                .last()
                .map(|r| research_export::html(&r.markdown, &known))
                .unwrap_or_default(),
            reports,
            sources,
            evidence: sessions.evidence(&latest)?,
            claims: sessions.claims(&latest)?,
            turns: sessions
                .turns(id)?
                .into_iter()
                .map(super::TurnView::from)
                .collect(),
            summary: sessions.summary(id)?,
            runs,
            config: serde_json::from_value(session.config.clone()).ok(),
            session,
        })
    }

    /// The audit's findings on `draft`, a person's edit of `thread`'s report draft, before it
    /// is sent: markers naming no source the run read, and sentences its sources do not bear
    /// out (the deterministic checks the audit runs on the writer's prose; no model call).
    pub fn check_draft(
        &self,
        thread: &ThreadId,
        draft: &str,
    ) -> Result<Vec<DraftFinding>, ApiError> {
        self.research_run(thread)?;
        let sessions = self.sessions();
        let rows = sessions.sources(thread.as_str())?;
        let known: BTreeSet<u32> = rows.iter().map(|s| s.source_id).collect();
        let evidence: Vec<Evidence> = sessions
            .evidence(thread.as_str())?
            .into_iter()
            .map(|e| Evidence {
                source_url: rows
                    .iter()
                    .find(|s| s.source_id == e.source_id)
                    .map(|s| s.url.clone())
                    .unwrap_or_default(),
                id: e.evidence_id,
                source_id: e.source_id,
                fact: e.fact,
                quote: e.quote,
                question: None,
                query: String::new(),
            })
            .collect();
        // The words of the texts of the sources the draft cites, as the audit will have them.
        let cited = research_pipeline::report::cited_ids(draft);
        let texts: Vec<(u32, String)> = rows
            .iter()
            .filter(|s| cited.contains(&s.source_id))
            .filter_map(|s| {
                let text = sessions.document(&s.sha256).ok().flatten()?;
                Some((s.source_id, research_pipeline::text::plain(&text)))
            })
            .collect();
        let texts = SourceTexts::new(texts.iter().map(|(id, t)| (*id, t.as_str())));
        Ok(check_draft(draft, &known, &evidence, &texts))
    }

    /// The stored text of a source, by its hash (to show and highlight a quote).
    pub fn source_text(&self, sha256: &str) -> Result<String, ApiError> {
        self.sessions()
            .document(sha256)?
            .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "that source's text is not stored"))
    }

    /// Renames a session.
    pub fn rename_session(&self, id: &str, title: &str) -> Result<(), ApiError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ApiError::new(ErrorCode::InvalidInput, "the title is empty"));
        }
        if !self.sessions().rename(id, title, self.clock.now_ms())? {
            return Err(no_session(id));
        }
        Ok(())
    }

    /// Deletes a session and everything it produced.
    pub fn delete_session(&self, id: &str) -> Result<(), ApiError> {
        if !self.sessions().delete(id)? {
            return Err(no_session(id));
        }
        Ok(())
    }

    /// The session a thread belongs to.
    pub fn session_of(&self, thread: &ThreadId) -> Result<Option<String>, ApiError> {
        Ok(self.sessions().session_of(thread.as_str())?)
    }

    /// The session `id` names: a session's own id, or the session of a run (thread) id. Every
    /// command that takes a session takes either, so the one id a person has always works.
    pub fn session_named(&self, id: &str) -> Result<String, ApiError> {
        let id = id.trim();
        if self.sessions().get(id)?.is_some() {
            return Ok(id.to_string());
        }
        match self.sessions().session_of(id)? {
            Some(session) => Ok(session),
            None => Err(no_session_or_run(id)),
        }
    }

    /// The run `id` names: a run's (thread's) own id, or the latest run of a session id.
    pub fn run_named(&self, id: &str) -> Result<ThreadId, ApiError> {
        let id = id.trim();
        if self.sessions().session_of(id)?.is_some() || self.threads.get(id)?.is_some() {
            return Ok(ThreadId::new(id));
        }
        if self.sessions().get(id)?.is_some() {
            return match self.sessions().runs(id)?.pop() {
                Some((thread, _)) => Ok(ThreadId::new(thread)),
                None => Err(ApiError::new(
                    ErrorCode::NotFound,
                    format!("session {id} has no run yet"),
                )),
            };
        }
        Err(no_session_or_run(id))
    }
}

/// The error for an id that names neither a session nor a run.
pub(crate) fn no_session_or_run(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "there is no session or run with id {id} (research sessions list shows the sessions, \
             and sessions show SESSION their runs)"
        ),
    )
}

/// The error for a session id that names no session, worded once for every command.
pub(crate) fn no_session(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!("there is no session with id {id}"),
    )
}

impl Studio {
    /// Session `id`'s record, or [`no_session`].
    pub(crate) fn existing_session(&self, id: &str) -> Result<SessionRecord, ApiError> {
        self.sessions().get(id)?.ok_or_else(|| no_session(id))
    }

    /// The latest report of session `id`: [`no_session`] when there is no such session, a
    /// conflict saying `without` ("there is nothing to check") when it has no report yet.
    pub fn latest_report(&self, id: &str, without: &str) -> Result<ReportRow, ApiError> {
        self.existing_session(id)?;
        self.sessions().reports(id)?.pop().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Conflict,
                format!("the session has no report yet; {without}"),
            )
        })
    }
}
