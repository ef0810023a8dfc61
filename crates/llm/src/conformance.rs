//! One conformance suite for every HTTP [`LlmClient`]: the same cases and the same assertions
//! run against OpenAI, Anthropic, Gemini, Ollama and OpenAI-compatible servers, each answered by
//! a local mock server.
//!
//! An implementation supplies a [`MockApi`]: how a call to its API looks (method, path, key
//! header, stream flag) and how its API shapes an answer, a stream, a structured answer and an
//! error. The suite supplies the cases: completion, the conversation and limits sent, streaming,
//! a broken stream, structured output (whole and streamed, with one re-ask), every failure
//! mapped to its typed [`LlmError`] (401/403, 429, 5xx, other 4xx, context overflow, malformed
//! JSON, an HTML page, timeouts, a server that is not running) and which of them are retried.
//!
//! Use [`llm_conformance!`](crate::llm_conformance) in a test module with an expression that
//! makes the adapter; it writes one `#[tokio::test]` per case.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::{MockBuilder, MockServer, ResponseTemplate};

use crate::{generate, ChatRequest, Flow, LlmClient, LlmError, Message, RetryConfig, Role, Usage};

pub use wiremock;

/// The model id every client in the suite is made for.
pub const MODEL: &str = "conformance-model";

/// The model the mock answers say answered (servers name a dated version).
pub const SERVED_MODEL: &str = "conformance-model-2025-01-01";

/// How one provider's API is mocked: the requests it makes and the answers it reads.
pub trait MockApi: Send + Sync {
    /// The provider's name, as its errors give it.
    fn provider(&self) -> &str;

    /// A client for [`MODEL`] on the server at `base` (scheme, host and port, no path).
    fn client(&self, base: &str, timeout: Duration, retry: RetryConfig) -> Arc<dyn LlmClient>;

    /// Matches one call: method, path, key header and, where the API has one, the stream flag.
    fn call(&self, stream: bool) -> MockBuilder;

    /// A whole answer with `text`, from [`SERVED_MODEL`], with `usage`.
    fn answer(&self, text: &str, usage: Usage) -> ResponseTemplate;

    /// A streamed answer in `pieces`, from [`SERVED_MODEL`], with `usage`; unless `finished`,
    /// the stream breaks off before the API's end marker.
    fn stream(&self, pieces: &[&str], usage: Usage, finished: bool) -> ResponseTemplate;

    /// A structured answer carrying `value` the API's native way (as text unless overridden).
    fn structured(&self, value: &Value, usage: Usage) -> ResponseTemplate {
        self.answer(&value.to_string(), usage)
    }

    /// A streamed structured answer carrying `value` (as streamed text unless overridden).
    fn structured_stream(&self, value: &Value, usage: Usage) -> ResponseTemplate {
        let text = value.to_string();
        let (a, b) = text.split_at(text.len() / 2);
        self.stream(&[a, b], usage, true)
    }

    /// An error with `status` and the API's error body carrying `message`.
    fn error(&self, status: u16, message: &str) -> ResponseTemplate;

    /// The API's answer to a prompt longer than the model's context.
    fn context_overflow(&self) -> ResponseTemplate;

    /// The JSON schema a request body carried, where the API wants it.
    fn sent_schema<'a>(&self, body: &'a Value) -> Option<&'a Value>;

    /// The conversation and limits a request body carried, read back from the API's shape.
    fn sent(&self, body: &Value) -> Sent;

    /// What an unreachable-server error adds after its reason (how to start the server).
    fn unreachable_hint(&self) -> &str {
        ""
    }
}

/// A request as the suite reads it back from the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    /// Every message with its role, system instructions included, in order.
    pub messages: Vec<(Role, String)>,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// The limit on generated tokens.
    pub max_tokens: Option<u64>,
}

/// The structured answer the suite asks for.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
pub struct Plan {
    /// Research questions.
    pub questions: Vec<String>,
}

fn usage(prompt: u64, completion: u64) -> Usage {
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
    }
}

fn retry(max_attempts: u32) -> RetryConfig {
    RetryConfig {
        max_attempts,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(50),
    }
}

fn client(api: &dyn MockApi, server: &MockServer) -> Arc<dyn LlmClient> {
    api.client(&server.uri(), Duration::from_secs(5), retry(3))
}

fn ask(text: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system("Be brief."), Message::user(text)])
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| r.body_json().expect("requests are JSON"))
        .collect()
}

type Pieces = Arc<Mutex<Vec<String>>>;

fn collector() -> (Pieces, impl Fn(&str) -> Flow + Send + Sync) {
    let seen = Pieces::default();
    let s = seen.clone();
    (seen, move |t: &str| {
        s.lock().unwrap().push(t.to_string());
        Flow::Continue
    })
}

