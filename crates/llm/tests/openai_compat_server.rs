//! The OpenAI-compatible client against a real server: llama.cpp's `llama-server`, built from
//! the PyPI sdist of llama-cpp-python by `scripts/fetch-llama-server.sh` (RS_LLAMA_SERVER names
//! it), serving the small test model (RS_TEST_MODEL). In CI both must be there; elsewhere the
//! test says it was skipped.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use research_llm::{connect, generate, ChatRequest, ConnectSettings, Flow, Message};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn paths() -> Option<(PathBuf, PathBuf)> {
    let server = std::env::var_os("RS_LLAMA_SERVER")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    let model = std::env::var_os("RS_TEST_MODEL")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    match (server, model) {
        (Some(s), Some(m)) => Some((s, m)),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "RS_LLAMA_SERVER and RS_TEST_MODEL must name the server and the model; scripts/test.sh sets both"
            );
            eprintln!(
                "skipped: set RS_LLAMA_SERVER (scripts/fetch-llama-server.sh) and RS_TEST_MODEL"
            );
            None
        }
    }
}

async fn start(server: &PathBuf, model: &PathBuf) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(server)
        .args(["-m"])
        .arg(model)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "-c",
            "2048",
            "-t",
            "2",
            "-np",
            "1",
            "--alias",
            "smollm2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("llama-server starts");
    let guard = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(r) = client.get(format!("{base}/health")).send().await {
            if r.status().is_success() {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "llama-server did not become healthy within a minute"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    (guard, base)
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Capital {
    #[schemars(length(min = 1, max = 40))]
    country: String,
    #[schemars(length(min = 1, max = 40))]
    capital: String,
}

#[tokio::test]
async fn chats_streams_and_answers_in_a_schema() {
    let Some((server, model)) = paths() else {
        return;
    };
    let (_guard, base) = start(&server, &model).await;
    let client = connect(
        &format!("openai-compat:{base}/v1#smollm2"),
        &ConnectSettings::default(),
    )
    .unwrap();

    let mut request = ChatRequest::new(vec![Message::user(
        "What is the capital of France? Answer in one sentence.",
    )]);
    request.max_tokens = Some(40);
    let plain = client.complete(&request, None).await.unwrap();
    assert!(!plain.text.trim().is_empty());
    assert!(plain.usage.prompt_tokens > 5, "{:?}", plain.usage);

    let streamed = Arc::new(Mutex::new(String::new()));
    let sink = {
        let streamed = streamed.clone();
        move |t: &str| {
            streamed.lock().unwrap().push_str(t);
            Flow::Continue
        }
    };
    let answer = client.complete(&request, Some(&sink)).await.unwrap();
    assert!(!answer.text.trim().is_empty());
    assert_eq!(*streamed.lock().unwrap(), answer.text);

    // The server constrains the answer with the schema (response_format json_schema).
    let mut request = ChatRequest::new(vec![Message::user(
        "Give the country France and its capital as JSON.",
    )]);
    request.max_tokens = Some(80);
    let capital = generate::<Capital>(client.as_ref(), request, None)
        .await
        .unwrap();
    assert!(!capital.value.country.is_empty() && !capital.value.capital.is_empty());
}

#[tokio::test]
async fn a_server_that_goes_away_is_a_clear_error() {
    let Some((server, model)) = paths() else {
        return;
    };
    let (guard, base) = start(&server, &model).await;
    drop(guard);
    let client = connect(
        &format!("openai-compat:{base}/v1#smollm2"),
        &ConnectSettings {
            retry: research_llm::RetryConfig {
                max_attempts: 1,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .unwrap();
    let err = client
        .complete(&ChatRequest::new(vec![Message::user("hi")]), None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("could not reach"), "{err}");
}
