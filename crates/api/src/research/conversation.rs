//! A session as a conversation: a new question in an open session is classified (rules first,
//! the fast model when they cannot tell, the person's choice over both), a cancel ends the turn
//! with no model call, a follow-up inherits the session's focus and reading and starts from its
//! sources and evidence (stored texts, re-verified against their hashes, not fetched again),
//! and a topic change starts afresh in the same session. Long conversations are summarised once
//! by the model and the summary kept.

use std::collections::BTreeMap;

use research_pipeline::conversation::{self, Classification, Decider, TurnKind};
use research_pipeline::{sha256_hex, Carried, Evidence, Role, Source};
use research_store::{ConversationSummary, SessionStore, TurnRow};
use serde::{Deserialize, Serialize};

use super::{checked_models, checked_question, SavedRun};
use crate::blocking::in_place;
use crate::keys::KeyStore;
use crate::{ApiError, ErrorCode, Studio, ThreadId};

/// Turns past which the earlier ones are summarised (seed 003: conversations past 10 turns).
pub const SUMMARY_AFTER_TURNS: usize = 10;
/// The latest turns a summarised conversation still gives verbatim.
pub const VERBATIM_TURNS: usize = 4;
/// Evidence a follow-up carries over at most (the latest first).
pub const MAX_CARRIED_EVIDENCE: usize = 60;

/// A question asked in an open session, and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Turn {
    /// The session.
    pub session_id: String,
    /// What the question was taken to be, who decided and why.
    pub classification: Classification,
    /// The run it started (none for a cancelled turn).
    pub thread_id: Option<ThreadId>,
    /// The reply given without research (a cancelled turn's).
    pub reply: Option<String>,
    /// What the session is about from this turn on.
    pub focus: Vec<String>,
    /// Sources carried over from earlier turns (a follow-up's), read again from the store.
    pub carried_sources: usize,
    /// Earlier sources left behind because their stored text no longer matches its hash.
    pub dropped_sources: Vec<String>,
}

/// A turn as the session shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TurnView {
    /// What was asked.
    pub question: String,
    /// What it was taken to be (none for turns recorded before classifications were kept).
    pub classification: Option<Classification>,
    /// The run it started.
    pub thread_id: Option<String>,
    /// The reply given without research.
    pub reply: String,
    /// What the session was about at this turn.
    pub focus: Vec<String>,
    /// When, ms since the epoch.
    pub created_at_ms: i64,
}

impl From<TurnRow> for TurnView {
    fn from(row: TurnRow) -> Self {
        TurnView {
            question: row.question,
            classification: serde_json::from_value(row.classification).ok(),
            thread_id: row.thread_id,
            reply: row.reply,
            focus: row.focus,
            created_at_ms: row.created_at_ms,
        }
    }
}

/// What a session holds for its next turn.
struct SessionState {
    focus: Vec<String>,
    /// Researched turns: (thread, question).
    runs: Vec<(String, String)>,
    /// The last run's thread and how it runs.
    last: ThreadId,
}

