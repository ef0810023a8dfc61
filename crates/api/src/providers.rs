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
    /// The model strings it offers now, for a model picker: the models an Ollama server has,
    /// the GGUF files downloaded, a keyed provider's small model, the configured server's.
    #[serde(default)]
    pub models: Vec<String>,
}

fn status(name: &str, kind: &str, ready: bool, detail: impl Into<String>) -> ProviderStatus {
    ProviderStatus {
        name: name.into(),
        kind: kind.into(),
        ready,
        detail: detail.into(),
        fix: None,
        models: Vec::new(),
    }
}

impl ProviderStatus {
    fn fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    fn offering(mut self, models: Vec<String>) -> Self {
        self.models = models;
        self
    }
}

/// How long a local server has to answer a readiness probe.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// The client every readiness probe uses: a local server either answers at once or is said
/// to be down.
fn probe_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(PROBE_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())
}

/// The models an Ollama server at `base` has, as model strings (`ollama:NAME`).
async fn ollama_models(base: &str) -> Result<Vec<String>, String> {
    let client = probe_client()?;
    let tags: serde_json::Value = client
        .get(format!("{base}/api/tags"))
        .send()
        .await
        .map_err(unreachable_reason)?
        .error_for_status()
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| format!("its model list could not be read: {e}"))?;
    Ok(tags["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["name"].as_str())
        .map(|n| format!("ollama:{n}"))
        .collect())
}

/// The model ids an OpenAI-compatible server at `base` lists (`GET /models`), none when it
/// lists none or cannot be read.
async fn server_models(base: &str) -> Vec<String> {
    let Ok(client) = probe_client() else {
        return Vec::new();
    };
    let Ok(reply) = client.get(format!("{base}/models")).send().await else {
        return Vec::new();
    };
    let Ok(list) = reply.json::<serde_json::Value>().await else {
        return Vec::new();
    };
    list["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["id"].as_str().map(String::from))
        .take(50)
        .collect()
}

/// The GGUF files in `dir`, as model strings (`local:/path`), by name.
fn downloaded(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("gguf"))
                && p.is_file()
        })
        .map(|p| format!("local:{}", p.display()))
        .collect();
    out.sort();
    out
}

/// Why a local server did not answer, in a few words.
fn unreachable_reason(e: reqwest::Error) -> String {
    if e.is_connect() {
        "connection refused".to_string()
    } else if e.is_timeout() {
        format!("no answer within {} s", PROBE_TIMEOUT.as_secs())
    } else {
        e.to_string()
    }
}

