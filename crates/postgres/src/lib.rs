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

mod checkpointer;
mod db;
mod sessions;
pub mod testing;

pub use checkpointer::PgCheckpointer;
pub use sessions::{PgSessions, PgThreads};

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
    /// The threads that wait on the server could not be started.
    #[error("could not start the threads that talk to PostgreSQL: {0}")]
    Runtime(String),
}
