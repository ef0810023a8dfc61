//! Searching several providers at once (`research search`), with `auto` choosing what is set up.

use research_search::{Hit, MultiSearch, SearchProvider, SearchQuery, SearchSettings};
use serde::{Deserialize, Serialize};

use crate::{keys, ApiError, ErrorCode, KeyStore};

/// What to search for, and where.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// Provider names, or `auto`.
    pub providers: Vec<String>,
    /// Results per provider at most.
    pub limit: usize,
    /// The user's SearXNG instance.
    pub searxng_url: Option<String>,
    /// The user's library, searched as `local` (and by `auto` when it has folders).
    pub library: Option<std::sync::Arc<research_library::Library>>,
    /// The MCP sources set up, searched as `mcp:NAME`.
    pub mcp_sources: std::collections::BTreeMap<String, String>,
}

impl crate::Studio {
    /// A search of `query` on `providers` as this database's settings have it: the SearXNG
    /// address given, else the one set; the library; the MCP sources set up. The one place a
    /// search outside a run takes its defaults (a run's are [`crate::Studio::with_defaults`]).
    pub fn search_request(
        &self,
        query: String,
        providers: Vec<String>,
        limit: usize,
        searxng_url: Option<String>,
    ) -> Result<SearchRequest, ApiError> {
        let settings = self.settings()?;
        Ok(SearchRequest {
            query,
            providers,
            limit,
            searxng_url: searxng_url.or(settings.searxng_url),
            library: Some(std::sync::Arc::new(self.library()?)),
            mcp_sources: settings.mcp_sources,
        })
    }
}

/// A provider that failed while others answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderFailure {
    /// Provider name.
    pub provider: String,
    /// What went wrong.
    pub message: String,
    /// Where to fix it, when there is one place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<crate::Fix>,
}

/// Merged results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchOutcome {
    /// Hits from every provider, interleaved by rank, each URL once.
    pub hits: Vec<Hit>,
    /// The providers asked.
    pub providers: Vec<String>,
    /// Providers that failed (the search still succeeds when one answered).
    pub failures: Vec<ProviderFailure>,
}

/// The keyed web providers `auto` prefers, in order.
const KEYED_WEB: &[&str] = &["tavily", "brave", "serper"];

/// The paper providers `auto` adds: they need no key. A run searches them where its depth reads
/// papers (standard and comprehensive, [`research_pipeline::DepthLimits::kinds`]).
const KEYLESS_PAPERS: &[&str] = &["arxiv", "semantic-scholar"];

/// The news provider `auto` adds when its key is set (comprehensive depth reads news).
const KEYED_NEWS: &str = "newsapi";

/// Providers `auto` uses: the keyed web providers whose key is set (without any, the keyless
/// DuckDuckGo and Wikipedia), the keyless paper providers, and the news provider when its key
/// is set. Which of them a run's search goes to is its depth's (seed 000: web, then papers,
/// then news).
pub fn auto_providers(store: &dyn KeyStore) -> Vec<String> {
    let keyed: Vec<String> = KEYED_WEB
        .iter()
        .filter(|p| keys::resolve(store, p).is_some())
        .map(|p| p.to_string())
        .collect();
    let mut out = if keyed.is_empty() {
        vec!["duckduckgo".into(), "wikipedia".into()]
    } else {
        keyed
    };
    out.extend(KEYLESS_PAPERS.iter().map(|p| p.to_string()));
    if keys::resolve(store, KEYED_NEWS).is_some() {
        out.push(KEYED_NEWS.into());
    }
    out
}

/// What `auto` searches, in words, for the method section (seed 003's scenario 15: with no
/// search key, the keyless providers, and the run says so rather than failing).
pub fn auto_note(store: &dyn KeyStore) -> String {
    let chosen = auto_providers(store);
    let web = if chosen.iter().any(|p| KEYED_WEB.contains(&p.as_str())) {
        let keyed: Vec<&str> = chosen
            .iter()
            .map(String::as_str)
            .filter(|p| KEYED_WEB.contains(p))
            .collect();
        format!(
            "Search providers (auto): {}, the ones whose key is set",
            keyed.join(", ")
        )
    } else {
        format!(
            "Search providers (auto): no search key is set ({}: the app's Settings › API keys, or \
             research keys set), so the keyless DuckDuckGo and Wikipedia were searched",
            KEYED_WEB.join(", ")
        )
    };
    let news = if chosen.iter().any(|p| p == KEYED_NEWS) {
        "; news from NewsAPI at comprehensive depth"
    } else {
        ""
    };
    format!(
        "{web}; papers from arXiv and Semantic Scholar at standard and comprehensive depth{news}"
    )
}