async fn reachable(url: &str) -> Result<u16, String> {
    let client = probe_client()?;
    client
        .get(url)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(unreachable_reason)
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

/// How long `providers` waits for an MCP source's server to start and list its tools.
const MCP_CHECK: std::time::Duration = std::time::Duration::from_secs(15);

/// Every provider's readiness. Checks local servers over the network (3 s each at most; an MCP
/// source's server is started and its tools listed, [`MCP_CHECK`]), never a paid API.
pub async fn providers(
    store: &dyn KeyStore,
    settings: &Settings,
    library: Option<&Library>,
    models_dir: Option<&std::path::Path>,
) -> Vec<ProviderStatus> {
    // A keyed provider offers its small model (the one its key is tested with).
    let mut out: Vec<ProviderStatus> = ["openai", "anthropic", "gemini"]
        .into_iter()
        .map(|name| {
            let s = keyed(store, name, "model", true);
            let probe = PROBE_MODELS
                .iter()
                .filter(|(p, _)| *p == name && s.ready)
                .map(|(_, m)| m.to_string())
                .collect();
            s.offering(probe)
        })
        .collect();
    let ollama = settings
        .ollama_url
        .clone()
        .unwrap_or_else(|| research_llm::ConnectSettings::from_env().ollama_url);
    out.push(match ollama_models(&ollama).await {
        Ok(models) if models.is_empty() => status(
            "ollama",
            "model",
            false,
            format!("running at {ollama}, with no model yet (ollama pull qwen2.5:7b)"),
        ),
        Ok(models) => status(
            "ollama",
            "model",
            true,
            format!("running at {ollama}, {} model(s)", models.len()),
        )
        .offering(models),
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
                    // The server's own list, where it gives one (LM Studio, vLLM, llama.cpp's).
                    let mut offered = vec![spec.to_string()];
                    for id in server_models(&base).await {
                        let m = format!("openai-compat:{base}#{id}");
                        if !offered.contains(&m) {
                            offered.push(m);
                        }
                    }
                    status("openai-compat", "model", true, format!("{base} answers"))
                        .offering(offered)
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
    // The built-in engine offers the GGUF files downloaded and the one the settings name.
    let mut files = models_dir.map(downloaded).unwrap_or_default();
    match models.iter().flatten().find(|m| m.starts_with("local:")) {
        Some(spec) => {
            let path = spec.trim_start_matches("local:");
            out.push(if std::path::Path::new(path).is_file() {
                if !files.iter().any(|f| f == spec) {
                    files.insert(0, spec.to_string());
                }
                status("local", "model", true, format!("model file {path}")).offering(files)
            } else {
                status(
                    "local",
                    "model",
                    false,
                    format!("the model file {path} does not exist"),
                )
                .offering(files)
            });
        }
        None => {
            let detail = if files.is_empty() {
                "built in: local:/path/model.gguf (research models download, or the app's Settings)"
                    .to_string()
            } else {
                format!("built in: {} model file(s) downloaded", files.len())
            };
            out.push(status("local", "model", true, detail).offering(files))
        }
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
    // The person's own MCP servers: started (or asked) and their tool looked for, all at once,
    // so one that cannot be searched is never called ready.
    let documents = research_search::McpDocuments::default();
    let checks = settings.mcp_sources.iter().map(|(name, setting)| {
        let provider = format!("mcp:{name}");
        let search = crate::search::mcp_source(name, &settings.mcp_sources, store, &documents);
        let token = keys::resolve(store, &provider).is_some();
        async move {
            let source = match research_search::McpSource::parse(name, setting) {
                Ok(source) => source,
                Err(e) => return status(&provider, "search", false, e.to_string()),
            };
            let described = match &source.address {
                research_search::McpServerAddress::Command { program, .. } => {
                    format!("MCP server started as `{program}`, tool `{}`", source.tool)
                }
                research_search::McpServerAddress::Http { url, .. } => format!(
                    "MCP server at {url}, tool `{}`{}",
                    source.tool,
                    if token { ", token set" } else { "" }
                ),
            };
            let checked = match search {
                Ok(search) => search.check(MCP_CHECK).await.map_err(|e| e.to_string()),
                Err(e) => Err(e.message),
            };
            match checked {
                Ok(()) => status(&provider, "search", true, described),
                Err(why) => status(&provider, "search", false, format!("{described}: {why}")),
            }
        }
    });
    out.extend(futures::future::join_all(checks).await);
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

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    #[tokio::test]
    async fn the_models_a_server_has_and_the_files_downloaded_are_offered() {
        let server = MockServer::start().await;
        Mock::given(path("/v1/models"))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                serde_json::json!({"data": [{"id": "qwen2.5-7b-instruct"}, {"id": "llama-3.2-3b"}]}),
            ))
            .mount(&server)
            .await;
        Mock::given(path("/api/tags"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(serde_json::json!({"models": [{"name": "qwen2.5:7b"}]})),
            )
            .mount(&server)
            .await;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("small.gguf"), b"GGUF").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        let mut settings = Settings::default();
        let base = format!("{}/v1", server.uri());
        settings
            .set(
                "default_model",
                &format!("openai-compat:{base}#qwen2.5-7b-instruct"),
            )
            .unwrap();
        settings.set("ollama_url", &server.uri()).unwrap();
        let keys = crate::MemoryKeys::default();
        let list = providers(&keys, &settings, None, Some(dir.path())).await;
        let offered = |name: &str| {
            list.iter()
                .find(|p| p.kind == "model" && p.name == name)
                .unwrap()
                .models
                .clone()
        };
        assert_eq!(
            offered("openai-compat"),
            vec![
                format!("openai-compat:{base}#qwen2.5-7b-instruct"),
                format!("openai-compat:{base}#llama-3.2-3b"),
            ]
        );
        assert_eq!(offered("ollama"), vec!["ollama:qwen2.5:7b".to_string()]);
        assert_eq!(
            offered("local"),
            vec![format!("local:{}", dir.path().join("small.gguf").display())]
        );
        // No key, nothing offered.
        assert!(offered("openai").is_empty());
    }
}
