//! Schedules and their leases on PostgreSQL.

use research_store::{Schedule, ScheduleStore, StoreError};
use tokio_postgres::Row;

use super::PgSessions;

const SCHEDULE_COLUMNS: &str = "session_id, every_ms, research_again, paused, next_due_ms, last_run_ms, last_outcome, created_at_ms";

fn schedule_row(r: &Row) -> Schedule {
    Schedule {
        session_id: r.get(0),
        every_ms: r.get(1),
        research_again: r.get(2),
        paused: r.get(3),
        next_due_ms: r.get(4),
        last_run_ms: r.get(5),
        last_outcome: r.get(6),
        created_at_ms: r.get(7),
    }
}

impl ScheduleStore for PgSessions {
    fn set_schedule(&self, s: &Schedule) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                &format!(
                    "INSERT INTO schedules ({SCHEDULE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                     ON CONFLICT (session_id) DO UPDATE SET every_ms = EXCLUDED.every_ms,
                       research_again = EXCLUDED.research_again, paused = EXCLUDED.paused,
                       next_due_ms = EXCLUDED.next_due_ms, last_run_ms = EXCLUDED.last_run_ms,
                       last_outcome = EXCLUDED.last_outcome, created_at_ms = EXCLUDED.created_at_ms,
                       lease_owner = NULL, lease_until_ms = NULL"
                ),
                &[&s.session_id, &s.every_ms, &s.research_again, &s.paused, &s.next_due_ms, &s.last_run_ms, &s.last_outcome, &s.created_at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn schedules(&self) -> Result<Vec<Schedule>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                &format!(
                    "SELECT {SCHEDULE_COLUMNS} FROM schedules ORDER BY next_due_ms, session_id"
                ),
                &[],
            )
            .await?
            .iter()
            .map(schedule_row)
            .collect())
        })
    }

    fn schedule(&self, session_id: &str) -> Result<Option<Schedule>, StoreError> {
        self.run(|c| async move {
            Ok(c.query_opt(
                &format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE session_id = $1"),
                &[&session_id],
            )
            .await?
            .as_ref()
            .map(schedule_row))
        })
    }

    fn remove_schedule(&self, session_id: &str) -> Result<bool, StoreError> {
        self.run(|c| async move {
            Ok(c.execute(
                "DELETE FROM schedules WHERE session_id = $1",
                &[&session_id],
            )
            .await?
                > 0)
        })
    }

    fn pause_schedule(&self, session_id: &str, paused: bool) -> Result<bool, StoreError> {
        self.run(|c| async move {
            Ok(c.execute(
                "UPDATE schedules SET paused = $2 WHERE session_id = $1",
                &[&session_id, &paused],
            )
            .await?
                > 0)
        })
    }

    fn due_schedules(&self, now: i64) -> Result<Vec<Schedule>, StoreError> {
        self.run(|c| async move {
            Ok(c
                .query(
                    &format!(
                        "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE NOT paused AND next_due_ms <= $1
                         AND (lease_until_ms IS NULL OR lease_until_ms < $1) ORDER BY next_due_ms"
                    ),
                    &[&now],
                )
                .await?
                .iter()
                .map(schedule_row)
                .collect())
        })
    }

    fn take_schedule(
        &self,
        session_id: &str,
        now: i64,
        owner: &str,
        lease_ms: i64,
    ) -> Result<bool, StoreError> {
        let until = now + lease_ms;
        self.run(|c| async move {
            Ok(c.execute(
                "UPDATE schedules SET lease_owner = $2, lease_until_ms = $3
                 WHERE session_id = $1 AND NOT paused AND next_due_ms <= $4
                 AND (lease_until_ms IS NULL OR lease_until_ms < $4)",
                &[&session_id, &owner, &until, &now],
            )
            .await?
                == 1)
        })
    }

    fn close_schedule_run(
        &self,
        session_id: &str,
        owner: &str,
        now: i64,
        outcome: &str,
        next: i64,
    ) -> Result<bool, StoreError> {
        self.run(|c| async move {
            Ok(c.execute(
                "UPDATE schedules SET last_run_ms = $3, last_outcome = $4, next_due_ms = $5,
                 lease_owner = NULL, lease_until_ms = NULL
                 WHERE session_id = $1 AND lease_owner = $2",
                &[&session_id, &owner, &now, &outcome, &next],
            )
            .await?
                > 0)
        })
    }
}
