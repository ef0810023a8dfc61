//! The sessions store and the thread registry on PostgreSQL.

use std::future::Future;
use std::sync::Arc;

use research_store::{
    document_sha256, ClaimRow, EvidenceRow, ReportRow, SessionRecord, SessionStatus, SessionStore,
    SourceRow, StoreError,
};
use tokio_postgres::Row;

use crate::bridge::Bridge;
use crate::db::Failure;
use crate::PgError;

mod caches;
mod conversation;
mod models;
mod schedules;
mod threads;

/// Sessions, runs and everything they produced, their conversations, schedules and the caches,
/// on a PostgreSQL server (the tables of [`research_store::SqliteSessions`]).
#[derive(Clone)]
pub struct PgSessions {
    bridge: Arc<Bridge>,
}

/// The thread registry on a PostgreSQL server.
#[derive(Clone)]
pub struct PgThreads {
    bridge: Arc<Bridge>,
}

impl PgSessions {
    /// A store at `url`; nothing is connected until the first call, which brings the schema up
    /// to date.
    pub fn connect_lazy(url: &str) -> Result<Self, PgError> {
        Ok(Self {
            bridge: Arc::new(Bridge::lazy(url)?),
        })
    }

    /// Connects now and brings the schema up to date: a wrong address or a server that is down
    /// is said when the store is opened, not in the middle of a run.
    pub fn ready(&self) -> Result<(), StoreError> {
        self.run(|_| async { Ok(()) })
    }

    /// The thread registry on the same connections.
    pub fn threads(&self) -> PgThreads {
        PgThreads {
            bridge: self.bridge.clone(),
        }
    }

    /// `machine`'s library index on the same connections.
    pub fn library(&self, machine: &str) -> crate::PgLibrary {
        crate::PgLibrary::on(self.bridge.clone(), machine)
    }

    fn run<T, F, Fut>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send,
        F: FnOnce(deadpool_postgres::Object) -> Fut + Send,
        Fut: Future<Output = Result<T, Failure>> + Send,
    {
        self.bridge.run(work)
    }
}

