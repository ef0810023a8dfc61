//! A person's own MCP servers as search providers: `mcp:NAME` calls the search tool of a
//! configured server (a command it starts, speaking on stdio, or a streamable HTTP address) and
//! reads its results as hits. A wiki, a ticket tracker or a code search becomes a source that is
//! read, quoted and checked like any web page.
//!
//! What a tool returns varies: a JSON list of results (`title`, `url`, `content` or `snippet`,
//! under `results`, `hits`, `items` or `documents`, or as structured content), or text. Each
//! result's words are kept in [`McpDocuments`], which the fetcher reads for the result's address
//! — an `mcp://NAME/…` address when the result has none of the web's — so what the tool said is
//! the source, not a page behind a login the run cannot read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use crate::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};

/// Where a configured MCP server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServerAddress {
    /// A program started for each search, speaking MCP on its standard input and output.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
        /// A bearer token, when the server wants one (kept in the keychain).
        token: Option<String>,
    },
}

/// A configured MCP source: its name (the `NAME` of `mcp:NAME`), where it is, and the tool that
/// searches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSource {
    /// The name it is chosen by.
    pub name: String,
    /// Where the server is.
    pub address: McpServerAddress,
    /// The tool to call (`search` when the setting names none).
    pub tool: String,
}

/// The tool called when the setting names none.
pub const DEFAULT_TOOL: &str = "search";

impl McpSource {
    /// A source from its setting: a command line (`npx -y wiki-mcp --root /home/me/wiki`, no
    /// shell: `~` and quotes are not expanded) or an
    /// `http(s)://` address, with `#TOOL` at the end to call another tool than `search`.
    pub fn parse(name: &str, setting: &str) -> Result<Self, SearchError> {
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.".contains(c))
        {
            return Err(SearchError::Config(format!(
                "an MCP source's name is letters, digits, '-', '_' or '.', not `{name}`"
            )));
        }
        let (target, tool) = match setting.trim().rsplit_once('#') {
            Some((t, tool)) if !tool.trim().is_empty() && !tool.contains(char::is_whitespace) => {
                (t.trim(), tool.trim().to_string())
            }
            _ => (setting.trim(), DEFAULT_TOOL.to_string()),
        };
        if target.is_empty() {
            return Err(SearchError::Config(format!(
                "the MCP source `{name}` needs a command or an http(s) address"
            )));
        }
        let address = if target.starts_with("http://") || target.starts_with("https://") {
            McpServerAddress::Http {
                url: target.to_string(),
                token: None,
            }
        } else {
            let mut words = target.split_whitespace().map(String::from);
            let program = words.next().unwrap_or_default();
            McpServerAddress::Command {
                program,
                args: words.collect(),
            }
        };
        Ok(Self {
            name: name.to_string(),
            address,
            tool,
        })
    }
}

/// What MCP sources returned, by address: the fetcher reads a result's words from here.
#[derive(Debug, Clone, Default)]
pub struct McpDocuments(Arc<Mutex<HashMap<String, McpDocument>>>);

/// One result's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpDocument {
    /// Its title.
    pub title: String,
    /// Its words, as the tool gave them.
    pub text: String,
}

impl McpDocuments {
    fn put(&self, url: &str, doc: McpDocument) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(url.to_string(), doc);
    }

    /// The words a source returned for `url`.
    pub fn get(&self, url: &str) -> Option<McpDocument> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(url)
            .cloned()
    }
}

/// A result shorter than this is a snippet: a web address with it is read from the web.
const FULL_TEXT_CHARS: usize = 300;

/// The provider `mcp:NAME`.
pub struct McpSearch {
    /// `mcp:NAME`, interned: provider names are `'static`.
    name: &'static str,
    source: McpSource,
    documents: McpDocuments,
    timeout: Duration,
}

/// `mcp:NAME` as a `'static` name, one allocation per name for the life of the process.
fn interned(name: String) -> &'static str {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    names
        .entry(name.clone())
        .or_insert_with(|| Box::leak(name.into_boxed_str()))
}

impl McpSearch {
    /// The provider for `source`, keeping what it returns in `documents`.
    pub fn new(source: McpSource, documents: McpDocuments, timeout: Duration) -> Self {
        Self {
            name: interned(format!("mcp:{}", source.name)),
            source,
            documents,
            timeout,
        }
    }

    fn unavailable(&self, reason: impl std::fmt::Display) -> SearchError {
        SearchError::Unavailable {
            provider: self.name,
            reason: reason.to_string(),
        }
    }

    async fn connect(&self) -> Result<RunningService<RoleClient, ()>, SearchError> {
        match &self.source.address {
            McpServerAddress::Command { program, args } => {
                let command = tokio::process::Command::new(program).configure(|cmd| {
                    cmd.args(args);
                });
                let transport = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map(|(t, _)| t)
                    .map_err(|e| self.unavailable(format!("`{program}` could not start: {e}")))?;
                ().serve(transport)
                    .await
                    .map_err(|e| self.unavailable(format!("`{program}` did not speak MCP: {e}")))
            }
            McpServerAddress::Http { url, token } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                if let Some(token) = token {
                    config = config.auth_header(token.clone());
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                ().serve(transport)
                    .await
                    .map_err(|e| self.unavailable(format!("{url} did not answer as MCP: {e}")))
            }
        }
    }

