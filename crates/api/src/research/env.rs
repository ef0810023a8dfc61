//! The providers a research run uses: searches and pages cached in SQLite, library files read
//! through the library, source texts stored by hash, models metered against the run's budget
//! with every call kept in its ledger, and every event saved to the session's audit trail.

use std::sync::Arc;

use async_trait::async_trait;
use research_fetch::{Document, FetchError, Fetcher};
use research_graph::EventSink;
use research_llm::{Meter, PriceTable, RoleModels};
use research_pipeline::{DocumentError, Documents, Progress};
use research_search::{Hit, MultiSearch, SearchError, SearchProvider, SearchQuery};
use research_store::SessionStore;
use serde::{Deserialize, Serialize};

use super::{SavedRun, CACHE_TTL_MS};
use crate::blocking::in_place;
use crate::in_flight::{PagesInFlight, SearchesInFlight};
use crate::keys::{self, KeyStore};
use crate::{ApiError, ErrorCode, Event, Library, Studio, ThreadId};

pub(super) fn storage(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Storage, e.to_string())
}

/// Source texts in the session database.
struct StoreDocuments {
    sessions: Arc<dyn SessionStore>,
    clock: Arc<dyn research_graph::Clock>,
}

impl Documents for StoreDocuments {
    fn put(&self, text: &str) -> Result<String, DocumentError> {
        in_place(|| self.sessions.put_document(text, self.clock.now_ms()))
            .map_err(|e| DocumentError(e.to_string()))
    }
    fn get(&self, sha256: &str) -> Result<Option<String>, DocumentError> {
        in_place(|| self.sessions.document(sha256)).map_err(|e| DocumentError(e.to_string()))
    }
}

/// Search answers cached in SQLite for [`CACHE_TTL_MS`] (seed 004's `cached_search`). The
/// local library is never cached: it changes when the user edits files.
struct CachedSearch {
    key: String,
    inner: Arc<dyn SearchProvider>,
    sessions: Arc<dyn SessionStore>,
    clock: Arc<dyn research_graph::Clock>,
    /// The same search already going in this process (another run's) is waited for.
    in_flight: Arc<SearchesInFlight>,
}

#[async_trait]
impl SearchProvider for CachedSearch {
    fn name(&self) -> &'static str {
        "cached"
    }

    fn kind(&self) -> research_search::HitKind {
        self.inner.kind()
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let now = self.clock.now_ms();
        let text = cached_text(query);
        let cached = in_place(|| {
            self.sessions
                .cached_search(&self.key, &text, query.limit, now, CACHE_TTL_MS)
        });
        if let Ok(Some(value)) = cached {
            if let Ok(hits) = serde_json::from_value::<Vec<Hit>>(value) {
                return Ok(hits);
            }
        }
        let (inner, asked) = (self.inner.clone(), query.clone());
        let hits = self
            .in_flight
            .run(
                (self.key.clone(), text.clone(), query.limit),
                move || async move { inner.search(&asked).await },
                |why| Err(SearchError::Config(why)),
            )
            .await?;
        if let Ok(value) = serde_json::to_value(&hits) {
            let saved = in_place(|| {
                self.sessions
                    .cache_search(&self.key, &text, query.limit, &value, now)
            });
            if let Err(e) = saved {
                tracing::warn!("could not cache a search: {e}");
            }
        }
        Ok(hits)
    }
}

/// The library's full-text search, off the runtime's workers (a large library reads for a while).
struct LibrarySearch {
    library: Arc<Library>,
    /// The library has nothing on the run's question ([`crate::Studio::library_has_nothing_on`]):
    /// every search of it gives nothing.
    silent: bool,
}

#[async_trait]
impl SearchProvider for LibrarySearch {
    fn name(&self) -> &'static str {
        self.library.name()
    }

    fn kind(&self) -> research_search::HitKind {
        self.library.kind()
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        if self.silent {
            return Ok(Vec::new());
        }
        let (library, query) = (self.library.clone(), query.clone());
        tokio::task::spawn_blocking(move || {
            tokio::runtime::Handle::current()
                .block_on(SearchProvider::search(library.as_ref(), &query))
        })
        .await
        .map_err(|e| SearchError::BadResponse {
            provider: "local",
            detail: e.to_string(),
        })?
    }
}

