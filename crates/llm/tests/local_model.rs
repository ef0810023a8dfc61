//! The built-in model on a real GGUF file (SmolLM2-135M-Instruct, fetched by scripts/fetch-model.sh
//! into the cache; RS_TEST_MODEL names it). In CI a missing model fails the test; elsewhere the
//! tests say they were skipped.
#![cfg(feature = "local")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_llm::{
    connect, generate, ChatRequest, ConnectSettings, Flow, LlmClient, LlmError, LocalConfig,
    LocalLlm, Message,
};

fn model_path() -> Option<PathBuf> {
    model_named("RS_TEST_MODEL")
}

/// The GGUF file the environment variable `var` names (scripts/test.sh sets both test models'
/// with scripts/fetch-model.sh); in CI a missing one fails the test, elsewhere it is skipped.
fn model_named(var: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    if path.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{var} does not name a test model; scripts/test.sh fetches it with scripts/fetch-model.sh"
        );
        eprintln!("skipped: set {var} to a GGUF (scripts/fetch-model.sh prints its path)");
    }
    path
}

fn model() -> Option<Arc<dyn LlmClient>> {
    let path = model_path();
    let path = path?;
    Some(
        connect(
            &format!("local:{}", path.display()),
            &ConnectSettings::default(),
        )
        .unwrap(),
    )
}

#[tokio::test]
async fn answers_and_streams() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user(
        "What is the capital of France? Answer in one sentence.",
    )]);
    request.max_tokens = Some(48);
    let streamed = Arc::new(Mutex::new(String::new()));
    let sink = {
        let streamed = streamed.clone();
        move |t: &str| {
            streamed.lock().unwrap().push_str(t);
            Flow::Continue
        }
    };
    let answer = model.complete(&request, Some(&sink)).await.unwrap();
    assert!(!answer.text.trim().is_empty());
    assert_eq!(
        *streamed.lock().unwrap(),
        answer.text,
        "streamed pieces add up to the answer"
    );
    assert!(answer.usage.prompt_tokens > 5 && answer.usage.completion_tokens > 0);
    assert!(answer.usage.completion_tokens <= 48);
}

/// A sink that says stop ends the answer at that piece: the answer is what was streamed, no
/// more tokens are counted, and the engine goes on serving (the sequence's slot is free).
#[tokio::test]
async fn a_sink_that_says_stop_ends_the_generation() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user(
        "Write a long story about a lighthouse keeper.",
    )]);
    request.max_tokens = Some(200);
    request.temperature = Some(0.0);
    let streamed = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = {
        let streamed = streamed.clone();
        move |t: &str| {
            let mut s = streamed.lock().unwrap();
            s.push(t.to_string());
            if s.len() >= 5 {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
    };
    let answer = model.complete(&request, Some(&sink)).await.unwrap();
    let pieces = streamed.lock().unwrap().clone();
    assert_eq!(pieces.len(), 5, "nothing is streamed after the stop");
    assert_eq!(answer.text, pieces.concat());
    assert_eq!(answer.usage.completion_tokens, 5);
    assert!(answer.usage.prompt_tokens > 5);
    request.max_tokens = Some(8);
    let next = model.complete(&request, None).await.unwrap();
    assert!(
        next.text.starts_with(answer.text.trim_end()),
        "a fresh greedy answer begins as the stopped one did: {:?} / {:?}",
        next.text,
        answer.text
    );
}

#[tokio::test]
async fn a_stop_string_ends_the_answer_and_is_not_streamed() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user("List five fruits, one per line.")]);
    request.max_tokens = Some(96);
    request.temperature = Some(0.0);
    request.stop = vec!["\n".into()];
    let streamed = Arc::new(Mutex::new(String::new()));
    let sink = {
        let streamed = streamed.clone();
        move |t: &str| {
            streamed.lock().unwrap().push_str(t);
            Flow::Continue
        }
    };
    let answer = model.complete(&request, Some(&sink)).await.unwrap();
    assert!(!answer.text.contains('\n'), "{:?}", answer.text);
    assert_eq!(*streamed.lock().unwrap(), answer.text);
    assert!(answer.usage.completion_tokens < 96, "{:?}", answer.text);
}

/// With the penalties off the model loops on this ("The truth is that facts are facts." until
/// the 400-token limit); the guard ends the answer after a few repeats.
#[tokio::test]
async fn a_looping_answer_is_cut_short() {
    let Some(path) = model_path() else { return };
    let model = LocalLlm::open(
        &path,
        LocalConfig {
            loop_repeats: 4,
            ..old_sampling()
        },
    )
    .unwrap();
    let mut request = ChatRequest::new(vec![Message::user(
        "Write a very long essay about the fact that the fact is that facts are facts.",
    )]);
    request.max_tokens = Some(400);
    request.temperature = Some(0.0);
    let answer = model.complete(&request, None).await.unwrap();
    assert!(
        answer.usage.completion_tokens < 150,
        "{} tokens: {}",
        answer.usage.completion_tokens,
        answer.text
    );
}

