//! Requests and responses, independent of any provider's wire format.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The context window of a hosted model known by its id's family, or `None` for a model whose
/// window cannot be told from its name (self-hosted servers, new families). The figure is the
/// smallest of the family's current models, so a prompt sized by it fits each of them.
pub fn known_window(model: &str) -> Option<usize> {
    // A spec names its provider first (`anthropic:claude-…`); a router its vendor (`openai/…`).
    let id = model.split_once(':').map_or(model, |(_, id)| id);
    let id = id.rsplit('/').next().unwrap_or(id).to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| id.starts_with(p));
    if starts(&["claude-"]) {
        Some(200_000)
    } else if starts(&["gemini-1.5", "gemini-2", "gemini-3"]) {
        Some(1_000_000)
    } else if starts(&["gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4"]) {
        Some(128_000)
    } else {
        None
    }
}

/// Who speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions.
    System,
    /// The user (or the pipeline speaking for the user).
    User,
    /// The model.
    Assistant,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// A JSON schema the answer must follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// A short name for the schema (letters, digits, `_`, `-`).
    pub name: String,
    /// The JSON schema.
    pub schema: serde_json::Value,
}

/// One call to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Upper bound on generated tokens.
    pub max_tokens: Option<u32>,
    /// Nucleus sampling: sample only from the most likely tokens whose probabilities add up to
    /// this (0–1). Unset: the provider's (or the built-in model's) default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Generation stops when the answer would contain one of these strings; the string itself is
    /// not part of the answer. Providers limit how many they take (OpenAI 4, Gemini 5).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Repetition penalty in llama.cpp's sense: logits of recently generated tokens are divided
    /// by it (1.0 = off, 1.1 = mild). Used by the built-in model and Ollama; other providers have
    /// no equivalent and ignore it. Unset: the model's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_penalty: Option<f32>,
    /// When set, the answer must be JSON following this schema.
    pub schema: Option<OutputSchema>,
    /// The pipeline role asking (planner, writer, …): routes scripted answers and accounting.
    pub purpose: Option<String>,
}

impl ChatRequest {
    /// A request with these messages.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// Labels the request with the pipeline role asking.
    pub fn purpose(mut self, purpose: impl Into<String>) -> Self {
        self.purpose = Some(purpose.into());
        self
    }
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read.
    pub prompt_tokens: u64,
    /// Tokens written.
    pub completion_tokens: u64,
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text of the answer.
    pub text: String,
    /// The model that answered, as the server names it.
    pub model: String,
    /// Token counts, when the server reports them.
    pub usage: Usage,
    /// Wall time of the call, retries included.
    #[serde(with = "millis")]
    pub latency: Duration,
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod window_tests {
    use super::known_window;

    #[test]
    fn windows_are_known_by_family_only() {
        assert_eq!(known_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(known_window("anthropic/claude-3.5-haiku"), Some(200_000));
        assert_eq!(known_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(known_window("openai:gpt-4o-mini"), Some(128_000));
        assert_eq!(known_window("gemini-2.5-flash"), Some(1_000_000));
        // Old or unknown families, and local servers' names: not guessed.
        assert_eq!(known_window("gpt-4"), None);
        assert_eq!(known_window("llama3.2:3b"), None);
        assert_eq!(known_window("gemini-pro"), None);
    }
}
