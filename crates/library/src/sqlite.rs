//! The library's index in this machine's SQLite file: passages in FTS5 (Porter stems over
//! `unicode61`, ranked by BM25), vectors in a table beside them keyed by the passage's rowid.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use research_store::StoreError;
use rusqlite::{params, Connection, OptionalExtension, ToSql, TransactionBehavior};

use crate::index::{Counts, FileReference, FoundPassage, KnownFile, LibraryIndex, ReadFile};
use crate::text::segment_cjk;
use crate::LibraryFolder;

mod schema;

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
        schema::create_vectors_table(&conn)?;
        schema::create_references_table(&conn)?;
        schema::create_tally_tables(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Moves the passage tally by `by` (in the transaction that wrote or deleted them).
fn tally_passages(conn: &Connection, by: i64) -> rusqlite::Result<()> {
    if by != 0 {
        conn.execute(
            "UPDATE library_passage_tally SET passages = passages + ?1",
            [by],
        )?;
    }
    Ok(())
}

/// The rowids of `file`'s passages, when they are known to be one range.
fn passage_range(conn: &Connection, file: i64) -> rusqlite::Result<Option<(i64, i64)>> {
    conn.query_row(
        "SELECT first, first + count - 1 FROM library_file_passages WHERE file_id = ?1",
        [file],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()
}

/// Deletes `file`'s passages and their vectors: by its range of rowids, or, when the range is
/// not known or does not hold them all (written by a build before the ranges), by a scan.
fn delete_file_passages(conn: &Connection, file: i64) -> rusqlite::Result<()> {
    let range = passage_range(conn, file)?;
    conn.execute(
        "DELETE FROM library_file_passages WHERE file_id = ?1",
        [file],
    )?;
    if let Some((first, last)) = range {
        conn.execute(
            "DELETE FROM library_vectors WHERE passage IN (SELECT rowid FROM library_passages
                 WHERE rowid BETWEEN ?1 AND ?2 AND file_id = ?3)",
            params![first, last, file],
        )?;
        let deleted = conn.execute(
            "DELETE FROM library_passages WHERE rowid BETWEEN ?1 AND ?2 AND file_id = ?3",
            params![first, last, file],
        )?;
        tally_passages(conn, -(deleted as i64))?;
        if deleted as i64 == last - first + 1 {
            return Ok(());
        }
    }
    delete_passages(conn, "file_id = ?1", file)
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
    let deleted = conn.execute(
        &format!("DELETE FROM library_passages WHERE {condition}"),
        [&param],
    )?;
    tally_passages(conn, -(deleted as i64))
}

/// The id of the file at `path`, if it was indexed. Asked before its passages are deleted: a
/// condition on the passages' `file_id` is a scan of every passage (FTS5 indexes words, not
/// columns), which a file indexed for the first time — nearly every file of a new folder —
/// need not pay.
fn known_file(conn: &Connection, path: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT id FROM library_files WHERE path = ?1",
        [path],
        |r| r.get(0),
    )
    .optional()
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
        tx.execute(
            "DELETE FROM library_file_passages WHERE file_id IN (SELECT id FROM library_files WHERE root = ?1)",
            [root],
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
            delete_file_passages(&tx, *id)?;
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
        if let Some(known) = known_file(&tx, file.path)? {
            delete_file_passages(&tx, known)?;
            tx.execute("DELETE FROM library_files WHERE id = ?1", [known])?;
        }
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
             SET next = max(next, coalesce((SELECT rowid FROM library_passages ORDER BY rowid DESC LIMIT 1), 0) + 1) + ?1
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
        tally_passages(&tx, file.passages.len() as i64)?;
        tx.execute(
            "INSERT OR REPLACE INTO library_file_passages (file_id, first, count) VALUES (?1, ?2, ?3)",
            params![id, first, file.passages.len() as i64],
        )?;
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
        if let Some(known) = known_file(&tx, path)? {
            delete_file_passages(&tx, known)?;
        }
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
        let conn = self.conn();
        let Some(query) = fts_query(words, all) else {
            return Ok(Vec::new());
        };
        let mut stmt = conn.prepare_cached(
            "SELECT rowid FROM library_passages WHERE library_passages MATCH ?1
             ORDER BY bm25(library_passages) LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![query, depth as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn passages_with(&self, words: &[String], at_most: usize) -> Result<Vec<usize>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT count(*) FROM (SELECT 1 FROM library_passages WHERE library_passages MATCH ?1 LIMIT ?2)",
        )?;
        let mut counts = Vec::with_capacity(words.len());
        for word in words {
            let n: i64 = match fts_query(std::slice::from_ref(word), true) {
                Some(query) => stmt.query_row(params![query, at_most as i64], |r| r.get(0))?,
                None => 0,
            };
            counts.push(n as usize);
        }
        Ok(counts)
    }

    fn snippets(&self, ids: &[i64], words: &[String]) -> Result<Vec<(i64, String)>, StoreError> {
        let Some(query) = fts_query(words, false) else {
            return Ok(Vec::new());
        };
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT snippet(library_passages, 0, '', '', '…', 40) FROM library_passages
             WHERE library_passages MATCH ?1 AND rowid = ?2",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(snippet) = stmt
                .query_row(params![query, id], |r| r.get::<_, String>(0))
                .optional()?
            {
                out.push((id, snippet));
            }
        }
        Ok(out)
    }

    fn passages(&self, ids: &[i64]) -> Result<Vec<(i64, FoundPassage)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT f.path, f.title, p.text, r.reference FROM library_passages p
             JOIN library_files f ON f.id = p.file_id
             LEFT JOIN library_references r ON r.path = f.path
             WHERE p.rowid = ?1",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            let found = stmt
                .query_row([id], |r| {
                    Ok(FoundPassage {
                        path: r.get(0)?,
                        title: r.get(1)?,
                        text: r.get(2)?,
                        // A record that no longer reads (a later version's) is as none.
                        reference: r
                            .get::<_, Option<String>>(3)?
                            .and_then(|j| serde_json::from_str(&j).ok()),
                    })
                })
                .optional()?;
            if let Some(found) = found {
                out.push((id, found));
            }
        }
        Ok(out)
    }

    fn pending_vectors(
        &self,
        model: &str,
        file: Option<i64>,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let conn = self.conn();
        // One file's passages by their range of rowids where it is known (not a scan of all).
        let (low, high) = match file {
            Some(file) => passage_range(&conn, file)?.unwrap_or((0, i64::MAX)),
            None => (0, i64::MAX),
        };
        let after = after.max(low - 1);
        let mut stmt = conn.prepare_cached(
            "SELECT p.rowid, p.text FROM library_passages p
             WHERE (?2 IS NULL OR p.file_id = ?2) AND p.rowid > ?3 AND p.rowid <= ?5
               AND NOT EXISTS (SELECT 1 FROM library_vectors v WHERE v.passage = p.rowid AND v.model = ?1)
             ORDER BY p.rowid LIMIT ?4",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![model, file, after, limit, high], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn store_vectors(&self, model: &str, vectors: &[(i64, Vec<u8>)]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut insert = tx.prepare_cached(
                // An upsert, not INSERT OR REPLACE: a replaced row fires no delete trigger, and
                // the tally would count it twice.
                "INSERT INTO library_vectors (passage, model, vector)
                 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM library_passages WHERE rowid = ?1)
                 ON CONFLICT (passage) DO UPDATE SET model = excluded.model, vector = excluded.vector",
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
        let (count, id_sum): (i64, i64) = self
            .conn()
            .query_row(
                "SELECT vectors, id_sum FROM library_vector_tally WHERE model = ?1",
                [model],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .unwrap_or_default();
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
        // From the tallies (create_tally_tables): constant time at any size.
        let count = |sql: &str, p: &[&dyn ToSql]| -> rusqlite::Result<usize> {
            conn.query_row(sql, p, |r| r.get::<_, Option<i64>>(0))
                .optional()
                .map(|n| n.flatten().unwrap_or(0).max(0) as usize)
        };
        Ok(Counts {
            passages: count("SELECT passages FROM library_passage_tally", &[])?,
            vectors: count("SELECT sum(vectors) FROM library_vector_tally", &[])?,
            vectors_of_model: match model {
                Some(m) => count(
                    "SELECT vectors FROM library_vector_tally WHERE model = ?1",
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

    fn put(index: &SqliteIndex, path: &str, passages: &[&str]) -> i64 {
        let passages: Vec<String> = passages.iter().map(|p| p.to_string()).collect();
        index
            .put_file(&ReadFile {
                root: "/lib",
                path,
                mtime_ns: 1,
                size: 1,
                sha256: "x",
                kind: "text",
                title: None,
                passages: &passages,
                at_ms: 1,
            })
            .unwrap()
    }

    fn passages_of(index: &SqliteIndex) -> Vec<(i64, i64)> {
        let conn = index.conn();
        let mut stmt = conn
            .prepare("SELECT rowid, file_id FROM library_passages ORDER BY rowid")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    }

    /// A file's passages are found by their range of rowids; a database from before the
    /// ranges gets them at its first opening, and a range that does not hold the file's
    /// passages (a build before the ranges wrote them since) never leaves one behind.
    #[test]
    fn a_files_passages_are_found_by_their_range_and_never_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.sqlite3");
        let index = SqliteIndex::open(&db).unwrap();
        index.add_root("/lib", 1).unwrap();
        let ants = put(
            &index,
            "/lib/ants.md",
            &["ants one", "ants two", "ants three"],
        );
        let moss = put(&index, "/lib/moss.md", &["moss one", "moss two"]);
        let range = |index: &SqliteIndex, file| passage_range(&index.conn(), file).unwrap();
        assert_eq!(range(&index, ants), Some((1, 3)));
        assert_eq!(range(&index, moss), Some((4, 5)));
        let pending = |index: &SqliteIndex, file| -> Vec<i64> {
            index
                .pending_vectors("m", Some(file), 0, usize::MAX)
                .unwrap()
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        };
        assert_eq!(pending(&index, moss), vec![4, 5]);
        assert_eq!(pending(&index, ants), vec![1, 2, 3]);

        // A database written before the ranges: they are made from its passages.
        index
            .conn()
            .execute_batch("DROP TABLE library_file_passages")
            .unwrap();
        drop(index);
        let index = SqliteIndex::open(&db).unwrap();
        assert_eq!(range(&index, ants), Some((1, 3)));
        assert_eq!(range(&index, moss), Some((4, 5)));

        // A range that no longer holds the file's passages: the file indexed again leaves
        // none of its old passages behind.
        index
            .conn()
            .execute(
                "UPDATE library_file_passages SET first = 4 WHERE file_id = ?1",
                [ants],
            )
            .unwrap();
        let ants = put(&index, "/lib/ants.md", &["ants again"]);
        let moss_id = known_file(&index.conn(), "/lib/moss.md").unwrap().unwrap();
        assert_eq!(
            passages_of(&index),
            vec![(4, moss_id), (5, moss_id), (6, ants)]
        );
        assert_eq!(pending(&index, ants), vec![6]);
        // Dropped, and the folder removed: nothing left.
        index.drop_files(&[ants]).unwrap();
        assert_eq!(passages_of(&index), vec![(4, moss_id), (5, moss_id)]);
        index.remove_root("/lib").unwrap();
        assert!(passages_of(&index).is_empty());
        let left: i64 = index
            .conn()
            .query_row("SELECT count(*) FROM library_file_passages", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(left, 0);
    }

    /// What the tallies say against counting every row.
    fn tallied_and_counted(index: &SqliteIndex) -> ((usize, usize, usize), (usize, usize, usize)) {
        let counts = index.counts(Some("m")).unwrap();
        let conn = index.conn();
        let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as usize;
        (
            (counts.passages, counts.vectors, counts.vectors_of_model),
            (
                count("SELECT count(*) FROM library_passages"),
                count("SELECT count(*) FROM library_vectors"),
                count("SELECT count(*) FROM library_vectors WHERE model = 'm'"),
            ),
        )
    }

    /// The counts come from tallies kept as rows change (constant time at a million passages),
    /// made by counting at the first opening of a database from before them, and never apart
    /// from counting: passages put, replaced, dropped and removed with their folder, vectors
    /// stored, stored again under another model, and deleted with their passages.
    #[test]
    fn the_tallies_are_made_once_and_kept_as_rows_change() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.sqlite3");
        let index = SqliteIndex::open(&db).unwrap();
        index.add_root("/lib", 1).unwrap();
        put(
            &index,
            "/lib/ants.md",
            &["ants one", "ants two", "ants three"],
        );
        let moss = put(&index, "/lib/moss.md", &["moss one", "moss two"]);
        let vector = |id: i64| (id, vec![id as u8; 8]);
        index
            .store_vectors("m", &[vector(1), vector(2), vector(4)])
            .unwrap();
        let (tallied, counted) = tallied_and_counted(&index);
        assert_eq!((tallied, counted), ((5, 3, 3), (5, 3, 3)));

        // A database from before the tallies: they are made by counting.
        index
            .conn()
            .execute_batch(
                "DROP TABLE library_passage_tally; DROP TABLE library_vector_tally;
                 DROP TRIGGER library_vector_came; DROP TRIGGER library_vector_went;
                 DROP TRIGGER library_vector_moved;",
            )
            .unwrap();
        drop(index);
        let index = SqliteIndex::open(&db).unwrap();
        assert_eq!(tallied_and_counted(&index).0, (5, 3, 3));
        let sum = |index: &SqliteIndex, model| index.vector_tally(model).unwrap();
        assert_eq!(sum(&index, "m"), crate::VectorTally::of(&[1, 2, 4]));

        // Stored again (the same passage), under another model, replaced, dropped.
        index.store_vectors("m", &[vector(4), vector(5)]).unwrap();
        index.store_vectors("other", &[vector(1)]).unwrap();
        let (tallied, counted) = tallied_and_counted(&index);
        assert_eq!((tallied, counted), ((5, 4, 3), (5, 4, 3)));
        assert_eq!(sum(&index, "m"), crate::VectorTally::of(&[2, 4, 5]));
        assert_eq!(sum(&index, "other"), crate::VectorTally::of(&[1]));
        put(&index, "/lib/ants.md", &["ants again"]);
        let (tallied, counted) = tallied_and_counted(&index);
        assert_eq!((tallied, counted), ((3, 2, 2), (3, 2, 2)));
        assert_eq!(sum(&index, "other"), crate::VectorTally::default());
        index.drop_files(&[moss]).unwrap();
        assert_eq!(tallied_and_counted(&index), ((1, 0, 0), (1, 0, 0)));
        index.remove_root("/lib").unwrap();
        assert_eq!(tallied_and_counted(&index), ((0, 0, 0), (0, 0, 0)));
    }
}