/// What a query is cached under: its words, and the kind and years it asks for when it does
/// (a dated search must not be answered with an undated one's hits).
fn cached_text(query: &SearchQuery) -> String {
    let mut text = query.text.clone();
    if let Some(kind) = query.kind {
        text.push_str(&format!("\u{1f}kind={kind:?}"));
    }
    if let Some(y) = query.years {
        text.push_str(&format!("\u{1f}years={:?}-{:?}", y.from, y.to));
    }
    text
}

/// Web pages through the guarded HTTP fetcher (cached), library files through the library.
struct RoutedFetcher {
    web: Arc<dyn Fetcher>,
    /// The same page already being fetched in this process (another run's) is waited for.
    in_flight: Arc<PagesInFlight>,
    library: Option<Arc<Library>>,
    /// What the run's MCP sources returned: a result's words are its source.
    mcp: research_search::McpDocuments,
    sessions: Arc<dyn SessionStore>,
    clock: Arc<dyn research_graph::Clock>,
    /// Read every page anew (a recheck), still keeping what was read in the cache.
    fresh: bool,
}

#[derive(Serialize, Deserialize)]
struct PageMeta {
    final_url: String,
    title: Option<String>,
    kind: research_fetch::DocumentKind,
    content_type: String,
    bytes: usize,
    /// What the page said of its authors and date, so a page read from the cache is cited as
    /// one read from the web.
    #[serde(default)]
    citation: research_cite::Citation,
}

#[async_trait]
impl Fetcher for RoutedFetcher {
    async fn fetch(&self, url: &str) -> Result<Document, FetchError> {
        if url.starts_with("file:") {
            let Some(library) = self.library.clone() else {
                return Err(FetchError::NoText {
                    url: url.into(),
                    reason: "there is no library to read it from".into(),
                });
            };
            let owned = url.to_string();
            return tokio::task::spawn_blocking(move || library.read(&owned))
                .await
                .map_err(|e| FetchError::NoText {
                    url: url.into(),
                    reason: e.to_string(),
                })?;
        }
        let now = self.clock.now_ms();
        let returned = self.mcp.get(url);
        // An MCP source's result cannot be read again from anywhere: kept, it is read from the
        // cache even by a recheck.
        let mcp_only = url.starts_with("mcp://");
        let cached = if returned.is_some() || (self.fresh && !mcp_only) {
            None
        } else {
            // What an MCP source returned is kept as long as the store keeps it: there is no
            // page to read again once the cache's day is over.
            let max_age = if mcp_only { i64::MAX / 2 } else { CACHE_TTL_MS };
            in_place(|| self.sessions.cached_page(url, now, max_age))
                .ok()
                .flatten()
        };
        if let Some((meta, text)) = cached {
            if let Ok(meta) = serde_json::from_value::<PageMeta>(meta) {
                return Ok(Document {
                    url: url.into(),
                    final_url: meta.final_url,
                    title: meta.title,
                    text_sha256: research_pipeline::sha256_hex(&text),
                    text,
                    kind: meta.kind,
                    content_type: meta.content_type,
                    bytes: meta.bytes,
                    citation: meta.citation,
                });
            }
        }
        let doc = match returned {
            Some(found) => Document {
                url: url.into(),
                final_url: url.into(),
                title: Some(found.title),
                text_sha256: research_pipeline::sha256_hex(&found.text),
                bytes: found.text.len(),
                text: found.text,
                kind: research_fetch::DocumentKind::Text,
                content_type: "text/markdown".into(),
                citation: Default::default(),
            },
            None if mcp_only => return Err(FetchError::NoText {
                url: url.into(),
                reason:
                    "what the MCP source returned for it is no longer kept; search the source again"
                        .into(),
            }),
            None => {
                let (web, asked) = (self.web.clone(), url.to_string());
                self.in_flight
                    .run(
                        url.to_string(),
                        move || async move { web.fetch(&asked).await },
                        |reason| {
                            Err(FetchError::NoText {
                                url: String::new(),
                                reason,
                            })
                        },
                    )
                    .await?
            }
        };
        let meta = PageMeta {
            final_url: doc.final_url.clone(),
            title: doc.title.clone(),
            kind: doc.kind,
            content_type: doc.content_type.clone(),
            bytes: doc.bytes,
            citation: doc.citation.clone(),
        };
        if let Ok(meta) = serde_json::to_value(meta) {
            if let Err(e) = in_place(|| self.sessions.cache_page(url, &meta, &doc.text, now)) {
                tracing::warn!("could not cache {url}: {e}");
            }
        }
        Ok(doc)
    }
}

