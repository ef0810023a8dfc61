//! The thread registry on PostgreSQL.

use research_store::{StoreError, ThreadRecord, ThreadStore};
use tokio_postgres::Row;

use super::{json, PgThreads};

fn thread_row(r: &Row) -> ThreadRecord {
    ThreadRecord {
        thread_id: r.get(0),
        graph: r.get(1),
        config: json(r.get(2)),
        created_at_ms: r.get(3),
    }
}

impl ThreadStore for PgThreads {
    fn insert(&self, record: &ThreadRecord) -> Result<(), StoreError> {
        let config = record.config.to_string();
        self.bridge.run(|c| async move {
            c.execute(
                "INSERT INTO threads (thread_id, graph, config, created_at_ms) VALUES ($1, $2, $3, $4)",
                &[&record.thread_id, &record.graph, &config, &record.created_at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn set_config(&self, thread_id: &str, config: &serde_json::Value) -> Result<(), StoreError> {
        let config = config.to_string();
        self.bridge.run(|c| async move {
            c.execute(
                "UPDATE threads SET config = $2 WHERE thread_id = $1",
                &[&thread_id, &config],
            )
            .await?;
            Ok(())
        })
    }

    fn get(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        self.bridge.run(|c| async move {
            Ok(c.query_opt(
                "SELECT thread_id, graph, config, created_at_ms FROM threads WHERE thread_id = $1",
                &[&thread_id],
            )
            .await?
            .as_ref()
            .map(thread_row))
        })
    }

    fn list(&self) -> Result<Vec<ThreadRecord>, StoreError> {
        self.bridge.run(|c| async move {
            Ok(c
                .query(
                    "SELECT thread_id, graph, config, created_at_ms FROM threads ORDER BY created_at_ms DESC, thread_id",
                    &[],
                )
                .await?
                .iter()
                .map(thread_row)
                .collect())
        })
    }
}
