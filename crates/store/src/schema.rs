//! The sessions tables as the migrations create them: sessions, runs, their findings, reports,
//! events, calls and the caches, and the columns added since. The conversation's own table is
//! in `conversation.rs`.

pub(crate) const MIGRATION: &str = "
CREATE TABLE documents (
    sha256        TEXT    PRIMARY KEY,
    text          TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE sessions (
    id            TEXT    PRIMARY KEY,
    title         TEXT    NOT NULL,
    question      TEXT    NOT NULL,
    config        TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE TABLE runs (
    thread_id     TEXT    PRIMARY KEY,
    session_id    TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question      TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX runs_session ON runs(session_id);
CREATE TABLE sources (
    thread_id      TEXT    NOT NULL,
    session_id     TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    source_id      INTEGER NOT NULL,
    url            TEXT    NOT NULL,
    title          TEXT    NOT NULL,
    kind           TEXT    NOT NULL,
    sha256         TEXT    NOT NULL,
    accessed_at_ms INTEGER NOT NULL,
    PRIMARY KEY (thread_id, source_id)
);
CREATE INDEX sources_session ON sources(session_id);
CREATE TABLE evidence (
    thread_id   TEXT    NOT NULL,
    session_id  TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    evidence_id INTEGER NOT NULL,
    source_id   INTEGER NOT NULL,
    fact        TEXT    NOT NULL,
    quote       TEXT    NOT NULL,
    PRIMARY KEY (thread_id, evidence_id)
);
CREATE INDEX evidence_session ON evidence(session_id);
CREATE TABLE claims (
    thread_id   TEXT    NOT NULL,
    session_id  TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    evidence_id INTEGER NOT NULL,
    text        TEXT    NOT NULL,
    supported   INTEGER NOT NULL
);
CREATE INDEX claims_session ON claims(session_id);
CREATE TABLE reports (
    thread_id     TEXT    NOT NULL,
    session_id    TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL,
    markdown      TEXT    NOT NULL,
    provenance    TEXT    NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (thread_id, version)
);
CREATE INDEX reports_session ON reports(session_id);
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    thread_id  TEXT    NOT NULL,
    session_id TEXT    NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at_ms      INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL
);
CREATE INDEX events_thread ON events(thread_id);
CREATE TABLE llm_calls (
    seq       INTEGER PRIMARY KEY,
    thread_id TEXT    NOT NULL REFERENCES runs(thread_id) ON DELETE CASCADE,
    call      TEXT    NOT NULL
);
CREATE INDEX llm_calls_thread ON llm_calls(thread_id);
CREATE TABLE search_cache (
    provider      TEXT    NOT NULL,
    query         TEXT    NOT NULL,
    max_results   INTEGER NOT NULL,
    hits          TEXT    NOT NULL,
    fetched_at_ms INTEGER NOT NULL,
    PRIMARY KEY (provider, query, max_results)
) WITHOUT ROWID;
CREATE TABLE page_cache (
    url           TEXT    PRIMARY KEY,
    meta          TEXT    NOT NULL,
    sha256        TEXT    NOT NULL REFERENCES documents(sha256),
    fetched_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
";

/// Sessions as conversations: each turn with what it was taken to be, and a kept summary of
/// long conversations.
/// When a session's report sources were last checked again.
pub(crate) const CHECKED_MIGRATION: &str = "ALTER TABLE sessions ADD COLUMN checked_at_ms INTEGER;";
