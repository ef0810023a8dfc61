//! The research pipelines, built on the graph engine, as a family over shared steps.
//!
//! Why the layers: every pipeline (the standard one today; trust, review and conversation turns
//! next) reads questions, plans, harvests pages, checks claims and writes reports, and each
//! must be runnable, resumable, outlined and estimated by the api and the app without their
//! knowing its nodes. So:
//!
//! - [`steps`] are functions from explicit inputs to domain values (a reading of the question,
//!   a plan, a harvest, claims, a draft) that know no pipeline's state;
//! - [`pipelines`] each hold a state type, thin node adapters over the steps, and the wiring,
//!   and implement [`Flow`];
//! - [`Pipeline`] is the state-erased seam the api uses, and [`Registry`] names them;
//! - [`Role`] is the one list of model roles (fast-model rule, typical tokens, words).
//!
//! Grounding is structural: the extractor picks sentences *by number* from the stored text of a
//! page, so every quote is a verbatim span of what was fetched; the quote is checked against the
//! text anyway; the report's citation markers are validated after writing; and its findings
//! section is built from the evidence itself, so a weak model can write a weak report but not
//! an ungrounded one.
//!
//! Everything a run needs from outside comes in through [`Env`]: models per role, one search
//! provider (which may fan out to several), a fetcher, and a [`Documents`] store for the text of
//! every source.
#![deny(missing_docs)]

mod ask;
mod config;
pub mod conversation;
mod env;
pub mod eval;
mod family;
pub mod fork;
pub mod guard;
pub mod measured;
mod method;
pub mod pipelines;
mod prompts;
mod records;
pub mod report;
mod roles;
pub mod steps;
pub mod text;

pub use ask::{ask_person, Ctx};
pub use config::{
    Background, Depth, DepthLimits, Mode, ReviewPoints, ReviewTimeout, RunConfig, Structure, Style,
    TimeoutAction, TrustVariant, DEFAULT_BANNED_WORDS, DEFAULT_LOW_TRUST_DOMAINS,
    DEFAULT_MAX_REVISIONS, DEFAULT_TRUSTED_DOMAINS, MAX_BACKGROUND_CHARS,
    MAX_REVIEW_TIMEOUT_MINUTES, MAX_REVISIONS,
};
pub use env::{sha256_hex, DocumentError, Documents, Env, MemoryDocuments, Progress};
pub use family::{
    Carried, Flow, Outline, OutlineStep, Pipeline, PipelineInfo, Registry, Run, RunEstimate,
    RunRequest, RunStatus, RunView,
};
pub use method::{unread_pages, RunMethod, UnreadPage};
pub use pipelines::standard::{
    follow_up_state, graph, initial_state, ResearchState, ResearchUpdate,
};
pub use records::{
    Answer, Asked, Assignment, Claim, Coverage, Decision, EscalatedBy, Evidence, Found, ModelWork,
    Outcome, Plan, Question, RankedHit, Source, Synthesis, Understanding, Warning, WarningKind,
    WorkerResult, MAX_EDITED_DRAFT_CHARS,
};
pub use roles::{Role, RoleInfo};
