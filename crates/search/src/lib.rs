//! The `SearchProvider` seam: one small trait between the research pipelines and every place
//! they can search — web search APIs, academic indexes, news, and (in `research-library`) the
//! user's own files — so that a run can mix them and tests can replace them.
//!
//! Every provider maps its answer to [`Hit`]s of one shape, honours the result limit, and fails
//! with a [`SearchError`] that names the provider and says what to do.
#![deny(missing_docs)]

/// The conformance suite every HTTP [`SearchProvider`] passes, each against a mock of its API
/// (feature `conformance`; see `tests/search_conformance.rs`).
#[cfg(feature = "conformance")]
pub mod conformance;
mod http;
mod mcp;
mod merge;
mod providers;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use research_cite::Citation;
use serde::{Deserialize, Serialize};

pub use mcp::{McpDocument, McpDocuments, McpSearch, McpServerAddress, McpSource, DEFAULT_TOOL};
pub use merge::{merge_by_rank, normalize_url, MultiSearch};
pub use providers::{
    ArXiv, Brave, DuckDuckGo, NewsApi, SearXng, SemanticScholar, Serper, Tavily, Wikipedia,
};

/// What kind of source a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    /// A web page.
    Web,
    /// A paper or preprint.
    Academic,
    /// A news article.
    News,
    /// A file in the user's library.
    Local,
}

impl HitKind {
    /// The kind in a reader's words ("paper sources"): one word for every place that says it.
    pub fn word(self) -> &'static str {
        match self {
            HitKind::Web => "web",
            HitKind::Academic => "paper",
            HitKind::News => "news",
            HitKind::Local => "library",
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// Title.
    pub title: String,
    /// Where it is (`https://…` or `file://…`).
    pub url: String,
    /// A passage about the query.
    pub snippet: String,
    /// Publication date as the provider gives it, when known.
    pub published: Option<String>,
    /// What kind of source.
    pub kind: HitKind,
    /// Which provider found it.
    pub provider: String,
    /// Who wrote it and where it appeared, as the provider's record gives it (a paper
    /// provider's authors, venue and DOI; a reference manager's record for a library file).
    #[serde(default, skip_serializing_if = "Citation::is_empty")]
    pub citation: Citation,
}

/// One query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// The words.
    pub text: String,
    /// Results wanted at most.
    pub limit: usize,
    /// The kind of source wanted: a [`MultiSearch`] asks only its providers of that kind (all,
    /// when it has none). `None`: any.
    pub kind: Option<HitKind>,
    /// Publication years wanted, passed to the providers that filter by date (arXiv, Semantic
    /// Scholar, NewsAPI); the others search as usual.
    pub years: Option<Years>,
    /// The kinds of source an untyped query may go to, the library always among them: a
    /// [`MultiSearch`] leaves out its providers of other kinds (unless that leaves none).
    /// Empty: any. A research run's depth decides it (seed 000: web first, then academic, then
    /// news).
    pub among: Vec<HitKind>,
}

/// A range of publication years; either end may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Years {
    /// The first year, inclusive.
    pub from: Option<i32>,
    /// The last year, inclusive.
    pub to: Option<i32>,
}

impl Years {
    /// The range, `None` when both ends are open; a reversed range is put right.
    pub fn new(from: Option<i32>, to: Option<i32>) -> Option<Self> {
        let valid = |y: Option<i32>| y.filter(|y| (1000..=9999).contains(y));
        match (valid(from), valid(to)) {
            (None, None) => None,
            (Some(a), Some(b)) if a > b => Some(Self {
                from: Some(b),
                to: Some(a),
            }),
            (from, to) => Some(Self { from, to }),
        }
    }
}

impl SearchQuery {
    /// A query for at most `limit` results.
    pub fn new(text: impl Into<String>, limit: usize) -> Self {
        Self {
            text: text.into(),
            limit: limit.clamp(1, 50),
            kind: None,
            years: None,
            among: Vec::new(),
        }
    }

    /// This query for the providers of `kinds` and the library ([`SearchQuery::among`]).
    pub fn among(mut self, kinds: &[HitKind]) -> Self {
        self.among = kinds.to_vec();
        self
    }

    /// This query for sources of `kind`.
    pub fn of_kind(mut self, kind: Option<HitKind>) -> Self {
        self.kind = kind;
        self
    }

    /// This query for sources published in `years`.
    pub fn in_years(mut self, years: Option<Years>) -> Self {
        self.years = years;
        self
    }
}

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The provider needs a key and none is set.
    #[error("{provider} needs an API key (or ${env})")]
    MissingKey {
        /// Provider name.
        provider: &'static str,
        /// Environment variable.
        env: &'static str,
    },
    /// The provider is a server of the user's own and its address is not set.
    #[error("{provider} needs the address of your instance")]
    MissingUrl {
        /// Provider name.
        provider: &'static str,
    },
    /// The key was refused.
    #[error("the key for {provider} was refused (HTTP {status})")]
    Unauthorized {
        /// Provider name.
        provider: &'static str,
        /// Status.
        status: u16,
    },
    /// Still rate limited after retries.
    #[error("{provider} is rate limiting searches (HTTP 429); try again later or add a key")]
    RateLimited {
        /// Provider name.
        provider: &'static str,
    },
    /// Could not be reached, timed out, or kept failing.
    #[error("{provider} is not available: {reason}")]
    Unavailable {
        /// Provider name.
        provider: &'static str,
        /// Why.
        reason: String,
    },
    /// The answer could not be read.
    #[error("{provider} sent an answer that could not be read: {detail}")]
    BadResponse {
        /// Provider name.
        provider: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The settings are wrong (unknown provider, missing URL).
    #[error("{0}")]
    Config(String),
}

