//! Research that keeps itself current: a session's schedule rechecks its cited sources every so
//! often and, when asked, researches its question again as a follow-up when one of them changed
//! or is gone. The schedules live in the database (they survive restarts); whoever runs the due
//! ones — `research watch --run-due` from cron or a systemd timer, or the app while it is open —
//! takes each one's lease first, so two never run one at once.

use serde::{Deserialize, Serialize};

use super::recheck::{Recheck, SourceState};
use crate::blocking::in_place;
use crate::keys::KeyStore;
use crate::{ApiError, CancellationToken, ErrorCode, Studio};
use research_store::Schedule;

/// How long a process holds a due schedule before another may take it over (a research run on
/// a local model can take an hour or two; a process that died gives its schedules up then).
pub const SCHEDULE_LEASE_MS: i64 = 6 * 3_600_000;

/// The shortest interval a schedule may have.
pub const MIN_EVERY_MS: i64 = 3_600_000;

/// A session's schedule as a person reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScheduleView {
    /// The session.
    pub session_id: String,
    /// Its title.
    pub title: String,
    /// How often, as written (`1d`, `12h`, `1w`).
    pub every: String,
    /// Whether a changed or vanished source sends the question to research again.
    pub research_again: bool,
    /// Whether it is paused.
    pub paused: bool,
    /// When it is due next (ms since the epoch).
    pub next_due_ms: i64,
    /// When it last ran.
    pub last_run_ms: Option<i64>,
    /// What its last run found.
    pub last_outcome: Option<String>,
}

/// What running one due schedule did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScheduleRun {
    /// The session.
    pub session_id: String,
    /// Its title.
    pub title: String,
    /// What it found, in a sentence (what a desktop notification says).
    pub outcome: String,
    /// Whether a cited source changed or is gone.
    pub changed: bool,
    /// The recheck, when it could be made.
    pub recheck: Option<Recheck>,
    /// The follow-up run that researched the question again, if one did.
    pub researched: Option<String>,
    /// Why it failed, if it did (it is due again at its next time).
    pub error: Option<ApiError>,
}

/// The intervals a form offers, with their words; the first of a day is the default. Any other
/// that [`parse_every`] reads is taken too (the CLI's `--every 3d`).
pub const INTERVALS: &[(&str, &str)] = &[
    ("12h", "every 12 hours"),
    ("1d", "every day"),
    ("1w", "every week"),
];

/// The interval a new schedule takes unless another is chosen.
pub const DEFAULT_INTERVAL: &str = "1d";

/// An interval from `12h`, `1d`, `2w`: at least an hour.
pub fn parse_every(text: &str) -> Result<i64, ApiError> {
    let t = text.trim().to_lowercase();
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("`{text}` is not an interval: a number and h, d or w (12h, 1d, 1w)"),
        )
    };
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(invalid)?;
    let (n, unit) = t.split_at(split);
    let n: i64 = n.parse().map_err(|_| invalid())?;
    let unit_ms = match unit {
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        "m" | "min" => 60_000,
        "s" => 1_000,
        _ => return Err(invalid()),
    };
    let every = n.checked_mul(unit_ms).ok_or_else(invalid)?;
    if every < MIN_EVERY_MS {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("`{text}` is too often: a schedule runs at most once an hour (12h, 1d, 1w)"),
        ));
    }
    Ok(every)
}

/// An interval as a person writes it.
pub fn every_label(ms: i64) -> String {
    let (w, d, h) = (7 * 86_400_000, 86_400_000, 3_600_000);
    if ms % w == 0 {
        format!("{}w", ms / w)
    } else if ms % d == 0 {
        format!("{}d", ms / d)
    } else {
        format!("{}h", ms / h)
    }
}

