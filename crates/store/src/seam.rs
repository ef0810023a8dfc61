//! The seams between the API and where its records live: [`SessionStore`] (sessions, runs and
//! what they produced, the conversation, schedules, the caches) and [`ThreadStore`] (which graph
//! a thread runs). SQLite implements both in this crate for one person on one machine; the
//! `research-postgres` crate implements them on a shared server for a team. Both are held to one
//! conformance suite ([`crate::conformance`]).
//!
//! The methods are synchronous: the API calls them between awaits, as it always has; a store on
//! a server does its waiting on its own threads.

use crate::{
    next_after, ClaimRow, ConversationSummary, EvidenceRow, ModelRunRow, ModelTotals, ReportRow,
    Schedule, SessionRecord, SessionStatus, SourceRow, StoreError, ThreadRecord, TurnRow,
};

/// Sessions and everything they produced, with the caches, conversations and schedules that
/// belong to them (one store: a session's delete reaches all of them).
pub trait SessionStore:
    CacheStore + ConversationStore + ScheduleStore + ModelStore + Send + Sync
{
    /// Creates a session.
    fn create(&self, s: &SessionRecord) -> Result<(), StoreError>;
    /// Sessions, newest first; with `text`, only those whose title or question contains it
    /// (literally: `%` and `_` are characters, not wildcards).
    fn list(&self, text: Option<&str>) -> Result<Vec<SessionRecord>, StoreError>;
    /// One session.
    fn get(&self, id: &str) -> Result<Option<SessionRecord>, StoreError>;
    /// Renames a session; false when it does not exist.
    fn rename(&self, id: &str, title: &str, now_ms: i64) -> Result<bool, StoreError>;
    /// Sets a session's status. A run that failed because the storage is full must still be
    /// able to say so.
    fn set_status(&self, id: &str, status: SessionStatus, now_ms: i64) -> Result<(), StoreError>;
    /// Deletes a session, everything it produced, its threads' checkpoints, and source texts
    /// no one else uses (a running run's texts are kept: it saves its sources only at the end,
    /// so every text stored since the oldest running session's runs began stays). False when it
    /// did not exist.
    fn delete(&self, id: &str) -> Result<bool, StoreError>;
    /// Records a run (thread) of a session.
    fn add_run(
        &self,
        session: &str,
        thread: &str,
        question: &str,
        now_ms: i64,
    ) -> Result<(), StoreError>;

    /// Now, by the store's clock (ms since the epoch): run leases written by one machine are
    /// read by another against it, so machines whose clocks differ still agree when a lease ran
    /// out. A store on one machine keeps that machine's time.
    fn clock_ms(&self) -> Result<i64, StoreError> {
        Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0))
    }

    /// The process recorded as running `thread`, if any.
    fn runner(&self, thread: &str) -> Result<Option<String>, StoreError>;
    /// Records `me` as running `thread` if the one recorded is still `expected`: one
    /// compare-and-set. False when it changed in between.
    fn swap_runner(
        &self,
        thread: &str,
        expected: Option<&str>,
        me: &str,
    ) -> Result<bool, StoreError>;
    /// Lets `thread` go, if `me` is the process recorded as running it.
    fn release_runner(&self, thread: &str, me: &str) -> Result<(), StoreError>;
    /// Claims `thread` for process `me`: when no process is recorded as running it, or the one
    /// recorded is `me` or one `dead` says has died — as one compare-and-set, so of two
    /// processes claiming at once one gets it. False when another live process runs it.
    fn claim_runner(
        &self,
        thread: &str,
        me: &str,
        dead: &dyn Fn(&str) -> bool,
    ) -> Result<bool, StoreError> {
        let current = self.runner(thread)?;
        if let Some(other) = &current {
            if other != me && !dead(other) {
                return Ok(false);
            }
        }
        self.swap_runner(thread, current.as_deref(), me)
    }

    /// The runs of a session, oldest first: (thread id, question).
    fn runs(&self, session: &str) -> Result<Vec<(String, String)>, StoreError>;
    /// The session a thread belongs to.
    fn session_of(&self, thread: &str) -> Result<Option<String>, StoreError>;
    /// Stores a text once and returns its SHA-256. Storing a text again marks it as used now
    /// (a running run's texts are known by that mark until its sources are saved).
    fn put_document(&self, text: &str, now_ms: i64) -> Result<String, StoreError>;
    /// The text with this SHA-256.
    fn document(&self, sha256: &str) -> Result<Option<String>, StoreError>;
    /// Replaces what a run found: its sources, evidence and claims, at once.
    fn save_findings(
        &self,
        session: &str,
        thread: &str,
        sources: &[SourceRow],
        evidence: &[EvidenceRow],
        claims: &[ClaimRow],
    ) -> Result<(), StoreError>;
    /// A run's sources, by citation number.
    fn sources(&self, thread: &str) -> Result<Vec<SourceRow>, StoreError>;
    /// A run's evidence, by number.
    fn evidence(&self, thread: &str) -> Result<Vec<EvidenceRow>, StoreError>;
    /// A run's checked claims, in the order they were saved.
    fn claims(&self, thread: &str) -> Result<Vec<ClaimRow>, StoreError>;
    /// Adds a report version (the next number of its run) and returns it.
    fn add_report(
        &self,
        session: &str,
        thread: &str,
        markdown: &str,
        provenance: &serde_json::Value,
        now_ms: i64,
    ) -> Result<u32, StoreError>;
    /// The report versions of a session's runs, oldest first.
    fn reports(&self, session: &str) -> Result<Vec<ReportRow>, StoreError>;
    /// Records that the session's report sources were checked again at `at_ms`.
    fn set_checked(&self, session: &str, at_ms: i64) -> Result<(), StoreError>;
    /// Appends an event to a run's audit trail.
    fn add_event(
        &self,
        session: &str,
        thread: &str,
        at_ms: i64,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<(), StoreError>;
    /// A run's events, in order: (at, kind, payload).
    fn events(&self, thread: &str) -> Result<Vec<(i64, String, serde_json::Value)>, StoreError>;
    /// Records a model call (as JSON) of a run.
    fn add_call(&self, thread: &str, call: &serde_json::Value) -> Result<(), StoreError>;
    /// A run's model calls, in order.
    fn calls(&self, thread: &str) -> Result<Vec<serde_json::Value>, StoreError>;
}

