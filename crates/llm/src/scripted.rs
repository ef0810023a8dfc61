//! A model that answers from a script: deterministic tests of everything above the model seam.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;

use crate::{ChatRequest, ChatResponse, Flow, LlmClient, LlmError, TokenSink, Usage};

/// One scripted answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ScriptedAnswer {
    /// Answer requests with this purpose (any purpose when absent).
    #[serde(default)]
    pub purpose: Option<String>,
    /// Answer only when the last user message contains this text (the last message of a
    /// structured request is the schema instruction).
    #[serde(default)]
    pub contains: Option<String>,
    /// The answer as text…
    #[serde(default)]
    pub text: Option<String>,
    /// …or as JSON, sent as its text.
    #[serde(default)]
    pub json: Option<serde_json::Value>,
    /// Wait this long before answering (a slow model: cancelling, progress notices).
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct Script {
    answers: Vec<ScriptedAnswer>,
    /// The context window to report (none by default: one page per extraction call).
    #[serde(default)]
    context_tokens: Option<usize>,
}

/// Answers from a script, in order per purpose; the last matching answer repeats once the others
/// are used. Every request is recorded for tests to inspect.
pub struct ScriptedLlm {
    spec: String,
    answers: Vec<ScriptedAnswer>,
    used: Mutex<Vec<bool>>,
    requests: Mutex<Vec<ChatRequest>>,
    context_tokens: Option<usize>,
}

impl ScriptedLlm {
    /// A model with these answers.
    pub fn new(answers: Vec<ScriptedAnswer>) -> Self {
        let used = Mutex::new(vec![false; answers.len()]);
        Self {
            spec: "scripted:inline".into(),
            answers,
            used,
            requests: Mutex::new(Vec::new()),
            context_tokens: None,
        }
    }

    /// The same model reporting a context window of `tokens` (as a cloud model's is known).
    pub fn with_context_tokens(mut self, tokens: usize) -> Self {
        self.context_tokens = Some(tokens);
        self
    }

    /// Reads a script file: `{"answers": [{"purpose": "plan", "json": {…}}, {"text": "…"}]}`.
    pub fn from_file(path: &Path) -> Result<Self, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            LlmError::Config(format!("could not read the script {}: {e}", path.display()))
        })?;
        let script: Script = serde_json::from_str(&text).map_err(|e| {
            LlmError::Config(format!("the script {} is not valid: {e}", path.display()))
        })?;
        let mut model = Self::new(script.answers);
        model.context_tokens = script.context_tokens;
        model.spec = format!("scripted:{}", path.display());
        Ok(model)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn pick(&self, request: &ChatRequest) -> Result<(String, u64), LlmError> {
        let last = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == crate::Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or_default();
        let matches = |a: &ScriptedAnswer| {
            a.purpose
                .as_deref()
                .is_none_or(|p| request.purpose.as_deref() == Some(p))
                && a.contains.as_deref().is_none_or(|c| last.contains(c))
        };
        let mut used = self
            .used
            .lock()
            .map_err(|_| LlmError::Config("script lock poisoned".into()))?;
        let candidates: Vec<usize> = (0..self.answers.len())
            .filter(|&i| matches(&self.answers[i]))
            .collect();
        let chosen = candidates
            .iter()
            .copied()
            .find(|&i| !used[i])
            .or_else(|| candidates.last().copied())
            .ok_or_else(|| {
                LlmError::Config(format!(
                    "the script has no answer for purpose `{}`",
                    request.purpose.as_deref().unwrap_or("(none)")
                ))
            })?;
        used[chosen] = true;
        let answer = &self.answers[chosen];
        let text = match (&answer.text, &answer.json) {
            (Some(text), _) => text.clone(),
            (None, Some(json)) => json.to_string(),
            (None, None) => String::new(),
        };
        Ok((text, answer.delay_ms.unwrap_or(0)))
    }
}

#[async_trait]
impl LlmClient for ScriptedLlm {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn context_tokens(&self) -> Option<usize> {
        self.context_tokens
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        if let Ok(mut r) = self.requests.lock() {
            r.push(request.clone());
        }
        let (text, delay_ms) = self.pick(request)?;
        if delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        }
        let mut text = text;
        if let Some(sink) = on_token {
            let mut streamed = 0;
            for piece in text.split_inclusive(' ') {
                streamed += piece.len();
                if sink(piece) == Flow::Stop {
                    break;
                }
            }
            text.truncate(streamed);
        }
        // Roughly four characters a token, so that accounting has something to count.
        let prompt: usize = request.messages.iter().map(|m| m.content.len()).sum();
        Ok(ChatResponse {
            usage: Usage {
                prompt_tokens: (prompt / 4) as u64,
                completion_tokens: (text.len() / 4) as u64,
            },
            text,
            model: self.spec.clone(),
            latency: Duration::ZERO,
        })
    }
}
