//! Schedules that keep a session current: every so often its cited sources are checked again
//! (and, if asked, its question researched again when one changed). They live in the database so
//! they survive restarts; a lease with an expiry makes sure two processes (the app and a cron job)
//! never run one at once, and a process that died holding one gives it up when the lease expires.

use rusqlite::{params, OptionalExtension, Row};

use crate::{ScheduleStore, SqliteSessions, StoreError};

/// The table, added by a migration of its own.
pub(crate) const SCHEDULES_MIGRATION: &str = "
CREATE TABLE schedules (
    session_id     TEXT    PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    every_ms       INTEGER NOT NULL,
    research_again INTEGER NOT NULL,
    paused         INTEGER NOT NULL DEFAULT 0,
    next_due_ms    INTEGER NOT NULL,
    last_run_ms    INTEGER,
    last_outcome   TEXT,
    lease_owner    TEXT,
    lease_until_ms INTEGER,
    created_at_ms  INTEGER NOT NULL
);
CREATE INDEX schedules_due ON schedules(next_due_ms);
";

/// A session's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The session kept current.
    pub session_id: String,
    /// How often, in ms.
    pub every_ms: i64,
    /// Whether a changed or vanished source sends the question to research again.
    pub research_again: bool,
    /// Whether it is paused.
    pub paused: bool,
    /// When it is due next (ms since the epoch).
    pub next_due_ms: i64,
    /// When it last ran.
    pub last_run_ms: Option<i64>,
    /// What its last run found, in a sentence.
    pub last_outcome: Option<String>,
    /// When it was made.
    pub created_at_ms: i64,
}

fn schedule(r: &Row<'_>) -> rusqlite::Result<Schedule> {
    Ok(Schedule {
        session_id: r.get(0)?,
        every_ms: r.get(1)?,
        research_again: r.get::<_, i64>(2)? != 0,
        paused: r.get::<_, i64>(3)? != 0,
        next_due_ms: r.get(4)?,
        last_run_ms: r.get(5)?,
        last_outcome: r.get(6)?,
        created_at_ms: r.get(7)?,
    })
}

const COLUMNS: &str = "session_id, every_ms, research_again, paused, next_due_ms, last_run_ms, last_outcome, created_at_ms";

/// The first time after `now` on the schedule's grid that starts at `due`: a machine that slept
/// through several ticks runs once, then goes on from now.
pub fn next_after(due: i64, every_ms: i64, now: i64) -> i64 {
    if every_ms <= 0 {
        return now;
    }
    if due > now {
        return due;
    }
    due + every_ms * ((now - due) / every_ms + 1)
}

impl ScheduleStore for SqliteSessions {
    /// Creates or replaces the schedule of `s.session_id` (a replaced one keeps no lease).
    fn set_schedule(&self, s: &Schedule) -> Result<(), StoreError> {
        self.conn().execute(
            &format!("INSERT OR REPLACE INTO schedules ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
            params![
                s.session_id,
                s.every_ms,
                s.research_again as i64,
                s.paused as i64,
                s.next_due_ms,
                s.last_run_ms,
                s.last_outcome,
                s.created_at_ms
            ],
        )?;
        Ok(())
    }

    /// Every schedule, soonest due first.
    fn schedules(&self) -> Result<Vec<Schedule>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM schedules ORDER BY next_due_ms, session_id"
        ))?;
        let rows = stmt.query_map([], schedule)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The schedule of `session_id`, if it has one.
    fn schedule(&self, session_id: &str) -> Result<Option<Schedule>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM schedules WHERE session_id = ?1"),
                [session_id],
                schedule,
            )
            .optional()?)
    }

    /// Removes the schedule of `session_id`; false when it had none.
    fn remove_schedule(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn()
            .execute("DELETE FROM schedules WHERE session_id = ?1", [session_id])?
            > 0)
    }

    /// Pauses or resumes the schedule of `session_id`; false when it has none.
    fn pause_schedule(&self, session_id: &str, paused: bool) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE schedules SET paused = ?2 WHERE session_id = ?1",
            params![session_id, paused as i64],
        )? > 0)
    }

    /// The schedules due at `now` that no process holds, soonest first (not taken: take each
    /// with [`ScheduleStore::take_schedule`] right before running it).
    fn due_schedules(&self, now: i64) -> Result<Vec<Schedule>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM schedules WHERE paused = 0 AND next_due_ms <= ?1
             AND (lease_until_ms IS NULL OR lease_until_ms < ?1) ORDER BY next_due_ms"
        ))?;
        let rows = stmt.query_map([now], schedule)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Takes the lease of `session_id`'s schedule for `owner` until `now + lease_ms`, if it is
    /// due and no other process holds it: one statement, so two processes asking at once never
    /// both get it.
    fn take_schedule(
        &self,
        session_id: &str,
        now: i64,
        owner: &str,
        lease_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE schedules SET lease_owner = ?2, lease_until_ms = ?3
             WHERE session_id = ?1 AND paused = 0 AND next_due_ms <= ?4
             AND (lease_until_ms IS NULL OR lease_until_ms < ?4)",
            params![session_id, owner, now + lease_ms, now],
        )? == 1)
    }

    fn close_schedule_run(
        &self,
        session_id: &str,
        owner: &str,
        now: i64,
        outcome: &str,
        next: i64,
    ) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE schedules SET last_run_ms = ?3, last_outcome = ?4, next_due_ms = ?5,
             lease_owner = NULL, lease_until_ms = NULL
             WHERE session_id = ?1 AND lease_owner = ?2",
            params![session_id, owner, now, outcome, next],
        )? > 0)
    }
}