/// What a provider or a server answered lately, so a follow-up, a fork or a recheck within the
/// cache's age does not ask again.
pub trait CacheStore: Send + Sync {
    /// A cached search answer no older than `max_age_ms`.
    fn cached_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<serde_json::Value>, StoreError>;
    /// Caches a search answer (replacing an older one).
    fn cache_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        hits: &serde_json::Value,
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// A cached page (its metadata as JSON, and its text) no older than `max_age_ms`.
    fn cached_page(
        &self,
        url: &str,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<(serde_json::Value, String)>, StoreError>;
    /// Caches a page: its text as a document, its metadata under its address.
    fn cache_page(
        &self,
        url: &str,
        meta: &serde_json::Value,
        text: &str,
        now_ms: i64,
    ) -> Result<(), StoreError>;
}

/// What each model did in the person's runs, counted per run, so that what a model is asked for
/// can follow from what it did (`research_pipeline::measured`). Kept apart from the sessions: a
/// deleted session's counts stay, as what was learnt about a model does.
pub trait ModelStore: Send + Sync {
    /// Replaces what the models did in run `thread`, recorded at `at_ms`: a run saved again
    /// (resumed, revised) counts once.
    fn record_models(
        &self,
        thread: &str,
        at_ms: i64,
        rows: &[ModelRunRow],
    ) -> Result<(), StoreError>;
    /// Each model's totals over every run recorded, by model.
    fn model_totals(&self) -> Result<Vec<ModelTotals>, StoreError>;
}

/// A session's conversation: its turns and the summary of its earlier ones.
pub trait ConversationStore: Send + Sync {
    /// Records a turn of a session's conversation.
    fn add_turn(&self, session: &str, turn: &TurnRow) -> Result<(), StoreError>;
    /// A session's turns, oldest first.
    fn turns(&self, session: &str) -> Result<Vec<TurnRow>, StoreError>;
    /// The session's summary of its earlier turns (empty when none was written).
    fn summary(&self, session: &str) -> Result<ConversationSummary, StoreError>;
    /// Keeps the session's summary of its first `summary.turns` turns.
    fn set_summary(&self, session: &str, summary: &ConversationSummary) -> Result<(), StoreError>;
}

/// Schedules that keep a session current, with leases so two processes never run one at once.
pub trait ScheduleStore: Send + Sync {
    /// Creates or replaces the schedule of `s.session_id` (a replaced one keeps no lease).
    fn set_schedule(&self, s: &Schedule) -> Result<(), StoreError>;
    /// Every schedule, soonest due first.
    fn schedules(&self) -> Result<Vec<Schedule>, StoreError>;
    /// The schedule of `session_id`, if it has one.
    fn schedule(&self, session_id: &str) -> Result<Option<Schedule>, StoreError>;
    /// Removes the schedule of `session_id`; false when it had none.
    fn remove_schedule(&self, session_id: &str) -> Result<bool, StoreError>;
    /// Pauses or resumes the schedule of `session_id`; false when it has none.
    fn pause_schedule(&self, session_id: &str, paused: bool) -> Result<bool, StoreError>;
    /// The schedules due at `now` that no process holds, soonest first (not taken: take each
    /// with [`ScheduleStore::take_schedule`] right before running it).
    fn due_schedules(&self, now: i64) -> Result<Vec<Schedule>, StoreError>;
    /// Takes the lease of `session_id`'s schedule for `owner` until `now + lease_ms`, if it is
    /// due and no other process holds it: one statement, so two processes asking at once never
    /// both get it.
    fn take_schedule(
        &self,
        session_id: &str,
        now: i64,
        owner: &str,
        lease_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Records a run of `session_id`'s schedule by `owner` at `now`, sets it due at `next` and
    /// lets its lease go — if `owner` still holds it (false otherwise).
    fn close_schedule_run(
        &self,
        session_id: &str,
        owner: &str,
        now: i64,
        outcome: &str,
        next: i64,
    ) -> Result<bool, StoreError>;
    /// Takes every schedule due at `now` that no other process holds ([`Self::take_schedule`]
    /// each), for `owner` until `now + lease_ms`.
    fn take_due(&self, now: i64, owner: &str, lease_ms: i64) -> Result<Vec<Schedule>, StoreError> {
        let mut taken = Vec::new();
        for s in self.due_schedules(now)? {
            if self.take_schedule(&s.session_id, now, owner, lease_ms)? {
                taken.push(s);
            }
        }
        Ok(taken)
    }
    /// Records a schedule's run by `owner` at `now` with what it found, sets it due next on its
    /// grid after `now` ([`next_after`]), and lets its lease go. False when `owner` no longer
    /// holds it.
    fn finish_schedule(
        &self,
        session_id: &str,
        owner: &str,
        now: i64,
        outcome: &str,
    ) -> Result<bool, StoreError> {
        let Some(s) = self.schedule(session_id)? else {
            return Ok(false);
        };
        let next = next_after(s.next_due_ms, s.every_ms, now);
        self.close_schedule_run(session_id, owner, now, outcome, next)
    }
}

/// The registry of threads: which graph a thread runs and with what configuration, so that a
/// later process (`research resume`, another machine) can rebuild the same graph for it.
pub trait ThreadStore: Send + Sync {
    /// Registers a thread.
    fn insert(&self, record: &ThreadRecord) -> Result<(), StoreError>;
    /// Replaces a thread's saved configuration (e.g. other models for a resume).
    fn set_config(&self, thread_id: &str, config: &serde_json::Value) -> Result<(), StoreError>;
    /// Looks a thread up.
    fn get(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError>;
    /// All threads, newest first.
    fn list(&self) -> Result<Vec<ThreadRecord>, StoreError>;
}
