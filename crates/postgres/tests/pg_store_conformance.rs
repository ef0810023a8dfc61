//! The sessions and threads stores' conformance suite against a real PostgreSQL server the test
//! starts itself, each check on a fresh server; every store a check opens is a connection pool
//! of its own, as another process's would be.
use std::sync::Arc;

use research_postgres::testing::TempPostgres;
use research_postgres::PgSessions;
use research_store::conformance::Database;
use research_store::{SessionStore, ThreadStore};

struct Pg {
    url: String,
    _server: TempPostgres,
}

impl Database for Pg {
    fn sessions(&self) -> Arc<dyn SessionStore> {
        Arc::new(PgSessions::connect_lazy(&self.url).unwrap())
    }
    fn threads(&self) -> Arc<dyn ThreadStore> {
        Arc::new(PgSessions::connect_lazy(&self.url).unwrap().threads())
    }
}

fn fresh() -> Pg {
    let server = TempPostgres::start().expect("a PostgreSQL server for the test");
    let url = server.database("research").unwrap();
    Pg {
        url,
        _server: server,
    }
}

research_store::store_conformance!(fresh());

/// A store used from inside an async task (as the API uses it) waits on its own runtime.
#[tokio::test]
async fn a_store_called_from_a_runtime_works_and_drops_cleanly() {
    let db = fresh();
    let s = db.sessions();
    s.create(&research_store::conformance::session("a", "A", 1))
        .unwrap();
    assert_eq!(s.list(None).unwrap().len(), 1);
    drop(s);
}

