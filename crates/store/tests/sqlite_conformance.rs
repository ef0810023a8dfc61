//! The engine's checkpointer conformance suite against the SQLite store, each check in a fresh file.
use std::sync::Arc;

use research_store::SqliteCheckpointer;

fn fresh() -> Arc<SqliteCheckpointer> {
    let dir = tempfile::tempdir().unwrap().keep();
    Arc::new(SqliteCheckpointer::open(&dir.join("checkpoints.sqlite3")).unwrap())
}

research_graph::checkpointer_conformance!(fresh());

#[tokio::test]
async fn a_thread_survives_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite3");
    research_graph::conformance::another_store_resumes(
        Arc::new(SqliteCheckpointer::open(&path).unwrap()),
        Arc::new(SqliteCheckpointer::open(&path).unwrap()),
    )
    .await;
}

#[test]
fn an_unwritable_path_is_a_clear_error() {
    let err = SqliteCheckpointer::open(std::path::Path::new("/proc/forbidden/db.sqlite3"))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("could not open the database at /proc/forbidden"),
        "{err}"
    );
}

/// A job that fails half-way (here a trigger refuses its second row) leaves none of its rows:
/// the group commit it shares keeps only whole jobs.
#[tokio::test]
async fn a_failed_job_leaves_none_of_its_rows() {
    use research_graph::{Checkpointer, ThreadId, WriteKind, WriteRecord};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkpoints.sqlite3");
    let cp = SqliteCheckpointer::open(&path).unwrap();
    let side = rusqlite::Connection::open(&path).unwrap();
    side.execute_batch(
        "CREATE TRIGGER refuse_99 BEFORE INSERT ON writes WHEN NEW.idx = 99
         BEGIN SELECT RAISE(ABORT, 'refused'); END;",
    )
    .unwrap();
    let w = |idx| WriteRecord {
        thread_id: ThreadId::from("t"),
        checkpoint: 0,
        task: 0,
        kind: WriteKind::Update,
        idx,
        value: b"{}".to_vec(),
    };
    assert!(cp.put_writes(vec![w(0), w(99)]).await.is_err());
    let rows: i64 = side
        .query_row("SELECT count(*) FROM writes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0, "the failed job's first row was committed");
    cp.put_writes(vec![w(1)]).await.unwrap();
    let rows: i64 = side
        .query_row("SELECT count(*) FROM writes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}
