//! What was said to a model and what it answered, kept when a person asks for it.
//!
//! A run's ledger ([`crate::Meter`]) always keeps each call's counters; the words themselves
//! are kept only on request (seed 003: an inspectable record of every prompt and answer), since
//! they are large and may quote what the person typed. Before anything is kept it passes a
//! [`Redactor`]: the keys the run could use and anything shaped like a key or a bearer token
//! become `[redacted]`, so a record can be shared without sharing a secret.

use serde::{Deserialize, Serialize};

use crate::{ChatRequest, Role};

/// What replaces a secret in a kept record.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not looked for: a three-letter "key" would redact words.
const MIN_SECRET_CHARS: usize = 8;

/// Prefixes of provider keys (OpenAI, Anthropic, Gemini, Tavily, Brave-style tokens, GitHub,
/// Slack), redacted with the token they start even when the key is not one the run knows.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_",
    "pk_",
    "rk_",
    "AIza",
    "tvly-",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "hf_",
    "gsk_",
];

/// Words after which the next token is a secret (`Bearer abc…`, `api_key=abc…`).
const SECRET_LABELS: &[&str] = &[
    "bearer",
    "api_key",
    "apikey",
    "api-key",
    "x-api-key",
    "access_token",
    "token",
    "password",
    "secret",
];

/// One message of a kept exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ExchangeMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// What was said, redacted.
    pub content: String,
}

/// A call's prompt and answer, redacted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Exchange {
    /// The messages sent, in order.
    pub messages: Vec<ExchangeMessage>,
    /// The JSON schema the answer had to follow, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub schema: Option<String>,
    /// The model's answer (absent when the call failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub answer: Option<String>,
    /// Why the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
}

/// Takes secrets out of text before it is kept.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor that also removes these exact values (the keys the run could use), besides
    /// anything shaped like a key.
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| s.chars().count() >= MIN_SECRET_CHARS)
            .collect();
        // Longest first, so a key that contains another is removed whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Self { secrets }
    }

    /// `text` with every known secret, key-shaped token and labelled secret replaced by
    /// [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        redact_shapes(&out)
    }

    /// The exchange of `request` and its outcome, redacted.
    pub fn exchange(&self, request: &ChatRequest, outcome: Result<&str, String>) -> Exchange {
        Exchange {
            messages: request
                .messages
                .iter()
                .map(|m| ExchangeMessage {
                    role: match m.role {
                        Role::System => "system",
                        Role::User => "user",
                        Role::Assistant => "assistant",
                    }
                    .to_string(),
                    content: self.redact(&m.content),
                })
                .collect(),
            schema: request
                .schema
                .as_ref()
                .map(|s| s.schema.to_string())
                .map(|s| self.redact(&s)),
            answer: outcome.as_ref().ok().map(|a| self.redact(a)),
            error: outcome.err().map(|e| self.redact(&e)),
        }
    }
}

/// Whether `c` can be part of a key-like token.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/')
}

/// Whether `token` (a run of [`token_char`]s) looks like a key: a known prefix followed by at
/// least 16 more characters.
fn key_shaped(token: &str) -> bool {
    KEY_PREFIXES
        .iter()
        .any(|p| token.starts_with(p) && token.len() >= p.len() + 16)
}

/// Replaces key-shaped tokens and the token after a secret label (`Bearer x`, `api_key=x`,
/// `"token": "x"`).
fn redact_shapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut redact_next = false;
    while let Some(&(start, c)) = chars.peek() {
        if !token_char(c) {
            out.push(c);
            chars.next();
            // A label's value follows after `=`, `:`, spaces and quotes.
            if !matches!(c, '=' | ':' | ' ' | '"' | '\'') {
                redact_next = false;
            }
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if !token_char(c) {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let token = &text[start..end];
        if (redact_next && token.len() >= MIN_SECRET_CHARS) || key_shaped(token) {
            out.push_str(REDACTED);
            redact_next = false;
        } else {
            out.push_str(token);
            let lower = token.to_ascii_lowercase();
            redact_next = SECRET_LABELS.contains(&lower.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[test]
    fn known_keys_are_removed_wherever_they_appear() {
        let r = Redactor::new(["abcdefgh12345678".to_string(), "short".to_string()]);
        assert_eq!(
            r.redact("my key is abcdefgh12345678, keep it short"),
            "my key is [redacted], keep it short"
        );
    }

    #[test]
    fn key_shaped_tokens_and_labelled_values_are_removed() {
        let r = Redactor::default();
        assert_eq!(
            r.redact("use sk-proj-AAAABBBBCCCCDDDDEEEE for it"),
            "use [redacted] for it"
        );
        assert_eq!(
            r.redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload"),
            "Authorization: Bearer [redacted]"
        );
        assert_eq!(
            r.redact("GET /search?api_key=0123456789abcdef&q=bees"),
            "GET /search?api_key=[redacted]&q=bees"
        );
        assert_eq!(
            r.redact(r#"{"token": "zzzzzzzzzzzzzzzz"}"#),
            r#"{"token": "[redacted]"}"#
        );
    }

    #[test]
    fn ordinary_words_are_kept() {
        let r = Redactor::default();
        let text = "The token bucket algorithm limits a secret-sharing scheme; sk-1 is a tag. \
                    ハチはダンスで伝える。";
        assert_eq!(r.redact(text), text);
    }

    #[test]
    fn an_exchange_keeps_roles_schema_and_answer() {
        let r = Redactor::new(["tvly-0123456789abcdefXYZ".to_string()]);
        let mut request = ChatRequest::new(vec![
            Message::system("You plan research."),
            Message::user("key tvly-0123456789abcdefXYZ: how do bees dance?"),
        ]);
        request.schema = Some(crate::OutputSchema {
            name: "plan".into(),
            schema: serde_json::json!({"type": "object"}),
        });
        let e = r.exchange(&request, Ok("{\"questions\": []}"));
        assert_eq!(e.messages.len(), 2);
        assert_eq!(e.messages[0].role, "system");
        assert_eq!(e.messages[1].content, "key [redacted]: how do bees dance?");
        assert_eq!(e.schema.as_deref(), Some("{\"type\":\"object\"}"));
        assert_eq!(e.answer.as_deref(), Some("{\"questions\": []}"));
        let failed = r.exchange(&request, Err("HTTP 500".into()));
        assert_eq!(failed.answer, None);
        assert_eq!(failed.error.as_deref(), Some("HTTP 500"));
    }
}