/// Leases are compared on the server's clock, which is a time near this machine's and moves on.
#[test]
fn the_servers_clock_is_read() {
    let db = fresh();
    let s = db.sessions();
    let local = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let first = s.clock_ms().unwrap();
    assert!((first - local).abs() < 60_000, "{first} vs {local}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(s.clock_ms().unwrap() > first);
    // It is the server's: without the server there is no time to read.
    db._server.kill().unwrap();
    assert!(
        s.clock_ms().is_err(),
        "a local clock stood in for the server's"
    );
}

/// A server that stops is a clear error naming PostgreSQL; nothing acknowledged is lost, and
/// the same store works again once the server is back.
#[test]
fn a_lost_server_is_a_clear_error() {
    let db = fresh();
    let s = db.sessions();
    s.create(&research_store::conformance::session("a", "A", 1))
        .unwrap();
    db._server.kill().unwrap();
    let err = s.get("a").unwrap_err().to_string();
    assert!(
        err.contains("connection to PostgreSQL was lost") || err.contains("could not be reached"),
        "{err}"
    );
    db._server.restart().unwrap();
    // The pool drops the broken connection and takes a fresh one.
    let back = (0..3).find_map(|_| s.get("a").ok());
    assert_eq!(
        back.flatten().map(|r| r.title),
        Some("A".to_string()),
        "nothing acknowledged was lost"
    );
    s.rename("a", "B", 2).unwrap();
}

/// Over TCP a connection is encrypted, and the server's certificate is checked: taken when the
/// authority that signed it is named in `PGSSLROOTCERT`, refused when no known authority did.
#[test]
fn a_server_over_tcp_is_reached_with_tls_and_its_certificate_checked() {
    let server = TempPostgres::start_tls().expect("a PostgreSQL server with TLS");
    server.database("team").unwrap();
    let url = server.tls_url("team");
    let unknown = PgSessions::connect_lazy(&url)
        .unwrap()
        .ready()
        .unwrap_err()
        .to_string();
    assert!(unknown.to_lowercase().contains("certificate"), "{unknown}");
    std::env::set_var("PGSSLROOTCERT", server.certificate_authority());
    let s = PgSessions::connect_lazy(&url).unwrap();
    s.create(&research_store::conformance::session("a", "A", 1))
        .unwrap();
    assert_eq!(s.list(None).unwrap().len(), 1);
}

/// A database an earlier build set up kept its tables in `public`: they move into the schema of
/// their own with their rows, and nothing is created empty beside them.
#[tokio::test]
async fn tables_an_earlier_build_kept_in_public_move_with_their_rows() {
    let db = fresh();
    let s = db.sessions();
    s.create(&research_store::conformance::session("kept", "Kept", 1))
        .unwrap();
    drop(s);
    // As the earlier build left it: every table in `public`.
    let (client, connection) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let tables: Vec<String> = client
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'research'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(tables.contains(&"sessions".to_string()), "{tables:?}");
    for t in &tables {
        client
            .batch_execute(&format!("ALTER TABLE research.{t} SET SCHEMA public"))
            .await
            .unwrap();
    }
    // The functions of the library's tallies too (that build had none; they move as it
    // would have kept them).
    let functions: Vec<String> = client
        .query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'research'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for f in &functions {
        client
            .batch_execute(&format!("ALTER FUNCTION {f} SET SCHEMA public"))
            .await
            .unwrap();
    }
    client.batch_execute("DROP SCHEMA research").await.unwrap();
    let again = db.sessions();
    assert_eq!(
        again.get("kept").unwrap().map(|r| r.title),
        Some("Kept".into())
    );
    let left: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'sessions'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the old table stayed behind");
}

/// A row in every table of the `research` schema (text `x`, numbers 1, bytes one zero, JSON
/// `{}`; generated columns left to the server), foreign keys not enforced while it is put in,
/// so every reference finds its row; the tables filled.
async fn fill_every_table(client: &tokio_postgres::Client) -> Vec<String> {
    let tables: Vec<String> = client
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'research' \
             AND tablename <> 'research_schema' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    client
        .batch_execute("SET session_replication_role = replica")
        .await
        .unwrap();
    for table in &tables {
        let columns = client
            .query(
                "SELECT column_name::text, data_type::text FROM information_schema.columns \
                 WHERE table_schema = 'research' AND table_name = $1 AND is_generated = 'NEVER' \
                 ORDER BY ordinal_position",
                &[table],
            )
            .await
            .unwrap();
        let names: Vec<String> = columns
            .iter()
            .map(|c| format!("\"{}\"", c.get::<_, String>(0)))
            .collect();
        let values: Vec<&str> = columns
            .iter()
            .map(|c| match c.get::<_, String>(1).as_str() {
                "smallint" | "integer" | "bigint" | "real" | "double precision" | "numeric" => "1",
                "bytea" => "'\\x00'::bytea",
                "boolean" => "true",
                "json" | "jsonb" => "'{}'",
                "tsvector" => "''::tsvector",
                "ARRAY" => "'{}'",
                _ => "'x'",
            })
            .collect();
        client
            .batch_execute(&format!(
                "INSERT INTO research.\"{table}\" ({}) OVERRIDING SYSTEM VALUE VALUES ({})",
                names.join(", "),
                values.join(", ")
            ))
            .await
            .unwrap_or_else(|e| panic!("{table}: {e:?}"));
    }
    client
        .batch_execute("SET session_replication_role = DEFAULT")
        .await
        .unwrap();
    tables
}

/// Issue 56: a team's database set up by each earlier build (its first N migrations), every
/// table holding a row, is brought up to date by the first machine that connects: every row
/// is still there and the session reads.
#[tokio::test]
async fn a_database_at_every_earlier_schema_upgrades_without_losing_a_row() {
    let server = TempPostgres::start().expect("a PostgreSQL server for the test");
    let latest = research_postgres::testing::migrations();
    for applied in 1..latest {
        let url = server.database(&format!("v{applied}")).unwrap();
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute(&research_postgres::testing::earlier_schema(applied))
            .await
            .unwrap_or_else(|e| panic!("schema {applied}: {e}"));
        let filled = fill_every_table(&client).await;
        let store = PgSessions::connect_lazy(&url).unwrap();
        let listed = store.list(None).unwrap();
        if filled.iter().any(|t| t == "sessions") {
            assert_eq!(listed.len(), 1, "schema {applied}: the session reads");
            assert_eq!(store.runs("x").unwrap().len(), 1, "schema {applied}");
        }
        let versions: i64 = client
            .query_one("SELECT count(*) FROM research.research_schema", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(
            versions as usize, latest,
            "schema {applied}: brought up to date"
        );
        for table in &filled {
            let rows: i64 = client
                .query_one(&format!("SELECT count(*) FROM research.\"{table}\""), &[])
                .await
                .unwrap()
                .get(0);
            assert_eq!(rows, 1, "schema {applied}: {table} lost its row");
        }
    }
}
