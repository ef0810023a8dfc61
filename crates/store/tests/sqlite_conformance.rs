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

/// Where the killed child of [`an_unflushed_save_survives_the_process_being_killed`] writes.
const CHILD_DB: &str = "RS_TEST_UNFLUSHED_CHILD_DB";

/// Run as a child process by the test below: saves without a flush, then dies at once (no
/// destructor, no writer thread finishing its queue).
#[tokio::test]
async fn unflushed_child() {
    use research_graph::{CheckpointRecord, Checkpointer, ThreadId};
    let Some(path) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let cp = SqliteCheckpointer::open(std::path::Path::new(&path)).unwrap();
    let record = CheckpointRecord {
        thread_id: ThreadId::from("input"),
        seq: 0,
        created_at_ms: 1,
        body: b"{}".to_vec(),
        snapshot: Some(b"{}".to_vec()),
    };
    cp.put_checkpoint_unflushed(record, vec![]).await.unwrap();
    std::process::abort();
}

/// A save that skipped its flush is in the file as soon as it returns: a process killed right
/// after it loses nothing (only a power loss before the next flush could).
#[test]
fn an_unflushed_save_survives_the_process_being_killed() {
    use research_graph::Checkpointer;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("checkpoints.sqlite3");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "unflushed_child", "--test-threads", "1"])
        .env(CHILD_DB, &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the child was meant to die");
    let cp = SqliteCheckpointer::open(&path).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let chain = rt.block_on(cp.load(&"input".into(), None)).unwrap();
    assert_eq!(chain.expect("the input was kept").checkpoints.len(), 1);
}
