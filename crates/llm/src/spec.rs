//! Naming a model with one string, and connecting to it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::openai::{OpenAiClient, OpenAiConfig};
use crate::RetryConfig;
use crate::{LlmClient, LlmError, ScriptedLlm};

/// A parsed model string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSpec {
    /// `openai:MODEL`
    OpenAi {
        /// Model id.
        model: String,
    },
    /// `anthropic:MODEL`
    Anthropic {
        /// Model id.
        model: String,
    },
    /// `gemini:MODEL`
    Gemini {
        /// Model id.
        model: String,
    },
    /// `openai-compat:http://host:port/v1#MODEL`
    OpenAiCompat {
        /// Base URL.
        base_url: String,
        /// Model id.
        model: String,
    },
    /// `ollama:MODEL` (the model name may contain `:`, as in `qwen2.5:7b`)
    Ollama {
        /// Model name.
        model: String,
    },
    /// `local:/path/model.gguf`
    Local {
        /// The GGUF file.
        path: PathBuf,
    },
    /// `scripted:PATH`
    Scripted {
        /// The script file.
        path: PathBuf,
    },
}

impl ModelSpec {
    /// Why this spec cannot be used as it stands on this machine: the model or script file it
    /// names is not there. Asked before a run is created, so a run that could never make its
    /// first call is refused rather than left failed.
    pub fn missing_file(&self) -> Option<LlmError> {
        let (what, path) = match self {
            ModelSpec::Local { path } => ("model file", path),
            ModelSpec::Scripted { path } => ("script file", path),
            _ => return None,
        };
        (!path.is_file())
            .then(|| LlmError::Config(format!("there is no {what} at {}", path.display())))
    }
}

impl std::str::FromStr for ModelSpec {
    type Err = LlmError;

    fn from_str(spec: &str) -> Result<Self, LlmError> {
        let (provider, rest) = spec.split_once(':').ok_or_else(|| {
            LlmError::Config(format!("`{spec}` is not a model string; write PROVIDER:MODEL, e.g. openai:gpt-4o-mini or ollama:qwen2.5:7b"))
        })?;
        let rest = rest.trim();
        let need = |what: &str| LlmError::Config(format!("`{spec}` names no {what}"));
        match provider {
            "openai" if !rest.is_empty() => Ok(ModelSpec::OpenAi { model: rest.into() }),
            "ollama" if !rest.is_empty() => Ok(ModelSpec::Ollama { model: rest.into() }),
            "anthropic" if !rest.is_empty() => Ok(ModelSpec::Anthropic { model: rest.into() }),
            "gemini" if !rest.is_empty() => Ok(ModelSpec::Gemini { model: rest.into() }),
            "openai-compat" => {
                let (url, model) = rest.rsplit_once('#').ok_or_else(|| {
                    LlmError::Config(format!("`{spec}` needs a model after `#`, e.g. openai-compat:http://127.0.0.1:8080/v1#my-model"))
                })?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(LlmError::Config(format!("`{url}` is not an http(s) URL")));
                }
                if model.is_empty() {
                    return Err(need("model"));
                }
                Ok(ModelSpec::OpenAiCompat {
                    base_url: url.trim_end_matches('/').into(),
                    model: model.into(),
                })
            }
            "scripted" if !rest.is_empty() => Ok(ModelSpec::Scripted { path: rest.into() }),
            "local" if !rest.is_empty() => Ok(ModelSpec::Local { path: rest.into() }),
            "openai" | "ollama" | "anthropic" | "gemini" => Err(need("model")),
            "scripted" => Err(need("script file")),
            "local" => Err(need("model file")),
            other => Err(LlmError::Config(format!(
                "unknown model provider `{other}`; use openai, anthropic, gemini, ollama, openai-compat, local or scripted"
            ))),
        }
    }
}

/// Keys, addresses and limits used to connect. Its `Debug` shows whether each key is set, never
/// the key: settings end up in logs and panic messages.
#[derive(Clone)]
pub struct ConnectSettings {
    /// OpenAI's key.
    pub openai_key: Option<String>,
    /// Key for OpenAI-compatible servers that want one.
    pub compat_key: Option<String>,
    /// Anthropic's key.
    pub anthropic_key: Option<String>,
    /// Gemini's key.
    pub gemini_key: Option<String>,
    /// Anthropic's base URL (changed only by tests and proxies).
    pub anthropic_base_url: String,
    /// Gemini's base URL (changed only by tests and proxies).
    pub gemini_base_url: String,
    /// OpenAI's base URL (changed only by tests and proxies).
    pub openai_base_url: String,
    /// Ollama's address.
    pub ollama_url: String,
    /// Longest silence while waiting for an answer.
    pub timeout: Duration,
    /// Retry policy for network calls.
    pub retry: RetryConfig,
    /// Settings of the built-in model.
    #[cfg(feature = "local")]
    pub local: crate::LocalConfig,
}