/// Saves every event of a run to its audit trail and passes it on.
pub(super) struct AuditSink {
    pub(super) sessions: Arc<dyn SessionStore>,
    pub(super) session: String,
    pub(super) thread: String,
    pub(super) clock: Arc<dyn research_graph::Clock>,
    pub(super) next: Option<Arc<dyn EventSink>>,
}

impl EventSink for AuditSink {
    fn emit(&self, event: Event) {
        // Tokens are the report being typed: too many to keep, and the report itself is kept.
        if !matches!(event, Event::Token { .. }) {
            if let Ok(mut value) = serde_json::to_value(&event) {
                let kind = value["type"].as_str().unwrap_or("event").to_string();
                if let Some(map) = value.as_object_mut() {
                    map.remove("type");
                    // Node updates can be large (whole evidence lists): keep their keys only.
                    if let Some(update) = map.get_mut("update") {
                        if let Some(obj) = update.as_object() {
                            let keys: Vec<String> = obj
                                .iter()
                                .filter(|(_, v)| !v.is_null())
                                .map(|(k, _)| k.clone())
                                .collect();
                            *update = serde_json::json!(keys);
                        }
                    }
                }
                let saved = in_place(|| {
                    self.sessions.add_event(
                        &self.session,
                        &self.thread,
                        self.clock.now_ms(),
                        &kind,
                        &value,
                    )
                });
                if let Err(e) = saved {
                    tracing::warn!("could not save an event: {e}");
                }
            }
        }
        if let Some(next) = &self.next {
            next.emit(event);
        }
    }
}

