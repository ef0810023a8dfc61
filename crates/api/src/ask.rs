//! One question to one model, outside any research run: `research ask`, and the app's
//! "Test connection".

use research_llm::{ChatRequest, ConnectSettings, Message, OutputSchema, TokenSink, Usage};
use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode};

/// The longest prompt accepted (characters); longer ones are almost always a mistake.
pub const MAX_PROMPT_CHARS: usize = 200_000;

/// What to ask.
#[derive(Debug, Clone, Default)]
pub struct AskRequest {
    /// The prompt.
    pub prompt: String,
    /// The model string, e.g. `openai:gpt-4o-mini`.
    pub llm: String,
    /// An optional system prompt.
    pub system: Option<String>,
    /// When set, the answer must be JSON valid for this schema.
    pub schema: Option<serde_json::Value>,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskAnswer {
    /// The model's text (the JSON text when a schema was given).
    pub text: String,
    /// The parsed JSON, when a schema was given.
    pub json: Option<serde_json::Value>,
    /// The model that answered.
    pub model: String,
    /// Tokens used over all calls.
    pub usage: Usage,
    /// Calls made (2 when the model had to be asked again for valid JSON).
    pub calls: u32,
}

/// Asks `request.llm` the prompt; streams the answer to `on_token` when given.
pub async fn ask(
    request: AskRequest,
    settings: &ConnectSettings,
    on_token: Option<TokenSink<'_>>,
) -> Result<AskAnswer, ApiError> {
    let prompt = request.prompt.trim();
    if prompt.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the prompt is empty",
        ));
    }
    if prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("the prompt is longer than {MAX_PROMPT_CHARS} characters; shorten it or put the material in your library"),
        ));
    }
    let client = research_llm::connect(&request.llm, settings)?;
    let mut messages = Vec::new();
    if let Some(system) = request.system.filter(|s| !s.trim().is_empty()) {
        messages.push(Message::system(system));
    }
    messages.push(Message::user(prompt));
    let chat = ChatRequest::new(messages).purpose("ask");
    match request.schema {
        None => {
            let answer = client.complete(&chat, on_token).await?;
            Ok(AskAnswer {
                text: answer.text,
                json: None,
                model: answer.model,
                usage: answer.usage,
                calls: 1,
            })
        }
        Some(schema) => {
            let schema = OutputSchema {
                name: "answer".into(),
                schema,
            };
            let out = research_llm::generate_json(client.as_ref(), chat, schema, None).await?;
            Ok(AskAnswer {
                text: out.response.text,
                json: Some(out.value),
                model: out.response.model,
                usage: out.usage,
                calls: out.calls,
            })
        }
    }
}
