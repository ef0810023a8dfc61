//! Structured output: ask for a Rust type, get that type or a typed error.
//!
//! The request carries the JSON schema generated from the type (schemars), which providers pass
//! on through their native mechanism. Whatever comes back goes through [`json::extract`]
//! (reasoning blocks, fences, prose, light repairs); if it still does not parse, the model is
//! asked once more with the parse error; then the call fails with [`LlmError::InvalidOutput`].

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{
    json, ChatRequest, ChatResponse, LlmClient, LlmError, Message, OutputSchema, TokenSink, Usage,
};

/// A parsed answer and what it cost.
#[derive(Debug, Clone)]
pub struct Structured<T> {
    /// The value.
    pub value: T,
    /// The last response (its text is the raw JSON).
    pub response: ChatResponse,
    /// Calls made (1, or 2 after a re-ask).
    pub calls: u32,
    /// Tokens over all calls.
    pub usage: Usage,
}

/// The schema of `T`, named for the request.
pub fn schema_of<T: JsonSchema>() -> OutputSchema {
    let schema = schemars::schema_for!(T);
    let name: String = T::schema_name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut schema = serde_json::to_value(schema).unwrap_or_default();
    // The Rust type's name is no word of the answer's: a small model shown `"title": "PlanOut"`
    // researches "planout". The name travels apart, where providers want one.
    if let Some(map) = schema.as_object_mut() {
        map.remove("title");
    }
    OutputSchema { name, schema }
}

/// Longest list a [`simpler`] schema asks for.
pub const SIMPLER_MAX_ITEMS: u64 = 3;

/// A simpler form of `schema` for a model that could not answer the full one (seed 000's
/// parse-failure category): only the required properties, no minimum counts, lengths or
/// patterns, lists of at most [`SIMPLER_MAX_ITEMS`]. `None` when nothing is simpler. A value
/// valid for it reads as the original type when the dropped fields have defaults.
pub fn simpler(schema: &OutputSchema) -> Option<OutputSchema> {
    fn simplify(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                if let (
                    Some(serde_json::Value::Object(props)),
                    Some(serde_json::Value::Array(req)),
                ) = (map.get("properties").cloned(), map.get("required").cloned())
                {
                    let required: Vec<&str> = req.iter().filter_map(|r| r.as_str()).collect();
                    let kept: serde_json::Map<String, serde_json::Value> = props
                        .into_iter()
                        .filter(|(k, _)| required.contains(&k.as_str()))
                        .collect();
                    map.insert("properties".into(), kept.into());
                }
                for key in [
                    "minItems",
                    "minLength",
                    "pattern",
                    "format",
                    "minProperties",
                ] {
                    map.remove(key);
                }
                let capped = map
                    .get("maxItems")
                    .and_then(serde_json::Value::as_u64)
                    .map_or(SIMPLER_MAX_ITEMS, |m| m.min(SIMPLER_MAX_ITEMS));
                if map.get("type").and_then(serde_json::Value::as_str) == Some("array") {
                    map.insert("maxItems".into(), capped.into());
                }
                for child in map.values_mut() {
                    simplify(child);
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(simplify),
            _ => {}
        }
    }
    let mut simple = schema.schema.clone();
    simplify(&mut simple);
    (simple != schema.schema).then(|| OutputSchema {
        name: format!("{}_simple", schema.name),
        schema: simple,
    })
}

fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let candidate =
        json::extract(text).ok_or_else(|| "the answer contains no JSON object".to_string())?;
    serde_json::from_str(&candidate).map_err(|e| e.to_string())
}

/// Asks `client` for a value of type `T`. A sink that stops the answer early leaves it
/// unparsed: the model is asked once more, and the call then fails as invalid output.
pub async fn generate<T: JsonSchema + DeserializeOwned>(
    client: &dyn LlmClient,
    request: ChatRequest,
    on_token: Option<TokenSink<'_>>,
) -> Result<Structured<T>, LlmError> {
    generate_with(client, request, schema_of::<T>(), on_token, parse::<T>).await
}