/// A sink that goes on until it has seen `n` pieces, then says stop.
fn stopping_after(n: usize) -> (Pieces, impl Fn(&str) -> Flow + Send + Sync) {
    let seen = Pieces::default();
    let s = seen.clone();
    (seen, move |t: &str| {
        let mut seen = s.lock().unwrap();
        seen.push(t.to_string());
        if seen.len() >= n {
            Flow::Stop
        } else {
            Flow::Continue
        }
    })
}

/// A sink that takes every piece and never stops the answer.
fn ignore(_: &str) -> Flow {
    Flow::Continue
}

/// A plain call gives the answer's text, the model that answered and the token counts, in one
/// request that carries the key.
pub async fn answers_with_text_usage_and_model(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.answer("Paris.", usage(12, 7)))
        .expect(1)
        .mount(&server)
        .await;
    let answer = client(api, &server)
        .complete(&ask("Capital of France?"), None)
        .await
        .unwrap();
    assert_eq!(answer.text, "Paris.");
    assert_eq!(answer.model, SERVED_MODEL);
    assert_eq!(answer.usage, usage(12, 7));
}

/// The whole conversation reaches the API in order with the right roles, system instructions
/// included, and so do the temperature and the token limit.
pub async fn sends_the_conversation_and_limits(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.answer("Rome.", usage(30, 2)))
        .expect(1)
        .mount(&server)
        .await;
    let mut request = ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Capital of France?"),
        Message::assistant("Paris."),
        Message::user("And of Italy?"),
    ]);
    request.temperature = Some(0.25);
    request.max_tokens = Some(300);
    client(api, &server).complete(&request, None).await.unwrap();
    let sent = api.sent(&bodies(&server).await[0]);
    assert_eq!(
        sent,
        Sent {
            messages: request
                .messages
                .iter()
                .map(|m| (m.role, m.content.clone()))
                .collect(),
            temperature: Some(0.25),
            max_tokens: Some(300),
        }
    );
}

/// With a token sink, the answer streams: the sink sees every piece in order, and the response
/// holds the whole text, the model and the token counts.
pub async fn streams_pieces_as_they_arrive(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.stream(&["Hel", "lo, ", "world"], usage(5, 3), true))
        .expect(1)
        .mount(&server)
        .await;
    let (seen, sink) = collector();
    let answer = client(api, &server)
        .complete(&ask("hi"), Some(&sink))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), ["Hel", "lo, ", "world"]);
    assert_eq!(answer.text, "Hello, world");
    assert_eq!(answer.model, SERVED_MODEL);
    assert_eq!(answer.usage, usage(5, 3));
}

/// A sink that says stop ends the answer there: the response is the text streamed up to and
/// with that piece, a success, and the sink is given nothing after it.
pub async fn a_sink_that_says_stop_ends_the_answer(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.stream(&["One. ", "Two. ", "Three. ", "Four."], usage(5, 4), true))
        .expect(1)
        .mount(&server)
        .await;
    let (seen, sink) = stopping_after(2);
    let answer = client(api, &server)
        .complete(&ask("count"), Some(&sink))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), ["One. ", "Two. "]);
    assert_eq!(answer.text, "One. Two. ");
}

/// A stream that ends before the API's end marker is an error, not a short answer.
pub async fn a_stream_that_breaks_off_is_an_error(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.stream(&["The answer is"], usage(5, 3), false))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), Some(&ignore))
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("the stream ended before the answer did"),
        "{err}"
    );
    assert!(!err.is_retryable());
}

/// Structured output sends the schema where the API wants it and parses the API's answer.
pub async fn structured_output_sends_the_schema_and_parses_the_answer(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.structured(&json!({"questions": ["Why?", "How?"]}), usage(20, 9)))
        .expect(1)
        .mount(&server)
        .await;
    let out = generate::<Plan>(client(api, &server).as_ref(), ask("plan it"), None)
        .await
        .unwrap();
    assert_eq!(out.value.questions, ["Why?", "How?"]);
    assert_eq!((out.calls, out.usage), (1, usage(20, 9)));
    let body = &bodies(&server).await[0];
    let schema = api
        .sent_schema(body)
        .unwrap_or_else(|| panic!("no schema in {body}"));
    assert_eq!(schema["properties"]["questions"]["type"], "array");
}

/// Structured output works when streamed as well.
pub async fn structured_output_streams(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.structured_stream(&json!({"questions": ["Where?"]}), usage(20, 9)))
        .expect(1)
        .mount(&server)
        .await;
    let out = generate::<Plan>(client(api, &server).as_ref(), ask("plan it"), Some(&ignore))
        .await
        .unwrap();
    assert_eq!(out.value.questions, ["Where?"]);
    assert!(api.sent_schema(&bodies(&server).await[0]).is_some());
}