    /// The source's tool as its server lists it; a server without it is a setting to change,
    /// named with the tools it has.
    async fn tool(
        &self,
        client: &RunningService<RoleClient, ()>,
    ) -> Result<rmcp::model::Tool, SearchError> {
        let tools = client
            .list_all_tools()
            .await
            .map_err(|e| self.unavailable(format!("its tools could not be listed: {e}")))?;
        if let Some(tool) = tools.iter().find(|t| t.name == self.source.tool) {
            return Ok(tool.clone());
        }
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        Err(SearchError::Config(format!(
            "the MCP source `{}` has no tool `{}` (it has {}); name one with #TOOL after its command or address",
            self.source.name,
            self.source.tool,
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )))
    }

    /// Whether the source can be searched, without searching it: its server starts (or
    /// answers) and has the tool, `within` that long. `providers` asks this before it calls a
    /// source ready.
    pub async fn check(&self, within: Duration) -> Result<(), SearchError> {
        let work = async {
            let client = self.connect().await?;
            let tool = self.tool(&client).await;
            let _ = client.cancel().await;
            tool.map(|_| ())
        };
        tokio::time::timeout(within, work)
            .await
            .map_err(|_| self.unavailable(format!("no answer within {} s", within.as_secs())))?
    }

    /// The arguments for the tool: the query under the name its schema gives a string (`query`
    /// when it says nothing), and the result count where the schema has a place for it.
    async fn arguments(
        &self,
        client: &RunningService<RoleClient, ()>,
        query: &SearchQuery,
    ) -> Result<serde_json::Map<String, Value>, SearchError> {
        let tool = self.tool(client).await?;
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let kind = |name: &str| {
            properties
                .get(name)
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .map(String::from)
        };
        let text_field = ["query", "q", "search", "text", "keywords"]
            .into_iter()
            .find(|f| properties.contains_key(*f))
            .map(String::from)
            .or_else(|| {
                properties
                    .keys()
                    .find(|k| kind(k).as_deref() == Some("string"))
                    .cloned()
            })
            .unwrap_or_else(|| "query".to_string());
        let mut args = serde_json::Map::new();
        args.insert(text_field, Value::String(query.text.clone()));
        if let Some(limit) = ["limit", "max_results", "count", "top_k", "n"]
            .into_iter()
            .find(|f| matches!(kind(f).as_deref(), Some("integer" | "number")))
        {
            args.insert(limit.to_string(), Value::from(query.limit));
        }
        Ok(args)
    }

    /// Hits from what the tool returned, each result's words kept for the fetcher.
    fn hits(&self, result: &CallToolResult, limit: usize) -> Vec<Hit> {
        let mut items: Vec<Value> = Vec::new();
        if let Some(structured) = &result.structured_content {
            items.extend(result_items(structured));
        }
        if items.is_empty() {
            for block in &result.content {
                let Some(text) = block.as_text().map(|t| t.text.as_str()) else {
                    continue;
                };
                match serde_json::from_str::<Value>(text) {
                    Ok(v) if !result_items(&v).is_empty() => items.extend(result_items(&v)),
                    // Words, not a list: the block is one result.
                    _ if !text.trim().is_empty() => {
                        items.push(serde_json::json!({"content": text}))
                    }
                    _ => {}
                }
            }
        }
        items
            .iter()
            .filter_map(|item| self.hit(item))
            .take(limit)
            .collect()
    }

    fn hit(&self, item: &Value) -> Option<Hit> {
        let field = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| item.get(*n).and_then(Value::as_str))
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
        };
        let text = field(&[
            "content",
            "text",
            "body",
            "snippet",
            "description",
            "summary",
        ])?;
        let title = field(&["title", "name", "subject"]).unwrap_or_else(|| {
            text.lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(120)
                .collect()
        });
        // Only a web address is read from elsewhere: a `file://` one from a server is its
        // words here (a source must not make the run read this machine's files).
        let web = field(&["url", "link", "href", "uri"])
            .filter(|u| u.starts_with("http://") || u.starts_with("https://"));
        // A web address with only a snippet is read from the web. Otherwise the words the tool
        // gave are the source, under an address of the source's own: never under the web
        // address, where they would pass for the page itself (in the page cache other runs
        // read, and against which a recheck compares).
        let url = match &web {
            Some(u) if text.chars().count() < FULL_TEXT_CHARS => u.clone(),
            _ => {
                let url = format!(
                    "mcp://{}/{:016x}",
                    self.source.name,
                    fnv(&format!("{title}\n{text}"))
                );
                self.documents.put(
                    &url,
                    McpDocument {
                        title: title.clone(),
                        text: text.clone(),
                    },
                );
                url
            }
        };
        let published = field(&["published", "date", "updated", "created"]);
        // A server that knows who wrote what (a reference manager's, a paper index's) says so
        // as CSL-JSON does, or in a plain `authors` string.
        let mut citation = research_cite::Citation::from_csl(item);
        if citation.authors.is_empty() {
            citation.authors = field(&["authors", "author", "creator"])
                .map(|a| research_cite::Name::parse_list(&a))
                .unwrap_or_default();
        }
        if citation.issued.is_none() {
            citation.issued = published.as_deref().and_then(research_cite::issued);
        }
        if citation.doi.is_none() {
            citation.doi = field(&["doi"]).and_then(|d| research_cite::doi(&d));
        }
        Some(Hit {
            title,
            url,
            snippet: text.chars().take(300).collect(),
            published,
            kind: HitKind::Web,
            provider: self.name.to_string(),
            citation,
        })
    }
}

