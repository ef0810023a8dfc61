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
pub(crate) fn request_for<'a>(
    ctx: &'a Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
) -> (Fitting<'a>, ChatRequest) {
    let client = Fitting::new(ctx, role);
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request =
        ChatRequest::new(vec![Message::system(system), Message::user(user)]).purpose(role.name());
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.2);
    (client, request)
}

/// Times a provider's "too long" is met by cutting the prompt before the call fails.
const MAX_CUTS: u32 = 2;

/// A role's metered client that meets a context overflow the provider reports — the estimate
/// in [`fit_to_context`] only predicts one — by asking again with the longest user message cut
/// to half (then a quarter), keeping its head, where the question and the best evidence are.
/// Each cut is a warning of its own kind, taken with [`Fitting::warnings`].
pub(crate) struct Fitting<'a> {
    client: research_llm::Metered,
    ctx: &'a Ctx,
    warnings: std::sync::Mutex<Vec<Warning>>,
}

impl<'a> Fitting<'a> {
    pub(crate) fn new(ctx: &'a Ctx, role: Role) -> Self {
        Self {
            client: role.client(&ctx.config.models, ctx.node()),
            ctx,
            warnings: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The warnings of the calls so far (each taken once).
    pub(crate) fn warnings(&self) -> Vec<Warning> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    fn keep(&self, warning: Warning) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(warning);
        }
    }
}

/// Cuts the longest user message of `request` to about half its tokens, at a line; false when
/// there is too little left to cut.
fn halve_longest_user_message(request: &mut ChatRequest) -> bool {
    let Some(message) = request
        .messages
        .iter_mut()
        .filter(|m| m.role == research_llm::Role::User)
        .max_by_key(|m| m.content.len())
    else {
        return false;
    };
    let tokens = estimate_tokens(&message.content);
    if tokens < 64 {
        return false;
    }
    let mut kept = String::new();
    for line in message.content.split_inclusive('\n') {
        if estimate_tokens(&kept) + estimate_tokens(line) > tokens / 2 {
            break;
        }
        kept.push_str(line);
    }
    if kept.is_empty() {
        // One long line: cut it at a character boundary.
        kept = message
            .content
            .chars()
            .take(message.content.chars().count() / 2)
            .collect();
    }
    message.content = kept;
    true
}

#[async_trait::async_trait]
impl LlmClient for Fitting<'_> {
    fn spec(&self) -> &str {
        self.client.spec()
    }

    fn context_tokens(&self) -> Option<usize> {
        self.client.context_tokens()
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<research_llm::TokenSink<'_>>,
    ) -> Result<research_llm::ChatResponse, LlmError> {
        let mut request = request.clone();
        let mut cuts = 0;
        loop {
            match self.client.complete(&request, on_token).await {
                Err(LlmError::ContextOverflow { provider, message })
                    if cuts < MAX_CUTS && halve_longest_user_message(&mut request) =>
                {
                    cuts += 1;
                    let mut w = warn(
                        self.ctx,
                        format!(
                            "{provider} said the prompt was too long for the model; asked again with the material cut to 1/{}",
                            1 << cuts
                        ),
                    );
                    w.kind = WarningKind::ContextOverflow;
                    w.detail = message;
                    self.keep(w);
                }
                other => return other,
            }
        }
    }
}

/// Asks for JSON valid for `schema` (checked), read as a `T`; an answer that does not parse
/// even after the re-ask is asked once more with a [`research_llm::simpler`] schema.
pub(crate) async fn ask_schema<T: DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    system: String,
    user: String,
    max_tokens: u32,
    schema: research_llm::OutputSchema,
) -> Result<(T, Vec<Warning>), NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    let value =
        match research_llm::generate_json(&client, request.clone(), schema.clone(), None).await {
            Ok(answer) => answer.value,
            // Out-of-range numbers in an otherwise readable answer: keep it, the caller filters.
            Err(LlmError::InvalidOutput { raw, error, .. }) => {
                match research_llm::json::extract(&raw)
                    .and_then(|text| serde_json::from_str(&text).ok())
                {
                    Some(value) => value,
                    None => simpler_answer(ctx, role, &client, request, &schema, &error)
                        .await?
                        .ok_or_else(|| {
                            NodeError::permanent(format!(
                                "the model did not produce valid JSON for {role}: {error}"
                            ))
                        })?,
                }
            }
            Err(e) => return Err(llm_error(e)),
        };
    let value = serde_json::from_value(value)
        .map_err(|e| NodeError::permanent(format!("the {role} answer has the wrong shape: {e}")))?;
    Ok((value, client.warnings()))
}

