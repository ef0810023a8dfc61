//! Benchmarks of the research-graph engine and the pipelines; see `benches/` and BENCHMARKS.md.
//! The simulated world the pipeline benchmarks share lives here ([`sim`]).
#![deny(missing_docs)]

pub mod sim {
    //! A scripted model, a search provider and a fetcher that wait as real ones do, so that a
    //! pipeline's wall time can be set against the critical path of its dependent calls.

    use std::collections::BTreeMap;
    use std::time::Duration;

    use async_trait::async_trait;
    use research_fetch::{Document, DocumentKind, FetchError, Fetcher};
    use research_llm::{ChatRequest, ChatResponse, LlmClient, LlmError, ScriptedLlm, TokenSink};
    use research_search::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};

    /// What one model call waits.
    pub const LLM_MS: u64 = 400;
    /// What one search waits.
    pub const SEARCH_MS: u64 = 250;
    /// What one fetch waits.
    pub const FETCH_MS: u64 = 150;

    /// Twelve pages on four topics of Rust's memory management, three each; `url` names page
    /// `i` of `topic` (one site for all, or a site per page).
    pub fn rust_web(url: impl Fn(&str, usize) -> String) -> Web {
        let topics = [
            (
                "ownership",
                "Rust manages memory through ownership rules that the compiler checks at compile time.",
            ),
            (
                "collector",
                "Tracing garbage collectors in Java and Go reclaim memory while the program runs.",
            ),
            (
                "borrowing",
                "The borrow checker allows one mutable reference or many shared references at a time.",
            ),
            (
                "lifetimes",
                "Lifetimes describe how long references stay valid so that none outlives its value.",
            ),
        ];
        let mut pages = BTreeMap::new();
        for (topic, sentence) in topics {
            for i in 0..3 {
                let text = format!(
                    "# Notes on {topic} part {i}\n\n{sentence} This page discusses {topic} in more depth for readers. \
A second paragraph on {topic} gives an example that readers can follow. The last sentence about {topic} closes the page."
                );
                pages.insert(url(topic, i), text);
            }
        }
        Web(pages)
    }

    /// A run's world: `model` for every role (metered by `meter`), `web` for search and fetch,
    /// documents in memory.
    pub fn env(
        config: &research_pipeline::RunConfig,
        model: std::sync::Arc<dyn LlmClient>,
        meter: std::sync::Arc<research_llm::Meter>,
        web: std::sync::Arc<Web>,
    ) -> research_pipeline::Env {
        research_pipeline::Env {
            config: config.clone(),
            models: research_llm::RoleModels::connect(
                research_llm::ModelRouting::single("scripted:bench"),
                meter,
                |_| Ok(model.clone()),
            )
            .expect("a scripted model connects"),
            search: web.clone(),
            fetcher: web,
            documents: std::sync::Arc::new(research_pipeline::MemoryDocuments::default()),
            notes: Vec::new(),
            off_the_question: Vec::new(),
        }
    }

    /// A scripted answer of `value` for requests with `purpose`.
    pub fn answer(purpose: &str, value: serde_json::Value) -> research_llm::ScriptedAnswer {
        research_llm::ScriptedAnswer {
            purpose: Some(purpose.into()),
            contains: None,
            text: None,
            json: Some(value),
            delay_ms: None,
        }
    }

    /// The scripted model, [`LLM_MS`] a call.
    pub struct Slow(pub ScriptedLlm);

    #[async_trait]
    impl LlmClient for Slow {
        fn spec(&self) -> &str {
            "scripted:bench"
        }
        fn context_tokens(&self) -> Option<usize> {
            self.0.context_tokens()
        }
        async fn complete(
            &self,
            request: &ChatRequest,
            on_token: Option<TokenSink<'_>>,
        ) -> Result<ChatResponse, LlmError> {
            tokio::time::sleep(Duration::from_millis(LLM_MS)).await;
            self.0.complete(request, on_token).await
        }
    }

    /// Pages by URL; a query finds the pages whose URL holds one of its words (of four letters
    /// or more). Searching waits [`SEARCH_MS`], fetching [`FETCH_MS`].
    pub struct Web(pub BTreeMap<String, String>);

    #[async_trait]
    impl SearchProvider for Web {
        fn name(&self) -> &'static str {
            "web"
        }
        async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
            tokio::time::sleep(Duration::from_millis(SEARCH_MS)).await;
            let q = query.text.to_lowercase();
            Ok(self
                .0
                .iter()
                .filter(|(url, _)| q.split(' ').any(|w| w.len() > 3 && url.contains(w)))
                .take(query.limit)
                .map(|(url, text)| Hit {
                    title: url.clone(),
                    url: url.clone(),
                    snippet: text.chars().take(60).collect(),
                    published: None,
                    kind: HitKind::Web,
                    provider: "web".into(),
                    citation: Default::default(),
                })
                .collect())
        }
    }

    #[async_trait]
    impl Fetcher for Web {
        async fn fetch(&self, url: &str) -> Result<Document, FetchError> {
            tokio::time::sleep(Duration::from_millis(FETCH_MS)).await;
            let text = self.0.get(url).cloned().ok_or(FetchError::Status {
                url: url.into(),
                status: 404,
            })?;
            Ok(Document {
                url: url.into(),
                final_url: url.into(),
                title: None,
                text_sha256: research_pipeline::sha256_hex(&text),
                bytes: text.len(),
                text,
                kind: DocumentKind::Text,
                content_type: "text/plain".into(),
                citation: Default::default(),
            })
        }
    }
}