impl Studio {
    fn session_state(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
    ) -> Result<SessionState, ApiError> {
        let Some(session) = sessions.get(session_id)? else {
            return Err(super::sessions::no_session(session_id));
        };
        let runs = sessions.runs(session_id)?;
        let last = runs
            .last()
            .map(|r| ThreadId::new(r.0.clone()))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::NotFound,
                    format!("session {session_id} has no runs"),
                )
            })?;
        let turns = sessions.turns(session_id)?;
        // Sessions from before turns were kept are about their first question.
        let focus = turns
            .iter()
            .rev()
            .find(|t| t.thread_id.is_some())
            .map(|t| t.focus.clone())
            .unwrap_or_else(|| conversation::focus_of(&session.question));
        Ok(SessionState { focus, runs, last })
    }

    /// Asks `question` in an open session: classifies it (by `kind` when the person chose,
    /// else by its words, else by the fast model), then ends the turn politely (cancel) or
    /// starts its run (follow-up, topic change) — run it with [`Studio::run_research`].
    /// `models`, when the person named them for this turn, take it over from the session's own
    /// (a model the session used may be gone: a file deleted, a key revoked): the fast one
    /// classifies and summarises, and the turn's run is made with them. They are checked
    /// before anything is recorded.
    pub async fn ask_in_session(
        &self,
        session_id: &str,
        question: &str,
        kind: Option<TurnKind>,
        models: Option<research_llm::ModelRouting>,
        keys_store: &dyn KeyStore,
    ) -> Result<Turn, ApiError> {
        let question = checked_question(question)?;
        if let Some(models) = &models {
            checked_models(models)?;
        }
        let sessions = self.sessions();
        let state = self.session_state(&*sessions, session_id)?;
        let classification = match kind {
            Some(TurnKind::First) => {
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    "a question in an open session is a follow-up, a topic change or a cancel",
                ))
            }
            Some(kind) => Classification::person(kind),
            None => match conversation::by_rules(question, &state.focus) {
                Some(c) => c,
                None => {
                    let earlier: Vec<String> = state.runs.iter().map(|(_, q)| q.clone()).collect();
                    match self.fast_model(models.as_ref(), &state.last, keys_store) {
                        Ok(model) => {
                            match conversation::by_model(
                                model.as_ref(),
                                question,
                                &state.focus,
                                &earlier,
                            )
                            .await
                            {
                                Ok(c) => c,
                                Err(e) => unsure(format!("the model could not tell ({e})")),
                            }
                        }
                        Err(e) => unsure(format!("no model to ask ({})", e.message)),
                    }
                }
            },
        };
        if self.needs_summary(&*sessions, session_id, &state)? {
            if let Err(e) = self
                .summarise(&*sessions, session_id, &state, models.as_ref(), keys_store)
                .await
            {
                // The turn goes on with the last turns verbatim; the next one tries again.
                tracing::warn!("could not summarise the conversation: {}", e.message);
            }
        }
        in_place(|| {
            self.open_turn(
                &*sessions,
                session_id,
                question,
                classification,
                state,
                models,
            )
        })
    }

    /// Asks a follow-up question in an existing session (the person said it is one): a new
    /// run that inherits the session's focus and reading and starts from its sources and
    /// evidence. Returns the new run's thread.
    pub fn follow_up(&self, session_id: &str, question: &str) -> Result<ThreadId, ApiError> {
        let question = checked_question(question)?;
        let sessions = self.sessions();
        let state = self.session_state(&*sessions, session_id)?;
        let turn = self.open_turn(
            &*sessions,
            session_id,
            question,
            Classification::person(TurnKind::FollowUp),
            state,
            None,
        )?;
        turn.thread_id
            .ok_or_else(|| ApiError::new(ErrorCode::RunFailed, "the follow-up started no run"))
    }

    /// A session's turns, oldest first.
    pub fn turns(&self, session_id: &str) -> Result<Vec<TurnView>, ApiError> {
        Ok(self
            .sessions()
            .turns(session_id)?
            .into_iter()
            .map(TurnView::from)
            .collect())
    }

    /// Records the session's first turn (its first question).
    pub(super) fn first_turn(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
        thread: &ThreadId,
        question: &str,
    ) -> Result<(), ApiError> {
        sessions.add_turn(
            session_id,
            &TurnRow {
                thread_id: Some(thread.to_string()),
                question: question.to_string(),
                classification: serde_json::to_value(Classification {
                    kind: TurnKind::First,
                    by: Decider::Rules,
                    why: "the session's first question".into(),
                })
                .unwrap_or_default(),
                focus: conversation::focus_of(question),
                reply: String::new(),
                created_at_ms: self.clock.now_ms(),
            },
        )?;
        Ok(())
    }

    fn open_turn(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
        question: &str,
        classification: Classification,
        state: SessionState,
        models: Option<research_llm::ModelRouting>,
    ) -> Result<Turn, ApiError> {
        let now = self.clock.now_ms();
        let mut turn = Turn {
            session_id: session_id.to_string(),
            classification: classification.clone(),
            thread_id: None,
            reply: None,
            focus: state.focus.clone(),
            carried_sources: 0,
            dropped_sources: Vec::new(),
        };
        let record = |turn: &Turn| {
            sessions.add_turn(
                session_id,
                &TurnRow {
                    thread_id: turn.thread_id.as_ref().map(|t| t.to_string()),
                    question: question.to_string(),
                    classification: serde_json::to_value(&turn.classification).unwrap_or_default(),
                    focus: turn.focus.clone(),
                    reply: turn.reply.clone().unwrap_or_default(),
                    created_at_ms: now,
                },
            )
        };
        if classification.kind == TurnKind::Cancel {
            turn.reply = Some(conversation::cancel_reply(question));
            record(&turn)?;
            return Ok(turn);
        }
        let (pipeline, previous) = self.research_run(&state.last)?;
        let pipeline = pipeline.info().name;
        let mut saved = if classification.kind == TurnKind::TopicChange {
            // The history stays in the session; the run starts afresh on the new subject.
            turn.focus = conversation::focus_of(question);
            SavedRun {
                question: question.to_string(),
                context: String::new(),
                carried: Carried::default(),
                ..previous
            }
        } else {
            for term in conversation::focus_of(question) {
                if !turn.focus.contains(&term) && turn.focus.len() < 8 {
                    turn.focus.push(term);
                }
            }
            let (mut carried, dropped) = carried(sessions, session_id, question)?;
            carried.focus = turn.focus.clone();
            turn.carried_sources = carried.sources.len();
            turn.dropped_sources = dropped;
            SavedRun {
                question: question.to_string(),
                context: self.context(sessions, session_id, &state, &turn.focus)?,
                carried,
                ..previous
            }
        };
        // Models named for this turn: the run is made with them.
        if let Some(models) = models {
            saved.config.models = models;
        }
        let thread = self.register_run(sessions, &pipeline, &saved)?;
        turn.thread_id = Some(thread);
        record(&turn)?;
        Ok(turn)
    }

    /// What a follow-up is told of the session: its focus, how its question was read, and its
    /// earlier turns — a kept summary of the older ones past [`SUMMARY_AFTER_TURNS`], then the
    /// latest verbatim (each question with the summary of its report).
    fn context(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
        state: &SessionState,
        focus: &[String],
    ) -> Result<String, ApiError> {
        let reports = sessions.reports(session_id)?;
        let answered = |thread: &str| {
            reports
                .iter()
                .rev()
                .find(|r| r.thread_id == thread)
                .map(
                    |r| match r.provenance.get("summary").and_then(|v| v.as_str()) {
                        Some(summary) => summary.to_string(),
                        None => research_pipeline::report::summary_of(&r.markdown),
                    },
                )
                .unwrap_or_else(|| "(no report)".into())
        };
        let mut out = Vec::new();
        if !focus.is_empty() {
            out.push(format!("The session is about: {}", focus.join(", ")));
        }
        let reading = reports.last().and_then(|r| {
            r.provenance
                .pointer("/method/interpretation")
                .and_then(|v| v.as_str())
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string)
        });
        if let Some(reading) = reading {
            out.push(format!("Its question was read as: {reading}"));
        }
        let summary = sessions.summary(session_id)?;
        let skip = if summary.text.is_empty() {
            state.runs.len().saturating_sub(VERBATIM_TURNS.max(3))
        } else {
            out.push(format!(
                "Summary of the earlier conversation: {}",
                summary.text
            ));
            (summary.turns as usize).min(state.runs.len())
        };
        for (thread, asked) in state.runs.iter().skip(skip) {
            out.push(format!(
                "Question: {asked}\nAnswer (summary): {}",
                answered(thread)
            ));
        }
        Ok(out.join("\n\n"))
    }

    fn needs_summary(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
        state: &SessionState,
    ) -> Result<bool, ApiError> {
        let turns = state.runs.len();
        if turns < SUMMARY_AFTER_TURNS {
            return Ok(false);
        }
        let kept = sessions.summary(session_id)?;
        Ok((kept.turns as usize) < turns - VERBATIM_TURNS)
    }

    /// Summarises all but the last [`VERBATIM_TURNS`] researched turns once, with the fast
    /// model, and keeps the summary.
    async fn summarise(
        &self,
        sessions: &dyn SessionStore,
        session_id: &str,
        state: &SessionState,
        models: Option<&research_llm::ModelRouting>,
        keys_store: &dyn KeyStore,
    ) -> Result<(), ApiError> {
        let upto = state.runs.len() - VERBATIM_TURNS;
        let reports = sessions.reports(session_id)?;
        let kept = sessions.summary(session_id)?;
        let mut text = String::new();
        if !kept.text.is_empty() {
            text.push_str(&format!("Summary so far: {}\n\n", kept.text));
        }
        for (thread, asked) in state.runs.iter().take(upto).skip(kept.turns as usize) {
            let answer = reports
                .iter()
                .rev()
                .find(|r| &r.thread_id == thread)
                .map(|r| research_pipeline::report::summary_of(&r.markdown))
                .unwrap_or_default();
            text.push_str(&format!("Question: {asked}\nAnswer: {answer}\n\n"));
        }
        let model = self.fast_model(models, &state.last, keys_store)?;
        let prompt = format!(
            "Summarise this research conversation in at most 120 words: what was asked, what \
             was found, and what the person is focused on. Plain prose, no lists.\n\n{text}"
        );
        let request = research_llm::ChatRequest::new(vec![research_llm::Message::user(prompt)])
            .purpose("summarize_conversation");
        let answer = model.complete(&request, None).await?;
        let summary: String = answer.text.trim().chars().take(1_200).collect();
        if summary.is_empty() {
            return Err(ApiError::new(
                ErrorCode::ProviderFailed,
                "the model wrote an empty summary",
            ));
        }
        let summary = ConversationSummary {
            text: summary,
            turns: upto as u32,
        };
        in_place(|| sessions.set_summary(session_id, &summary))?;
        Ok(())
    }

    /// The model that reads questions (the fast one): of the `models` named for this turn, else
    /// of the run `thread`'s configuration (read only when a model is needed).
    fn fast_model(
        &self,
        models: Option<&research_llm::ModelRouting>,
        thread: &ThreadId,
        keys_store: &dyn KeyStore,
    ) -> Result<std::sync::Arc<dyn research_llm::LlmClient>, ApiError> {
        let routing = match models {
            Some(models) => models.clone(),
            None => self.research_run(thread)?.1.config.models,
        };
        let mut settings = crate::keys::connect_settings(keys_store);
        if let Some(url) = self.settings()?.ollama_url {
            settings.ollama_url = url;
        }
        let spec = Role::Understand.model(&routing);
        Ok(research_llm::connect(spec, &settings)?)
    }
}

