//! Research sessions and what they produced: runs (threads), sources with their stored text,
//! evidence, claims, report versions, the audit trail of events, model calls; and the caches of
//! searches and pages shared by all sessions.
//!
//! Source texts live once per content hash in `documents`; sessions point at them. Deleting a
//! session deletes its rows, its threads' checkpoints, and texts nothing else points at.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::Digest;

use crate::{open_connection, SessionStore, StoreError};

/// Where a session's last run stands, as the sessions table keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// A run is going on (or the process running it ended without saying so).
    Running,
    /// The run waits for a person's answer.
    Waiting,
    /// The run was cancelled from outside; resume continues it.
    Interrupted,
    /// The run stopped on an error; resume continues from its last saved step.
    Failed,
    /// The report is written.
    Finished,
    /// The person cancelled the run at a review point.
    Cancelled,
    /// The person rejected the report.
    Rejected,
}

impl SessionStatus {
    /// Every status, in the order a person meets them.
    pub const ALL: [SessionStatus; 7] = [
        SessionStatus::Running,
        SessionStatus::Waiting,
        SessionStatus::Interrupted,
        SessionStatus::Failed,
        SessionStatus::Finished,
        SessionStatus::Cancelled,
        SessionStatus::Rejected,
    ];

    /// Its name in the database and over IPC.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Running => "running",
            SessionStatus::Waiting => "waiting",
            SessionStatus::Interrupted => "interrupted",
            SessionStatus::Failed => "failed",
            SessionStatus::Finished => "finished",
            SessionStatus::Cancelled => "cancelled",
            SessionStatus::Rejected => "rejected",
        }
    }

    /// The status named `name`; a name this version does not know reads as [`Self::Failed`]
    /// (the run's state is unknown: resuming is the way on).
    pub fn from_name(name: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .unwrap_or(SessionStatus::Failed)
    }

    /// Whether its last run can be resumed from its last saved step: one that did not finish
    /// (still marked running, interrupted) or stopped on an error.
    pub fn resumable(self) -> bool {
        matches!(
            self,
            SessionStatus::Running | SessionStatus::Interrupted | SessionStatus::Failed
        )
    }
}

impl std::fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// A session as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionRecord {
    /// Its id.
    pub id: String,
    /// A title (the question, until renamed).
    pub title: String,
    /// The question.
    pub question: String,
    /// The run configuration, as JSON.
    pub config: serde_json::Value,
    /// Where its last run stands.
    pub status: SessionStatus,
    /// Created, ms since the epoch.
    pub created_at_ms: i64,
    /// Last changed, ms since the epoch.
    pub updated_at_ms: i64,
    /// When its report's sources were last checked again (`research recheck`), if ever.
    #[serde(default)]
    pub checked_at_ms: Option<i64>,
}

/// A source row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourceRow {
    /// Citation number in its run.
    pub source_id: u32,
    /// URL (`file://` for library files).
    pub url: String,
    /// Title.
    pub title: String,
    /// Kind (web, academic, news, local).
    pub kind: String,
    /// SHA-256 of the stored text.
    pub sha256: String,
    /// When it was read.
    pub accessed_at_ms: i64,
    /// Who wrote it and where it appeared, for a citation style (stored as JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub citation: Option<research_cite::Citation>,
}

impl SourceRow {
    /// The citation as stored: JSON, or nothing.
    pub fn citation_json(&self) -> Option<String> {
        self.citation
            .as_ref()
            .map(|c| serde_json::to_string(c).expect("a citation serializes"))
    }

    /// A stored citation read back; one this build cannot read is left out rather than
    /// failing the run's sources.
    pub fn citation_from(json: Option<String>) -> Option<research_cite::Citation> {
        json.and_then(|j| serde_json::from_str(&j).ok())
    }
}

/// An evidence row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvidenceRow {
    /// Number in its run.
    pub evidence_id: u32,
    /// The source's citation number.
    pub source_id: u32,
    /// The fact.
    pub fact: String,
    /// The verbatim quote.
    pub quote: String,
}

/// A checked claim row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClaimRow {
    /// The evidence it was taken from.
    pub evidence_id: u32,
    /// The claim.
    pub text: String,
    /// Whether its quote supports it.
    pub supported: bool,
}

/// A report version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ReportRow {
    /// The run.
    pub thread_id: String,
    /// 1, 2, … within the run.
    pub version: u32,
    /// Markdown.
    pub markdown: String,
    /// Models, providers, configuration, app version, token counts.
    pub provenance: serde_json::Value,
    /// When it was written.
    pub created_at_ms: i64,
}