/// An answer that does not parse is asked for again once, with the parse error; the second
/// answer counts; two bad answers are an [`LlmError::InvalidOutput`] naming the schema.
pub async fn invalid_structured_output_is_asked_again_then_a_typed_error(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.answer("Sorry, I can't do JSON.", usage(12, 7)))
        .up_to_n_times(1)
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    api.call(false)
        .respond_with(api.structured(&json!({"questions": ["a"]}), usage(12, 7)))
        .with_priority(2)
        .expect(1)
        .mount(&server)
        .await;
    let out = generate::<Plan>(client(api, &server).as_ref(), ask("plan"), None)
        .await
        .unwrap();
    assert_eq!(out.value.questions, ["a"]);
    assert_eq!((out.calls, out.usage), (2, usage(24, 14)));
    let second = api.sent(&bodies(&server).await[1]);
    let (role, last) = second.messages.last().unwrap();
    assert_eq!(*role, Role::User);
    assert!(last.contains("not valid JSON"), "{last}");

    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.structured(&json!({"questions": "not a list"}), usage(1, 1)))
        .expect(2)
        .mount(&server)
        .await;
    let err = generate::<Plan>(client(api, &server).as_ref(), ask("plan"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::InvalidOutput { ref schema, .. } if schema == "Plan"),
        "{err}"
    );
    assert!(!err.is_retryable());
}

/// 401 and 403 are a refused key: said so, and never retried.
pub async fn a_refused_key_is_not_retried(api: &dyn MockApi) {
    for status in [401, 403] {
        let server = MockServer::start().await;
        api.call(false)
            .respond_with(api.error(status, "invalid API key"))
            .expect(1)
            .mount(&server)
            .await;
        let err = client(api, &server)
            .complete(&ask("q"), None)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            LlmError::Unauthorized {
                provider: api.provider().into(),
                status
            }
        );
        assert!(
            err.to_string()
                .starts_with(&format!("the key for {} was refused", api.provider())),
            "{err}"
        );
        assert!(!err.is_retryable());
    }
}

/// 429 is retried up to the attempt limit, then reported as a retryable rate limit.
pub async fn rate_limits_are_retried_then_reported(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.error(429, "Rate limit reached"))
        .expect(3)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::RateLimited {
            provider: api.provider().into(),
            attempts: 3
        }
    );
    assert!(err.is_retryable());
    assert!(err.to_string().contains("HTTP 429"), "{err}");
}

/// Rate limits wait what `Retry-After` says (not the backoff), then the call succeeds.
pub async fn rate_limits_honour_retry_after_then_succeed(api: &dyn MockApi) {
    let server = MockServer::start().await;
    for (priority, wait) in [(1, "1"), (2, "0")] {
        api.call(false)
            .respond_with(
                api.error(429, "Rate limit reached")
                    .insert_header("retry-after", wait),
            )
            .up_to_n_times(1)
            .with_priority(priority)
            .expect(1)
            .mount(&server)
            .await;
    }
    api.call(false)
        .respond_with(api.answer("ok", usage(1, 1)))
        .with_priority(3)
        .expect(1)
        .mount(&server)
        .await;
    // A backoff of 20 s: only `Retry-After` can make the retries this quick.
    let slow_backoff = RetryConfig {
        max_attempts: 3,
        base_delay: Duration::from_secs(20),
        max_delay: Duration::from_secs(20),
    };
    let started = Instant::now();
    let answer = api
        .client(&server.uri(), Duration::from_secs(5), slow_backoff)
        .complete(&ask("q"), None)
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(answer.text, "ok");
    assert!(
        took >= Duration::from_millis(900),
        "Retry-After: 1 was not waited for ({took:?})"
    );
    assert!(
        took < Duration::from_secs(10),
        "the backoff was used instead of Retry-After ({took:?})"
    );
}

/// 5xx is retried up to the attempt limit, then reported as a retryable server error, whatever
/// the body (the API's error JSON or a proxy's plain text).
pub async fn server_errors_are_retried_then_reported(api: &dyn MockApi) {
    for (status, response) in [
        (500, api.error(500, "The server had an error")),
        (
            503,
            ResponseTemplate::new(503).set_body_string("upstream busy"),
        ),
    ] {
        let server = MockServer::start().await;
        api.call(false)
            .respond_with(response)
            .expect(3)
            .mount(&server)
            .await;
        let err = client(api, &server)
            .complete(&ask("q"), None)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            LlmError::Server {
                provider: api.provider().into(),
                status,
                attempts: 3
            }
        );
        assert!(err.is_retryable());
    }
}

/// A server error followed by an answer is a success, after one retry.
pub async fn a_server_error_then_an_answer_succeeds(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.error(500, "The server had an error"))
        .up_to_n_times(1)
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    api.call(false)
        .respond_with(api.answer("fine now", usage(1, 2)))
        .with_priority(2)
        .expect(1)
        .mount(&server)
        .await;
    let answer = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap();
    assert_eq!(answer.text, "fine now");
}

