//! The `LlmClient` seam: one small trait between the research pipelines and every model they
//! can use, so that nodes are written once and run against a cloud API, a local server or a
//! scripted model in tests.
//!
//! A model is named by one string (`openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5`,
//! `gemini:gemini-2.5-flash`, `ollama:qwen2.5:7b`, `openai-compat:http://127.0.0.1:8080/v1#model`,
//! `local:/path/model.gguf`, `scripted:answers.json`); [`connect`] turns
//! it into a client. [`generate`] asks for a typed, schema-checked answer. Every failure is an
//! [`LlmError`] that says what the user can do about it.
#![deny(missing_docs)]

mod anthropic;
/// The conformance suite every HTTP [`LlmClient`] passes, each against a mock of its API
/// (feature `conformance`; see `tests/llm_conformance.rs`).
#[cfg(feature = "conformance")]
pub mod conformance;
mod error;
mod gemini;
mod http;
pub mod json;
#[cfg(feature = "local")]
mod local;
mod ollama;
mod openai;
mod scripted;
mod spec;
mod structured;
mod transcript;
mod types;
mod usage;

use async_trait::async_trait;

pub use anthropic::AnthropicClient;
pub use error::LlmError;
pub use gemini::GeminiClient;
pub use http::RetryConfig;
#[cfg(feature = "local")]
pub use local::{LocalConfig, LocalLlm};
pub use ollama::{OllamaClient, OLLAMA_CONTEXT_TOKENS};
pub use openai::{OpenAiClient, OpenAiConfig};
pub use scripted::{ScriptedAnswer, ScriptedLlm};
pub use spec::{connect, ConnectSettings, ModelSpec, LOCAL_SEQUENCES_ENV};
pub use structured::{generate, generate_json, schema_of, simpler, Structured, SIMPLER_MAX_ITEMS};
pub use transcript::{Exchange, ExchangeMessage, Redactor, REDACTED};
pub use types::{known_window, ChatRequest, ChatResponse, Message, OutputSchema, Role, Usage};
pub use usage::{
    estimate_tokens, Budget, CallRecord, Meter, Metered, ModelRouting, Price, PriceTable,
    RoleModels, UsageTotals,
};

/// Receives streamed pieces of an answer as they arrive, and says after each whether the model
/// should go on: a caller that can tell early that an answer is of no use (a report draft that
/// loops or cites what it did not read) stops it there instead of waiting for the rest.
pub type TokenSink<'a> = &'a (dyn Fn(&str) -> Flow + Send + Sync);

/// What a [`TokenSink`] says after a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the answer.
    Continue,
    /// End the answer here: it is the text streamed so far, this piece included, and no more
    /// is generated or read.
    Stop,
}

/// A chat model.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// The model string this client was made from.
    fn spec(&self) -> &str;

    /// The model's context window in tokens, when known; prompts are shrunk to fit it.
    fn context_tokens(&self) -> Option<usize> {
        None
    }

    /// Answers `request`; with `on_token`, streams the answer piece by piece as well, and ends
    /// it (successfully, with the text streamed so far) when the sink says [`Flow::Stop`].
    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError>;
}
