//! The model-call toolkit every step uses: a request for a role shrunk to the model's window,
//! schema-checked JSON answers, answers a step may go on without, and warnings that reach both
//! the run's record and the live view.

use research_graph::{NodeCtx, NodeError};
use research_llm::{estimate_tokens, ChatRequest, LlmClient, LlmError, Message};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::records::{Answer, Asked, Question, Warning, WarningKind};
use crate::roles::Role;
use crate::{Env, Progress};

/// The context every step runs in: the engine's node context over the run's [`Env`].
pub type Ctx = NodeCtx<Env>;

pub(crate) fn llm_error(e: LlmError) -> NodeError {
    // The HTTP layer already retried what can be retried; the run stops at its checkpoint.
    NodeError::permanent(e)
}

/// The metered client for `role` and a request to it, shrunk to the model's context.
pub(crate) fn request_for(
    ctx: &Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
) -> (research_llm::Metered, ChatRequest) {
    let client = role.client(&ctx.config.models, ctx.node());
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request =
        ChatRequest::new(vec![Message::system(system), Message::user(user)]).purpose(role.name());
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.2);
    (client, request)
}

/// Asks for JSON valid for `schema` (checked), read as a `T`.
pub(crate) async fn ask_schema<T: DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
    schema: research_llm::OutputSchema,
) -> Result<T, NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    let value = match research_llm::generate_json(&client, request, schema, None).await {
        Ok(answer) => answer.value,
        // Out-of-range numbers in an otherwise readable answer: keep it, the caller filters.
        Err(LlmError::InvalidOutput { raw, error, .. }) => research_llm::json::extract(&raw)
            .and_then(|text| serde_json::from_str(&text).ok())
            .ok_or_else(|| {
                NodeError::permanent(format!(
                    "the model did not produce valid JSON for {role}: {error}"
                ))
            })?,
        Err(e) => return Err(llm_error(e)),
    };
    serde_json::from_value(value)
        .map_err(|e| NodeError::permanent(format!("the {role} answer has the wrong shape: {e}")))
}

/// The one retry after a degenerate free-text answer: cooler, with stronger repetition control
/// (honoured by the built-in model and Ollama; other providers ignore it).
pub(crate) fn stronger(request: &mut ChatRequest) {
    request.temperature = Some(0.1);
    request.repeat_penalty = Some(1.3);
}

/// [`ask_or`], asked once more with [`stronger`] sampling when the free text `text` picks out
/// of the answer is degenerate (a looping summary); the retry's answer wins when it has one.
pub(crate) async fn ask_or_retrying<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
    text: impl Fn(&T) -> &str,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    let mut retry = request.clone();
    stronger(&mut retry);
    let (out, mut warnings) = ask_with(ctx, role, &client, request).await?;
    let looping = out
        .as_ref()
        .is_some_and(|o| crate::guard::degenerate(text(o).trim()).is_some());
    if !looping {
        return Ok((out, warnings));
    }
    let (again, more) = ask_with(ctx, role, &client, retry).await?;
    warnings.extend(more);
    Ok((again.or(out), warnings))
}

/// Like [`ask_schema`], but a model that cannot produce the JSON even after the re-ask is a
/// warning and `None`, for steps whose work has a sensible default (a small local model must
/// not sink a whole run over a gap assessment). Provider failures still stop the run.
pub(crate) async fn ask_or<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    ask_with(ctx, role, &client, request).await
}

async fn ask_with<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    client: &research_llm::Metered,
    request: ChatRequest,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    match research_llm::generate::<T>(client, request, None).await {
        Ok(answer) => Ok((Some(answer.value), Vec::new())),
        Err(e @ LlmError::InvalidOutput { .. }) => Ok((
            None,
            vec![warn(
                ctx,
                format!("the {role} step went on without the model's answer: {e}"),
            )],
        )),
        Err(e) => Err(llm_error(e)),
    }
}

/// The context guard: cuts the user message (whose tail holds the least important evidence)
/// so that the prompt and the answer fit the model's window.
pub(crate) fn fit_to_context(
    client: &dyn LlmClient,
    system: &str,
    user: String,
    max_tokens: u32,
) -> String {
    let Some(window) = client.context_tokens() else {
        return user;
    };
    // Estimates run a little under real tokenizers on code and numbers: keep a margin.
    let room = (window.saturating_sub(max_tokens as usize + 64) * 8 / 10)
        .saturating_sub(estimate_tokens(system));
    if estimate_tokens(&user) <= room {
        return user;
    }
    let mut kept = String::new();
    for line in user.split_inclusive('\n') {
        if estimate_tokens(&kept) + estimate_tokens(line) > room {
            break;
        }
        kept.push_str(line);
    }
    kept
}

/// Asks the person `question` (an interrupt that survives a restart) and returns their
/// answer; when nobody answered before the run's review timeout, the answer the timeout
/// chose with why (for the decision record, which marks it automatic).
pub fn ask_person(ctx: &Ctx, question: Question) -> Result<(Answer, Option<String>), NodeError> {
    let asked = Asked {
        question,
        asked_at_ms: ctx.clock.now_ms(),
    };
    let answer: Answer = ctx.interrupt(&asked)?;
    if answer != Answer::TimedOut {
        return Ok((answer, None));
    }
    let timeout = ctx.config.config.review_timeout.ok_or_else(|| {
        NodeError::permanent("this run has no review timeout, so it takes no timed-out answer")
    })?;
    Ok((timeout.answer(&asked.question), Some(timeout.why())))
}

/// A warning kept with the run, shown live and logged.
pub(crate) fn warn(ctx: &Ctx, message: String) -> Warning {
    ctx.emit(Progress::Warning {
        message: message.clone(),
    });
    tracing::warn!(node = ctx.node(), "{message}");
    Warning {
        node: ctx.node().to_string(),
        detail: message.clone(),
        message,
        url: None,
        kind: WarningKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Small;

    #[async_trait::async_trait]
    impl LlmClient for Small {
        fn spec(&self) -> &str {
            "small"
        }
        fn context_tokens(&self) -> Option<usize> {
            Some(1_000)
        }
        async fn complete(
            &self,
            _: &ChatRequest,
            _: Option<research_llm::TokenSink<'_>>,
        ) -> Result<research_llm::ChatResponse, LlmError> {
            unreachable!()
        }
    }

    #[test]
    fn the_context_guard_drops_the_tail_of_the_evidence_to_fit() {
        let evidence: String = (1..=200)
            .map(|i| format!("- [{i}] fact number {i} with a few more words to take room\n"))
            .collect();
        let user = format!("Question: what?\nEvidence:\n{evidence}");
        let fitted = fit_to_context(&Small, "system prompt", user.clone(), 300);
        assert!(fitted.len() < user.len());
        assert!(fitted.starts_with("Question: what?"), "the head is kept");
        assert!(estimate_tokens(&fitted) + 300 <= 1_000);
        assert!(fitted.ends_with('\n'), "cut at a line, not inside one");
        // A model without a known window gets everything.
        struct Big;
        #[async_trait::async_trait]
        impl LlmClient for Big {
            fn spec(&self) -> &str {
                "big"
            }
            async fn complete(
                &self,
                _: &ChatRequest,
                _: Option<research_llm::TokenSink<'_>>,
            ) -> Result<research_llm::ChatResponse, LlmError> {
                unreachable!()
            }
        }
        assert_eq!(fit_to_context(&Big, "s", user.clone(), 300), user);
    }
}
