//! Whether each provider is ready to use (`research providers`, the app's "Test connection"):
//! keys set, local servers answering, the library holding files, the model file present.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::keys::{self, KeySource, KeyStore};
use crate::settings::Settings;
use crate::{Fix, Library};

/// The model each cloud provider's key is tested with before any model of it is chosen: a
/// small, cheap one.
pub const PROBE_MODELS: &[(&str, &str)] = &[
    ("openai", "openai:gpt-4o-mini"),
    ("anthropic", "anthropic:claude-3-5-haiku-latest"),
    ("gemini", "gemini:gemini-2.0-flash"),
];

/// One provider's readiness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProviderStatus {
    /// The provider's name.
    pub name: String,
    /// `model` or `search`.
    pub kind: String,
    /// Whether it can be used now.
    pub ready: bool,
    /// What was found.
    pub detail: String,
    /// Where to make it usable, when it is not.
    pub fix: Option<Fix>,
}

fn status(name: &str, kind: &str, ready: bool, detail: impl Into<String>) -> ProviderStatus {
    ProviderStatus {
        name: name.into(),
        kind: kind.into(),
        ready,
        detail: detail.into(),
        fix: None,
    }
}

impl ProviderStatus {
    fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
}

async fn reachable(url: &str) -> Result<u16, String> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .map_err(|e| e.to_string())?;
    client
        .get(url)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(|e| {
            if e.is_connect() {
                "connection refused".to_string()
            } else if e.is_timeout() {
                "no answer within 3 s".to_string()
            } else {
                e.to_string()
            }
        })
}

fn keyed(store: &dyn KeyStore, name: &str, kind: &str, required: bool) -> ProviderStatus {
    match keys::resolve(store, name) {
        Some((_, source)) => status(
            name,
            kind,
            true,
            match source {
                KeySource::Keychain => "key set (keychain)",
                KeySource::Session => "key set (until the app quits)",
                KeySource::Environment => "key set (environment variable)",
                KeySource::Missing => "no key",
            }
            .to_string(),
        ),
        None if required => status(name, kind, false, "no key").fix(Fix::ApiKeys {
            provider: name.to_string(),
        }),
        None => status(
            name,
            kind,
            true,
            "no key needed (a key raises the rate limit)",
        ),
    }
}

/// Every provider's readiness. Checks local servers over the network (3 s each at most), never
/// a paid API.
pub async fn providers(
    store: &dyn KeyStore,
    settings: &Settings,
    library: Option<&Library>,
) -> Vec<ProviderStatus> {
    let mut out = vec![
        keyed(store, "openai", "model", true),
        keyed(store, "anthropic", "model", true),
        keyed(store, "gemini", "model", true),
    ];
    let ollama = settings
        .ollama_url
        .clone()
        .unwrap_or_else(|| research_llm::ConnectSettings::from_env().ollama_url);
    out.push(match reachable(&format!("{ollama}/api/tags")).await {
        Ok(200) => status("ollama", "model", true, format!("running at {ollama}")),
        Ok(code) => status(
            "ollama",
            "model",
            false,
            format!("{ollama} answered HTTP {code}"),
        ),
        Err(e) => status(
            "ollama",
            "model",
            false,
            format!("not reachable at {ollama} ({e}); start it with `ollama serve`"),
        ),
    });
    let models = [
        settings.default_model.as_deref(),
        settings.fast_model.as_deref(),
    ];
    match models
        .iter()
        .flatten()
        .find(|m| m.starts_with("openai-compat:"))
    {
        Some(spec) => {
            let base = spec
                .trim_start_matches("openai-compat:")
                .rsplit_once('#')
                .map(|(u, _)| u.to_string())
                .unwrap_or_default();
            out.push(match reachable(&format!("{base}/models")).await {
                Ok(code) if code < 500 => {
                    status("openai-compat", "model", true, format!("{base} answers"))
                }
                Ok(code) => status(
                    "openai-compat",
                    "model",
                    false,
                    format!("{base} answered HTTP {code}"),
                ),
                Err(e) => status(
                    "openai-compat",
                    "model",
                    false,
                    format!("{base} is not reachable ({e})"),
                ),
            });
        }
        None => out.push(status(
            "openai-compat",
            "model",
            true,
            "any server by URL: openai-compat:http://HOST:PORT/v1#MODEL",
        )),
    }
    match models.iter().flatten().find(|m| m.starts_with("local:")) {
        Some(spec) => {
            let path = spec.trim_start_matches("local:");
            out.push(if std::path::Path::new(path).is_file() {
                status("local", "model", true, format!("model file {path}"))
            } else {
                status(
                    "local",
                    "model",
                    false,
                    format!("the model file {path} does not exist"),
                )
            });
        }
        None => out.push(status(
            "local",
            "model",
            true,
            "built in: local:/path/model.gguf",
        )),
    }

    for (name, needs_key) in research_search::PROVIDERS {
        let s = match *name {
            "searxng" => match &settings.searxng_url {
                Some(url) => match reachable(&format!("{url}/search?q=test&format=json")).await {
                    Ok(200) => status(name, "search", true, format!("answers JSON at {url}")),
                    Ok(403) => status(
                        name,
                        "search",
                        false,
                        format!(
                            "{url} refuses JSON; add `json` to search.formats in its settings.yml"
                        ),
                    ),
                    Ok(code) => {
                        status(name, "search", false, format!("{url} answered HTTP {code}"))
                    }
                    Err(e) => status(
                        name,
                        "search",
                        false,
                        format!("{url} is not reachable ({e})"),
                    ),
                },
                None => status(name, "search", false, "no instance").fix(Fix::SearxngUrl),
            },
            "semantic-scholar" => keyed(store, name, "search", false),
            _ if *needs_key => keyed(store, name, "search", true),
            _ => status(name, "search", true, "no key needed"),
        };
        out.push(s);
    }
    // The person's own MCP servers: described, not started (starting one is what a search
    // does; a command that is not installed says so there).
    for (name, setting) in &settings.mcp_sources {
        let provider = format!("mcp:{name}");
        out.push(match research_search::McpSource::parse(name, setting) {
            Ok(source) => status(
                &provider,
                "search",
                true,
                match &source.address {
                    research_search::McpServerAddress::Command { program, .. } => {
                        format!("MCP server started as `{program}`, tool `{}`", source.tool)
                    }
                    research_search::McpServerAddress::Http { url, .. } => format!(
                        "MCP server at {url}, tool `{}`{}",
                        source.tool,
                        if keys::resolve(store, &provider).is_some() {
                            ", token set"
                        } else {
                            ""
                        }
                    ),
                },
            ),
            Err(e) => status(&provider, "search", false, e.to_string()),
        });
    }
    out.push(match library.map(|l| l.folders()) {
        Some(Ok(folders)) if !folders.is_empty() => {
            let files: usize = folders.iter().map(|f| f.files).sum();
            status(
                "local",
                "search",
                true,
                format!("{} folder(s), {files} file(s) indexed", folders.len()),
            )
        }
        Some(Ok(_)) => status("local", "search", false, "the library is empty").fix(Fix::Library),
        Some(Err(e)) => status(
            "local",
            "search",
            false,
            format!("the library cannot be read: {e}"),
        ),
        None => status("local", "search", false, "the library cannot be opened"),
    });
    out
}
