//! The providers, one small struct each: build the request, map the answer to [`Hit`]s.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};

use research_cite::{Citation, Name};

use crate::http::{strip_html, Http};
use crate::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().trim().to_string()
}

fn opt(v: &Value) -> Option<String> {
    v.as_str()
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
}

fn hit(
    title: String,
    url: String,
    snippet: String,
    published: Option<String>,
    kind: HitKind,
    provider: &str,
) -> Option<Hit> {
    // A result without an address cannot be fetched or cited.
    (!url.is_empty()).then(|| Hit {
        title,
        url,
        snippet,
        published,
        kind,
        provider: provider.into(),
        citation: Citation::default(),
    })
}

fn array<'a>(http: &Http, v: &'a Value, pointer: &str) -> Result<&'a Vec<Value>, SearchError> {
    static EMPTY: Vec<Value> = Vec::new();
    match v.pointer(pointer) {
        Some(Value::Array(a)) => Ok(a),
        None | Some(Value::Null) => Ok(&EMPTY),
        Some(_) => Err(SearchError::BadResponse {
            provider: http.provider,
            detail: format!("`{pointer}` is not a list"),
        }),
    }
}

macro_rules! provider_struct {
    ($(#[$doc:meta])* $name:ident, $cli:literal, keyed) => {
        $(#[$doc])*
        pub struct $name {
            http: Http,
            base: String,
            key: String,
        }
        impl $name {
            /// A client for the API at `base` with `key`.
            pub fn new(base: String, key: String, timeout: Duration) -> Self {
                Self { http: Http::new($cli, timeout), base: base.trim_end_matches('/').into(), key }
            }
        }
    };
    ($(#[$doc:meta])* $name:ident, $cli:literal) => {
        $(#[$doc])*
        pub struct $name {
            http: Http,
            base: String,
        }
        impl $name {
            /// A client for the service at `base`.
            pub fn new(base: String, timeout: Duration) -> Self {
                Self { http: Http::new($cli, timeout), base: base.trim_end_matches('/').into() }
            }
        }
    };
}

provider_struct!(
    /// Tavily's search API (built for LLM agents).
    Tavily, "tavily", keyed
);
provider_struct!(
    /// Brave Search's web API.
    Brave, "brave", keyed
);
provider_struct!(
    /// Serper: Google results.
    Serper, "serper", keyed
);
provider_struct!(
    /// NewsAPI's `everything` endpoint.
    NewsApi, "newsapi", keyed
);
provider_struct!(
    /// A SearXNG instance (its JSON format must be enabled).
    SearXng, "searxng"
);
provider_struct!(
    /// DuckDuckGo's HTML results page (no key).
    DuckDuckGo, "duckduckgo"
);
provider_struct!(
    /// arXiv's Atom API.
    ArXiv, "arxiv"
);
provider_struct!(
    /// Wikipedia's search (MediaWiki API); the base URL chooses the language.
    Wikipedia, "wikipedia"
);

/// Semantic Scholar's paper search; a key raises the rate limit but is optional.
pub struct SemanticScholar {
    http: Http,
    base: String,
    key: Option<String>,
}

impl SemanticScholar {
    /// A client for the API at `base`.
    pub fn new(base: String, key: Option<String>, timeout: Duration) -> Self {
        Self {
            http: Http::new("semantic-scholar", timeout),
            base: base.trim_end_matches('/').into(),
            key,
        }
    }
}

#[async_trait]
impl SearchProvider for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let http = &self.http;
        let body = json!({"query": q.text, "max_results": q.limit, "search_depth": "basic"});
        let text = http
            .send(|c| {
                c.post(format!("{}/search", self.base))
                    .bearer_auth(&self.key)
                    .json(&body)
            })
            .await?;
        let v = http.json(&text)?;
        Ok(array(http, &v, "/results")?
            .iter()
            .filter_map(|r| {
                hit(
                    s(&r["title"]),
                    s(&r["url"]),
                    s(&r["content"]),
                    opt(&r["published_date"]),
                    HitKind::Web,
                    "tavily",
                )
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for Brave {
    fn name(&self) -> &'static str {
        "brave"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/res/v1/web/search", self.base);
        let count = q.limit.min(20).to_string();
        let text = self
            .http
            .send(|c| {
                c.get(&url)
                    .query(&[("q", q.text.as_str()), ("count", count.as_str())])
                    .header("X-Subscription-Token", &self.key)
                    .header("Accept", "application/json")
            })
            .await?;
        let v = self.http.json(&text)?;
        Ok(array(&self.http, &v, "/web/results")?
            .iter()
            .filter_map(|r| {
                let published = opt(&r["page_age"]).or_else(|| opt(&r["age"]));
                hit(
                    s(&r["title"]),
                    s(&r["url"]),
                    strip_html(&s(&r["description"])),
                    published,
                    HitKind::Web,
                    "brave",
                )
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for Serper {
    fn name(&self) -> &'static str {
        "serper"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let body = json!({"q": q.text, "num": q.limit});
        let text = self
            .http
            .send(|c| {
                c.post(format!("{}/search", self.base))
                    .header("X-API-KEY", &self.key)
                    .json(&body)
            })
            .await?;
        let v = self.http.json(&text)?;
        Ok(array(&self.http, &v, "/organic")?
            .iter()
            .filter_map(|r| {
                hit(
                    s(&r["title"]),
                    s(&r["link"]),
                    s(&r["snippet"]),
                    opt(&r["date"]),
                    HitKind::Web,
                    "serper",
                )
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for NewsApi {
    fn name(&self) -> &'static str {
        "newsapi"
    }
    fn kind(&self) -> HitKind {
        HitKind::News
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/v2/everything", self.base);
        let size = q.limit.min(100).to_string();
        let mut dates: Vec<(&str, String)> = Vec::new();
        if let Some(y) = q.years {
            if let Some(from) = y.from {
                dates.push(("from", format!("{from:04}-01-01")));
            }
            if let Some(to) = y.to {
                dates.push(("to", format!("{to:04}-12-31")));
            }
        }
        let text = self
            .http
            .send(|c| {
                c.get(&url)
                    .query(&[
                        ("q", q.text.as_str()),
                        ("pageSize", size.as_str()),
                        ("sortBy", "relevancy"),
                    ])
                    .query(&dates)
                    .header("X-Api-Key", &self.key)
            })
            .await?;
        let v = self.http.json(&text)?;
        if v["status"] == "error" {
            let code = s(&v["code"]);
            if code.starts_with("apiKey") {
                return Err(SearchError::Unauthorized {
                    provider: "newsapi",
                    status: 401,
                });
            }
            return Err(SearchError::BadResponse {
                provider: "newsapi",
                detail: format!("{} ({code})", s(&v["message"])),
            });
        }
        Ok(array(&self.http, &v, "/articles")?
            .iter()
            .filter(|r| r["title"] != "[Removed]")
            .filter_map(|r| {
                let source = s(&r["source"]["name"]);
                let snippet = if source.is_empty() {
                    s(&r["description"])
                } else {
                    format!("{} — {source}", s(&r["description"]))
                };
                hit(
                    s(&r["title"]),
                    s(&r["url"]),
                    snippet,
                    opt(&r["publishedAt"]),
                    HitKind::News,
                    "newsapi",
                )
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for SearXng {
    fn name(&self) -> &'static str {
        "searxng"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/search", self.base);
        let text = self
            .http
            .send(|c| c.get(&url).query(&[("q", q.text.as_str()), ("format", "json")]))
            .await
            .map_err(|e| match e {
                SearchError::Unauthorized { .. } => SearchError::Config(
                    "your SearXNG instance refused JSON results; add `json` to `search.formats` in its settings.yml".into(),
                ),
                other => other,
            })?;
        let v = self.http.json(&text)?;
        Ok(array(&self.http, &v, "/results")?
            .iter()
            .filter_map(|r| {
                hit(
                    s(&r["title"]),
                    s(&r["url"]),
                    s(&r["content"]),
                    opt(&r["publishedDate"]),
                    HitKind::Web,
                    "searxng",
                )
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for DuckDuckGo {
    fn name(&self) -> &'static str {
        "duckduckgo"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/html/", self.base);
        let html = self
            .http
            .send(|c| c.post(&url).form(&[("q", q.text.as_str())]))
            .await?;
        let doc = dom_query::Document::from(html.as_str());
        if doc.select(".anomaly-modal, #challenge-form").exists() {
            return Err(SearchError::RateLimited {
                provider: "duckduckgo",
            });
        }
        let mut hits = Vec::new();
        for result in doc.select(".result").iter() {
            if result.is(".result--ad") {
                continue;
            }
            let link = result.select("a.result__a");
            let href = link.attr("href").map(|h| h.to_string()).unwrap_or_default();
            let snippet = result.select(".result__snippet").text().to_string();
            if let Some(h) = hit(
                link.text().split_whitespace().collect::<Vec<_>>().join(" "),
                ddg_target(&href),
                snippet.split_whitespace().collect::<Vec<_>>().join(" "),
                None,
                HitKind::Web,
                "duckduckgo",
            ) {
                hits.push(h);
            }
            if hits.len() >= q.limit {
                break;
            }
        }
        Ok(hits)
    }
}

/// DuckDuckGo wraps result links as `//duckduckgo.com/l/?uddg=<target>`.
fn ddg_target(href: &str) -> String {
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        href.to_string()
    };
    match url::Url::parse(&absolute) {
        Ok(u) if u.path() == "/l/" => u
            .query_pairs()
            .find(|(k, _)| k == "uddg")
            .map(|(_, v)| v.into_owned())
            .unwrap_or(absolute),
        _ => absolute,
    }
}

#[async_trait]
impl SearchProvider for SemanticScholar {
    fn name(&self) -> &'static str {
        "semantic-scholar"
    }
    fn kind(&self) -> HitKind {
        HitKind::Academic
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/graph/v1/paper/search", self.base);
        let limit = q.limit.min(100).to_string();
        // Its year filter: `2019-2023`, `2019-` or `-2023`.
        let year: Option<String> = q.years.map(|y| {
            let end = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
            format!("{}-{}", end(y.from), end(y.to))
        });
        let text = self
            .http
            .send(|c| {
                let mut r = c.get(&url).query(&[
                    ("query", q.text.as_str()),
                    ("limit", limit.as_str()),
                    (
                        "fields",
                        "title,url,abstract,year,publicationDate,externalIds,openAccessPdf,authors,venue,journal",
                    ),
                ]);
                if let Some(year) = &year {
                    r = r.query(&[("year", year.as_str())]);
                }
                if let Some(k) = &self.key {
                    r = r.header("x-api-key", k);
                }
                r
            })
            .await?;
        let v = self.http.json(&text)?;
        Ok(array(&self.http, &v, "/data")?
            .iter()
            .filter_map(|p| {
                let url = opt(&p["url"]).unwrap_or_else(|| {
                    format!("https://www.semanticscholar.org/paper/{}", s(&p["paperId"]))
                });
                let published = opt(&p["publicationDate"])
                    .or_else(|| p["year"].as_u64().map(|y| y.to_string()));
                let citation = Citation {
                    authors: p["authors"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|a| Name::parse(&s(&a["name"])))
                                .collect()
                        })
                        .unwrap_or_default(),
                    issued: published.as_deref().and_then(research_cite::issued),
                    container: opt(&p["journal"]["name"]).or_else(|| opt(&p["venue"])),
                    doi: opt(&p["externalIds"]["DOI"]).and_then(|d| research_cite::doi(&d)),
                    volume: opt(&p["journal"]["volume"]),
                    pages: opt(&p["journal"]["pages"]).map(|p| p.replace(' ', "")),
                    ..Citation::default()
                };
                hit(
                    s(&p["title"]),
                    url,
                    s(&p["abstract"]),
                    published,
                    HitKind::Academic,
                    "semantic-scholar",
                )
                .map(|h| Hit { citation, ..h })
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for ArXiv {
    fn name(&self) -> &'static str {
        "arxiv"
    }
    fn kind(&self) -> HitKind {
        HitKind::Academic
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/api/query", self.base);
        let mut query = format!("all:{}", q.text);
        if let Some(y) = q.years {
            // arXiv filters by submission date: `submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`.
            let from = y
                .from
                .map_or("000001010000".to_string(), |f| format!("{f:04}01010000"));
            let to =
                y.to.map_or("999912312359".to_string(), |t| format!("{t:04}12312359"));
            query = format!("({query}) AND submittedDate:[{from} TO {to}]");
        }
        let max = q.limit.min(100).to_string();
        let xml = self
            .http
            .send(|c| {
                c.get(&url).query(&[
                    ("search_query", query.as_str()),
                    ("start", "0"),
                    ("max_results", max.as_str()),
                ])
            })
            .await?;
        let doc = roxmltree::Document::parse(&xml).map_err(|e| SearchError::BadResponse {
            provider: "arxiv",
            detail: format!("malformed Atom XML ({e})"),
        })?;
        // A well-formed page that is not an Atom feed (a captive portal, a proxy's notice) is a
        // broken answer, not "no results".
        if doc.root_element().tag_name().name() != "feed" {
            return Err(SearchError::BadResponse {
                provider: "arxiv",
                detail: format!(
                    "the answer is not an Atom feed (its root is <{}>)",
                    doc.root_element().tag_name().name()
                ),
            });
        }
        let text_of = |node: roxmltree::Node, tag: &str| -> String {
            node.children()
                .find(|c| c.tag_name().name() == tag)
                .and_then(|c| c.text())
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default()
        };
        Ok(doc
            .descendants()
            .filter(|n| n.tag_name().name() == "entry")
            .filter_map(|e| {
                let url = text_of(e, "id").replace("http://arxiv.org", "https://arxiv.org");
                let published = Some(text_of(e, "published")).filter(|p| !p.is_empty());
                // Each `<author><name>`; the DOI and journal reference when the authors gave them.
                let citation = Citation {
                    authors: e
                        .children()
                        .filter(|c| c.tag_name().name() == "author")
                        .filter_map(|a| Name::parse(&text_of(a, "name")))
                        .collect(),
                    issued: published.as_deref().and_then(research_cite::issued),
                    container: Some(text_of(e, "journal_ref"))
                        .filter(|j| !j.is_empty())
                        .or_else(|| Some("arXiv".to_string())),
                    doi: research_cite::doi(&text_of(e, "doi")),
                    ..Citation::default()
                };
                hit(
                    text_of(e, "title"),
                    url,
                    text_of(e, "summary"),
                    published,
                    HitKind::Academic,
                    "arxiv",
                )
                .map(|h| Hit { citation, ..h })
            })
            .take(q.limit)
            .collect())
    }
}

#[async_trait]
impl SearchProvider for Wikipedia {
    fn name(&self) -> &'static str {
        "wikipedia"
    }
    async fn search(&self, q: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let url = format!("{}/w/api.php", self.base);
        let limit = q.limit.min(50).to_string();
        let text = self
            .http
            .send(|c| {
                c.get(&url).query(&[
                    ("action", "query"),
                    ("list", "search"),
                    ("srsearch", q.text.as_str()),
                    ("srlimit", limit.as_str()),
                    ("format", "json"),
                    ("utf8", "1"),
                ])
            })
            .await?;
        let v = self.http.json(&text)?;
        if let Some(info) = v["error"]["info"].as_str() {
            return Err(SearchError::BadResponse {
                provider: "wikipedia",
                detail: info.to_string(),
            });
        }
        Ok(array(&self.http, &v, "/query/search")?
            .iter()
            .filter_map(|r| {
                let title = s(&r["title"]);
                let path: String =
                    url::form_urlencoded::byte_serialize(title.replace(' ', "_").as_bytes())
                        .collect();
                let url = format!(
                    "{}/wiki/{}",
                    self.base,
                    path.replace("%2F", "/").replace("%3A", ":")
                );
                hit(
                    title,
                    url,
                    strip_html(&s(&r["snippet"])),
                    opt(&r["timestamp"]),
                    HitKind::Web,
                    "wikipedia",
                )
            })
            .take(q.limit)
            .collect())
    }
}