/// A recheck in a sentence, and whether anything changed.
fn summary(r: &Recheck) -> (String, bool) {
    let (mut same, mut changed, mut gone, mut unread) = (0, 0, 0, 0);
    for s in &r.sources {
        match s.state {
            SourceState::Unchanged => same += 1,
            SourceState::Changed { .. } => changed += 1,
            SourceState::Gone { .. } => gone += 1,
            SourceState::Unchecked { .. } => unread += 1,
        }
    }
    let mut parts = vec![format!("{same} unchanged")];
    if changed > 0 {
        parts.push(format!("{changed} changed"));
    }
    if gone > 0 {
        parts.push(format!("{gone} gone"));
    }
    if unread > 0 {
        parts.push(format!("{unread} could not be read"));
    }
    let mut text = format!("sources: {}", parts.join(", "));
    if !r.lost.is_empty() {
        text.push_str(&format!(
            "; {} cited sentence(s) no longer supported",
            r.lost.len()
        ));
    }
    (text, changed + gone > 0)
}

impl Studio {
    fn view(&self, s: Schedule) -> ScheduleView {
        let title = self
            .sessions()
            .get(&s.session_id)
            .ok()
            .flatten()
            .map(|r| r.title)
            .unwrap_or_default();
        ScheduleView {
            session_id: s.session_id,
            title,
            every: every_label(s.every_ms),
            research_again: s.research_again,
            paused: s.paused,
            next_due_ms: s.next_due_ms,
            last_run_ms: s.last_run_ms,
            last_outcome: s.last_outcome,
        }
    }

    /// Keeps `session_id` current: every `every` (`1d`, `1w`, …) its cited sources are checked
    /// again, and with `research_again` its question researched again when one changed — first
    /// at `first_due_ms` (ms since the epoch; `None`: one interval from now; a time already past
    /// is due at once). Replaces the session's schedule if it has one.
    pub fn watch(
        &self,
        session_id: &str,
        every: &str,
        research_again: bool,
        first_due_ms: Option<i64>,
    ) -> Result<ScheduleView, ApiError> {
        let every_ms = parse_every(every)?;
        // A session with a report to keep current.
        self.latest_report(session_id, "a schedule keeps a finished report current")?;
        let now = self.clock.now_ms();
        let schedule = Schedule {
            session_id: session_id.to_string(),
            every_ms,
            research_again,
            paused: false,
            next_due_ms: first_due_ms.map_or(now + every_ms, |t| t.max(0)),
            last_run_ms: None,
            last_outcome: None,
            created_at_ms: now,
        };
        in_place(|| self.sessions().set_schedule(&schedule))?;
        Ok(self.view(schedule))
    }

    /// The schedule of `session_id`, if it has one.
    pub fn schedule(&self, session_id: &str) -> Result<Option<ScheduleView>, ApiError> {
        let found = in_place(|| self.sessions().schedule(session_id))?;
        Ok(found.map(|s| self.view(s)))
    }

    /// Every schedule, soonest due first.
    pub fn schedules(&self) -> Result<Vec<ScheduleView>, ApiError> {
        let list = in_place(|| self.sessions().schedules())?;
        Ok(list.into_iter().map(|s| self.view(s)).collect())
    }

    fn no_schedule(session_id: &str) -> ApiError {
        ApiError::new(
            ErrorCode::NotFound,
            format!("session {session_id} has no schedule"),
        )
    }

    /// Pauses (or resumes) a session's schedule.
    pub fn pause_schedule(&self, session_id: &str, paused: bool) -> Result<(), ApiError> {
        if in_place(|| self.sessions().pause_schedule(session_id, paused))? {
            Ok(())
        } else {
            Err(Self::no_schedule(session_id))
        }
    }

    /// Removes a session's schedule.
    pub fn unwatch(&self, session_id: &str) -> Result<(), ApiError> {
        if in_place(|| self.sessions().remove_schedule(session_id))? {
            Ok(())
        } else {
            Err(Self::no_schedule(session_id))
        }
    }

    /// [`Studio::run_due`] at this Studio's clock's now (the app's timer, `research watch
    /// --run-due` without `--now`).
    pub async fn run_due_now(&self, keys: &dyn KeyStore) -> Result<Vec<ScheduleRun>, ApiError> {
        self.run_due(self.now_ms(), keys).await
    }