/// Somewhere to search.
#[async_trait]
pub trait SearchProvider: Send + Sync {
    /// The provider's name (`tavily`, `arxiv`, …).
    fn name(&self) -> &'static str;

    /// The kind of source it finds (most find web pages).
    fn kind(&self) -> HitKind {
        HitKind::Web
    }

    /// Runs `query`; at most `query.limit` hits, best first.
    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError>;

    /// The providers `query` goes to, by name: itself for one provider; the ones a query of
    /// its kind reaches for a set of them ([`MultiSearch`]). A search asked again of other
    /// kinds of source is worth it only when this differs.
    fn asked_for(&self, _query: &SearchQuery) -> Vec<String> {
        vec![self.name().to_string()]
    }
}

/// Keys, addresses and limits for building providers (its `Debug` names the providers that
/// have a key, never the key).
#[derive(Clone)]
pub struct SearchSettings {
    /// Keys by provider name.
    pub keys: std::collections::BTreeMap<String, String>,
    /// The user's SearXNG instance.
    pub searxng_url: Option<String>,
    /// Base URL overrides by provider name (tests, proxies, another Wikipedia language).
    pub base_urls: std::collections::BTreeMap<String, String>,
    /// Time limit per request.
    pub timeout: Duration,
}

impl std::fmt::Debug for SearchSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keyed: Vec<&String> = self.keys.keys().collect();
        f.debug_struct("SearchSettings")
            .field("keys_for", &keyed)
            .field("searxng_url", &self.searxng_url)
            .field("base_urls", &self.base_urls)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            keys: Default::default(),
            searxng_url: None,
            base_urls: Default::default(),
            timeout: Duration::from_secs(20),
        }
    }
}

/// The web providers by name, with whether they need a key.
pub const PROVIDERS: &[(&str, bool)] = &[
    ("tavily", true),
    ("brave", true),
    ("serper", true),
    ("searxng", false),
    ("duckduckgo", false),
    ("semantic-scholar", false),
    ("arxiv", false),
    ("wikipedia", false),
    ("newsapi", true),
];

/// Builds the provider called `name`.
pub fn provider(
    name: &str,
    settings: &SearchSettings,
) -> Result<Arc<dyn SearchProvider>, SearchError> {
    let base = |default: &str| {
        settings
            .base_urls
            .get(name)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    };
    let key = |provider: &'static str, env: &'static str| {
        settings
            .keys
            .get(provider)
            .cloned()
            .ok_or(SearchError::MissingKey { provider, env })
    };
    let t = settings.timeout;
    Ok(match name {
        "tavily" => Arc::new(Tavily::new(
            base("https://api.tavily.com"),
            key("tavily", "TAVILY_API_KEY")?,
            t,
        )),
        "brave" => Arc::new(Brave::new(
            base("https://api.search.brave.com"),
            key("brave", "BRAVE_API_KEY")?,
            t,
        )),
        "serper" => Arc::new(Serper::new(
            base("https://google.serper.dev"),
            key("serper", "SERPER_API_KEY")?,
            t,
        )),
        "newsapi" => Arc::new(NewsApi::new(
            base("https://newsapi.org"),
            key("newsapi", "NEWSAPI_API_KEY")?,
            t,
        )),
        "searxng" => {
            let url = settings
                .searxng_url
                .clone()
                .or_else(|| settings.base_urls.get("searxng").cloned())
                .ok_or(SearchError::MissingUrl {
                    provider: "searxng",
                })?;
            Arc::new(SearXng::new(url, t))
        }
        "duckduckgo" => Arc::new(DuckDuckGo::new(base("https://html.duckduckgo.com"), t)),
        "semantic-scholar" => Arc::new(SemanticScholar::new(
            base("https://api.semanticscholar.org"),
            settings.keys.get("semantic-scholar").cloned(),
            t,
        )),
        "arxiv" => Arc::new(ArXiv::new(base("https://export.arxiv.org"), t)),
        "wikipedia" => Arc::new(Wikipedia::new(base("https://en.wikipedia.org"), t)),
        other => {
            let names: Vec<&str> = PROVIDERS.iter().map(|(n, _)| *n).collect();
            return Err(SearchError::Config(format!(
                "unknown search provider `{other}`; use {}",
                names.join(", ")
            )));
        }
    })
}

#[cfg(test)]
mod redaction_tests {
    #[test]
    fn debug_output_names_keyed_providers_but_never_a_key() {
        let mut settings = super::SearchSettings::default();
        settings
            .keys
            .insert("tavily".into(), "tvly-SECRET-4242".into());
        let shown = format!("{settings:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("tavily"), "{shown}");
    }
}