/// Asks `client` for JSON valid for an arbitrary JSON `schema` (e.g. one the user wrote).
pub async fn generate_json(
    client: &dyn LlmClient,
    request: ChatRequest,
    schema: OutputSchema,
    on_token: Option<TokenSink<'_>>,
) -> Result<Structured<serde_json::Value>, LlmError> {
    let validator = jsonschema::validator_for(&schema.schema).map_err(|e| {
        LlmError::Config(format!(
            "the schema `{}` is not a valid JSON schema: {e}",
            schema.name
        ))
    })?;
    let check = move |text: &str| -> Result<serde_json::Value, String> {
        let value: serde_json::Value = parse(text)?;
        let problems: Vec<String> = validator
            .iter_errors(&value)
            .take(3)
            .map(|e| format!("{e} at `{}`", e.instance_path()))
            .collect();
        if problems.is_empty() {
            Ok(value)
        } else {
            Err(problems.join("; "))
        }
    };
    generate_with(client, request, schema, on_token, check).await
}

async fn generate_with<T>(
    client: &dyn LlmClient,
    mut request: ChatRequest,
    schema: OutputSchema,
    on_token: Option<TokenSink<'_>>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Structured<T>, LlmError> {
    // Servers that ignore response formats still follow an instruction.
    request.messages.push(Message::system(format!(
        "Answer with one JSON value only, no prose, following this JSON schema:\n{}",
        schema.schema
    )));
    request.schema = Some(schema.clone());
    let first = client.complete(&request, on_token).await?;
    let mut usage = first.usage;
    let error = match parse(&first.text) {
        Ok(value) => {
            return Ok(Structured {
                value,
                response: first,
                calls: 1,
                usage,
            })
        }
        Err(e) => e,
    };
    tracing::info!(model = client.spec(), %error, "structured answer did not parse; asking again");
    request
        .messages
        .push(Message::assistant(first.text.clone()));
    request.messages.push(Message::user(format!(
        "That answer is not valid JSON for the schema `{}`: {error}. Reply again with only the corrected JSON.",
        schema.name
    )));
    let second = client.complete(&request, on_token).await?;
    usage.prompt_tokens += second.usage.prompt_tokens;
    usage.completion_tokens += second.usage.completion_tokens;
    match parse(&second.text) {
        Ok(value) => Ok(Structured {
            value,
            response: second,
            calls: 2,
            usage,
        }),
        Err(error) => Err(LlmError::InvalidOutput {
            schema: schema.name,
            error,
            raw: second.text,
        }),
    }
}

#[cfg(test)]
mod simpler_tests {
    use super::*;

    #[test]
    fn the_schema_shown_to_the_model_carries_no_rust_type_name() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct PlanOut {
            questions: Vec<String>,
        }
        let schema = schema_of::<PlanOut>();
        assert_eq!(schema.name, "PlanOut");
        assert!(
            !schema.schema.to_string().contains("PlanOut"),
            "{}",
            schema.schema
        );
    }

    #[test]
    fn the_simpler_schema_keeps_required_fields_and_asks_for_less() {
        let schema = OutputSchema {
            name: "out".into(),
            schema: serde_json::json!({
                "type": "object",
                "required": ["facts"],
                "properties": {
                    "facts": {"type": "array", "minItems": 2, "maxItems": 8,
                              "items": {"type": "string", "minLength": 10}},
                    "notes": {"type": "string"}
                }
            }),
        };
        let simple = simpler(&schema).unwrap();
        assert_eq!(simple.name, "out_simple");
        assert_eq!(
            simple.schema,
            serde_json::json!({
                "type": "object",
                "required": ["facts"],
                "properties": {
                    "facts": {"type": "array", "maxItems": 3, "items": {"type": "string"}}
                }
            })
        );
        // Nothing left to simplify: no second retry.
        assert!(simpler(&simple).is_none());
    }
}