fn unsure(why: String) -> Classification {
    Classification {
        kind: TurnKind::FollowUp,
        by: Decider::Rules,
        why: format!("{why}; taken as a follow-up — choose another kind if it is not"),
    }
}

/// The session's sources and evidence for a follow-up on `question`: each source once (its
/// latest reading), its stored text re-verified against the hash it was cited by (a source
/// whose text is gone or changed is left behind, named); and the evidence about what the
/// question itself names — the rest answered earlier questions and stays in their reports. The
/// run reads the carried sources' stored texts again for this question.
fn carried(
    sessions: &dyn SessionStore,
    session_id: &str,
    question: &str,
) -> Result<(Carried, Vec<String>), ApiError> {
    let own = conversation::focus_of(question).join(" ");
    // A comparison ("compare them to bumblebees") needs what was found about "them" too.
    let comparing = conversation::is_comparison(question);
    let about = |e: &Evidence| {
        own.is_empty()
            || comparing
            || research_pipeline::text::overlap(&own, &format!("{} {}", e.fact, e.quote)) > 0
    };
    let mut sources: BTreeMap<String, ((usize, u32), Source)> = BTreeMap::new();
    let mut evidence: Vec<(usize, Evidence)> = Vec::new();
    let mut dropped = Vec::new();
    let mut intact_by_sha: BTreeMap<String, bool> = BTreeMap::new();
    for (order, (thread, _)) in sessions.runs(session_id)?.iter().enumerate() {
        let rows = sessions.sources(thread)?;
        let url_of: BTreeMap<u32, String> =
            rows.iter().map(|s| (s.source_id, s.url.clone())).collect();
        for s in rows {
            // Each stored text is read and hashed once, however many runs cited it.
            let intact = match intact_by_sha.get(&s.sha256) {
                Some(known) => *known,
                None => {
                    let intact = sessions
                        .document(&s.sha256)?
                        .is_some_and(|text| sha256_hex(&text) == s.sha256);
                    intact_by_sha.insert(s.sha256.clone(), intact);
                    intact
                }
            };
            if !intact {
                if !dropped.contains(&s.url) {
                    dropped.push(s.url.clone());
                }
                continue;
            }
            sources.insert(
                s.url.clone(),
                (
                    (order, s.source_id),
                    Source {
                        id: 0,
                        url: s.url,
                        title: s.title,
                        kind: s.kind,
                        provider: "session".into(),
                        published: None,
                        sha256: s.sha256,
                        accessed_at_ms: s.accessed_at_ms,
                        citation: None,
                    },
                ),
            );
        }
        for e in sessions.evidence(thread)? {
            if let Some(url) = url_of.get(&e.source_id) {
                evidence.push((
                    order,
                    Evidence {
                        id: 0,
                        source_id: 0,
                        source_url: url.clone(),
                        fact: e.fact,
                        quote: e.quote,
                        question: None,
                        query: String::new(),
                    },
                ));
            }
        }
    }
    dropped.retain(|u| !sources.contains_key(u));
    // In the order the session cited them: by turn, then by citation number.
    let mut sources: Vec<((usize, u32), Source)> = sources.into_values().collect();
    sources.sort_by_key(|(at, _)| *at);
    let kept: std::collections::BTreeSet<&str> =
        sources.iter().map(|(_, s)| s.url.as_str()).collect();
    // The same fact from the same source once; the latest turns' first when there are many.
    let mut seen = std::collections::BTreeSet::new();
    let mut picked: Vec<Evidence> = evidence
        .into_iter()
        .rev()
        .filter(|(_, e)| kept.contains(e.source_url.as_str()) && about(e))
        .filter(|(_, e)| seen.insert((e.source_url.clone(), e.quote.clone())))
        .map(|(_, e)| e)
        .take(MAX_CARRIED_EVIDENCE)
        .collect();
    picked.reverse();
    Ok((
        Carried {
            focus: Vec::new(),
            sources: sources.into_iter().map(|(_, s)| s).collect(),
            evidence: picked,
        },
        dropped,
    ))
}