/// Every name a search choice may hold, in words for help and errors: the web and paper
/// providers, `local` (the library), `auto`, and `mcp:NAME` for a set-up MCP source.
pub fn search_names() -> String {
    let mut names: Vec<&str> = research_search::PROVIDERS.iter().map(|(n, _)| *n).collect();
    names.extend(["local", "auto", "mcp:NAME"]);
    names.join(", ")
}

/// Why search choice `name` cannot be searched, or `None`: one rule for the settings, the
/// run's check before a session is created, and `research search`. `mcp_sources` are the MCP
/// sources set up (an `mcp:NAME` must name one).
pub fn unknown_search_name(
    name: &str,
    mcp_sources: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    if let Some(source) = name.strip_prefix("mcp:") {
        if mcp_sources.contains_key(source) {
            return None;
        }
        let known: Vec<&str> = mcp_sources.keys().map(String::as_str).collect();
        return Some(format!(
            "no MCP source `{source}` is set up ({}); add it with research settings set mcp_sources \"{source}=COMMAND or URL\"",
            if known.is_empty() {
                "none is".to_string()
            } else {
                format!("there are {}", known.join(", "))
            }
        ));
    }
    let known = name == "auto"
        || name == "local"
        || research_search::PROVIDERS.iter().any(|(p, _)| *p == name);
    (!known).then(|| format!("unknown search provider `{name}`; use {}", search_names()))
}

