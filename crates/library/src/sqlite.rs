//! The library's index in this machine's SQLite file: passages in FTS5 (Porter stems over
//! `unicode61`, ranked by BM25), vectors in a table beside them keyed by the passage's rowid.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use research_store::StoreError;
use rusqlite::{params, Connection, OptionalExtension, ToSql, TransactionBehavior};

use crate::index::{Counts, FileReference, FoundPassage, KnownFile, LibraryIndex, ReadFile};
use crate::text::segment_cjk;
use crate::LibraryFolder;

/// The index in the app's SQLite database.
pub struct SqliteIndex {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for SqliteIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteIndex").finish_non_exhaustive()
    }
}

impl SqliteIndex {
    /// Opens the index in the database at `db` (its schema brought up to date).
    pub fn open(db: &Path) -> Result<Self, StoreError> {
        let conn = research_store::open_connection(db)?;
        create_vectors_table(&conn)?;
        create_references_table(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Creates the table of what reference managers say of files when the database has none.
fn create_references_table(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS library_references (
             path          TEXT    PRIMARY KEY,
             reference     TEXT    NOT NULL, -- FileReference as JSON
             updated_at_ms INTEGER NOT NULL
         );",
    )
}

/// Creates the vectors' table when the database has none (kept here, beside the only code
/// that reads it).
fn create_vectors_table(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS library_vectors (
             passage INTEGER PRIMARY KEY, -- library_passages' rowid
             model   TEXT    NOT NULL,
             vector  BLOB    NOT NULL     -- little-endian f32s, unit length
         );
         CREATE INDEX IF NOT EXISTS library_vectors_by_model ON library_vectors (model);
         -- The next passage id. FTS5 gives a new row the largest rowid plus one, which is a
         -- deleted passage's when the last file indexed is indexed again; ids are taken from here
         -- instead, so no id is ever another passage's (LibraryIndex's promise).
         CREATE TABLE IF NOT EXISTS library_passage_ids (
             one  INTEGER PRIMARY KEY CHECK (one = 1),
             next INTEGER NOT NULL
         );
         INSERT OR IGNORE INTO library_passage_ids (one, next)
             SELECT 1, coalesce(max(rowid), 0) + 1 FROM library_passages;",
    )
}

/// Deletes the passages `condition` selects (a clause on `library_passages` with `?1`), and
/// their vectors first.
fn delete_passages(conn: &Connection, condition: &str, param: impl ToSql) -> rusqlite::Result<()> {
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

/// What a person typed as an FTS5 query: every word quoted (so `AND`, `-`, `:` and quotes are
/// just text), CJK words as phrases of their characters; `all` requires every word, else any.
pub(crate) fn fts_query(words: &[String], all: bool) -> Option<String> {
    let words: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"", segment_cjk(&w.replace('"', "")).trim()))
        .collect();
    (!words.is_empty()).then(|| words.join(if all { " " } else { " OR " }))
}

