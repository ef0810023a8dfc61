//! The connection to the server every store here shares: a small pool, the schema (one list of
//! migrations for every table, applied once under a lock), and what a failure was.

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio::sync::OnceCell;
use tokio_postgres::error::SqlState;

use crate::PgError;

/// The schema, by version: each entry applied once, in order, in one transaction. The tables
/// and columns are SQLite's (`research-store`), in PostgreSQL's types.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE checkpoints (
    thread_id     TEXT   NOT NULL,
    seq           BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    body          BYTEA  NOT NULL,
    snapshot      BYTEA,
    PRIMARY KEY (thread_id, seq)
);
CREATE TABLE writes (
    thread_id  TEXT     NOT NULL,
    checkpoint BIGINT   NOT NULL,
    task       BIGINT   NOT NULL,
    kind       SMALLINT NOT NULL,
    idx        INTEGER  NOT NULL,
    value      BYTEA    NOT NULL,
    PRIMARY KEY (thread_id, checkpoint, task, kind, idx)
);
",
    // The thread registry, sessions and what they produced, conversations, schedules, caches.
    "
CREATE TABLE threads (
    thread_id     TEXT   PRIMARY KEY,
    graph         TEXT   NOT NULL,
    config        TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE TABLE documents (
    sha256        TEXT   PRIMARY KEY,
    text          TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE TABLE sessions (
    id            TEXT    PRIMARY KEY,
    title         TEXT    NOT NULL,
    question      TEXT    NOT NULL,
    config        TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    created_at_ms BIGINT  NOT NULL,
    updated_at_ms BIGINT  NOT NULL,
    checked_at_ms BIGINT,
    summary       TEXT    NOT NULL DEFAULT '',
    summary_turns INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE runs (
    thread_id     TEXT   PRIMARY KEY,
    session_id    TEXT   NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question      TEXT   NOT NULL,
    created_at_ms BIGINT NOT NULL,
    runner        TEXT,
    seq           BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX runs_session ON runs(session_id);
CREATE TABLE sources (
    thread_id      TEXT   NOT NULL,
    session_id     TEXT   NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    source_id      BIGINT NOT NULL,
    url            TEXT   NOT NULL,
    title          TEXT   NOT NULL,
    kind           TEXT   NOT NULL,
    sha256         TEXT   NOT NULL,
    accessed_at_ms BIGINT NOT NULL,
    PRIMARY KEY (thread_id, source_id)
);
CREATE INDEX sources_session ON sources(session_id);
CREATE INDEX sources_sha256 ON sources(sha256);
CREATE TABLE evidence (
    thread_id   TEXT   NOT NULL,
    session_id  TEXT   NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    evidence_id BIGINT NOT NULL,
    source_id   BIGINT NOT NULL,
    fact        TEXT   NOT NULL,
    quote       TEXT   NOT NULL,
    PRIMARY KEY (thread_id, evidence_id)
);
CREATE INDEX evidence_session ON evidence(session_id);
CREATE TABLE claims (
    seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id   TEXT    NOT NULL,
    session_id  TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    evidence_id BIGINT  NOT NULL,
    text        TEXT    NOT NULL,
    supported   BOOLEAN NOT NULL
);
CREATE INDEX claims_thread ON claims(thread_id);
CREATE INDEX claims_session ON claims(session_id);
CREATE TABLE reports (
    thread_id     TEXT    NOT NULL,
    session_id    TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL,
    markdown      TEXT    NOT NULL,
    provenance    TEXT    NOT NULL,
    created_at_ms BIGINT  NOT NULL,
    PRIMARY KEY (thread_id, version)
);
CREATE INDEX reports_session ON reports(session_id);
CREATE TABLE events (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id  TEXT   NOT NULL,
    session_id TEXT   NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at_ms      BIGINT NOT NULL,
    kind       TEXT   NOT NULL,
    payload    TEXT   NOT NULL
);
CREATE INDEX events_thread ON events(thread_id);
CREATE TABLE llm_calls (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id TEXT   NOT NULL REFERENCES runs(thread_id) ON DELETE CASCADE,
    call      TEXT   NOT NULL
);
CREATE INDEX llm_calls_thread ON llm_calls(thread_id);
CREATE TABLE turns (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id     TEXT   NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    thread_id      TEXT,
    question       TEXT   NOT NULL,
    classification TEXT   NOT NULL,
    focus          TEXT   NOT NULL,
    reply          TEXT   NOT NULL,
    created_at_ms  BIGINT NOT NULL
);
CREATE INDEX turns_session ON turns(session_id);
CREATE TABLE schedules (
    session_id     TEXT    PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    every_ms       BIGINT  NOT NULL,
    research_again BOOLEAN NOT NULL,
    paused         BOOLEAN NOT NULL DEFAULT FALSE,
    next_due_ms    BIGINT  NOT NULL,
    last_run_ms    BIGINT,
    last_outcome   TEXT,
    lease_owner    TEXT,
    lease_until_ms BIGINT,
    created_at_ms  BIGINT  NOT NULL
);
CREATE INDEX schedules_due ON schedules(next_due_ms);
CREATE TABLE search_cache (
    provider      TEXT    NOT NULL,
    query         TEXT    NOT NULL,
    max_results   INTEGER NOT NULL,
    hits          TEXT    NOT NULL,
    fetched_at_ms BIGINT  NOT NULL,
    PRIMARY KEY (provider, query, max_results)
);
CREATE TABLE page_cache (
    url           TEXT   PRIMARY KEY,
    meta          TEXT   NOT NULL,
    sha256        TEXT   NOT NULL REFERENCES documents(sha256),
    fetched_at_ms BIGINT NOT NULL
);
",
    // The library: each machine's folders apart (a path is a path on its machine), passages
    // with the words of the text search configuration of their language, vectors beside them.
    "
CREATE TABLE library_roots (
    machine     TEXT   NOT NULL,
    path        TEXT   NOT NULL,
    added_at_ms BIGINT NOT NULL,
    PRIMARY KEY (machine, path)
);
CREATE TABLE library_files (
    id            BIGSERIAL PRIMARY KEY,
    machine       TEXT   NOT NULL,
    root          TEXT   NOT NULL,
    path          TEXT   NOT NULL,
    mtime_ns      BIGINT NOT NULL,
    size          BIGINT NOT NULL,
    sha256        TEXT   NOT NULL,
    kind          TEXT   NOT NULL,
    title         TEXT,
    error         TEXT,
    indexed_at_ms BIGINT NOT NULL,
    UNIQUE (machine, path),
    FOREIGN KEY (machine, root) REFERENCES library_roots (machine, path) ON DELETE CASCADE
);
CREATE INDEX library_files_root ON library_files (machine, root);
CREATE TABLE library_passages (
    id      BIGSERIAL PRIMARY KEY,
    file_id BIGINT  NOT NULL REFERENCES library_files (id) ON DELETE CASCADE,
    machine TEXT    NOT NULL,
    ord     INTEGER NOT NULL,
    config  TEXT    NOT NULL,
    text    TEXT    NOT NULL,
    words   TSVECTOR NOT NULL
);
CREATE INDEX library_passages_file ON library_passages (file_id);
CREATE INDEX library_passages_machine ON library_passages (machine);
CREATE INDEX library_passages_words ON library_passages USING GIN (words);
CREATE TABLE library_vectors (
    passage BIGINT PRIMARY KEY REFERENCES library_passages (id) ON DELETE CASCADE,
    model   TEXT   NOT NULL,
    vector  BYTEA  NOT NULL
);
",
    // What each model did in the person's runs (its measurements), counts only.
    "
CREATE TABLE model_runs (
    thread_id         TEXT   NOT NULL,
    model             TEXT   NOT NULL,
    at_ms             BIGINT NOT NULL,
    facts             BIGINT NOT NULL,
    own_words         BIGINT NOT NULL,
    drafts            BIGINT NOT NULL,
    refused           BIGINT NOT NULL,
    verdicts_asked    BIGINT NOT NULL,
    verdicts_given    BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL,
    call_ms           BIGINT NOT NULL,
    PRIMARY KEY (thread_id, model)
);
",
    // A model's vectors listed without reading them (the approximate index on each machine
    // learns from this list which passages came and went).
    "
CREATE INDEX library_vectors_model ON library_vectors (model, passage);
",
    // Who wrote each source and where it appeared (a citation style's authors and year), as
    // JSON: a record that grows a field needs no migration.
    "ALTER TABLE sources ADD COLUMN citation TEXT;",
    // What a reference manager says of a library file (its authors, year, DOI), by path on
    // its machine, kept apart from what was read of the file.
    "
CREATE TABLE library_references (
    machine       TEXT   NOT NULL,
    path          TEXT   NOT NULL,
    reference     TEXT   NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    PRIMARY KEY (machine, path)
);
",
    // Ten times the commonest stems ANALYZE keeps of the passages' words (10,000): a search
    // reads how common a question's word is from them instead of counting its passages
    // (library.rs, `STATISTICS`); ANALYZE took 5 s instead of 0.8 at 660,000 passages.
    "ALTER TABLE library_passages ALTER COLUMN words SET STATISTICS 1000;",
    // Each machine's passages (by configuration) and vectors (by model, with the sum of their
    // ids: `VectorTally`) kept as rows come and go, by statement triggers: the Library view and
    // each machine's copy of the vectors counted a million rows joined with their passages
    // (0.5–2 s). A vector carries its passage's machine so that a vector deleted with its passage
    // is tallied to it (the passage is gone by then).
    "
ALTER TABLE library_vectors ADD COLUMN machine TEXT;
UPDATE library_vectors v SET machine = p.machine FROM library_passages p WHERE p.id = v.passage;
ALTER TABLE library_vectors ALTER COLUMN machine SET NOT NULL;
DROP INDEX library_vectors_model;
CREATE INDEX library_vectors_model ON library_vectors (machine, model, passage);
CREATE TABLE library_passage_tally (
    machine  TEXT   NOT NULL,
    config   TEXT   NOT NULL,
    passages BIGINT NOT NULL,
    PRIMARY KEY (machine, config)
);
CREATE TABLE library_vector_tally (
    machine TEXT   NOT NULL,
    model   TEXT   NOT NULL,
    vectors BIGINT NOT NULL,
    id_sum  BIGINT NOT NULL,
    PRIMARY KEY (machine, model)
);
INSERT INTO library_passage_tally
    SELECT machine, config, count(*) FROM library_passages GROUP BY 1, 2;
INSERT INTO library_vector_tally
    SELECT machine, model, count(*), sum(passage) FROM library_vectors GROUP BY 1, 2;
-- Rows are tallied in key order, so two writers lock the tally's rows in the same order.
CREATE FUNCTION library_passages_tallied() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE library_passage_tally t SET passages = t.passages - d.n
        FROM (SELECT machine, config, count(*) AS n FROM gone GROUP BY 1, 2 ORDER BY 1, 2) d
        WHERE t.machine = d.machine AND t.config = d.config;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO library_passage_tally AS t (machine, config, passages)
        SELECT machine, config, count(*) FROM came GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (machine, config) DO UPDATE SET passages = t.passages + excluded.passages;
    END IF;
    RETURN NULL;
END $$;
CREATE FUNCTION library_vectors_tallied() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE library_vector_tally t SET vectors = t.vectors - d.n, id_sum = t.id_sum - d.s
        FROM (SELECT machine, model, count(*) AS n, sum(passage) AS s FROM gone
              GROUP BY 1, 2 ORDER BY 1, 2) d
        WHERE t.machine = d.machine AND t.model = d.model;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO library_vector_tally AS t (machine, model, vectors, id_sum)
        SELECT machine, model, count(*), sum(passage) FROM came GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (machine, model) DO UPDATE
        SET vectors = t.vectors + excluded.vectors, id_sum = t.id_sum + excluded.id_sum;
    END IF;
    RETURN NULL;
END $$;
CREATE FUNCTION library_tally_emptied() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    EXECUTE format('DELETE FROM %I', TG_ARGV[0]);
    RETURN NULL;
END $$;
CREATE TRIGGER tallied_in AFTER INSERT ON library_passages REFERENCING NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_passages_tallied();
CREATE TRIGGER tallied_out AFTER DELETE ON library_passages REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION library_passages_tallied();
CREATE TRIGGER tallied_moved AFTER UPDATE ON library_passages
    REFERENCING OLD TABLE AS gone NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_passages_tallied();
CREATE TRIGGER tallied_emptied AFTER TRUNCATE ON library_passages
    FOR EACH STATEMENT EXECUTE FUNCTION library_tally_emptied('library_passage_tally');
CREATE TRIGGER tallied_in AFTER INSERT ON library_vectors REFERENCING NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_vectors_tallied();
CREATE TRIGGER tallied_out AFTER DELETE ON library_vectors REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION library_vectors_tallied();
CREATE TRIGGER tallied_moved AFTER UPDATE ON library_vectors
    REFERENCING OLD TABLE AS gone NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_vectors_tallied();
CREATE TRIGGER tallied_emptied AFTER TRUNCATE ON library_vectors
    FOR EACH STATEMENT EXECUTE FUNCTION library_tally_emptied('library_vector_tally');
",
    // Each folder's files, read and unreadable, kept the same way: the Library view grouped
    // every file of the machine by folder (113 ms at 199,494 files). A file read again is
    // updated in place: taken out of its folder's counts as it was and put back as it is.
    "
CREATE TABLE library_file_tally (
    machine TEXT   NOT NULL,
    root    TEXT   NOT NULL,
    files   BIGINT NOT NULL,
    failed  BIGINT NOT NULL,
    PRIMARY KEY (machine, root)
);
INSERT INTO library_file_tally
    SELECT machine, root, count(*) FILTER (WHERE error IS NULL),
           count(*) FILTER (WHERE error IS NOT NULL)
    FROM library_files GROUP BY 1, 2;
CREATE FUNCTION library_files_tallied() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE library_file_tally t SET files = t.files - d.files, failed = t.failed - d.failed
        FROM (SELECT machine, root, count(*) FILTER (WHERE error IS NULL) AS files,
                     count(*) FILTER (WHERE error IS NOT NULL) AS failed
              FROM gone GROUP BY 1, 2 ORDER BY 1, 2) d
        WHERE t.machine = d.machine AND t.root = d.root;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO library_file_tally AS t (machine, root, files, failed)
        SELECT machine, root, count(*) FILTER (WHERE error IS NULL),
               count(*) FILTER (WHERE error IS NOT NULL)
        FROM came GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (machine, root) DO UPDATE
        SET files = t.files + excluded.files, failed = t.failed + excluded.failed;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER tallied_in AFTER INSERT ON library_files REFERENCING NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_files_tallied();
CREATE TRIGGER tallied_out AFTER DELETE ON library_files REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION library_files_tallied();
CREATE TRIGGER tallied_moved AFTER UPDATE ON library_files
    REFERENCING OLD TABLE AS gone NEW TABLE AS came
    FOR EACH STATEMENT EXECUTE FUNCTION library_files_tallied();
CREATE TRIGGER tallied_emptied AFTER TRUNCATE ON library_files
    FOR EACH STATEMENT EXECUTE FUNCTION library_tally_emptied('library_file_tally');
",
];

/// Every table the first migration made, with the version table: what moves when an earlier
/// build's tables are found in `public` (tables made since were always in the schema).
const OUR_TABLES: &[&str] = &[
    "research_schema",
    "checkpoints",
    "writes",
    "threads",
    "documents",
    "sessions",
    "runs",
    "sources",
    "evidence",
    "claims",
    "reports",
    "events",
    "llm_calls",
    "turns",
    "schedules",
    "search_cache",
    "page_cache",
];

/// Why a call to the server failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No connection could be had.
    Unreachable(String),
    /// The server refused or the connection broke.
    Sql(tokio_postgres::Error),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Sql(e)
    }
}

impl Failure {
    /// Whether the server's disk is full (the run resumes once there is room).
    pub(crate) fn disk_full(&self) -> bool {
        matches!(self, Failure::Sql(e) if e.code() == Some(&SqlState::DISK_FULL))
    }

    /// What a person is told: a lost connection names the server.
    pub(crate) fn message(&self) -> String {
        match self {
            Failure::Unreachable(m) if m.contains("certificate") => format!(
                "PostgreSQL could not be reached: {m} (the server's certificate is checked against \
                 the system's authorities and PGSSLROOTCERT's: name the authority that signed it \
                 there, or turn TLS off with sslmode=disable)"
            ),
            Failure::Unreachable(m) => format!("PostgreSQL could not be reached: {m}"),
            Failure::Sql(e) if e.is_closed() => {
                format!("the connection to PostgreSQL was lost: {e}")
            }
            Failure::Sql(e) => match e.as_db_error() {
                Some(db) => format!("PostgreSQL: {}", db.message()),
                None => format!("PostgreSQL: {e}"),
            },
        }
    }
}

/// The schema every table lives in, so a server (or a database another program uses) keeps
/// Research Studio's tables apart from its own.
pub(crate) const SCHEMA: &str = "research";

/// The connection settings of `url`, with what every connection here needs: this program's
/// schema first on the search path, a connect timeout and keepalives (a server whose packets are
/// dropped is an error within a minute, not a hang), a statement timeout; and, without a
/// password in the address, `PGPASSWORD`'s (as libpq reads it), so a password need not be
/// written where settings are kept.
pub(crate) fn address(url: &str) -> Result<tokio_postgres::Config, PgError> {
    let mut config: tokio_postgres::Config = url
        .trim()
        .parse()
        .map_err(|e: tokio_postgres::Error| PgError::Address(e.to_string()))?;
    if config.get_password().is_none() {
        if let Ok(password) = std::env::var("PGPASSWORD") {
            config.password(password);
        }
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30));
    let ours = format!("-c search_path={SCHEMA} -c statement_timeout=120000");
    let options = match config.get_options() {
        Some(theirs) if !theirs.trim().is_empty() => format!("{theirs} {ours}"),
        _ => ours,
    };
    config.options(options);
    Ok(config)
}