/// The provider names a choice stands for: `auto` becomes the keyed providers with keys (else
/// the keyless ones) plus the library when it has a folder; each name once, in order.
pub(crate) fn expand_providers(
    chosen: &[String],
    store: &dyn KeyStore,
    library_has_folders: bool,
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in chosen {
        let expanded = if name == "auto" {
            let mut auto = auto_providers(store);
            if library_has_folders {
                auto.push("local".to_string());
            }
            auto
        } else {
            vec![name.clone()]
        };
        for n in expanded {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

/// The provider `mcp:NAME` of the MCP sources set up (a run's, or `research search`'s), with the bearer token the keychain keeps
/// for `mcp:NAME` when its server is an address.
pub(crate) fn mcp_source(
    name: &str,
    sources: &std::collections::BTreeMap<String, String>,
    keys_store: &dyn KeyStore,
    documents: &research_search::McpDocuments,
) -> Result<research_search::McpSearch, ApiError> {
    let Some(setting) = sources.get(name) else {
        let why = unknown_search_name(&format!("mcp:{name}"), sources)
            .unwrap_or_else(|| format!("no MCP source `{name}` is set up"));
        return Err(ApiError::new(ErrorCode::InvalidInput, why));
    };
    let mut source = research_search::McpSource::parse(name, setting)
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
    if let research_search::McpServerAddress::Http { token, .. } = &mut source.address {
        *token = keys::resolve(keys_store, &format!("mcp:{name}")).map(|(k, _)| k);
    }
    Ok(research_search::McpSearch::new(
        source,
        documents.clone(),
        std::time::Duration::from_secs(60),
    ))
}

/// Search settings with keys from `store`.
pub fn search_settings(store: &dyn KeyStore, searxng_url: Option<String>) -> SearchSettings {
    let mut settings = SearchSettings {
        searxng_url,
        ..SearchSettings::default()
    };
    for (name, _) in research_search::PROVIDERS {
        if let Some((key, _)) = keys::resolve(store, name) {
            settings.keys.insert(name.to_string(), key);
        }
    }
    settings
}

/// Runs the query on every provider at once and merges what comes back.
pub async fn search(
    request: SearchRequest,
    settings: &SearchSettings,
    store: &dyn KeyStore,
) -> Result<SearchOutcome, ApiError> {
    let query = request.query.trim();
    if query.is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidInput, "the query is empty"));
    }
    if query.chars().count() > 1000 {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the query is longer than 1000 characters",
        ));
    }
    let library_has_folders = request
        .library
        .as_ref()
        .is_some_and(|l| l.folders().map(|f| !f.is_empty()).unwrap_or(false));
    let mut names = expand_providers(&request.providers, store, library_has_folders);
    if names.is_empty() {
        names = expand_providers(&["auto".to_string()], store, library_has_folders);
    }
    let providers: Vec<(String, std::sync::Arc<dyn SearchProvider>)> = names
        .iter()
        .map(|n| {
            let provider = match (n.as_str(), &request.library) {
                ("local", Some(library)) => {
                    Ok(library.clone() as std::sync::Arc<dyn SearchProvider>)
                }
                ("local", None) => Err(ApiError::new(
                    ErrorCode::Storage,
                    "the local library could not be opened",
                )),
                _ => match n.strip_prefix("mcp:") {
                    Some(source) => mcp_source(
                        source,
                        &request.mcp_sources,
                        store,
                        &research_search::McpDocuments::default(),
                    )
                    .map(|p| std::sync::Arc::new(p) as std::sync::Arc<dyn SearchProvider>),
                    None => research_search::provider(n, settings).map_err(ApiError::from),
                },
            };
            provider.map(|p| (n.clone(), p))
        })
        .collect::<Result<_, _>>()?;
    let q = SearchQuery::new(query, request.limit.max(1));
    let (hits, failed) = MultiSearch::new(providers).search_all(&q).await;
    let failures: Vec<ProviderFailure> = failed
        .into_iter()
        .map(|(provider, e)| ProviderFailure {
            provider,
            message: e.to_string(),
            fix: ApiError::from(e).fix,
        })
        .collect();
    // Every provider either answered or failed: all failed when the failures are all of them.
    if failures.len() == names.len() {
        let detail: Vec<String> = failures.iter().map(|f| f.message.clone()).collect();
        return Err(ApiError::new(
            ErrorCode::ProviderUnavailable,
            format!("every search provider failed: {}", detail.join("; ")),
        ));
    }
    Ok(SearchOutcome {
        hits,
        providers: names,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::MemoryKeys;

    /// Whether a search key comes from the environment (then "no key" cannot be tested here).
    fn keyed_environment() -> bool {
        ["TAVILY_API_KEY", "BRAVE_API_KEY", "SERPER_API_KEY"]
            .iter()
            .any(|v| std::env::var(v).is_ok_and(|k| !k.trim().is_empty()))
    }

    #[test]
    fn auto_falls_back_to_the_keyless_providers_and_says_so() {
        // Seed 003's scenario 15: no search key, `auto` searches what needs none.
        let store = MemoryKeys::default();
        if !keyed_environment() {
            assert_eq!(
                expand_providers(&["auto".into()], &store, true),
                [
                    "duckduckgo",
                    "wikipedia",
                    "arxiv",
                    "semantic-scholar",
                    "local"
                ]
            );
            assert_eq!(
                expand_providers(&["auto".into()], &store, false),
                ["duckduckgo", "wikipedia", "arxiv", "semantic-scholar"]
            );
            let note = auto_note(&store);
            assert!(note.contains("no search key is set"), "{note}");
            assert!(note.contains("Settings › API keys"), "{note}");
        }
        // With a key, the keyed provider instead, each name once.
        store.set("tavily", "tvly-test").unwrap();
        let names = expand_providers(
            &["auto".into(), "tavily".into(), "local".into()],
            &store,
            true,
        );
        assert_eq!(names[0], "tavily");
        assert!(!names.contains(&"duckduckgo".to_string()), "{names:?}");
        assert_eq!(names.iter().filter(|n| *n == "local").count(), 1);
        assert!(auto_note(&store).contains("tavily"));
        // Issue 52, N2: the depths that read papers and news find their providers in `auto`.
        assert!(names.contains(&"arxiv".to_string()), "{names:?}");
        assert!(!names.contains(&"newsapi".to_string()), "{names:?}");
        store.set("newsapi", "news-test").unwrap();
        let names = expand_providers(&["auto".into()], &store, false);
        assert!(names.contains(&"newsapi".to_string()), "{names:?}");
        let note = auto_note(&store);
        assert!(
            note.contains("papers from arXiv") && note.contains("news from NewsAPI"),
            "{note}"
        );
    }
}
