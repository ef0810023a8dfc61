//! What each model did in the person's runs, counted per run: the measurements that decide what
//! a model is asked for (`research_pipeline::measured`) and what Settings shows of it. Counts
//! only — nothing a model read or wrote — and not a session's: they stay when a session is
//! deleted, as what the person learnt about a model stays.

use rusqlite::params;

use crate::{ModelStore, SqliteSessions, StoreError};

/// What one model did, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelCounts {
    /// Facts it restated that were kept.
    pub facts: u64,
    /// Of those, the ones that were its quote's own words.
    pub own_words: u64,
    /// First drafts it wrote.
    pub drafts: u64,
    /// Of those, the ones the checks refused.
    pub refused: u64,
    /// Claims it was asked for a verdict on.
    pub verdicts_asked: u64,
    /// Of those, the ones it gave a verdict on.
    pub verdicts_given: u64,
    /// Tokens it generated.
    pub completion_tokens: u64,
    /// Time its calls took, ms.
    pub call_ms: u64,
}

impl ModelCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &ModelCounts) {
        self.facts += other.facts;
        self.own_words += other.own_words;
        self.drafts += other.drafts;
        self.refused += other.refused;
        self.verdicts_asked += other.verdicts_asked;
        self.verdicts_given += other.verdicts_given;
        self.completion_tokens += other.completion_tokens;
        self.call_ms += other.call_ms;
    }
}

/// What one model did in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRunRow {
    /// The model, as the person's runs record it (a local model's file name, else its string).
    pub model: String,
    /// Its counts in the run.
    pub counts: ModelCounts,
}

/// What one model did over every run recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelTotals {
    /// The model.
    pub model: String,
    /// Runs it took part in.
    pub runs: u64,
    /// When its latest run was recorded, ms since the epoch.
    pub last_at_ms: i64,
    /// Its counts, summed.
    pub counts: ModelCounts,
}

pub(crate) const MODEL_RUNS_MIGRATION: &str = "
CREATE TABLE model_runs (
    thread_id         TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    at_ms             INTEGER NOT NULL,
    facts             INTEGER NOT NULL,
    own_words         INTEGER NOT NULL,
    drafts            INTEGER NOT NULL,
    refused           INTEGER NOT NULL,
    verdicts_asked    INTEGER NOT NULL,
    verdicts_given    INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    call_ms           INTEGER NOT NULL,
    PRIMARY KEY (thread_id, model)
) WITHOUT ROWID;
";

impl ModelStore for SqliteSessions {
    fn record_models(
        &self,
        thread: &str,
        at_ms: i64,
        rows: &[ModelRunRow],
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "DELETE FROM model_runs WHERE thread_id = ?1",
            params![thread],
        )?;
        for row in rows {
            let c = &row.counts;
            tx.execute(
                "INSERT INTO model_runs (thread_id, model, at_ms, facts, own_words, drafts, refused,
                     verdicts_asked, verdicts_given, completion_tokens, call_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    thread,
                    row.model,
                    at_ms,
                    c.facts as i64,
                    c.own_words as i64,
                    c.drafts as i64,
                    c.refused as i64,
                    c.verdicts_asked as i64,
                    c.verdicts_given as i64,
                    c.completion_tokens as i64,
                    c.call_ms as i64,
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    fn model_totals(&self) -> Result<Vec<ModelTotals>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT model, COUNT(*), MAX(at_ms), SUM(facts), SUM(own_words), SUM(drafts),
                 SUM(refused), SUM(verdicts_asked), SUM(verdicts_given), SUM(completion_tokens),
                 SUM(call_ms)
             FROM model_runs GROUP BY model ORDER BY model",
        )?;
        let rows = stmt
            .query_map([], |r| {
                let n = |i: usize| r.get::<_, i64>(i).map(|v| v.max(0) as u64);
                Ok(ModelTotals {
                    model: r.get(0)?,
                    runs: n(1)?,
                    last_at_ms: r.get(2)?,
                    counts: ModelCounts {
                        facts: n(3)?,
                        own_words: n(4)?,
                        drafts: n(5)?,
                        refused: n(6)?,
                        verdicts_asked: n(7)?,
                        verdicts_given: n(8)?,
                        completion_tokens: n(9)?,
                        call_ms: n(10)?,
                    },
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}
