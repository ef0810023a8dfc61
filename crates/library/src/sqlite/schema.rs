//! The library's tables in SQLite beside the passages (which the store's migrations make):
//! vectors, each file's range of passage ids, the tallies, what reference managers say. Each
//! is made when a database has none, filled from the rows already there the first time.

use rusqlite::Connection;

/// Creates the table of what reference managers say of files when the database has none.
pub(super) fn create_references_table(conn: &Connection) -> rusqlite::Result<()> {
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
pub(super) fn create_vectors_table(conn: &Connection) -> rusqlite::Result<()> {
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
             SELECT 1, coalesce((SELECT rowid FROM library_passages ORDER BY rowid DESC LIMIT 1), 0) + 1;",
    )?;
    create_file_passages_table(conn)
}

fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get(0),
    )
}

/// Creates the table of each file's passage ids when the database has none, filled from the
/// passages (one pass, the first time). A file's passages take consecutive ids
/// (`library_passage_ids`), so a file's passages are found by a range of rowids — FTS5 finds
/// those at once, while a condition on `file_id` reads every passage there is.
fn create_file_passages_table(conn: &Connection) -> rusqlite::Result<()> {
    if table_exists(conn, "library_file_passages")? {
        return Ok(());
    }
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS library_file_passages (
             file_id INTEGER PRIMARY KEY, -- library_files' id
             first   INTEGER NOT NULL,    -- its first passage's rowid
             count   INTEGER NOT NULL     -- its passages, rowids first .. first + count - 1
         );
         INSERT OR IGNORE INTO library_file_passages (file_id, first, count)
             SELECT file_id, min(rowid), count(*) FROM library_passages GROUP BY file_id
             HAVING max(rowid) - min(rowid) + 1 = count(*);
         COMMIT;",
    )
}

/// Creates the tallies of passages and of each model's vectors when the database has none,
/// filled by counting (one pass, the first time). Counting at every look took 136 ms at a
/// million passages — the Library view's three counts, and a search's tally of the model's
/// vectors every few seconds. Vectors are tallied by triggers; passages live in FTS5, which
/// takes no trigger, so the code that writes them moves their tally in the same transaction
/// ([`super::tally_passages`]).
pub(super) fn create_tally_tables(conn: &Connection) -> rusqlite::Result<()> {
    if table_exists(conn, "library_passage_tally")? {
        return Ok(());
    }
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         CREATE TABLE IF NOT EXISTS library_passage_tally (
             one      INTEGER PRIMARY KEY CHECK (one = 1),
             passages INTEGER NOT NULL
         );
         INSERT OR IGNORE INTO library_passage_tally (one, passages)
             SELECT 1, count(*) FROM library_passages_docsize;
         CREATE TABLE IF NOT EXISTS library_vector_tally (
             model   TEXT    PRIMARY KEY,
             vectors INTEGER NOT NULL,
             id_sum  INTEGER NOT NULL -- the sum of their passages' ids (VectorTally)
         );
         INSERT OR IGNORE INTO library_vector_tally (model, vectors, id_sum)
             SELECT model, count(*), sum(passage) FROM library_vectors GROUP BY model;
         CREATE TRIGGER IF NOT EXISTS library_vector_came AFTER INSERT ON library_vectors BEGIN
             INSERT INTO library_vector_tally (model, vectors, id_sum) VALUES (new.model, 1, new.passage)
                 ON CONFLICT (model) DO UPDATE SET vectors = vectors + 1, id_sum = id_sum + new.passage;
         END;
         CREATE TRIGGER IF NOT EXISTS library_vector_went AFTER DELETE ON library_vectors BEGIN
             UPDATE library_vector_tally SET vectors = vectors - 1, id_sum = id_sum - old.passage
                 WHERE model = old.model;
         END;
         CREATE TRIGGER IF NOT EXISTS library_vector_moved AFTER UPDATE OF passage, model ON library_vectors BEGIN
             UPDATE library_vector_tally SET vectors = vectors - 1, id_sum = id_sum - old.passage
                 WHERE model = old.model;
             INSERT INTO library_vector_tally (model, vectors, id_sum) VALUES (new.model, 1, new.passage)
                 ON CONFLICT (model) DO UPDATE SET vectors = vectors + 1, id_sum = id_sum + new.passage;
         END;
         COMMIT;",
    )
}