/// The parse-failure category: the same request with a simpler schema, once. The answer when
/// it parses (with a warning saying the simpler form was used), else `None`.
async fn simpler_answer(
    ctx: &Ctx,
    role: Role,
    client: &Fitting<'_>,
    request: ChatRequest,
    schema: &research_llm::OutputSchema,
    error: &str,
) -> Result<Option<serde_json::Value>, NodeError> {
    let Some(simple) = research_llm::simpler(schema) else {
        return Ok(None);
    };
    let answer = match research_llm::generate_json(client, request, simple, None).await {
        Ok(answer) => Some(answer.value),
        Err(LlmError::InvalidOutput { .. }) => None,
        Err(e) => return Err(llm_error(e)),
    };
    let mut w = warn(
        ctx,
        format!(
            "the {role} answer did not parse ({error}); {}",
            if answer.is_some() {
                "a simpler form was asked for and used"
            } else {
                "nor did the simpler form asked for next"
            }
        ),
    );
    w.kind = WarningKind::ParseFailed;
    w.detail = error.to_string();
    client.keep(w);
    Ok(answer)
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

/// Like [`ask_schema`], but a model that cannot produce the JSON even after the re-ask and the
/// simpler schema is a warning and `None`, for steps whose work has a sensible default (a
/// small local model must not sink a whole run over a gap assessment). Provider failures still
/// stop the run.
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

/// [`ask_or`] under a purpose of its own (the call's name in the meter and the kept calls),
/// for a task a role's model does besides its main one.
pub(crate) async fn ask_or_as<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    purpose: &str,
    system: String,
    user: String,
    max_tokens: u32,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    ask_with(ctx, role, &client, request.purpose(purpose)).await
}

async fn ask_with<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: Role,
    client: &Fitting<'_>,
    request: ChatRequest,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    let (out, failed) = match research_llm::generate::<T>(client, request.clone(), None).await {
        Ok(answer) => (Some(answer.value), None),
        Err(e @ LlmError::InvalidOutput { .. }) => {
            let why = e.to_string();
            let schema = research_llm::schema_of::<T>();
            let simple = simpler_answer(ctx, role, client, request, &schema, &why)
                .await?
                .and_then(|v| serde_json::from_value(v).ok());
            (simple, Some(why))
        }
        Err(e) => return Err(llm_error(e)),
    };
    let mut warnings = client.warnings();
    if let (None, Some(e)) = (&out, failed) {
        let mut w = warn(
            ctx,
            format!("the {role} step went on without the model's answer: {e}"),
        );
        w.kind = WarningKind::ParseFailed;
        warnings.push(w);
    }
    Ok((out, warnings))
}

/// The tokens a user message may take in a `window`-token context beside `system` and an
/// answer of `max_tokens`. Estimates run a little under real tokenizers on code and numbers:
/// a margin is kept.
pub(crate) fn prompt_room(window: usize, system: &str, max_tokens: u32) -> usize {
    (window.saturating_sub(max_tokens as usize + 64) * 8 / 10)
        .saturating_sub(estimate_tokens(system))
}

/// The context window of the model that plays `role` in this run, when known.
pub(crate) fn window(ctx: &Ctx, role: Role) -> Option<usize> {
    Fitting::new(ctx, role).context_tokens()
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
    let room = prompt_room(window, system, max_tokens);
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
