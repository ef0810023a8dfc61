//! Searching several providers at once (`research search`), with `auto` choosing what is set up.

use std::collections::HashSet;

use research_search::{Hit, SearchProvider, SearchQuery, SearchSettings};
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
}

/// A provider that failed while others answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderFailure {
    /// Provider name.
    pub provider: String,
    /// What went wrong.
    pub message: String,
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

/// Providers `auto` uses: the keyed web providers whose key is set; without any, the keyless
/// DuckDuckGo and Wikipedia.
pub fn auto_providers(store: &dyn KeyStore) -> Vec<String> {
    let keyed: Vec<String> = ["tavily", "brave", "serper"]
        .iter()
        .filter(|p| keys::resolve(store, p).is_some())
        .map(|p| p.to_string())
        .collect();
    if keyed.is_empty() {
        vec!["duckduckgo".into(), "wikipedia".into()]
    } else {
        keyed
    }
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

fn normal(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    url.trim_end_matches('/')
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.")
        .to_lowercase()
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
    let providers: Vec<std::sync::Arc<dyn SearchProvider>> = names
        .iter()
        .map(|n| match (n.as_str(), &request.library) {
            ("local", Some(library)) => Ok(library.clone() as std::sync::Arc<dyn SearchProvider>),
            ("local", None) => Err(ApiError::new(
                ErrorCode::Storage,
                "the local library could not be opened",
            )),
            _ => research_search::provider(n, settings).map_err(ApiError::from),
        })
        .collect::<Result<_, _>>()?;
    let q = SearchQuery::new(query, request.limit.max(1));
    let answers = futures::future::join_all(providers.iter().map(|p| p.search(&q))).await;
    let mut lists = Vec::new();
    let mut failures = Vec::new();
    for (name, answer) in names.iter().zip(answers) {
        match answer {
            Ok(hits) => lists.push(hits),
            Err(e) => failures.push(ProviderFailure {
                provider: name.clone(),
                message: e.to_string(),
            }),
        }
    }
    if lists.is_empty() {
        let detail: Vec<String> = failures.iter().map(|f| f.message.clone()).collect();
        return Err(ApiError::new(
            ErrorCode::ProviderUnavailable,
            format!("every search provider failed: {}", detail.join("; ")),
        ));
    }
    let mut seen = HashSet::new();
    let mut hits = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for rank in 0..longest {
        for list in &lists {
            if let Some(hit) = list.get(rank) {
                if seen.insert(normal(&hit.url)) {
                    hits.push(hit.clone());
                }
            }
        }
    }
    Ok(SearchOutcome {
        hits,
        providers: names,
        failures,
    })
}