impl Default for ConnectSettings {
    fn default() -> Self {
        Self {
            openai_key: None,
            compat_key: None,
            anthropic_key: None,
            gemini_key: None,
            openai_base_url: "https://api.openai.com/v1".into(),
            anthropic_base_url: "https://api.anthropic.com".into(),
            gemini_base_url: "https://generativelanguage.googleapis.com".into(),
            ollama_url: "http://127.0.0.1:11434".into(),
            timeout: Duration::from_secs(120),
            retry: RetryConfig::default(),
            #[cfg(feature = "local")]
            local: crate::LocalConfig::default(),
        }
    }
}

impl ConnectSettings {
    /// Defaults, with keys from the conventional environment variables.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self {
            openai_key: var("OPENAI_API_KEY"),
            compat_key: var("OPENAI_COMPAT_API_KEY"),
            anthropic_key: var("ANTHROPIC_API_KEY"),
            gemini_key: var("GEMINI_API_KEY").or_else(|| var("GOOGLE_API_KEY")),
            ollama_url: var("OLLAMA_HOST")
                .map(|h| {
                    if h.starts_with("http") {
                        h
                    } else {
                        format!("http://{h}")
                    }
                })
                .unwrap_or_else(|| "http://127.0.0.1:11434".into()),
            #[cfg(feature = "local")]
            local: crate::LocalConfig {
                max_sequences: var(LOCAL_SEQUENCES_ENV)
                    .and_then(|v| v.trim().parse::<u32>().ok())
                    .filter(|n| *n >= 1)
                    .unwrap_or(crate::LocalConfig::default().max_sequences),
                ..crate::LocalConfig::default()
            },
            ..Self::default()
        }
    }
}

/// How many requests the built-in model decodes together at most (1: one at a time, for a
/// machine short of memory or to compare).
pub const LOCAL_SEQUENCES_ENV: &str = "RESEARCH_STUDIO_LOCAL_SEQUENCES";