impl Studio {
    pub(super) fn research_env(
        &self,
        thread: &ThreadId,
        saved: &SavedRun,
        keys_store: &dyn KeyStore,
        sessions: &Arc<dyn SessionStore>,
        events: Option<Arc<dyn EventSink>>,
    ) -> Result<research_pipeline::Env, ApiError> {
        // Calls made before a resume count against the same budget.
        let history: Vec<research_llm::CallRecord> = sessions
            .calls(thread.as_str())?
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        let ledger = sessions.clone();
        let thread_key = thread.to_string();
        let mut meter =
            Meter::new(saved.config.budget, PriceTable::builtin()).with_history(history);
        if saved.config.record_calls {
            meter =
                meter.keeping_exchanges(research_llm::Redactor::new(keys::known_keys(keys_store)));
        }
        let meter = Arc::new(meter.on_call(move |call| {
            if let Ok(value) = serde_json::to_value(call) {
                if let Err(e) = in_place(|| ledger.add_call(&thread_key, &value)) {
                    tracing::warn!("could not record a model call: {e}");
                }
                // Live counters (tokens, cost) in the app.
                if let Some(sink) = &events {
                    // Counters only: the kept prompt and answer stay in the ledger.
                    let progress = Progress::LlmCall {
                        call: research_llm::CallRecord {
                            exchange: None,
                            ..call.clone()
                        },
                    };
                    if let Ok(payload) = serde_json::to_value(progress) {
                        sink.emit(Event::Custom {
                            node: call.node.clone(),
                            task: None,
                            payload,
                        });
                    }
                }
            }
        }));
        let mut settings = keys::connect_settings(keys_store);
        if let Some(url) = self.settings()?.ollama_url {
            settings.ollama_url = url;
        }
        let models = RoleModels::connect(saved.config.models.clone(), meter, |spec| {
            research_llm::connect(spec, &settings)
        })
        .map_err(ApiError::from)?;

        let library = Arc::new(self.library()?);
        let library_has_folders = library.folders().map(|f| !f.is_empty()).unwrap_or(false);
        let mut notes = Vec::new();
        let mut off_the_question = Vec::new();
        // What the person has set since the run started counts on a resume: the error that
        // stopped it told them to set it (a SearXNG address, an MCP source's setting). The run's
        // own address, given when it started, comes first; a source's current setting replaces
        // the copy taken at the start.
        let current = self.settings().unwrap_or_default();
        let searxng_url = saved.searxng_url.clone().or(current.searxng_url.clone());
        let mut mcp_sources = saved.mcp_sources.clone();
        mcp_sources.extend(current.mcp_sources.clone());
        let search_settings = crate::search_settings(keys_store, searxng_url);
        let names =
            crate::search::expand_providers(&saved.config.search, keys_store, library_has_folders);
        if names.is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "no search provider is chosen",
            ));
        }
        if saved.config.search.iter().any(|n| n == "auto") {
            let note = crate::search::auto_note(keys_store);
            tracing::info!("{note}");
            notes.push(note);
        }
        // The method section says what the citations were checked with.
        notes.push(research_check::meaning::reading());
        let mut providers: Vec<(String, Arc<dyn SearchProvider>)> = Vec::new();
        let mcp = research_search::McpDocuments::default();
        for name in &names {
            let provider: Arc<dyn SearchProvider> = if let Some(source) = name.strip_prefix("mcp:")
            {
                // Not cached: what a person's own source returns is read from it each time.
                Arc::new(crate::search::mcp_source(
                    source,
                    &mcp_sources,
                    keys_store,
                    &mcp,
                )?)
            } else if name == "local" {
                // The run's searches rank by meaning too when the library has vectors; the
                // method section says which.
                let (searched, ranking) = self.library_for_search(&saved.question)?;
                notes.push(ranking);
                let nothing =
                    self.library_has_nothing_on(&searched, &saved.question, &saved.carried.focus);
                let silent = nothing.is_some();
                notes.extend(nothing.clone());
                off_the_question.extend(nothing);
                Arc::new(LibrarySearch {
                    library: Arc::new(searched),
                    silent,
                })
            } else {
                Arc::new(CachedSearch {
                    key: name.clone(),
                    inner: research_search::provider(name, &search_settings)?,
                    sessions: sessions.clone(),
                    clock: self.clock.clone(),
                    in_flight: self.searches.clone(),
                })
            };
            providers.push((name.clone(), provider));
        }
        let search = MultiSearch::new(providers);
        // A provider the person chose whose kind this depth does not read is never dropped
        // silently (seed 000: web at quick depth, papers from standard, news at comprehensive;
        // the library always): the method section says so and what would search it.
        let kinds = saved.config.limits().kinds;
        let reached = search.reached(kinds);
        for name in &saved.config.search {
            if reached.contains(&name.as_str()) || !search.has(name) {
                continue;
            }
            let depth = serde_json::to_value(saved.config.depth)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            notes.push(format!(
                "{name} was chosen but not searched: a {depth} depth search goes to {} \
                 sources only (a deeper depth searches it)",
                kinds
                    .iter()
                    .map(|k| k.word())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        let fetcher = self.fetcher(saved, sessions, library, mcp, false)?;
        // What the models did in the person's runs decides what each is asked for; read
        // afresh, since a resumed run's saved configuration does not carry it.
        let mut config = saved.config.clone();
        config.measured = self.measurements();
        Ok(research_pipeline::Env {
            config,
            models,
            search: Arc::new(search),
            fetcher,
            documents: Arc::new(StoreDocuments {
                sessions: sessions.clone(),
                clock: self.clock.clone(),
            }),
            notes,
            off_the_question,
        })
    }

    /// How a run of `saved` reads pages and library files: the web through the cache (or
    /// anew, `fresh`), library files from the disk.
    pub(super) fn fetcher(
        &self,
        saved: &SavedRun,
        sessions: &Arc<dyn SessionStore>,
        library: Arc<Library>,
        mcp: research_search::McpDocuments,
        fresh: bool,
    ) -> Result<Arc<dyn Fetcher>, ApiError> {
        // Only what the user allowed: a SearXNG instance on this machine does not open the
        // machine's other ports to the pages its results point at.
        let web = research_fetch::HttpFetcher::new(research_fetch::FetchPolicy {
            allowed_hosts: research_fetch::AllowedHosts::new(saved.allowed_hosts.clone()),
            extractor: research_fetch::Extractor::for_this_program(),
            ..Default::default()
        })?;
        Ok(Arc::new(RoutedFetcher {
            web: Arc::new(web),
            in_flight: self.pages.clone(),
            library: Some(library),
            mcp,
            sessions: sessions.clone(),
            clock: self.clock.clone(),
            fresh,
        }))
    }
}