fn json(text: String) -> serde_json::Value {
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

fn session_row(r: &Row) -> SessionRecord {
    SessionRecord {
        id: r.get(0),
        title: r.get(1),
        question: r.get(2),
        config: json(r.get(3)),
        status: SessionStatus::from_name(r.get(4)),
        created_at_ms: r.get(5),
        updated_at_ms: r.get(6),
        checked_at_ms: r.get(7),
    }
}

const SESSION_COLUMNS: &str =
    "id, title, question, config, status, created_at_ms, updated_at_ms, checked_at_ms";

impl SessionStore for PgSessions {
    fn create(&self, s: &SessionRecord) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                "INSERT INTO sessions (id, title, question, config, status, created_at_ms, updated_at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[&s.id, &s.title, &s.question, &s.config.to_string(), &s.status.as_str(), &s.created_at_ms, &s.updated_at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn list(&self, text: Option<&str>) -> Result<Vec<SessionRecord>, StoreError> {
        let pattern = format!(
            "%{}%",
            text.unwrap_or("")
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        self.run(|c| async move {
            let rows = c
                .query(
                    &format!(
                        "SELECT {SESSION_COLUMNS} FROM sessions
                         WHERE title ILIKE $1 ESCAPE '\\' OR question ILIKE $1 ESCAPE '\\'
                         ORDER BY updated_at_ms DESC, id DESC"
                    ),
                    &[&pattern],
                )
                .await?;
            Ok(rows.iter().map(session_row).collect())
        })
    }

    fn get(&self, id: &str) -> Result<Option<SessionRecord>, StoreError> {
        self.run(|c| async move {
            let row = c
                .query_opt(
                    &format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = $1"),
                    &[&id],
                )
                .await?;
            Ok(row.as_ref().map(session_row))
        })
    }

    fn rename(&self, id: &str, title: &str, now_ms: i64) -> Result<bool, StoreError> {
        self.run(|c| async move {
            Ok(c.execute(
                "UPDATE sessions SET title = $2, updated_at_ms = $3 WHERE id = $1",
                &[&id, &title, &now_ms],
            )
            .await?
                > 0)
        })
    }

    fn set_status(&self, id: &str, status: SessionStatus, now_ms: i64) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                "UPDATE sessions SET status = $2, updated_at_ms = $3 WHERE id = $1",
                &[&id, &status.as_str(), &now_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        self.run(|mut c| async move {
            let tx = c.transaction().await?;
            let threads: Vec<String> = tx
                .query("SELECT thread_id FROM runs WHERE session_id = $1", &[&id])
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
            for table in ["writes", "checkpoints", "threads"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE thread_id = ANY($1)"),
                    &[&threads],
                )
                .await?;
            }
            let gone = tx.execute("DELETE FROM sessions WHERE id = $1", &[&id]).await? > 0;
            // As SQLite's store: texts a running run has read are kept (see the seam).
            tx.execute(
                "DELETE FROM documents d WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.sha256 = d.sha256)
                   AND NOT EXISTS (SELECT 1 FROM page_cache p WHERE p.sha256 = d.sha256)
                   AND d.created_at_ms < COALESCE(
                       (SELECT min(r.created_at_ms) FROM runs r JOIN sessions s ON s.id = r.session_id
                        WHERE s.status = 'running'),
                       9223372036854775807)",
                &[],
            )
            .await?;
            tx.commit().await?;
            Ok(gone)
        })
    }

    fn add_run(
        &self,
        session: &str,
        thread: &str,
        question: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                "INSERT INTO runs (thread_id, session_id, question, created_at_ms) VALUES ($1, $2, $3, $4)",
                &[&thread, &session, &question, &now_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn clock_ms(&self) -> Result<i64, StoreError> {
        self.run(|c| async move {
            Ok(c.query_one(
                "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                &[],
            )
            .await?
            .get(0))
        })
    }

    fn runner(&self, thread: &str) -> Result<Option<String>, StoreError> {
        self.run(|c| async move {
            Ok(
                c.query_opt("SELECT runner FROM runs WHERE thread_id = $1", &[&thread])
                    .await?
                    .and_then(|r| r.get(0)),
            )
        })
    }

    fn swap_runner(
        &self,
        thread: &str,
        expected: Option<&str>,
        me: &str,
    ) -> Result<bool, StoreError> {
        self.run(|c| async move {
            Ok(c.execute(
                "UPDATE runs SET runner = $2 WHERE thread_id = $1 AND runner IS NOT DISTINCT FROM $3",
                &[&thread, &me, &expected],
            )
            .await?
                == 1)
        })
    }

    fn release_runner(&self, thread: &str, me: &str) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                "UPDATE runs SET runner = NULL WHERE thread_id = $1 AND runner = $2",
                &[&thread, &me],
            )
            .await?;
            Ok(())
        })
    }

    fn runs(&self, session: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.run(|c| async move {
            Ok(c
                .query(
                    "SELECT thread_id, question FROM runs WHERE session_id = $1 ORDER BY created_at_ms, seq",
                    &[&session],
                )
                .await?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect())
        })
    }

    fn session_of(&self, thread: &str) -> Result<Option<String>, StoreError> {
        self.run(|c| async move {
            Ok(c.query_opt(
                "SELECT session_id FROM runs WHERE thread_id = $1",
                &[&thread],
            )
            .await?
            .map(|r| r.get(0)))
        })
    }

    fn put_document(&self, text: &str, now_ms: i64) -> Result<String, StoreError> {
        let sha = document_sha256(text);
        self.run(|c| async move {
            put_document(&**c, &sha, text, now_ms).await?;
            Ok(sha)
        })
    }

    fn document(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        self.run(|c| async move {
            Ok(
                c.query_opt("SELECT text FROM documents WHERE sha256 = $1", &[&sha256])
                    .await?
                    .map(|r| r.get(0)),
            )
        })
    }

    fn save_findings(
        &self,
        session: &str,
        thread: &str,
        sources: &[SourceRow],
        evidence: &[EvidenceRow],
        claims: &[ClaimRow],
    ) -> Result<(), StoreError> {
        self.run(|mut c| async move {
            let tx = c.transaction().await?;
            for table in ["sources", "evidence", "claims"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE thread_id = $1"),
                    &[&thread],
                )
                .await?;
            }
            for s in sources {
                tx.execute(
                    "INSERT INTO sources (thread_id, session_id, source_id, url, title, kind, sha256, accessed_at_ms, citation)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    &[&thread, &session, &i64::from(s.source_id), &s.url, &s.title, &s.kind, &s.sha256, &s.accessed_at_ms, &s.citation_json()],
                )
                .await?;
            }
            for e in evidence {
                tx.execute(
                    "INSERT INTO evidence (thread_id, session_id, evidence_id, source_id, fact, quote)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                    &[&thread, &session, &i64::from(e.evidence_id), &i64::from(e.source_id), &e.fact, &e.quote],
                )
                .await?;
            }
            for cl in claims {
                tx.execute(
                    "INSERT INTO claims (thread_id, session_id, evidence_id, text, supported)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&thread, &session, &i64::from(cl.evidence_id), &cl.text, &cl.supported],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn sources(&self, thread: &str) -> Result<Vec<SourceRow>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT source_id, url, title, kind, sha256, accessed_at_ms, citation FROM sources
                     WHERE thread_id = $1 ORDER BY source_id",
                &[&thread],
            )
            .await?
            .iter()
            .map(|r| SourceRow {
                source_id: r.get::<_, i64>(0) as u32,
                url: r.get(1),
                title: r.get(2),
                kind: r.get(3),
                sha256: r.get(4),
                accessed_at_ms: r.get(5),
                citation: SourceRow::citation_from(r.get(6)),
            })
            .collect())
        })
    }

    fn evidence(&self, thread: &str) -> Result<Vec<EvidenceRow>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT evidence_id, source_id, fact, quote FROM evidence
                     WHERE thread_id = $1 ORDER BY evidence_id",
                &[&thread],
            )
            .await?
            .iter()
            .map(|r| EvidenceRow {
                evidence_id: r.get::<_, i64>(0) as u32,
                source_id: r.get::<_, i64>(1) as u32,
                fact: r.get(2),
                quote: r.get(3),
            })
            .collect())
        })
    }

    fn claims(&self, thread: &str) -> Result<Vec<ClaimRow>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT evidence_id, text, supported FROM claims WHERE thread_id = $1 ORDER BY seq",
                &[&thread],
            )
            .await?
            .iter()
            .map(|r| ClaimRow {
                evidence_id: r.get::<_, i64>(0) as u32,
                text: r.get(1),
                supported: r.get(2),
            })
            .collect())
        })
    }

    fn add_report(
        &self,
        session: &str,
        thread: &str,
        markdown: &str,
        provenance: &serde_json::Value,
        now_ms: i64,
    ) -> Result<u32, StoreError> {
        let provenance = provenance.to_string();
        self.run(|mut c| async move {
            // Versions of one run are numbered under a lock of the run's own: two processes
            // adding one at once get the next two numbers.
            let tx = c.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 1))", &[&thread])
                .await?;
            let version: i32 = tx
                .query_one(
                    "INSERT INTO reports (thread_id, session_id, version, markdown, provenance, created_at_ms)
                     SELECT $1, $2, COALESCE(MAX(version), 0) + 1, $3, $4, $5 FROM reports WHERE thread_id = $1
                     RETURNING version",
                    &[&thread, &session, &markdown, &provenance, &now_ms],
                )
                .await?
                .get(0);
            tx.commit().await?;
            Ok(version as u32)
        })
    }

    fn reports(&self, session: &str) -> Result<Vec<ReportRow>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT thread_id, version, markdown, provenance, created_at_ms FROM reports
                     WHERE session_id = $1 ORDER BY created_at_ms, version",
                &[&session],
            )
            .await?
            .iter()
            .map(|r| ReportRow {
                thread_id: r.get(0),
                version: r.get::<_, i32>(1) as u32,
                markdown: r.get(2),
                provenance: json(r.get(3)),
                created_at_ms: r.get(4),
            })
            .collect())
        })
    }

    fn set_checked(&self, session: &str, at_ms: i64) -> Result<(), StoreError> {
        self.run(|c| async move {
            c.execute(
                "UPDATE sessions SET checked_at_ms = $2 WHERE id = $1",
                &[&session, &at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn add_event(
        &self,
        session: &str,
        thread: &str,
        at_ms: i64,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let payload = payload.to_string();
        self.run(|c| async move {
            c.execute(
                "INSERT INTO events (thread_id, session_id, at_ms, kind, payload) VALUES ($1, $2, $3, $4, $5)",
                &[&thread, &session, &at_ms, &kind, &payload],
            )
            .await?;
            Ok(())
        })
    }

    fn events(&self, thread: &str) -> Result<Vec<(i64, String, serde_json::Value)>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT at_ms, kind, payload FROM events WHERE thread_id = $1 ORDER BY seq",
                &[&thread],
            )
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1), json(r.get(2))))
            .collect())
        })
    }

    fn add_call(&self, thread: &str, call: &serde_json::Value) -> Result<(), StoreError> {
        let call = call.to_string();
        self.run(|c| async move {
            c.execute(
                "INSERT INTO llm_calls (thread_id, call) VALUES ($1, $2)",
                &[&thread, &call],
            )
            .await?;
            Ok(())
        })
    }

    fn calls(&self, thread: &str) -> Result<Vec<serde_json::Value>, StoreError> {
        self.run(|c| async move {
            Ok(c.query(
                "SELECT call FROM llm_calls WHERE thread_id = $1 ORDER BY seq",
                &[&thread],
            )
            .await?
            .iter()
            .map(|r| json(r.get(0)))
            .collect())
        })
    }
}

/// Stores a text under its hash; storing it again marks it as used now.
async fn put_document(
    c: &impl tokio_postgres::GenericClient,
    sha: &str,
    text: &str,
    now_ms: i64,
) -> Result<(), Failure> {
    c.execute(
        "INSERT INTO documents (sha256, text, created_at_ms) VALUES ($1, $2, $3)
         ON CONFLICT (sha256) DO UPDATE SET created_at_ms = GREATEST(documents.created_at_ms, EXCLUDED.created_at_ms)",
        &[&sha, &text, &now_ms],
    )
    .await?;
    Ok(())
}
