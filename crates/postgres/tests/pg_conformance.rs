//! The engine's checkpointer conformance suite against a real PostgreSQL server the test starts
//! itself (initdb and pg_ctl in a temporary folder), each check on a fresh database; then what a
//! shared server adds: a second process's store reads what the first wrote, and a server that
//! stops mid-run is an error the run can resume from, not lost data.

use std::sync::Arc;

use async_trait::async_trait;
use research_graph::{
    CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer, ThreadId, WriteRecord,
};
use research_postgres::testing::TempPostgres;
use research_postgres::PgCheckpointer;

/// A store on a server of its own, which lives as long as the store.
struct OnItsOwnServer {
    store: PgCheckpointer,
    _server: TempPostgres,
}

#[async_trait]
impl Checkpointer for OnItsOwnServer {
    async fn put_checkpoint(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.store.put_checkpoint(checkpoint, writes).await
    }
    async fn put_writes(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.store.put_writes(writes).await
    }
    async fn put_checkpoint_unflushed(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.store
            .put_checkpoint_unflushed(checkpoint, writes)
            .await
    }
    async fn put_writes_unflushed(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.store.put_writes_unflushed(writes).await
    }
    async fn flush(&self) -> Result<(), CheckpointError> {
        self.store.flush().await
    }
    async fn load(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError> {
        self.store.load(thread, seq).await
    }
    async fn list(&self, thread: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError> {
        self.store.list(thread).await
    }
    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError> {
        self.store.threads().await
    }
    async fn delete_thread(&self, thread: &ThreadId) -> Result<(), CheckpointError> {
        self.store.delete_thread(thread).await
    }
}

fn fresh() -> Arc<OnItsOwnServer> {
    let server = TempPostgres::start().expect("a PostgreSQL server for the test");
    let url = server.database("research").unwrap();
    Arc::new(OnItsOwnServer {
        store: PgCheckpointer::connect_lazy(&url).unwrap(),
        _server: server,
    })
}

research_graph::checkpointer_conformance!(fresh());

#[tokio::test]
async fn a_second_process_reads_and_resumes_what_the_first_wrote() {
    // The laptop's store and the other machine's, on one server.
    let server = TempPostgres::start().unwrap();
    let url = server.database("team").unwrap();
    research_graph::conformance::another_store_resumes(
        Arc::new(PgCheckpointer::connect_lazy(&url).unwrap()),
        Arc::new(PgCheckpointer::connect_lazy(&url).unwrap()),
    )
    .await;
}

#[tokio::test]
async fn a_server_that_stops_is_a_clear_error_and_nothing_written_is_lost() {
    use research_graph::WriteKind;
    let server = TempPostgres::start().unwrap();
    let url = server.database("research").unwrap();
    let store = PgCheckpointer::connect_lazy(&url).unwrap();
    let record = |seq| CheckpointRecord {
        thread_id: ThreadId::from("t"),
        seq,
        created_at_ms: 1,
        body: b"{}".to_vec(),
        snapshot: Some(b"{}".to_vec()),
    };
    store.put_checkpoint(record(0), Vec::new()).await.unwrap();
    server.kill().unwrap();
    let err = store
        .put_writes(vec![WriteRecord {
            thread_id: ThreadId::from("t"),
            checkpoint: 0,
            task: 0,
            kind: WriteKind::Update,
            idx: 0,
            value: b"{}".to_vec(),
        }])
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("PostgreSQL"),
        "the error names the server: {err}"
    );
    // A second writer of the same checkpoint is told another process runs the thread.
    let other = TempPostgres::start().unwrap();
    let url = other.database("research").unwrap();
    let a = PgCheckpointer::connect_lazy(&url).unwrap();
    let b = PgCheckpointer::connect_lazy(&url).unwrap();
    a.put_checkpoint(record(0), Vec::new()).await.unwrap();
    assert!(matches!(
        b.put_checkpoint(record(0), Vec::new()).await,
        Err(CheckpointError::Conflict { .. })
    ));
    assert_eq!(b.list(&ThreadId::from("t")).await.unwrap().len(), 1);
}

#[test]
fn a_malformed_address_is_a_clear_error() {
    let err = PgCheckpointer::connect_lazy("postgres://[::1")
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("not a PostgreSQL connection string"),
        "{err}"
    );
}