impl LibraryIndex for SqliteIndex {
    fn add_root(&self, root: &str, at_ms: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT OR IGNORE INTO library_roots (path, added_at_ms) VALUES (?1, ?2)",
            params![root, at_ms],
        )?;
        Ok(())
    }

    fn remove_root(&self, root: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        delete_passages(
            &tx,
            "file_id IN (SELECT id FROM library_files WHERE root = ?1)",
            root,
        )?;
        tx.execute("DELETE FROM library_files WHERE root = ?1", [root])?;
        let gone = tx.execute("DELETE FROM library_roots WHERE path = ?1", [root])?;
        tx.commit()?;
        Ok(gone > 0)
    }

    fn roots(&self) -> Result<Vec<String>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT path FROM library_roots ORDER BY path")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn folders(&self) -> Result<Vec<LibraryFolder>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT r.path, count(f.id) FILTER (WHERE f.error IS NULL), count(f.id) FILTER (WHERE f.error IS NOT NULL)
             FROM library_roots r LEFT JOIN library_files f ON f.root = r.path GROUP BY r.path ORDER BY r.path",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(LibraryFolder {
                path: r.get(0)?,
                files: r.get::<_, i64>(1)? as usize,
                failed: r.get::<_, i64>(2)? as usize,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn file(&self, path: &str) -> Result<Option<KnownFile>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, mtime_ns, size, sha256 FROM library_files WHERE path = ?1",
                [path],
                |r| {
                    Ok(KnownFile {
                        id: r.get(0)?,
                        mtime_ns: r.get(1)?,
                        size: r.get(2)?,
                        sha256: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }

    fn files_of(&self, root: &str) -> Result<Vec<(i64, String)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT id, path FROM library_files WHERE root = ?1")?;
        let rows = stmt.query_map([root], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn drop_files(&self, ids: &[i64]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for id in ids {
            delete_passages(&tx, "file_id = ?1", id)?;
            tx.execute("DELETE FROM library_files WHERE id = ?1", [id])?;
        }
        tx.commit()?;
        Ok(())
    }

    fn touch_file(&self, id: i64, mtime_ns: i64, size: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE library_files SET mtime_ns = ?1, size = ?2 WHERE id = ?3",
            params![mtime_ns, size, id],
        )?;
        Ok(())
    }

    fn put_file(&self, file: &ReadFile<'_>) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        delete_passages(
            &tx,
            "file_id IN (SELECT id FROM library_files WHERE path = ?1)",
            file.path,
        )?;
        tx.execute("DELETE FROM library_files WHERE path = ?1", [file.path])?;
        tx.execute(
            "INSERT INTO library_files (root, path, mtime_ns, size, sha256, kind, title, error, indexed_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8)",
            params![
                file.root,
                file.path,
                file.mtime_ns,
                file.size,
                file.sha256,
                file.kind,
                file.title,
                file.at_ms
            ],
        )?;
        let id = tx.last_insert_rowid();
        let first: i64 = tx.query_row(
            // Above every passage there is, whatever wrote it (an older build takes FTS5's own
            // rowids without advancing the sequence).
            "UPDATE library_passage_ids
             SET next = max(next, (SELECT coalesce(max(rowid), 0) + 1 FROM library_passages)) + ?1
             RETURNING next - ?1",
            [file.passages.len() as i64],
            |r| r.get(0),
        )?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO library_passages (rowid, text, file_id, ord) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (ord, passage) in file.passages.iter().enumerate() {
                insert.execute(params![first + ord as i64, passage, id, ord as i64])?;
            }
        }
        tx.commit()?;
        Ok(id)
    }

    fn put_failure(
        &self,
        root: &str,
        path: &str,
        mtime_ns: i64,
        size: i64,
        why: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        delete_passages(
            &tx,
            "file_id IN (SELECT id FROM library_files WHERE path = ?1)",
            path,
        )?;
        tx.execute(
            "INSERT INTO library_files (root, path, mtime_ns, size, sha256, kind, title, error, indexed_at_ms)
             VALUES (?1, ?2, ?3, ?4, '', 'unreadable', NULL, ?5, ?6)
             ON CONFLICT(path) DO UPDATE SET mtime_ns = excluded.mtime_ns, size = excluded.size,
                 sha256 = '', kind = 'unreadable', title = NULL, error = excluded.error",
            params![root, path, mtime_ns, size, why, at_ms],
        )?;
        tx.commit()?;
        Ok(())
    }

    fn readable(&self, path: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT kind FROM library_files WHERE path = ?1 AND error IS NULL",
                [path],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn put_reference(
        &self,
        path: &str,
        reference: &FileReference,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let json = serde_json::to_string(reference).expect("a reference serializes");
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let before: bool = tx
            .query_row(
                "SELECT 1 FROM library_references WHERE path = ?1",
                [path],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        tx.execute(
            "INSERT INTO library_references (path, reference, updated_at_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT (path) DO UPDATE SET reference = excluded.reference,
                                              updated_at_ms = excluded.updated_at_ms",
            params![path, json, at_ms],
        )?;
        tx.commit()?;
        Ok(before)
    }

    fn reference(&self, path: &str) -> Result<Option<FileReference>, StoreError> {
        let json: Option<String> = self
            .conn()
            .query_row(
                "SELECT reference FROM library_references WHERE path = ?1",
                [path],
                |r| r.get(0),
            )
            .optional()?;
        // A record that no longer reads (written by a later version) is as none.
        Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
    }

    fn keyword(&self, words: &[String], all: bool, depth: usize) -> Result<Vec<i64>, StoreError> {
        let Some(query) = fts_query(words, all) else {
            return Ok(Vec::new());
        };
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT rowid FROM library_passages WHERE library_passages MATCH ?1
             ORDER BY bm25(library_passages) LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![query, depth as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn snippet(&self, id: i64, words: &[String]) -> Result<Option<String>, StoreError> {
        let Some(query) = fts_query(words, false) else {
            return Ok(None);
        };
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT snippet(library_passages, 0, '', '', '…', 40) FROM library_passages
             WHERE library_passages MATCH ?1 AND rowid = ?2",
        )?;
        Ok(stmt
            .query_row(params![query, id], |r| r.get(0))
            .optional()?)
    }

    fn passage(&self, id: i64) -> Result<Option<FoundPassage>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT f.path, f.title, p.text FROM library_passages p
             JOIN library_files f ON f.id = p.file_id WHERE p.rowid = ?1",
        )?;
        Ok(stmt
            .query_row([id], |r| {
                Ok(FoundPassage {
                    path: r.get(0)?,
                    title: r.get(1)?,
                    text: r.get(2)?,
                })
            })
            .optional()?)
    }

    fn pending_vectors(
        &self,
        model: &str,
        file: Option<i64>,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT p.rowid, p.text FROM library_passages p
             WHERE (?2 IS NULL OR p.file_id = ?2) AND p.rowid > ?3
               AND NOT EXISTS (SELECT 1 FROM library_vectors v WHERE v.passage = p.rowid AND v.model = ?1)
             ORDER BY p.rowid LIMIT ?4",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![model, file, after, limit], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn store_vectors(&self, model: &str, vectors: &[(i64, Vec<u8>)]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO library_vectors (passage, model, vector)
                 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM library_passages WHERE rowid = ?1)",
            )?;
            for (id, bytes) in vectors {
                insert.execute(params![id, model, bytes])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn incarnation(&self) -> Result<String, StoreError> {
        // A file goes back only by `research restore` (or the app's), which removes the saved
        // indexes beside it.
        Ok(String::new())
    }

    fn vector_tally(&self, model: &str) -> Result<crate::VectorTally, StoreError> {
        let conn = self.conn();
        let (count, id_sum): (i64, i64) = conn.query_row(
            "SELECT count(*), coalesce(sum(passage), 0) FROM library_vectors
             INDEXED BY library_vectors_by_model WHERE model = ?1",
            [model],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(crate::VectorTally {
            count: count as u64,
            id_sum,
        })
    }

    fn vector_ids(&self, model: &str) -> Result<Vec<i64>, StoreError> {
        let conn = self.conn();
        // Read from the index on model alone (it holds the rowid): no vector is read.
        let mut stmt = conn.prepare_cached(
            "SELECT passage FROM library_vectors INDEXED BY library_vectors_by_model
             WHERE model = ?1 ORDER BY passage",
        )?;
        let rows = stmt.query_map([model], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn vectors_of(&self, model: &str, ids: &[i64]) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT vector FROM library_vectors WHERE passage = ?1 AND model = ?2",
        )?;
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut found = Vec::with_capacity(sorted.len());
        for id in sorted {
            if let Some(bytes) = stmt
                .query_row(params![id, model], |r| r.get(0))
                .optional()?
            {
                found.push((id, bytes));
            }
        }
        Ok(found)
    }

    fn counts(&self, model: Option<&str>) -> Result<Counts, StoreError> {
        let conn = self.conn();
        let count = |sql: &str, p: &[&dyn ToSql]| -> rusqlite::Result<usize> {
            conn.query_row(sql, p, |r| r.get::<_, i64>(0))
                .map(|n| n as usize)
        };
        Ok(Counts {
            passages: count("SELECT count(*) FROM library_passages", &[])?,
            vectors: count("SELECT count(*) FROM library_vectors", &[])?,
            vectors_of_model: match model {
                Some(m) => count(
                    "SELECT count(*) FROM library_vectors WHERE model = ?1",
                    &[&m],
                )?,
                None => 0,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_queries_cannot_break_fts() {
        let words = crate::query_words("bees AND -wasps: \"x\"");
        assert_eq!(
            fts_query(&words, true).unwrap(),
            "\"bees\" \"AND\" \"wasps\" \"x\""
        );
        assert!(fts_query(&crate::query_words("!!!"), true).is_none());
    }
}