/// The session tables in the SQLite database file.
pub struct SqliteSessions {
    conn: Mutex<Connection>,
    reserve: std::path::PathBuf,
}

/// The space kept beside the database for the one write a full disk must not stop: a run's
/// "failed" status (without it the session would stay "running" with nothing running).
const RESERVE_BYTES: usize = 2 * 1024 * 1024;

/// Whether SQLite failed because the disk (or the database's size limit) is full.
pub(crate) fn is_disk_full(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DiskFull)
}

/// The key a text is stored under: its SHA-256, in lowercase hex.
pub fn document_sha256(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn json(text: String) -> serde_json::Value {
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

impl SqliteSessions {
    /// Opens the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = open_connection(path)?;
        let mut reserve = path.as_os_str().to_owned();
        reserve.push("-reserve");
        let reserve = std::path::PathBuf::from(reserve);
        // Kept (again) whenever there is room; a full disk frees it for the status write.
        if std::fs::metadata(&reserve).map(|m| m.len()).unwrap_or(0) < RESERVE_BYTES as u64 {
            if let Err(e) = std::fs::write(&reserve, vec![0u8; RESERVE_BYTES]) {
                tracing::warn!("no room for the database's reserve: {e}");
                let _ = std::fs::remove_file(&reserve);
            }
        }
        Ok(Self {
            conn: Mutex::new(conn),
            reserve,
        })
    }

    /// Opens the database at `path` to read what can still be read ([`crate::open_read_only`]):
    /// every write fails.
    pub fn read_only(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: Mutex::new(crate::open_read_only(path)?),
            // No reserve is kept for a file nothing writes to.
            reserve: std::path::PathBuf::new(),
        })
    }

    pub(crate) fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRecord> {
        Ok(SessionRecord {
            id: r.get(0)?,
            title: r.get(1)?,
            question: r.get(2)?,
            config: json(r.get(3)?),
            status: SessionStatus::from_name(&r.get::<_, String>(4)?),
            created_at_ms: r.get(5)?,
            updated_at_ms: r.get(6)?,
            checked_at_ms: r.get(7)?,
        })
    }
}