/// Connects to the model named by `spec`.
pub fn connect(spec: &str, settings: &ConnectSettings) -> Result<Arc<dyn LlmClient>, LlmError> {
    let parsed: ModelSpec = spec.parse()?;
    let base =
        |provider: &str, base_url: String, model: String, api_key: Option<String>, hint: &str| {
            OpenAiConfig {
                provider: provider.into(),
                base_url,
                model,
                api_key,
                timeout: settings.timeout,
                retry: settings.retry.clone(),
                unreachable_hint: hint.into(),
            }
        };
    Ok(match parsed {
        ModelSpec::OpenAi { model } => {
            let key = settings
                .openai_key
                .clone()
                .ok_or_else(|| LlmError::MissingKey {
                    provider: "openai".into(),
                    env: "OPENAI_API_KEY".into(),
                })?;
            Arc::new(OpenAiClient::new(
                base(
                    "openai",
                    settings.openai_base_url.clone(),
                    model,
                    Some(key),
                    "",
                ),
                spec,
            )?)
        }
        ModelSpec::OpenAiCompat { base_url, model } => Arc::new(OpenAiClient::new(
            base(
                "openai-compat",
                base_url,
                model,
                settings.compat_key.clone(),
                "; is the server running?",
            ),
            spec,
        )?),
        ModelSpec::Ollama { model } => Arc::new(crate::OllamaClient::new(
            &settings.ollama_url,
            &model,
            settings.timeout,
            settings.retry.clone(),
            spec,
        )?),
        ModelSpec::Anthropic { model } => {
            let key = settings
                .anthropic_key
                .clone()
                .ok_or_else(|| LlmError::MissingKey {
                    provider: "anthropic".into(),
                    env: "ANTHROPIC_API_KEY".into(),
                })?;
            Arc::new(crate::AnthropicClient::new(
                &settings.anthropic_base_url,
                &model,
                key,
                settings.timeout,
                settings.retry.clone(),
                spec,
            )?)
        }
        ModelSpec::Gemini { model } => {
            let key = settings
                .gemini_key
                .clone()
                .ok_or_else(|| LlmError::MissingKey {
                    provider: "gemini".into(),
                    env: "GEMINI_API_KEY".into(),
                })?;
            Arc::new(crate::GeminiClient::new(
                &settings.gemini_base_url,
                &model,
                key,
                settings.timeout,
                settings.retry.clone(),
                spec,
            )?)
        }
        ModelSpec::Scripted { path } => Arc::new(ScriptedLlm::from_file(&path)?),
        #[cfg(feature = "local")]
        ModelSpec::Local { path } => {
            let open = || crate::LocalLlm::open(&path, settings.local.clone());
            // Loading a GGUF reads gigabytes: on a multi-threaded runtime the worker hands its
            // other tasks to the rest while it blocks, so other runs are not held up.
            let model = match tokio::runtime::Handle::try_current() {
                Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                    tokio::task::block_in_place(open)
                }
                _ => open(),
            };
            Arc::new(model?)
        }
        #[cfg(not(feature = "local"))]
        ModelSpec::Local { .. } => {
            return Err(LlmError::Config(
                "this build has no built-in model (feature `local`)".into(),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::ModelSpec;

    #[test]
    fn model_strings() {
        assert_eq!(
            "openai:gpt-4o-mini".parse::<ModelSpec>().unwrap(),
            ModelSpec::OpenAi {
                model: "gpt-4o-mini".into()
            }
        );
        assert_eq!(
            "ollama:qwen2.5:7b".parse::<ModelSpec>().unwrap(),
            ModelSpec::Ollama {
                model: "qwen2.5:7b".into()
            }
        );
        assert_eq!(
            "openai-compat:http://127.0.0.1:8080/v1/#local-model"
                .parse::<ModelSpec>()
                .unwrap(),
            ModelSpec::OpenAiCompat {
                base_url: "http://127.0.0.1:8080/v1".into(),
                model: "local-model".into()
            }
        );
        for bad in [
            "gpt-4o",
            "openai:",
            "openai-compat:http://x/v1",
            "openai-compat:ftp://x#m",
            "mystery:m",
        ] {
            let err = bad.parse::<ModelSpec>().unwrap_err().to_string();
            assert!(!err.is_empty(), "{bad}");
        }
        assert!("mystery:m"
            .parse::<ModelSpec>()
            .unwrap_err()
            .to_string()
            .contains("unknown model provider `mystery`"));
    }
}

/// How a secret shows in `Debug` output: whether it is set, never what it is.
pub(crate) fn redacted(key: &Option<String>) -> &'static str {
    match key {
        Some(_) => "Some(<redacted>)",
        None => "None",
    }
}

impl std::fmt::Debug for ConnectSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ConnectSettings");
        d.field(
            "openai_key",
            &format_args!("{}", redacted(&self.openai_key)),
        )
        .field(
            "compat_key",
            &format_args!("{}", redacted(&self.compat_key)),
        )
        .field(
            "anthropic_key",
            &format_args!("{}", redacted(&self.anthropic_key)),
        )
        .field(
            "gemini_key",
            &format_args!("{}", redacted(&self.gemini_key)),
        )
        .field("anthropic_base_url", &self.anthropic_base_url)
        .field("gemini_base_url", &self.gemini_base_url)
        .field("openai_base_url", &self.openai_base_url)
        .field("ollama_url", &self.ollama_url)
        .field("timeout", &self.timeout)
        .field("retry", &self.retry);
        #[cfg(feature = "local")]
        d.field("local", &self.local);
        d.finish()
    }
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_a_key() {
        let settings = ConnectSettings {
            openai_key: Some("sk-SECRET-openai".into()),
            compat_key: Some("sk-SECRET-compat".into()),
            anthropic_key: Some("sk-ant-SECRET".into()),
            gemini_key: None,
            ..ConnectSettings::default()
        };
        let shown = format!("{settings:?} {settings:#?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("Some(<redacted>)") && shown.contains("gemini_key: None"));
        let config = crate::openai::OpenAiConfig {
            provider: "openai".into(),
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            api_key: Some("sk-SECRET-config".into()),
            timeout: std::time::Duration::from_secs(1),
            retry: RetryConfig::default(),
            unreachable_hint: String::new(),
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
    }
}
