//! PostgreSQL storage for Research Studio, for teams: a run started on one machine is read,
//! answered and resumed from another when both point at one server. This crate is the
//! checkpointer on PostgreSQL (LangGraph's `PostgresSaver`), behind the engine's `Checkpointer`
//! seam, and the sessions and thread stores, behind `research-store`'s `SessionStore` and
//! `ThreadStore` seams — each held to its seam's conformance suite like the SQLite ones.
//!
//! Why `tokio-postgres` with `deadpool-postgres`: the maintained async driver of the
//! rust-postgres project, with no database needed at compile time (unlike sqlx's checked
//! queries) and a small pool; a connection lost mid-run is a `Storage` error the run reports as
//! resumable, and the next call takes a fresh connection.

#![deny(missing_docs)]

mod bridge;
mod checkpointer;
mod db;
mod library;
mod sessions;
#[cfg(feature = "testing")]
pub mod testing;
mod text_search;

pub use checkpointer::PgCheckpointer;
pub use library::PgLibrary;
pub use sessions::{PgSessions, PgThreads};

/// A PostgreSQL address as a person is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// Where it points, without a password: `database research on db.example.org:5432 as alice`.
    pub shown: String,
    /// Whether the address itself holds a password.
    pub has_password: bool,
}

/// Reads `url` as a PostgreSQL connection string (`postgres://user@host/db` or
/// `host=/run/postgresql dbname=research`).
pub fn check_address(url: &str) -> Result<Address, PgError> {
    let config: tokio_postgres::Config = url
        .trim()
        .parse()
        .map_err(|e: tokio_postgres::Error| PgError::Address(e.to_string()))?;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let host = match hosts.first() {
        Some(h) => format!("{h}:{port}"),
        None => format!("the local socket, port {port}"),
    };
    let mut shown = format!(
        "database {} on {host}",
        config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("postgres")
    );
    if let Some(user) = config.get_user() {
        shown.push_str(&format!(" as {user}"));
    }
    Ok(Address {
        shown,
        has_password: config.get_password().is_some(),
    })
}

/// Why the store could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PgError {
    /// The connection string is not one PostgreSQL reads.
    #[error("the database address is not a PostgreSQL connection string: {0}")]
    Address(String),
    /// The pool could not be made.
    #[error("the connection pool could not be made: {0}")]
    Pool(String),
    /// TLS could not be set up (a certificate authority that cannot be read).
    #[error("TLS to PostgreSQL could not be set up: {0}")]
    Tls(String),
    /// The threads that wait on the server could not be started.
    #[error("could not start the threads that talk to PostgreSQL: {0}")]
    Runtime(String),
}
