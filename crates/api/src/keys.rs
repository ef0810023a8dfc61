//! API keys: kept in the OS keychain, never in files; the conventional environment variables
//! are the fallback (and what CI and scripts use).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode, APP_IDENTIFIER};

/// A provider that takes a key, and the environment variable that can carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedProvider {
    /// The name used on the command line and in the keychain.
    pub name: &'static str,
    /// The conventional environment variable.
    pub env: &'static str,
}

/// Every provider that takes a key.
pub const KEYED_PROVIDERS: &[KeyedProvider] = &[
    KeyedProvider {
        name: "openai",
        env: "OPENAI_API_KEY",
    },
    KeyedProvider {
        name: "anthropic",
        env: "ANTHROPIC_API_KEY",
    },
    KeyedProvider {
        name: "gemini",
        env: "GEMINI_API_KEY",
    },
    KeyedProvider {
        name: "openai-compat",
        env: "OPENAI_COMPAT_API_KEY",
    },
    KeyedProvider {
        name: "tavily",
        env: "TAVILY_API_KEY",
    },
    KeyedProvider {
        name: "brave",
        env: "BRAVE_API_KEY",
    },
    KeyedProvider {
        name: "serper",
        env: "SERPER_API_KEY",
    },
    KeyedProvider {
        name: "newsapi",
        env: "NEWSAPI_API_KEY",
    },
    KeyedProvider {
        name: "semantic-scholar",
        env: "SEMANTIC_SCHOLAR_API_KEY",
    },
];

/// The names a key can be stored for, in words for help and errors: the keyed providers, and
/// `mcp:NAME` for an MCP source's token.
pub fn key_names() -> String {
    let names: Vec<&str> = KEYED_PROVIDERS.iter().map(|p| p.name).collect();
    format!("{}, mcp:NAME (an MCP source's token)", names.join(", "))
}

fn provider(name: &str) -> Result<&'static KeyedProvider, ApiError> {
    KEYED_PROVIDERS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!("`{name}` takes no key; keys are stored for {}", key_names()),
            )
        })
}

/// Where keys are kept.
pub trait KeyStore: Send + Sync {
    /// The stored key, if any.
    fn get(&self, provider: &str) -> Result<Option<String>, ApiError>;
    /// Stores a key, replacing any earlier one.
    fn set(&self, provider: &str, key: &str) -> Result<(), ApiError>;
    /// Forgets a key (no error when there was none).
    fn delete(&self, provider: &str) -> Result<(), ApiError>;
    /// Where keys from this store are said to come from.
    fn source(&self) -> KeySource {
        KeySource::Keychain
    }
}

/// The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows).
#[derive(Debug, Default, Clone, Copy)]
pub struct OsKeychain;

impl OsKeychain {
    fn entry(provider: &str) -> Result<keyring::Entry, ApiError> {
        keyring::Entry::new(APP_IDENTIFIER, provider).map_err(unavailable)
    }
}

fn unavailable(e: keyring::Error) -> ApiError {
    let detail = match keyring::Entry::store_status() {
        Err(status) => status.to_string(),
        Ok(()) => e.to_string(),
    };
    ApiError::new(
        ErrorCode::Storage,
        format!("the OS keychain is not available ({detail}); set the key in its environment variable instead"),
    )
}

impl KeyStore for OsKeychain {
    fn get(&self, provider: &str) -> Result<Option<String>, ApiError> {
        match Self::entry(provider)?.get_password() {
            Ok(key) => Ok(Some(key)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    fn set(&self, provider: &str, key: &str) -> Result<(), ApiError> {
        Self::entry(provider)?
            .set_password(key)
            .map_err(unavailable)
    }

    fn delete(&self, provider: &str) -> Result<(), ApiError> {
        match Self::entry(provider)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }
}

/// Keys in memory: for tests, and for a session when no keychain exists.
#[derive(Debug, Default)]
pub struct MemoryKeys(Mutex<BTreeMap<String, String>>);

impl KeyStore for MemoryKeys {
    fn get(&self, provider: &str) -> Result<Option<String>, ApiError> {
        Ok(self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(provider)
            .cloned())
    }
    fn set(&self, provider: &str, key: &str) -> Result<(), ApiError> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(provider.into(), key.into());
        Ok(())
    }
    fn delete(&self, provider: &str) -> Result<(), ApiError> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(provider);
        Ok(())
    }
    fn source(&self) -> KeySource {
        KeySource::Session
    }
}

/// Where a provider's key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The OS keychain.
    Keychain,
    /// Kept in memory until the app quits (no OS keychain to keep it in).
    Session,
    /// The environment variable.
    Environment,
    /// Not set.
    Missing,
}

/// A provider's key, as listed: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct KeyStatus {
    /// Provider name.
    pub provider: String,
    /// The environment variable that can carry it.
    pub env: String,
    /// Where the key in use comes from.
    pub source: KeySource,
    /// The key's first and last characters, e.g. `sk-…3f9a`.
    pub masked: Option<String>,
}