/// Another 4xx is a refused request carrying the server's explanation, not retried.
pub async fn other_refusals_carry_the_servers_message(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.error(400, "Unsupported value: 'temperature'"))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    match &err {
        LlmError::Request {
            provider,
            status: 400,
            message,
        } => {
            assert_eq!(provider, api.provider());
            assert!(
                message.contains("Unsupported value: 'temperature'"),
                "{message}"
            );
        }
        other => panic!("expected a refused request, got {other:?}"),
    }
    assert!(!err.is_retryable());
}

/// The API's own "prompt too long" answer is a context overflow, not retried.
pub async fn context_overflow_is_named(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(api.context_overflow())
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LlmError::ContextOverflow { provider, .. } if provider == api.provider()),
        "{err:?}"
    );
    assert!(!err.is_retryable());
}

/// A success status with a body that is not JSON is a clear error, not retried.
pub async fn malformed_json_is_a_clear_error(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("{\"choices\": [", "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LlmError::BadResponse { provider, .. } if provider == api.provider()),
        "{err:?}"
    );
    assert!(err.to_string().contains("the JSON was malformed"), "{err}");
    assert!(!err.is_retryable());
}

/// An HTML page where JSON was expected (a wrong base URL, a proxy) is named with its title.
pub async fn an_html_page_is_named(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            "<html><head><title>Welcome to nginx!</title></head></html>",
            "text/html",
        ))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::BadResponse { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("an HTML page (\"Welcome to nginx!\") instead of JSON"),
        "{err}"
    );
}

/// A server that does not answer in time is a retryable timeout, reported when the limit is
/// reached rather than when the server finally answers.
pub async fn a_silent_server_times_out(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(false)
        .respond_with(
            api.answer("late", usage(1, 1))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let limit = Duration::from_millis(200);
    let started = Instant::now();
    let err = api
        .client(&server.uri(), limit, retry(1))
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Timeout {
            provider: api.provider().into(),
            timeout: limit
        }
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(err.is_retryable());
}

/// A server that is not running is named with its address, the reason and the provider's hint.
pub async fn a_server_that_is_not_running_is_named(api: &dyn MockApi) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let err = api
        .client(&base, Duration::from_secs(5), retry(2))
        .complete(&ask("q"), None)
        .await
        .unwrap_err();
    let LlmError::Unreachable {
        provider,
        url,
        hint,
        ..
    } = &err
    else {
        panic!("expected an unreachable server, got {err:?}")
    };
    assert_eq!(provider, api.provider());
    assert!(url.starts_with(&base), "{url}");
    assert_eq!(hint, api.unreachable_hint());
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "could not reach {provider} at {url}: Connection refused"
        )),
        "{text}"
    );
    assert!(text.ends_with(api.unreachable_hint()), "{text}");
    assert!(err.is_retryable());
}

/// A streaming call maps failures the same way as a plain one.
pub async fn streaming_calls_map_errors_the_same(api: &dyn MockApi) {
    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.error(401, "invalid API key"))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), Some(&ignore))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::Unauthorized {
            provider: api.provider().into(),
            status: 401
        }
    );

    let server = MockServer::start().await;
    api.call(true)
        .respond_with(api.error(429, "Rate limit reached"))
        .expect(3)
        .mount(&server)
        .await;
    let err = client(api, &server)
        .complete(&ask("q"), Some(&ignore))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LlmError::RateLimited {
            provider: api.provider().into(),
            attempts: 3
        }
    );
}

/// Writes one `#[tokio::test]` per conformance case for the [`MockApi`] made by `$api`.
#[macro_export]
macro_rules! llm_conformance {
    ($api:expr) => {
        $crate::llm_conformance!(@tests $api;
            answers_with_text_usage_and_model, sends_the_conversation_and_limits,
            streams_pieces_as_they_arrive, a_sink_that_says_stop_ends_the_answer,
            a_stream_that_breaks_off_is_an_error,
            structured_output_sends_the_schema_and_parses_the_answer, structured_output_streams,
            invalid_structured_output_is_asked_again_then_a_typed_error,
            a_refused_key_is_not_retried, rate_limits_are_retried_then_reported,
            rate_limits_honour_retry_after_then_succeed, server_errors_are_retried_then_reported,
            a_server_error_then_an_answer_succeeds, other_refusals_carry_the_servers_message,
            context_overflow_is_named, malformed_json_is_a_clear_error, an_html_page_is_named,
            a_silent_server_times_out, a_server_that_is_not_running_is_named,
            streaming_calls_map_errors_the_same);
    };
    (@tests $api:expr; $($case:ident),*) => {
        $(
            #[tokio::test]
            async fn $case() {
                let api = $api;
                $crate::conformance::$case(&api).await;
            }
        )*
    };
}