/// Kept small and bounded: a 135M model writes valid JSON under a grammar, but only briefly.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Outline {
    #[schemars(length(min = 1, max = 60))]
    topic: String,
    #[schemars(length(min = 1, max = 3), inner(length(min = 1, max = 80)))]
    questions: Vec<String>,
}

#[tokio::test]
async fn structured_output_is_valid_json_of_the_schema() {
    let Some(model) = model() else { return };
    let mut request = ChatRequest::new(vec![Message::user(
        "Plan research on how honey bees communicate: give the topic and up to three research questions.",
    )]);
    request.max_tokens = Some(256);
    let out = generate::<Outline>(model.as_ref(), request, None)
        .await
        .unwrap();
    assert!(!out.value.topic.is_empty());
    assert!((1..=3).contains(&out.value.questions.len()));
}

#[tokio::test]
async fn a_prompt_longer_than_the_context_is_refused_before_running() {
    let Some(model) = model() else { return };
    let huge = "bees ".repeat(6000);
    let err = model
        .complete(&ChatRequest::new(vec![Message::user(huge)]), None)
        .await
        .unwrap_err();
    assert!(matches!(err, LlmError::ContextOverflow { .. }), "{err}");
}

#[test]
fn a_missing_model_file_is_a_clear_error() {
    let err = connect("local:/nonexistent/model.gguf", &ConnectSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert_eq!(err, "there is no model file at /nonexistent/model.gguf");
}

/// Distinct word 4-grams over all word 4-grams (words lower-cased, punctuation around them
/// dropped): 1.0 never repeats a 4-word phrase, a looped answer tends to 0.
fn distinct_4gram_ratio(text: &str) -> f64 {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 4 {
        return 1.0;
    }
    let grams: Vec<&[String]> = words.windows(4).collect();
    let distinct: std::collections::HashSet<&[String]> = grams.iter().copied().collect();
    distinct.len() as f64 / grams.len() as f64
}

/// The sampling the built-in model had before: top-k 40, top-p 0.95, temperature, no penalties.
fn old_sampling() -> LocalConfig {
    LocalConfig {
        top_k: 40,
        top_p: 0.95,
        min_p: 0.0,
        repeat_penalty: 1.0,
        frequency_penalty: 0.0,
        presence_penalty: 0.0,
        dry_multiplier: 0.0,
        loop_repeats: 0,
        ..LocalConfig::default()
    }
}

const PARAGRAPH_TOPICS: [&str; 3] = [
    "how honey bees communicate",
    "the causes of the French Revolution",
    "how vaccines train the immune system",
];

/// A writer-like request: facts with source numbers, to be cited as [n].
const GROUNDED: &str = "Write a paragraph of about 200 words on how honey bees communicate, \
citing sources as [1], [2], [3].\n\nEvidence:\n[1] Foragers perform a waggle dance whose angle \
gives the direction of food relative to the sun.\n[2] The duration of the waggle run encodes the \
distance to the food source.\n[3] Bees also use pheromones, such as the queen's mandibular \
pheromone, to regulate colony behaviour.";

/// Asks for a paragraph of about `max_tokens / 2` words (a report when that is long).
async fn paragraph(
    config: LocalConfig,
    topic: &str,
    temperature: f32,
    max_tokens: u32,
) -> (String, f64) {
    let path = model_path().unwrap();
    let model = LocalLlm::open(&path, config).unwrap();
    let user = if topic == "grounded" {
        GROUNDED.to_string()
    } else {
        format!(
            "Write {} of about {} words on {topic}.",
            if max_tokens > 600 {
                "a report"
            } else {
                "a paragraph"
            },
            max_tokens / 2
        )
    };
    let mut request = ChatRequest::new(vec![
        Message::system("You are a research assistant who writes clear, factual prose."),
        Message::user(user),
    ]);
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(temperature);
    let answer = model.complete(&request, None).await.unwrap();
    let ratio = distinct_4gram_ratio(&answer.text);
    (answer.text, ratio)
}

#[test]
fn the_distinct_4gram_ratio_counts_repeated_phrases() {
    assert_eq!(distinct_4gram_ratio("one two three four five"), 1.0);
    let looped = "The fact is that ".repeat(20);
    assert!(distinct_4gram_ratio(&looped) < 0.1);
}

/// The built-in model's defaults keep a ~200-word paragraph from looping: most of its 4-word
/// phrases are distinct (the old sampling looped one phrase for the whole answer).
#[tokio::test]
async fn samples_sensibly() {
    if model_path().is_none() {
        return;
    }
    let (text, ratio) = paragraph(LocalConfig::default(), PARAGRAPH_TOPICS[0], 0.3, 400).await;
    eprintln!("distinct 4-grams {ratio:.3}: {text}");
    assert!(text.split_whitespace().count() >= 60, "{text}");
    assert!(ratio > 0.6, "distinct 4-gram ratio {ratio:.3}: {text}");
}

/// Prints the distinct-4-gram ratio of paragraphs on several topics with the old sampling and
/// the defaults (the loop guard off in both, to measure the sampling alone). Run with
/// `cargo test -p research-llm --test local_model -- --ignored --nocapture measure_sampling`;
/// RS_SAMPLING_CONFIGS (names from the list below, comma-separated), RS_SAMPLING_TEMPERATURES and
/// RS_SAMPLING_MAX_TOKENS change what is measured.
#[tokio::test]
#[ignore = "a measurement, not a check: prints numbers"]
async fn measure_sampling() {
    if model_path().is_none() {
        return;
    }
    let new = LocalConfig {
        loop_repeats: 0,
        ..LocalConfig::default()
    };
    let with = |repeat_penalty: f32, dry_multiplier: f32| LocalConfig {
        repeat_penalty,
        dry_multiplier,
        ..new.clone()
    };
    let all = [
        ("old", old_sampling()),
        ("new", new.clone()),
        ("rp1.05", with(1.05, 0.0)),
        ("rp1.1", with(1.1, 0.0)),
        ("rp1.15", with(1.15, 0.0)),
        ("dry0.8", with(1.0, 0.8)),
        ("rp1.05+dry0.8", with(1.05, 0.8)),
        ("rp1.1+dry0.8", with(1.1, 0.8)),
        ("rp1.1+dry0.5", with(1.1, 0.5)),
        ("rp1.15+dry0.8", with(1.15, 0.8)),
    ];
    let wanted = std::env::var("RS_SAMPLING_CONFIGS").unwrap_or_else(|_| "old,new".into());
    let configs: Vec<_> = all
        .into_iter()
        .filter(|(name, _)| wanted.split(',').any(|w| w == *name))
        .collect();
    let max_tokens: u32 = std::env::var("RS_SAMPLING_MAX_TOKENS")
        .map(|n| n.parse().unwrap())
        .unwrap_or(400);
    let temperatures: Vec<f32> = std::env::var("RS_SAMPLING_TEMPERATURES")
        .unwrap_or_else(|_| "0,0.3,0.7".into())
        .split(',')
        .map(|t| t.parse().unwrap())
        .collect();
    for temperature in temperatures {
        for (name, config) in &configs {
            let (mut ratios, mut words) = (Vec::new(), 0);
            for topic in PARAGRAPH_TOPICS.into_iter().chain(["grounded"]) {
                let (text, ratio) = paragraph(config.clone(), topic, temperature, max_tokens).await;
                let count = text.split_whitespace().count();
                let cites = text.matches("[1]").count()
                    + text.matches("[2]").count()
                    + text.matches("[3]").count();
                eprintln!("--- {name} t={temperature} {topic}: {ratio:.3}, {count} words, {cites} citations\n{text}");
                ratios.push(ratio);
                words += count;
            }
            let words = words / ratios.len();
            let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
            eprintln!(
                "=== {name:<16} t={temperature}: mean {mean:.3}, {words} words on average ({})",
                ratios
                    .iter()
                    .map(|r| format!("{r:.3}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

/// Prints how often grammar-constrained answers parse on the first try with the old sampling
/// and the defaults (loop guard on, as in use). Run like `measure_sampling`.
#[tokio::test]
#[ignore = "a measurement, not a check: prints numbers"]
async fn measure_structured() {
    let Some(path) = model_path() else { return };
    let subjects = [
        "how honey bees communicate",
        "the causes of the French Revolution",
        "how vaccines train the immune system",
        "the history of the printing press",
    ];
    let temperatures: Vec<f32> = std::env::var("RS_SAMPLING_TEMPERATURES")
        .unwrap_or_else(|_| "0,0.3,0.7".into())
        .split(',')
        .map(|t| t.parse().unwrap())
        .collect();
    for (name, config) in [("old", old_sampling()), ("new", LocalConfig::default())] {
        let model = LocalLlm::open(&path, config).unwrap();
        let (mut first, mut second, mut failed, mut total) = (0, 0, 0, 0);
        for &temperature in &temperatures {
            for subject in subjects {
                let mut request = ChatRequest::new(vec![Message::user(format!(
                    "Plan research on {subject}: give the topic and up to three research questions."
                ))]);
                request.max_tokens = Some(256);
                request.temperature = Some(temperature);
                total += 1;
                match generate::<Outline>(&model, request, None).await {
                    Ok(out) if out.calls == 1 => first += 1,
                    Ok(_) => second += 1,
                    Err(e) => {
                        failed += 1;
                        eprintln!("--- {name} t={temperature} {subject}: {e}");
                    }
                }
            }
        }
        eprintln!(
            "=== {name}: {first}/{total} parsed on the first try, {second} on the second, {failed} failed"
        );
    }
}

/// A cancelled run drops its request: generation stops at the next token and the model is free
/// for the next request, instead of generating on to its limit behind the caller's back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_request_stops_generating_and_frees_the_model() {
    let Some(path) = model_path() else { return };
    let model = Arc::new(
        LocalLlm::open(
            &path,
            LocalConfig {
                context_tokens: 8192,
                loop_repeats: 0,
                ..LocalConfig::default()
            },
        )
        .unwrap(),
    );
    let mut request = ChatRequest::new(vec![Message::user(
        "Write a very long report on the history of beekeeping, chapter after chapter.",
    )]);
    // Thousands of tokens: a minute or more of generation on a laptop if nothing stopped it.
    request.max_tokens = Some(6000);
    let (first_token, seen) = tokio::sync::oneshot::channel::<()>();
    let first_token = std::sync::Mutex::new(Some(first_token));
    let running = {
        let model = model.clone();
        tokio::spawn(async move {
            let sink = |_: &str| {
                if let Some(tx) = first_token.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                Flow::Continue
            };
            model.complete(&request, Some(&sink)).await
        })
    };
    seen.await.unwrap();
    assert!(model.busy());
    running.abort();
    // Within a deadline far shorter than the generation left to do, the model is free again.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while model.busy() {
        assert!(
            std::time::Instant::now() < deadline,
            "the dropped request kept generating"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut short = ChatRequest::new(vec![Message::user("Say hello.")]);
    short.max_tokens = Some(8);
    model.complete(&short, None).await.unwrap();
}

fn greedy(question: &str, max_tokens: u32) -> ChatRequest {
    let mut request = ChatRequest::new(vec![
        Message::system("You are a careful research assistant. Answer briefly and plainly."),
        Message::user(question),
    ]);
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.0);
    request
}

fn serving(path: &std::path::Path, sequences: u32) -> Arc<LocalLlm> {
    Arc::new(
        LocalLlm::open(
            path,
            LocalConfig {
                max_sequences: sequences,
                ..LocalConfig::default()
            },
        )
        .unwrap(),
    )
}

const QUESTIONS: [&str; 4] = [
    "How do honey bees tell each other where flowers are?",
    "Why does a write-ahead log make a database crash-safe?",
    "What is the capital of Japan, and what is it known for?",
    "Name three uses of copper.",
];

/// Requests decoded together in one batch give the answers they give one at a time (greedy
/// sampling: the same logits, the same tokens), each its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_requests_answer_as_they_do_one_at_a_time() {
    let Some(path) = model_path() else { return };
    batched_answer_as_alone(&path).await;
}

fn gemma_path() -> Option<PathBuf> {
    model_named("RS_TEST_MODEL_GEMMA")
}

async fn batched_answer_as_alone(path: &std::path::Path) {
    let path = path.to_path_buf();
    let alone = serving(&path, 1);
    let mut one_at_a_time = Vec::new();
    for q in QUESTIONS {
        one_at_a_time.push(alone.complete(&greedy(q, 48), None).await.unwrap().text);
    }
    let together = serving(&path, 4);
    assert_eq!(together.sequences(), 4);
    let answers = futures::future::join_all(QUESTIONS.iter().map(|q| {
        let model = together.clone();
        async move { model.complete(&greedy(q, 48), None).await.unwrap().text }
    }))
    .await;
    assert_eq!(answers, one_at_a_time);
    assert!(answers.iter().all(|a| !a.trim().is_empty()), "{answers:?}");
}

/// A request whose prompt begins as the last one on its slot did is not evaluated again up to
/// where they part, and answers as if it had been.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_prompt_prefix_is_evaluated_once() {
    let Some(path) = model_path() else { return };
    let model = serving(&path, 2);
    let first = model
        .complete(&greedy(QUESTIONS[0], 32), None)
        .await
        .unwrap();
    let reused_before = model.prompt_tokens_reused();
    let again = model
        .complete(&greedy(QUESTIONS[0], 32), None)
        .await
        .unwrap();
    assert_eq!(again.text, first.text);
    let reused = model.prompt_tokens_reused() - reused_before;
    assert_eq!(
        reused,
        first.usage.prompt_tokens - 1,
        "all but the last prompt token came from the cache"
    );
    // Another question with the same system prompt: the system prompt is reused.
    let before = model.prompt_tokens_reused();
    let other = model
        .complete(&greedy(QUESTIONS[1], 32), None)
        .await
        .unwrap();
    assert!(model.prompt_tokens_reused() - before >= 10);
    assert_eq!(
        other.text,
        serving(&path, 1)
            .complete(&greedy(QUESTIONS[1], 32), None)
            .await
            .unwrap()
            .text
    );
}

/// A request that must follow a schema (a grammar) and a free one are decoded in one batch,
/// each under its own sampler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grammar_request_and_a_free_one_share_a_batch() {
    let Some(path) = model_path() else { return };
    let model = serving(&path, 2);
    let mut structured = ChatRequest::new(vec![Message::user(
        "Plan research on how honey bees communicate: give the topic and up to three research questions.",
    )]);
    structured.max_tokens = Some(256);
    let json = {
        let model = model.clone();
        async move { generate::<Outline>(model.as_ref(), structured, None).await }
    };
    let free = {
        let model = model.clone();
        async move { model.complete(&greedy(QUESTIONS[3], 64), None).await }
    };
    let (json, free) = tokio::join!(json, free);
    let outline = json.unwrap().value;
    assert!(!outline.topic.is_empty() && !outline.questions.is_empty());
    let free = free.unwrap().text;
    assert!(!free.trim_start().starts_with('{'), "{free}");
}

/// A cancelled sequence leaves the batch at once: its slot serves the next request while the
/// other long answer goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_sequence_frees_its_slot() {
    let Some(path) = model_path() else { return };
    let model = Arc::new(
        LocalLlm::open(
            &path,
            LocalConfig {
                max_sequences: 2,
                context_tokens: 8192,
                loop_repeats: 0,
                ..LocalConfig::default()
            },
        )
        .unwrap(),
    );
    let long = |n: u32| {
        let mut r = ChatRequest::new(vec![Message::user(format!(
            "Write a very long report on the history of beekeeping, part {n}, chapter after chapter."
        ))]);
        r.max_tokens = Some(6000);
        r
    };
    let (started, seen) = tokio::sync::oneshot::channel::<()>();
    let started = std::sync::Mutex::new(Some(started));
    let cancelled = {
        let model = model.clone();
        let request = long(1);
        tokio::spawn(async move {
            let sink = |_: &str| {
                if let Some(tx) = started.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                Flow::Continue
            };
            model.complete(&request, Some(&sink)).await
        })
    };
    let going_on = {
        let model = model.clone();
        let request = long(2);
        tokio::spawn(async move { model.complete(&request, None).await })
    };
    seen.await.unwrap();
    cancelled.abort();
    // Both slots were taken; the third request gets the freed one while the long answer runs.
    let short = model
        .complete(&greedy("Say hello.", 8), None)
        .await
        .unwrap();
    assert!(!short.text.is_empty());
    assert!(
        !going_on.is_finished(),
        "the other long answer is still being written"
    );
    going_on.abort();
}

/// Gemma 3 (sliding-window attention) reuses a prompt prefix longer than its window, while its
/// cache still holds it from position 0, and answers as it does with the prompt evaluated afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sliding_window_model_reuses_a_prefix_longer_than_its_window() {
    let Some(path) = gemma_path() else { return };
    // About 650 tokens of a real document: longer than Gemma 3's 512-token window.
    let document: String = std::fs::read_to_string("/usr/share/common-licenses/Apache-2.0")
        .expect("Debian's copy of the Apache License")
        .chars()
        .take(3000)
        .collect();
    let ask = |q: &str| greedy(&format!("{document}\n\n{q}"), 24);
    let model = serving(&path, 2);
    model
        .complete(&ask("Say the word banana."), None)
        .await
        .unwrap();
    let before = model.prompt_tokens_reused();
    let question = "Which license is this? Answer with its name.";
    let reused = model.complete(&ask(question), None).await.unwrap();
    assert!(
        model.prompt_tokens_reused() - before > 512,
        "the document was not evaluated again"
    );
    let fresh = serving(&path, 3)
        .complete(&ask(question), None)
        .await
        .unwrap();
    assert_eq!(reused.text, fresh.text);
}