/// The TLS a connection uses when the server offers it (`sslmode=prefer`, the default) or must
/// (`sslmode=require`): the server's certificate is checked against the system's roots and the
/// certificate authority in `PGSSLROOTCERT` (a server with a certificate of its own making), never
/// taken on trust. A Unix socket never uses TLS; `sslmode=disable` turns it off.
fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect, PgError> {
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        // A root the system keeps that rustls cannot read is left out, as the system's TLS would.
        let _ = roots.add(cert);
    }
    if let Ok(path) = std::env::var("PGSSLROOTCERT") {
        let certs = rustls_pki_types::CertificateDer::pem_file_iter(&path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| PgError::Tls(format!("PGSSLROOTCERT ({path}) could not be read: {e}")))?;
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| PgError::Tls(format!("PGSSLROOTCERT ({path}): {e}")))?;
        }
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| PgError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// An error with what caused it, as one line ("error performing TLS handshake: invalid peer
/// certificate: UnknownIssuer"): the cause is what a person can act on.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

/// A pool of connections to one database, its schema brought up to date on first use.
pub(crate) struct Db {
    pool: Pool,
    schema: OnceCell<()>,
}

impl Db {
    /// A pool for `url` (`postgres://user@host/db`, or `host=/run/postgresql dbname=research`)
    /// of at most `size` connections. Nothing is connected yet.
    pub(crate) fn lazy(url: &str, size: usize) -> Result<Self, PgError> {
        let config = address(url)?;
        let recycling = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        // A Unix socket is never encrypted (and has no name a certificate could be checked
        // against): TLS is for servers reached over the network.
        let local = !config.get_hosts().is_empty()
            && config
                .get_hosts()
                .iter()
                .all(|h| matches!(h, tokio_postgres::config::Host::Unix(_)));
        let plain = config.get_ssl_mode() == tokio_postgres::config::SslMode::Disable;
        let manager = if local || plain {
            Manager::from_config(config, tokio_postgres::NoTls, recycling)
        } else {
            Manager::from_config(config, tls()?, recycling)
        };
        let pool = Pool::builder(manager)
            .max_size(size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(Some(Duration::from_secs(15)))
            .recycle_timeout(Some(Duration::from_secs(5)))
            .build()
            .map_err(|e| PgError::Pool(e.to_string()))?;
        Ok(Self {
            pool,
            schema: OnceCell::new(),
        })
    }

    /// A pooled connection, the schema brought up to date first.
    pub(crate) async fn client(&self) -> Result<Object, Failure> {
        let mut client = self
            .pool
            .get()
            .await
            .map_err(|e| Failure::Unreachable(with_causes(&e)))?;
        if self.schema.get().is_none() {
            if let Err(e) = migrate(&mut client).await {
                // Not given back to the pool: its session may be in any state.
                let _ = Object::take(client);
                return Err(e);
            }
            let _ = self.schema.set(());
        }
        Ok(client)
    }
}

/// Applies the migrations the database has not seen. A database that is up to date is only
/// read (a person without the right to create tables can use one someone else set up). Else
/// in one transaction under a transaction advisory lock: two processes starting at once do not
/// both apply one, and a migration that fails (no right to create tables) rolls back and lets
/// the lock go with it — the others get the error too, not a wait.
async fn migrate(client: &mut tokio_postgres::Client) -> Result<(), Failure> {
    if applied(client).await? >= MIGRATIONS.len() {
        return Ok(());
    }
    let tx = client.transaction().await?;
    tx.batch_execute("SELECT pg_advisory_xact_lock(7260113)")
        .await?;
    let has_schema: bool = tx
        .query_one(
            &format!("SELECT to_regnamespace('{SCHEMA}') IS NOT NULL"),
            &[],
        )
        .await?
        .get(0);
    if !has_schema {
        // Created only when missing: a schema a DBA made for the team needs no right to create.
        tx.batch_execute(&format!("CREATE SCHEMA {SCHEMA}")).await?;
    }
    // Tables an earlier build kept in `public` move here with their rows.
    let earlier: bool = tx
        .query_one(
            &format!(
                "SELECT to_regclass('public.research_schema') IS NOT NULL
                    AND to_regclass('{SCHEMA}.research_schema') IS NULL"
            ),
            &[],
        )
        .await?
        .get(0);
    if earlier {
        for table in OUR_TABLES {
            let here: bool = tx
                .query_one(
                    &format!("SELECT to_regclass('public.{table}') IS NOT NULL"),
                    &[],
                )
                .await?
                .get(0);
            if here {
                tx.batch_execute(&format!("ALTER TABLE public.{table} SET SCHEMA {SCHEMA}"))
                    .await?;
            }
        }
    }
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {SCHEMA}.research_schema (version INTEGER NOT NULL);"
    ))
    .await?;
    let done = applied(&tx).await?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        tx.batch_execute(sql).await?;
        tx.execute(
            &format!("INSERT INTO {SCHEMA}.research_schema (version) VALUES ($1)"),
            &[&(i as i32 + 1)],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// How many migrations today's build applies.
#[cfg(feature = "testing")]
pub(crate) fn migration_count() -> usize {
    MIGRATIONS.len()
}

/// The SQL of a database as a build with the first `applied` migrations left it.
#[cfg(feature = "testing")]
pub(crate) fn earlier_schema(applied: usize) -> String {
    let mut sql = format!(
        "CREATE SCHEMA {SCHEMA}; SET search_path TO {SCHEMA};
         CREATE TABLE research_schema (version INTEGER NOT NULL);"
    );
    for (i, step) in MIGRATIONS.iter().take(applied).enumerate() {
        sql.push_str(step);
        sql.push_str(&format!(
            ";\nINSERT INTO research_schema (version) VALUES ({});\n",
            i + 1
        ));
    }
    sql
}

/// How many migrations the database has seen (none when it has no schema yet).
async fn applied(client: &impl tokio_postgres::GenericClient) -> Result<usize, Failure> {
    let exists: bool = client
        .query_one(
            &format!("SELECT to_regclass('{SCHEMA}.research_schema') IS NOT NULL"),
            &[],
        )
        .await?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let done: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM {SCHEMA}.research_schema"),
            &[],
        )
        .await?
        .get(0);
    Ok(done as usize)
}