/// The result objects of a tool's JSON answer: a list, or a list under a usual key.
fn result_items(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.iter().filter(|x| x.is_object()).cloned().collect(),
        Value::Object(o) => ["results", "hits", "items", "documents", "data", "matches"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_array))
            .map(|a| a.iter().filter(|x| x.is_object()).cloned().collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A stable 64-bit hash (FNV-1a) for an address that does not change between runs.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[async_trait]
impl SearchProvider for McpSearch {
    fn name(&self) -> &'static str {
        self.name
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let work = async {
            let client = self.connect().await?;
            let args = self.arguments(&client, query).await;
            let result = match args {
                Ok(args) => client
                    .call_tool(
                        CallToolRequestParams::new(self.source.tool.clone()).with_arguments(args),
                    )
                    .await
                    .map_err(|e| {
                        self.unavailable(format!("its tool `{}` failed: {e}", self.source.tool))
                    }),
                Err(e) => Err(e),
            };
            // The server is let go whatever happened (a command's process ends with it).
            let _ = client.cancel().await;
            let result = result?;
            if result.is_error == Some(true) {
                let why: String = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect::<Vec<_>>()
                    .join(" ");
                return Err(SearchError::BadResponse {
                    provider: self.name,
                    detail: format!("its tool `{}` said: {why}", self.source.tool),
                });
            }
            Ok(self.hits(&result, query.limit))
        };
        tokio::time::timeout(self.timeout, work)
            .await
            .map_err(|_| {
                self.unavailable(format!("no answer within {} s", self.timeout.as_secs()))
            })?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_is_a_command_or_an_address_with_its_tool() {
        let s = McpSource::parse("wiki", "npx -y wiki-mcp --root /home/me/wiki").unwrap();
        assert_eq!(
            s.address,
            McpServerAddress::Command {
                program: "npx".into(),
                args: vec![
                    "-y".into(),
                    "wiki-mcp".into(),
                    "--root".into(),
                    "/home/me/wiki".into()
                ],
            }
        );
        assert_eq!(s.tool, "search");
        let s = McpSource::parse("tickets", "https://t.example/mcp#find_tickets").unwrap();
        assert_eq!(
            s.address,
            McpServerAddress::Http {
                url: "https://t.example/mcp".into(),
                token: None
            }
        );
        assert_eq!(s.tool, "find_tickets");
        assert!(McpSource::parse("bad name", "x").is_err());
        assert!(McpSource::parse("empty", "  ").is_err());
    }

    #[test]
    fn results_become_hits_and_their_words_are_kept() {
        let docs = McpDocuments::default();
        let p = McpSearch::new(
            McpSource::parse("wiki", "wiki-mcp").unwrap(),
            docs.clone(),
            Duration::from_secs(5),
        );
        let long = "Deploys go out on Tuesdays after the staging checks pass. ".repeat(8);
        let result = CallToolResult::structured(serde_json::json!({"results": [
            {"title": "Deploy policy", "content": long},
            {"title": "Blog", "url": "https://blog.example/post", "snippet": "A short teaser."},
        ]}));
        let hits = p.hits(&result, 10);
        assert_eq!(hits.len(), 2);
        assert!(hits[0].url.starts_with("mcp://wiki/"), "{:?}", hits[0]);
        assert_eq!(hits[0].provider, "mcp:wiki");
        assert_eq!(docs.get(&hits[0].url).unwrap().text, long.trim());
        // A web page with a teaser is read from the web.
        assert_eq!(hits[1].url, "https://blog.example/post");
        assert!(docs.get(&hits[1].url).is_none());
        // Plain words are one result.
        let text = CallToolResult::success(vec![rmcp::model::ContentBlock::text(
            "The on-call rota changes every Monday at noon.",
        )]);
        let hits = p.hits(&text, 10);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            hits[0].title,
            "The on-call rota changes every Monday at noon."
        );
    }
}
