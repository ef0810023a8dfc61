//! What each model did in the person's runs, on PostgreSQL.

use research_store::{ModelCounts, ModelRunRow, ModelStore, ModelTotals, StoreError};

use super::PgSessions;

impl ModelStore for PgSessions {
    fn record_models(
        &self,
        thread: &str,
        at_ms: i64,
        rows: &[ModelRunRow],
    ) -> Result<(), StoreError> {
        self.run(|mut c| async move {
            let tx = c.transaction().await?;
            tx.execute("DELETE FROM model_runs WHERE thread_id = $1", &[&thread])
                .await?;
            for row in rows {
                let n = |v: u64| v.min(i64::MAX as u64) as i64;
                let k = &row.counts;
                tx.execute(
                    "INSERT INTO model_runs (thread_id, model, at_ms, facts, own_words, drafts, refused,
                         verdicts_asked, verdicts_given, completion_tokens, call_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                    &[
                        &thread,
                        &row.model,
                        &at_ms,
                        &n(k.facts),
                        &n(k.own_words),
                        &n(k.drafts),
                        &n(k.refused),
                        &n(k.verdicts_asked),
                        &n(k.verdicts_given),
                        &n(k.completion_tokens),
                        &n(k.call_ms),
                    ],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn model_totals(&self) -> Result<Vec<ModelTotals>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT model, COUNT(*)::BIGINT, MAX(at_ms), SUM(facts)::BIGINT, SUM(own_words)::BIGINT,
                     SUM(drafts)::BIGINT, SUM(refused)::BIGINT, SUM(verdicts_asked)::BIGINT,
                     SUM(verdicts_given)::BIGINT, SUM(completion_tokens)::BIGINT, SUM(call_ms)::BIGINT
                 FROM model_runs GROUP BY model ORDER BY model",
                &[],
            )
            .await?
            .iter()
            .map(|r| {
                let n = |i: usize| r.get::<_, i64>(i).max(0) as u64;
                ModelTotals {
                    model: r.get(0),
                    runs: n(1),
                    last_at_ms: r.get(2),
                    counts: ModelCounts {
                        facts: n(3),
                        own_words: n(4),
                        drafts: n(5),
                        refused: n(6),
                        verdicts_asked: n(7),
                        verdicts_given: n(8),
                        completion_tokens: n(9),
                        call_ms: n(10),
                    },
                }
            })
            .collect())
        })
    }
}
