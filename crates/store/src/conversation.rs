//! A session's conversation: its turns and the summary of its earlier ones. Kept apart from
//! the session's runs and findings because a turn outlives the run it started (a cancelled turn
//! has none) and the summary is written once, not per run.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::sessions::json;
use crate::{ConversationStore, SqliteSessions, StoreError};

/// A turn of a session's conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TurnRow {
    /// The run the turn started (none for a cancelled turn).
    pub thread_id: Option<String>,
    /// What the person asked.
    pub question: String,
    /// What the turn was taken to be, who decided and why (JSON of the pipeline's
    /// classification).
    #[ts(type = "unknown")]
    pub classification: serde_json::Value,
    /// What the session was about at this turn.
    pub focus: Vec<String>,
    /// The reply given without research (a cancelled turn's), empty otherwise.
    pub reply: String,
    /// When, ms since the epoch.
    pub created_at_ms: i64,
}

/// A session's summary of its earlier turns (kept once written, not recomputed per turn).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ConversationSummary {
    /// The summary, empty when none was written.
    pub text: String,
    /// How many of the session's first turns it covers.
    pub turns: u32,
}

impl ConversationStore for SqliteSessions {
    /// Records a turn of a session's conversation.
    fn add_turn(&self, session: &str, turn: &TurnRow) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO turns (session_id, thread_id, question, classification, focus, reply, created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                session,
                turn.thread_id,
                turn.question,
                turn.classification.to_string(),
                serde_json::to_string(&turn.focus).unwrap_or_else(|_| "[]".into()),
                turn.reply,
                turn.created_at_ms
            ],
        )?;
        Ok(())
    }

    /// A session's turns, oldest first.
    fn turns(&self, session: &str) -> Result<Vec<TurnRow>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT thread_id, question, classification, focus, reply, created_at_ms FROM turns
             WHERE session_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok(TurnRow {
                thread_id: r.get(0)?,
                question: r.get(1)?,
                classification: json(r.get(2)?),
                focus: serde_json::from_value(json(r.get(3)?)).unwrap_or_default(),
                reply: r.get(4)?,
                created_at_ms: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The session's summary of its earlier turns.
    fn summary(&self, session: &str) -> Result<ConversationSummary, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT summary, summary_turns FROM sessions WHERE id = ?1",
                [session],
                |r| {
                    Ok(ConversationSummary {
                        text: r.get(0)?,
                        turns: r.get(1)?,
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }

    /// Keeps the session's summary of its first `summary.turns` turns.
    fn set_summary(&self, session: &str, summary: &ConversationSummary) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE sessions SET summary = ?2, summary_turns = ?3 WHERE id = ?1",
            params![session, summary.text, summary.turns],
        )?;
        Ok(())
    }
}

pub(crate) const TURNS_MIGRATION: &str = "
CREATE TABLE turns (
    seq            INTEGER PRIMARY KEY,
    session_id     TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    thread_id      TEXT,
    question       TEXT    NOT NULL,
    classification TEXT    NOT NULL,
    focus          TEXT    NOT NULL,
    reply          TEXT    NOT NULL,
    created_at_ms  INTEGER NOT NULL
);
CREATE INDEX turns_session ON turns(session_id);
ALTER TABLE sessions ADD COLUMN summary TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN summary_turns INTEGER NOT NULL DEFAULT 0;
";