pub mod measure {
    //! What the benchmarks read of the process: memory, and percentiles of times.

    /// Resident and peak resident memory of this process, in MiB.
    pub fn memory_mib() -> (f64, f64) {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
                .map(|kb| (kb / 1024.0 * 10.0).round() / 10.0)
                .unwrap_or(0.0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// The `p`th percentile of `times` (sorted in place), to two decimals.
    pub fn percentile(times: &mut [f64], p: usize) -> f64 {
        times.sort_by(|a, b| a.total_cmp(b));
        let i = (times.len() * p / 100).min(times.len().saturating_sub(1));
        (times.get(i).copied().unwrap_or(0.0) * 100.0).round() / 100.0
    }
}

pub mod questions {
    //! The gold question sets (`benches/retrieval/*.json`, `benches/answers/*.json`) as the
    //! library benches ask them: one reader, so the scale and graph benches ask the same
    //! questions of the same folders.

    use std::path::PathBuf;

    /// One question of a set, with the pages that answer it.
    pub struct Question {
        /// What is asked.
        pub text: String,
        /// The set's folder, as the library names it (canonical where it exists).
        pub folder: PathBuf,
        /// The answering pages, relative to `folder`.
        pub answers: Vec<String>,
    }

    /// Every question of the sets in `files` (`:`-separated paths), in order. Panics on a file
    /// that cannot be read as a set: a bench asked for questions it cannot have is wrong.
    pub fn read(files: &str) -> Vec<Question> {
        let mut all = Vec::new();
        for file in files.split(':').filter(|f| !f.is_empty()) {
            let text = std::fs::read_to_string(file).expect("a question set");
            let set: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let folder = PathBuf::from(set["folder"].as_str().expect("its folder"));
            let folder = folder.canonicalize().unwrap_or(folder);
            for q in set["questions"].as_array().into_iter().flatten() {
                let pages = q.get("answers").or_else(|| q.get("pages"));
                all.push(Question {
                    text: q["question"].as_str().unwrap_or_default().to_string(),
                    folder: folder.clone(),
                    answers: pages
                        .and_then(|p| p.as_array())
                        .into_iter()
                        .flatten()
                        .filter_map(|a| a.as_str().map(String::from))
                        .collect(),
                });
            }
        }
        all
    }
}