fn mask(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() <= 8 {
        return "…".to_string();
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

/// The key for `provider`: the keychain's, else the environment's. A keychain that cannot be
/// reached is passed over (the environment may still have the key).
pub fn resolve(store: &dyn KeyStore, provider: &str) -> Option<(String, KeySource)> {
    let env = KEYED_PROVIDERS
        .iter()
        .find(|p| p.name == provider)
        .map(|p| p.env);
    match store.get(provider) {
        Ok(Some(key)) if !key.trim().is_empty() => return Some((key, store.source())),
        Ok(_) => {}
        Err(e) => tracing::debug!(%provider, error = %e, "keychain not available"),
    }
    let key = env
        .and_then(|v| std::env::var(v).ok())
        .filter(|k| !k.trim().is_empty())?;
    Some((key, KeySource::Environment))
}

/// Every key the run could use (keychain and environment), for redacting kept model calls.
pub fn known_keys(store: &dyn KeyStore) -> Vec<String> {
    KEYED_PROVIDERS
        .iter()
        .filter_map(|p| resolve(store, p.name).map(|(key, _)| key))
        .collect()
}

/// Checks that `name` takes a key: a keyed provider, or an MCP source (`mcp:NAME`, whose token
/// its server at an address may want).
fn keyed_name(name: &str) -> Result<(), ApiError> {
    match name.strip_prefix("mcp:") {
        Some(source) => research_search::McpSource::parse(source, "https://x")
            .map(|_| ())
            .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string())),
        None => provider(name).map(|_| ()),
    }
}

/// Stores a key after checking the provider name and the key's shape.
pub fn set_key(store: &dyn KeyStore, provider_name: &str, key: &str) -> Result<(), ApiError> {
    keyed_name(provider_name)?;
    let key = key.trim();
    if key.is_empty() {
        return Err(ApiError::new(ErrorCode::InvalidInput, "the key is empty"));
    }
    if key.chars().any(char::is_whitespace) || key.len() > 4096 {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "that does not look like an API key (it has spaces or is very long)",
        ));
    }
    store.set(provider_name, key)
}

/// Forgets a stored key.
pub fn delete_key(store: &dyn KeyStore, provider_name: &str) -> Result<(), ApiError> {
    keyed_name(provider_name)?;
    store.delete(provider_name)
}

/// Every keyed provider with where its key comes from, masked.
pub fn list_keys(store: &dyn KeyStore) -> Vec<KeyStatus> {
    KEYED_PROVIDERS
        .iter()
        .map(|p| {
            let found = resolve(store, p.name);
            KeyStatus {
                provider: p.name.into(),
                env: p.env.into(),
                source: found.as_ref().map_or(KeySource::Missing, |(_, s)| *s),
                masked: found.map(|(k, _)| mask(&k)),
            }
        })
        .collect()
}

/// Model connection settings with keys from `store` (falling back to the environment).
pub fn connect_settings(store: &dyn KeyStore) -> research_llm::ConnectSettings {
    let key = |name: &str| resolve(store, name).map(|(k, _)| k);
    research_llm::ConnectSettings {
        openai_key: key("openai"),
        anthropic_key: key("anthropic"),
        gemini_key: key("gemini").or_else(|| std::env::var("GOOGLE_API_KEY").ok()),
        compat_key: key("openai-compat"),
        ..research_llm::ConnectSettings::from_env()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_first_then_environment_and_masked() {
        let store = MemoryKeys::default();
        set_key(&store, "anthropic", "  sk-ant-abcdefgh1234  ").unwrap();
        let listed = list_keys(&store);
        let anthropic = listed.iter().find(|k| k.provider == "anthropic").unwrap();
        // Keys held in memory say so: they are gone when the app quits.
        assert_eq!(anthropic.source, KeySource::Session);
        assert_eq!(anthropic.masked.as_deref(), Some("sk-…1234"));
        assert_eq!(
            resolve(&store, "anthropic").unwrap().0,
            "sk-ant-abcdefgh1234",
            "stored trimmed"
        );
        delete_key(&store, "anthropic").unwrap();
        assert!(store.get("anthropic").unwrap().is_none());
    }

    #[test]
    fn bad_input_is_refused() {
        let store = MemoryKeys::default();
        assert!(set_key(&store, "duckduckgo", "x")
            .unwrap_err()
            .message
            .contains("takes no key"));
        assert_eq!(
            set_key(&store, "openai", "   ").unwrap_err().message,
            "the key is empty"
        );
        assert!(set_key(&store, "openai", "two words").is_err());
    }

    #[test]
    fn an_mcp_sources_token_is_kept_by_its_name() {
        let store = MemoryKeys::default();
        set_key(&store, "mcp:tickets", "tok-123456789").unwrap();
        assert_eq!(resolve(&store, "mcp:tickets").unwrap().0, "tok-123456789");
        assert!(set_key(&store, "mcp:bad name", "tok").is_err());
        delete_key(&store, "mcp:tickets").unwrap();
        assert!(resolve(&store, "mcp:tickets").is_none());
    }
}
