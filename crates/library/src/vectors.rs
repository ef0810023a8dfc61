//! Passage vectors in the library's database, and the in-memory index searched by meaning.
//!
//! One vector per passage (keyed by the passage's FTS5 rowid) with the model that made it:
//! vectors of another model are pending again, and deleting a passage deletes its vector in the
//! same transaction, so a reused rowid never inherits a stale one.

use rusqlite::{params, Connection, ToSql};

/// Passages embedded in one call and committed together.
pub(crate) const EMBED_BATCH: usize = 32;

/// Creates the vectors' table when the database has none (kept here, beside the only code
/// that reads it).
pub(crate) fn create_table(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS library_vectors (
             passage INTEGER PRIMARY KEY, -- library_passages' rowid
             model   TEXT    NOT NULL,
             vector  BLOB    NOT NULL     -- little-endian f32s, unit length
         );",
    )
}

/// Deletes the passages `condition` selects (a clause on `library_passages` with `?1`), and
/// their vectors first.
pub(crate) fn delete_passages(
    conn: &Connection,
    condition: &str,
    param: impl ToSql,
) -> rusqlite::Result<()> {
    conn.execute(
        &format!(
            "DELETE FROM library_vectors WHERE passage IN (SELECT rowid FROM library_passages WHERE {condition})"
        ),
        [&param],
    )?;
    conn.execute(
        &format!("DELETE FROM library_passages WHERE {condition}"),
        [&param],
    )?;
    Ok(())
}

/// Passages (rowid, indexed text) with no vector from `model`, of one file or all.
pub(crate) fn pending(
    conn: &Connection,
    model: &str,
    file: Option<i64>,
) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.rowid, p.text FROM library_passages p
         WHERE (?2 IS NULL OR p.file_id = ?2)
           AND NOT EXISTS (SELECT 1 FROM library_vectors v WHERE v.passage = p.rowid AND v.model = ?1)
         ORDER BY p.rowid",
    )?;
    let rows = stmt.query_map(params![model, file], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// Stores vectors for passages (replacing another model's).
pub(crate) fn store(
    conn: &mut Connection,
    model: &str,
    passages: &[i64],
    vectors: &[Vec<f32>],
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    {
        let mut insert = tx.prepare_cached(
            "INSERT OR REPLACE INTO library_vectors (passage, model, vector)
             SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM library_passages WHERE rowid = ?1)",
        )?;
        for (id, v) in passages.iter().zip(vectors) {
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            insert.execute(params![id, model, bytes])?;
        }
    }
    tx.commit()
}

/// Every stored vector of one model, in one matrix, searched by brute force: for the libraries
/// a person keeps (thousands to tens of thousands of passages) a scan is a few milliseconds and
/// needs no index to keep in step.
#[derive(Debug)]
pub(crate) struct VectorIndex {
    pub(crate) model: String,
    passages: Vec<i64>,
    dimensions: usize,
    data: Vec<f32>,
}

impl VectorIndex {
    pub(crate) fn load(conn: &Connection, model: &str) -> rusqlite::Result<Self> {
        let mut stmt =
            conn.prepare_cached("SELECT passage, vector FROM library_vectors WHERE model = ?1")?;
        let mut rows = stmt.query([model])?;
        let mut index = VectorIndex {
            model: model.to_string(),
            passages: Vec::new(),
            dimensions: 0,
            data: Vec::new(),
        };
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let bytes: Vec<u8> = row.get(1)?;
            let dims = bytes.len() / 4;
            if index.dimensions == 0 {
                index.dimensions = dims;
            }
            if dims != index.dimensions || dims == 0 {
                tracing::warn!(
                    passage = id,
                    "a stored vector of the wrong length is ignored"
                );
                continue;
            }
            index.passages.push(id);
            index.data.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
        }
        Ok(index)
    }

    /// Up to `depth` passages most similar to `question`, best first, none below `floor`.
    pub(crate) fn nearest(&self, question: &[f32], depth: usize, floor: f32) -> Vec<i64> {
        if self.dimensions == 0 || question.len() != self.dimensions {
            return Vec::new();
        }
        let mut scored: Vec<(f32, i64)> = self
            .data
            .chunks_exact(self.dimensions)
            .zip(&self.passages)
            .map(|(v, id)| (research_embed::similarity(v, question), *id))
            .filter(|(s, _)| *s >= floor)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(depth);
        scored.into_iter().map(|(_, id)| id).collect()
    }
}