impl SessionStore for SqliteSessions {
    /// Creates a session.
    fn create(&self, s: &SessionRecord) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO sessions (id, title, question, config, status, created_at_ms, updated_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                s.id,
                s.title,
                s.question,
                s.config.to_string(),
                s.status.as_str(),
                s.created_at_ms,
                s.updated_at_ms
            ],
        )?;
        Ok(())
    }

    /// Sessions, newest first; with `text`, only those whose title or question contains it.
    fn list(&self, text: Option<&str>) -> Result<Vec<SessionRecord>, StoreError> {
        let conn = self.conn();
        let pattern = format!(
            "%{}%",
            text.unwrap_or("")
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let mut stmt = conn.prepare(
            "SELECT id, title, question, config, status, created_at_ms, updated_at_ms, checked_at_ms FROM sessions
             WHERE title LIKE ?1 ESCAPE '\\' OR question LIKE ?1 ESCAPE '\\'
             ORDER BY updated_at_ms DESC, id DESC",
        )?;
        let rows = stmt.query_map([pattern], Self::row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One session.
    fn get(&self, id: &str) -> Result<Option<SessionRecord>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, title, question, config, status, created_at_ms, updated_at_ms, checked_at_ms FROM sessions WHERE id = ?1",
                [id],
                Self::row,
            )
            .optional()?)
    }

    /// Renames a session; false when it does not exist.
    fn rename(&self, id: &str, title: &str, now_ms: i64) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE sessions SET title = ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![id, title, now_ms],
        )? > 0)
    }

    /// Sets a session's status. On a full disk the reserve kept beside the database is given up
    /// for it: a run that failed because the disk is full must still say so.
    fn set_status(&self, id: &str, status: SessionStatus, now_ms: i64) -> Result<(), StoreError> {
        let write = || {
            self.conn().execute(
                "UPDATE sessions SET status = ?2, updated_at_ms = ?3 WHERE id = ?1",
                params![id, status.as_str(), now_ms],
            )
        };
        match write() {
            Err(e) if is_disk_full(&e) && std::fs::remove_file(&self.reserve).is_ok() => {
                tracing::warn!("the disk is full: the database's reserve was used for a status");
                write()?;
            }
            other => {
                other?;
            }
        }
        Ok(())
    }

    /// Deletes a session, everything it produced, its threads' checkpoints, and source texts
    /// no one else uses. False when it did not exist.
    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let threads: Vec<String> = {
            let mut stmt = tx.prepare("SELECT thread_id FROM runs WHERE session_id = ?1")?;
            let rows = stmt.query_map([id], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        for t in &threads {
            tx.execute("DELETE FROM writes WHERE thread_id = ?1", [t])?;
            tx.execute("DELETE FROM checkpoints WHERE thread_id = ?1", [t])?;
            tx.execute("DELETE FROM threads WHERE thread_id = ?1", [t])?;
        }
        let gone = tx.execute("DELETE FROM sessions WHERE id = ?1", [id])? > 0;
        // A running run saves its sources only at the end, so the texts it has read so far are
        // referenced by nothing yet: keep every text stored since the oldest running session's
        // runs began.
        tx.execute(
            "DELETE FROM documents WHERE sha256 NOT IN (SELECT sha256 FROM sources)
               AND sha256 NOT IN (SELECT sha256 FROM page_cache)
               AND created_at_ms < COALESCE(
                   (SELECT min(r.created_at_ms) FROM runs r JOIN sessions s ON s.id = r.session_id
                    WHERE s.status = 'running'),
                   9223372036854775807)",
            [],
        )?;
        tx.commit()?;
        Ok(gone)
    }

    /// Records a run (thread) of a session.
    fn add_run(
        &self,
        session: &str,
        thread: &str,
        question: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO runs (thread_id, session_id, question, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![thread, session, question, now_ms],
        )?;
        Ok(())
    }

    fn swap_runner(
        &self,
        thread: &str,
        expected: Option<&str>,
        me: &str,
    ) -> Result<bool, StoreError> {
        Ok(self.conn().execute(
            "UPDATE runs SET runner = ?2 WHERE thread_id = ?1 AND runner IS ?3",
            params![thread, me, expected],
        )? == 1)
    }

    /// Lets `thread` go, if `me` is the process recorded as running it.
    fn release_runner(&self, thread: &str, me: &str) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE runs SET runner = NULL WHERE thread_id = ?1 AND runner = ?2",
            params![thread, me],
        )?;
        Ok(())
    }

    /// The process recorded as running `thread`, if any.
    fn runner(&self, thread: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT runner FROM runs WHERE thread_id = ?1",
                [thread],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    /// The runs of a session, oldest first: (thread id, question).
    fn runs(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT thread_id, question FROM runs WHERE session_id = ?1 ORDER BY created_at_ms, rowid",
        )?;
        let rows = stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The session a thread belongs to.
    fn session_of(&self, thread: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT session_id FROM runs WHERE thread_id = ?1",
                [thread],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Stores a text once and returns its SHA-256.
    fn put_document(&self, text: &str, now_ms: i64) -> Result<String, StoreError> {
        let sha = document_sha256(text);
        self.conn().execute(
            // Storing a text again marks it as used now: a running run's texts are known by
            // that mark until its sources are saved (see `delete`).
            "INSERT INTO documents (sha256, text, created_at_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT(sha256) DO UPDATE SET created_at_ms = max(created_at_ms, excluded.created_at_ms)",
            params![sha, text, now_ms],
        )?;
        Ok(sha)
    }

    /// The text with this SHA-256.
    fn document(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT text FROM documents WHERE sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Replaces what a run found: its sources, evidence and claims.
    fn save_findings(
        &self,
        session: &str,
        thread: &str,
        sources: &[SourceRow],
        evidence: &[EvidenceRow],
        claims: &[ClaimRow],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for table in ["sources", "evidence", "claims"] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE thread_id = ?1"),
                [thread],
            )?;
        }
        for s in sources {
            tx.execute(
                "INSERT INTO sources (thread_id, session_id, source_id, url, title, kind, sha256, accessed_at_ms, citation)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![thread, session, s.source_id, s.url, s.title, s.kind, s.sha256, s.accessed_at_ms, s.citation_json()],
            )?;
        }
        for e in evidence {
            tx.execute(
                "INSERT INTO evidence (thread_id, session_id, evidence_id, source_id, fact, quote)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![thread, session, e.evidence_id, e.source_id, e.fact, e.quote],
            )?;
        }
        for c in claims {
            tx.execute(
                "INSERT INTO claims (thread_id, session_id, evidence_id, text, supported)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![thread, session, c.evidence_id, c.text, c.supported],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// A run's sources.
    fn sources(&self, thread: &str) -> Result<Vec<SourceRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT source_id, url, title, kind, sha256, accessed_at_ms, citation FROM sources WHERE thread_id = ?1 ORDER BY source_id",
        )?;
        let rows = stmt.query_map([thread], |r| {
            Ok(SourceRow {
                source_id: r.get(0)?,
                url: r.get(1)?,
                title: r.get(2)?,
                kind: r.get(3)?,
                sha256: r.get(4)?,
                accessed_at_ms: r.get(5)?,
                citation: SourceRow::citation_from(r.get(6)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A run's evidence.
    fn evidence(&self, thread: &str) -> Result<Vec<EvidenceRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT evidence_id, source_id, fact, quote FROM evidence WHERE thread_id = ?1 ORDER BY evidence_id",
        )?;
        let rows = stmt.query_map([thread], |r| {
            Ok(EvidenceRow {
                evidence_id: r.get(0)?,
                source_id: r.get(1)?,
                fact: r.get(2)?,
                quote: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A run's checked claims.
    fn claims(&self, thread: &str) -> Result<Vec<ClaimRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT evidence_id, text, supported FROM claims WHERE thread_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([thread], |r| {
            Ok(ClaimRow {
                evidence_id: r.get(0)?,
                text: r.get(1)?,
                supported: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Adds a report version (the next number) and returns it.
    fn add_report(
        &self,
        session: &str,
        thread: &str,
        markdown: &str,
        provenance: &serde_json::Value,
        now_ms: i64,
    ) -> Result<u32, StoreError> {
        // One statement: two processes adding a version at once get the next two numbers.
        let version: u32 = self.conn().query_row(
            "INSERT INTO reports (thread_id, session_id, version, markdown, provenance, created_at_ms)
             SELECT ?1, ?2, COALESCE(MAX(version), 0) + 1, ?3, ?4, ?5 FROM reports WHERE thread_id = ?1
             RETURNING version",
            params![thread, session, markdown, provenance.to_string(), now_ms],
            |r| r.get(0),
        )?;
        Ok(version)
    }

    /// The report versions of a session's runs, oldest first.
    fn reports(&self, session: &str) -> Result<Vec<ReportRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT thread_id, version, markdown, provenance, created_at_ms FROM reports
             WHERE session_id = ?1 ORDER BY created_at_ms, version",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok(ReportRow {
                thread_id: r.get(0)?,
                version: r.get(1)?,
                markdown: r.get(2)?,
                provenance: json(r.get(3)?),
                created_at_ms: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records that the session's report sources were checked again at `at_ms`.
    fn set_checked(&self, session: &str, at_ms: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE sessions SET checked_at_ms = ?2 WHERE id = ?1",
            params![session, at_ms],
        )?;
        Ok(())
    }

    /// Appends an event to a run's audit trail.
    fn add_event(
        &self,
        session: &str,
        thread: &str,
        at_ms: i64,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO events (thread_id, session_id, at_ms, kind, payload) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![thread, session, at_ms, kind, payload.to_string()],
        )?;
        Ok(())
    }

    /// A run's events, in order: (at, kind, payload).
    fn events(&self, thread: &str) -> Result<Vec<(i64, String, serde_json::Value)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT at_ms, kind, payload FROM events WHERE thread_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([thread], |r| Ok((r.get(0)?, r.get(1)?, json(r.get(2)?))))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records a model call (as JSON) of a run.
    fn add_call(&self, thread: &str, call: &serde_json::Value) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO llm_calls (thread_id, call) VALUES (?1, ?2)",
            params![thread, call.to_string()],
        )?;
        Ok(())
    }

    /// A run's model calls, in order.
    fn calls(&self, thread: &str) -> Result<Vec<serde_json::Value>, StoreError> {
        let conn = self.conn();
        let mut stmt =
            conn.prepare("SELECT call FROM llm_calls WHERE thread_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([thread], |r| Ok(json(r.get(0)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::session;

    /// Two processes on one database (the CLI and the app): a read-then-write transaction
    /// starts as a writer, so it waits out the other's write (busy_timeout) instead of failing
    /// with "database is locked" when its read snapshot turns stale.
    #[test]
    fn a_read_then_write_waits_for_another_writer_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let s = SqliteSessions::open(&path).unwrap();
        s.create(&session("a", "Rust memory", 1)).unwrap();
        s.add_run("a", "t-a", "Rust memory?", 2).unwrap();
        let mut other = crate::open_connection(&path).unwrap();
        let (started, holding) = std::sync::mpsc::channel();
        let writer = std::thread::spawn(move || {
            let tx = other
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            tx.execute("UPDATE sessions SET title = 'Borrowing' WHERE id = 'a'", [])
                .unwrap();
            started.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(300));
            tx.commit().unwrap();
        });
        holding.recv().unwrap();
        assert!(s.delete("a").unwrap());
        writer.join().unwrap();
        assert!(s.list(None).unwrap().is_empty());
    }
}