    /// Runs the schedules due at `now` that no other process holds, one after another: each
    /// rechecks its session's cited sources and, when asked and one changed or is gone,
    /// researches the question again as a follow-up (a new report version in the session).
    /// A schedule that fails says why and is due again at its next time.
    pub async fn run_due(
        &self,
        now: i64,
        keys: &dyn KeyStore,
    ) -> Result<Vec<ScheduleRun>, ApiError> {
        let owner = format!("{}-{}", std::process::id(), uuid::Uuid::now_v7());
        let started = std::time::Instant::now();
        // `now` moved on by the time spent: what the runs before took counts.
        let at = || now + started.elapsed().as_millis() as i64;
        let due = in_place(|| self.sessions().due_schedules(now))?;
        let mut runs = Vec::new();
        for s in due {
            // Taken right before it runs: a long batch never holds a lease it reaches late.
            let taken = in_place(|| {
                self.sessions()
                    .take_schedule(&s.session_id, at(), &owner, SCHEDULE_LEASE_MS)
            });
            match taken {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!("schedule of {} could not be taken: {e}", s.session_id);
                    continue;
                }
            }
            let run = self.run_schedule(&s, keys).await;
            let outcome = run.outcome.clone();
            if let Err(e) = in_place(|| {
                self.sessions()
                    .finish_schedule(&s.session_id, &owner, at(), &outcome)
            }) {
                // Its lease runs out and it is due again then; the others still run.
                tracing::warn!("schedule of {} could not be recorded: {e}", s.session_id);
            }
            runs.push(run);
        }
        Ok(runs)
    }

    /// One schedule's run: the recheck, and the question researched again when asked and a
    /// source changed.
    async fn run_schedule(&self, s: &Schedule, keys: &dyn KeyStore) -> ScheduleRun {
        let mut run = ScheduleRun {
            session_id: s.session_id.clone(),
            title: self.view(s.clone()).title,
            outcome: String::new(),
            changed: false,
            recheck: None,
            researched: None,
            error: None,
        };
        match self.recheck(&s.session_id).await {
            Ok(r) => {
                let (text, changed) = summary(&r);
                run.outcome = text;
                run.changed = changed;
                run.recheck = Some(r);
            }
            Err(e) => {
                run.outcome = format!("the recheck failed: {}", e.message);
                run.error = Some(e);
            }
        }
        if run.changed && s.research_again {
            match self.research_again(&s.session_id, keys).await {
                Ok(thread) => {
                    run.outcome.push_str("; researched again: a new report");
                    run.researched = Some(thread);
                }
                Err(e) => {
                    run.outcome
                        .push_str(&format!("; researching again failed: {}", e.message));
                    run.error = Some(e);
                }
            }
        }
        run
    }

    /// The session's question asked again as a follow-up and run to its end.
    async fn research_again(
        &self,
        session_id: &str,
        keys: &dyn KeyStore,
    ) -> Result<String, ApiError> {
        let question = in_place(|| self.sessions().get(session_id))?
            .map(|s| s.question)
            .ok_or_else(|| {
                ApiError::new(ErrorCode::NotFound, format!("no session {session_id}"))
            })?;
        let thread = self.follow_up(session_id, &question)?;
        let outcome = self
            .run_research(&thread, None, keys, None, CancellationToken::new())
            .await?;
        if outcome.question.is_some() {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!("the new run waits on a question: answer it in the session ({thread})"),
            ));
        }
        Ok(thread.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_hours_days_or_weeks() {
        assert_eq!(parse_every("1d").unwrap(), 86_400_000);
        assert_eq!(parse_every(" 2W ").unwrap(), 14 * 86_400_000);
        assert_eq!(parse_every("12h").unwrap(), 12 * 3_600_000);
        assert!(parse_every("30m").is_err());
        assert_eq!(parse_every("120m").unwrap(), 2 * 3_600_000);
        assert!(parse_every("3599s").is_err());
        assert!(parse_every("0h").is_err());
        assert!(parse_every("d").is_err());
        assert!(parse_every("99999999999999w").is_err());
        assert_eq!(every_label(86_400_000), "1d");
        assert_eq!(every_label(14 * 86_400_000), "2w");
        assert_eq!(every_label(36 * 3_600_000), "36h");
    }
}
