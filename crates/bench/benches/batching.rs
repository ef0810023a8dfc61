//! The built-in model serving N requests at once, against llama.cpp's own server doing the same
//! (`llama-server --parallel N`), on the same GGUF file, threads and machine.
//!
//! `RS_TEST_MODEL` names the model (scripts/fetch-model.sh), `LLAMA_SERVER` the server binary
//! (scripts/fetch-llama-server.sh; skipped when unset). For N in 1, 2, 4, 8: N different
//! questions sent together, greedy, up to 128 tokens each; aggregate generated tokens per second
//! of wall time, the median of three rounds after a warm-up round (`BATCHING_SIZES=2,4` for some
//! sizes only). Prints one JSON line per N and engine.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use research_llm::{
    connect, ChatRequest, ConnectSettings, LlmClient, LocalConfig, LocalLlm, Message,
};

const QUESTIONS: [&str; 8] = [
    "Write a paragraph about how honey bees tell each other where flowers are.",
    "Explain in a paragraph why a write-ahead log makes a database crash-safe.",
    "Describe the city of Kyoto in a paragraph.",
    "Write a paragraph on the uses of copper in electrical wiring.",
    "Explain in a paragraph how a compiler turns source code into machine code.",
    "Describe the water cycle in a paragraph.",
    "Write a paragraph about the history of the bicycle.",
    "Explain in a paragraph what a hash table is and why lookups are fast.",
];

const TOKENS: u32 = 128;

fn request(i: usize) -> ChatRequest {
    let mut r = ChatRequest::new(vec![Message::user(QUESTIONS[i % QUESTIONS.len()])]);
    r.max_tokens = Some(TOKENS);
    r.temperature = Some(0.0);
    r
}

/// Tokens per second of `n` requests sent at once: the median of three rounds.
async fn aggregate(llm: Arc<dyn LlmClient>, n: usize) -> (f64, u64) {
    let round = || async {
        let t = Instant::now();
        let answers = futures::future::join_all((0..n).map(|i| {
            let llm = llm.clone();
            async move { llm.complete(&request(i), None).await.unwrap() }
        }))
        .await;
        let tokens: u64 = answers.iter().map(|a| a.usage.completion_tokens).sum();
        (tokens as f64 / t.elapsed().as_secs_f64(), tokens)
    };
    round().await;
    let mut rounds = Vec::new();
    for _ in 0..3 {
        rounds.push(round().await);
    }
    rounds.sort_by(|a, b| a.0.total_cmp(&b.0));
    rounds[1]
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn start_server(bin: &PathBuf, model: &PathBuf, n: usize) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(bin)
        .arg("-m")
        .arg(model)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args([
            "-c",
            &(4096 * n).to_string(),
            "-t",
            "2",
            "-np",
            &n.to_string(),
        ])
        .args(["--alias", "model"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("llama-server starts");
    let server = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    loop {
        let healthy = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            && reqwest_health(&base).await;
        if healthy {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "llama-server did not start"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    (server, base)
}

async fn reqwest_health(base: &str) -> bool {
    // The OpenAI-compatible client answers only once the model is loaded.
    let probe = connect(
        &format!("openai-compat:{base}/v1#model"),
        &ConnectSettings::default(),
    );
    let Ok(client) = probe else { return false };
    let mut r = ChatRequest::new(vec![Message::user("Hi")]);
    r.max_tokens = Some(1);
    client.complete(&r, None).await.is_ok()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(model) = std::env::var_os("RS_TEST_MODEL").map(PathBuf::from) else {
        eprintln!("set RS_TEST_MODEL to a GGUF file (scripts/fetch-model.sh)");
        return;
    };
    let server = std::env::var_os("LLAMA_SERVER").map(PathBuf::from);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let name = model.file_name().unwrap().to_string_lossy().to_string();
    // BATCHING_SIZES=2,4 measures some sizes only.
    let sizes: Vec<usize> = std::env::var("BATCHING_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 4, 8]);
    for n in sizes {
        // Plain greedy decoding on both sides: no penalties, no loop guard.
        // BATCHING_SLOTS=8: an engine made for 8 at once whatever N (as a run's is).
        let slots = std::env::var("BATCHING_SLOTS")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(n as u32);
        let config = LocalConfig {
            max_sequences: slots,
            repeat_penalty: 1.0,
            dry_multiplier: 0.0,
            loop_repeats: 0,
            top_k: 0,
            min_p: 0.0,
            ..LocalConfig::default()
        };
        let ours: Arc<dyn LlmClient> = Arc::new(LocalLlm::open(&model, config).unwrap());
        let (tps, tokens) = rt.block_on(aggregate(ours, n));
        println!(
            "{}",
            serde_json::json!({"scenario": "batching", "model": name, "engine": "built-in", "slots": slots, "concurrent": n,
                "tokens": tokens, "tokens_per_s": (tps * 10.0).round() / 10.0})
        );
        if let Some(bin) = &server {
            let (tps, tokens) = rt.block_on(async {
                let (_server, base) = start_server(bin, &model, n).await;
                let client = connect(
                    &format!("openai-compat:{base}/v1#model"),
                    &ConnectSettings::default(),
                )
                .unwrap();
                aggregate(client, n).await
            });
            println!(
                "{}",
                serde_json::json!({"scenario": "batching", "model": name, "engine": "llama-server", "concurrent": n,
                    "tokens": tokens, "tokens_per_s": (tps * 10.0).round() / 10.0})
            );
        }
    }
}
