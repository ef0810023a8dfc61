//! Conversations (turns and summaries) on PostgreSQL.

use research_store::{ConversationStore, ConversationSummary, StoreError, TurnRow};

use super::{json, PgSessions};

impl ConversationStore for PgSessions {
    fn add_turn(&self, session: &str, turn: &TurnRow) -> Result<(), StoreError> {
        let classification = turn.classification.to_string();
        let focus = serde_json::to_string(&turn.focus).unwrap_or_else(|_| "[]".into());
        self.run(|c| async move {
            c.execute(
                "INSERT INTO turns (session_id, thread_id, question, classification, focus, reply, created_at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[&session, &turn.thread_id, &turn.question, &classification, &focus, &turn.reply, &turn.created_at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn turns(&self, session: &str) -> Result<Vec<TurnRow>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT thread_id, question, classification, focus, reply, created_at_ms FROM turns
                     WHERE session_id = $1 ORDER BY seq",
                &[&session],
            )
            .await?
            .iter()
            .map(|r| TurnRow {
                thread_id: r.get(0),
                question: r.get(1),
                classification: json(r.get(2)),
                focus: serde_json::from_value(json(r.get(3))).unwrap_or_default(),
                reply: r.get(4),
                created_at_ms: r.get(5),
            })
            .collect())
        })
    }

    fn summary(&self, session: &str) -> Result<ConversationSummary, StoreError> {
        self.run(|c| async move {
            Ok(c.query_opt(
                "SELECT summary, summary_turns FROM sessions WHERE id = $1",
                &[&session],
            )
            .await?
            .map(|r| ConversationSummary {
                text: r.get(0),
                turns: r.get::<_, i32>(1) as u32,
            })
            .unwrap_or_default())
        })
    }

    fn set_summary(&self, session: &str, summary: &ConversationSummary) -> Result<(), StoreError> {
        let turns = summary.turns as i32;
        self.run(|c| async move {
            c.execute(
                "UPDATE sessions SET summary = $2, summary_turns = $3 WHERE id = $1",
                &[&session, &summary.text, &turns],
            )
            .await?;
            Ok(())
        })
    }
}
