//! The user's settings: default models, search providers, the SearXNG and Ollama addresses,
//! hosts the fetcher may reach, and which review points are on.
//!
//! They live in one JSON file, `settings.json` next to the database in the app's data folder,
//! which is also the file the desktop app's `tauri-plugin-store` store uses (a JSON object of
//! keys to values). So a default set with `research settings set` is the app's default too, and
//! the other way round. Keys never go here: they are in the OS keychain.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode};

/// The settings file's name in the data folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// Every setting; absent ones take the built-in default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Settings {
    /// The default model string (`ollama:qwen2.5:7b`, `local:/path/model.gguf`, …).
    pub default_model: Option<String>,
    /// The default fast model.
    pub fast_model: Option<String>,
    /// Default search providers.
    pub search: Option<Vec<String>>,
    /// The SearXNG instance.
    pub searxng_url: Option<String>,
    /// Where Ollama listens (default `http://127.0.0.1:11434`).
    pub ollama_url: Option<String>,
    /// Hosts the fetcher may reach although they are local or private.
    pub allowed_hosts: Vec<String>,
    /// Review points on by default (`clarify`, `plan`, `report`).
    pub review: Option<Vec<String>>,
    /// Words reports may not use (seed 000's list when unset; empty for none).
    pub banned_words: Option<Vec<String>>,
    /// Domains the trust pipeline trusts (its built-in list when unset).
    pub trusted_domains: Option<Vec<String>>,
    /// Domains the trust pipeline keeps under its credibility bar (its built-in list when unset).
    pub low_trust_domains: Option<Vec<String>>,
    /// A person's own MCP servers as search providers (`mcp:NAME`): by name, a command line or
    /// an http(s) address, `#TOOL` at the end for another tool than `search`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub mcp_sources: std::collections::BTreeMap<String, String>,
    /// A PostgreSQL server a team shares, for sessions, runs and checkpoints (this machine's
    /// SQLite file when unset; `DATABASE_URL` wins over it).
    pub database: Option<String>,
    /// How many of its own backups the app keeps (`DAILY,WEEKLY`, or `off` for none taken);
    /// the built-in rotation when unset ([`crate::backups::Rotation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub backups: Option<String>,
    /// The citation style reports are exported in (the last one chosen; numbered when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub citation_style: Option<String>,
}

/// The keys `research settings set` knows, with what they hold.
pub const SETTING_KEYS: &[(&str, &str)] = &[
    ("default_model", "model string"),
    ("fast_model", "model string"),
    ("search", "comma-separated providers"),
    ("searxng_url", "URL"),
    ("ollama_url", "URL"),
    ("allowed_hosts", "comma-separated local hosts the fetcher may read: host (default ports), host:port, or host:* for every port"),
    (
        "review",
        "comma-separated review points (clarify, plan, report) or none",
    ),
    (
        "banned_words",
        "comma-separated words reports may not use, none, or empty for the built-in list",
    ),
    (
        "trusted_domains",
        "comma-separated domains the trust pipeline trusts (.edu matches a suffix, arxiv.org the domain and its subdomains), none, or empty for the built-in list",
    ),
    (
        "low_trust_domains",
        "comma-separated domains the trust pipeline leaves out, none, or empty for the built-in list",
    ),
    (
        "database",
        "a shared PostgreSQL server for sessions and runs (postgres://user@host/db, no password: set PGPASSWORD), or empty for this machine's file",
    ),
    (
        "mcp_sources",
        "your MCP servers as search providers mcp:NAME, semicolon-separated NAME=COMMAND or NAME=URL (#TOOL at the end to call another tool than search), or none",
    ),
    (
        "backups",
        "the app's own backups kept: DAILY,WEEKLY (the newest DAILY, then one for each of WEEKLY weeks before them; 7,4 when unset), or off for none taken",
    ),
    (
        "citation_style",
        "the citation style of exported reports, as research export --style takes it (an unknown one is answered with the list)",
    ),
];

/// The settings' names, in words for help and errors ("default_model, fast_model, …").
pub fn setting_names() -> String {
    SETTING_KEYS
        .iter()
        .map(|(k, _)| *k)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a name that is not a setting.
fn unknown_setting(name: &str) -> ApiError {
    invalid(format!(
        "unknown setting `{name}`; known: {}",
        setting_names()
    ))
}

/// The setting lists whose absence means a built-in list (and whose emptiness is a choice:
/// none).
pub const BUILTIN_LISTS: &[&str] = &["banned_words", "trusted_domains", "low_trust_domains"];

/// MCP sources from `NAME=COMMAND; NAME=URL#TOOL` (or `none`), each checked as a source.
fn mcp_sources(value: &str) -> Result<std::collections::BTreeMap<String, String>, ApiError> {
    let mut out = std::collections::BTreeMap::new();
    if value.trim().eq_ignore_ascii_case("none") {
        return Ok(out);
    }
    for entry in value.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((name, target)) = entry.split_once('=') else {
            return Err(invalid(format!(
                "`{entry}` is not NAME=COMMAND or NAME=URL"
            )));
        };
        research_search::McpSource::parse(name, target).map_err(|e| invalid(e.to_string()))?;
        out.insert(name.trim().to_string(), target.trim().to_string());
    }
    Ok(out)
}

/// A domain list entry: a domain or a `.suffix`, letters, digits, dots and hyphens only.
fn domains(value: &str) -> Result<Vec<String>, ApiError> {
    let entries: Vec<String> = list(value).into_iter().map(|d| d.to_lowercase()).collect();
    if let Some(bad) = entries.iter().find(|d| {
        d.trim_start_matches('.').is_empty()
            || !d
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
    }) {
        return Err(invalid(format!(
            "`{bad}` is not a domain; write example.org or .edu, without a scheme or path"
        )));
    }
    Ok(entries)
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, message)
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s != "none")
        .collect()
}

fn url(value: &str) -> Result<String, ApiError> {
    let parsed = url::Url::parse(value.trim())
        .map_err(|e| invalid(format!("`{value}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!("`{value}` is not an http(s) URL")));
    }
    Ok(value.trim().trim_end_matches('/').to_string())
}

impl Settings {
    /// The review points saved here, when any are (a hand-edited file may hold anything: an
    /// unknown point is an error naming it).
    pub fn review_points(&self) -> Result<Option<research_pipeline::ReviewPoints>, ApiError> {
        let Some(saved) = &self.review else {
            return Ok(None);
        };
        let mut points = research_pipeline::ReviewPoints::none();
        for point in saved
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            match point {
                "clarify" => points.clarify = true,
                "plan" => points.plan = true,
                "report" => points.report = true,
                "none" => {}
                other => {
                    return Err(invalid(format!(
                        "the review setting names `{other}`; use clarify, plan, report or none"
                    )))
                }
            }
        }
        Ok(Some(points))
    }

    /// The settings file for the database at `db` (same folder).
    pub fn path_for(db: &Path) -> PathBuf {
        db.parent()
            .unwrap_or_else(|| Path::new("."))
            .join(SETTINGS_FILE)
    }

    /// Reads the file; a missing file is the defaults, an unreadable one an error that names it.
    pub fn load(path: &Path) -> Result<Self, ApiError> {
        match std::fs::read_to_string(path) {
            Ok(text) if text.trim().is_empty() => Ok(Self::default()),
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "the settings file {} is not valid: {e}; fix or delete it",
                        path.display()
                    ),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(ApiError::new(
                ErrorCode::Storage,
                format!("could not read {}: {e}", path.display()),
            )),
        }
    }

    /// Writes the file atomically, keeping keys this version does not know (the app's own).
    pub fn save(&self, path: &Path) -> Result<(), ApiError> {
        let storage = |e: std::io::Error| {
            ApiError::new(
                ErrorCode::Storage,
                format!("could not write {}: {e}", path.display()),
            )
        };
        let mut object = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
                .unwrap_or_default(),
            Err(_) => serde_json::Map::new(),
        };
        let ours = serde_json::to_value(self).map_err(|e| invalid(e.to_string()))?;
        if let serde_json::Value::Object(map) = ours {
            for (k, v) in map {
                if v.is_null() {
                    object.remove(&k);
                } else {
                    object.insert(k, v);
                }
            }
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(storage)?;
        }
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(object))
            .map_err(|e| invalid(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(storage)?;
        std::fs::rename(&tmp, path).map_err(storage)
    }

    /// Sets one key from text, checking it.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
        match key {
            "default_model" | "fast_model" => {
                value
                    .parse::<research_llm::ModelSpec>()
                    .map_err(|e| invalid(e.to_string()))?;
                let v = Some(value.trim().to_string());
                if key == "default_model" {
                    self.default_model = v;
                } else {
                    self.fast_model = v;
                }
            }
            "search" => {
                let names = list(value);
                // An `mcp:NAME` may be chosen before its source is set up; the run checks it.
                for n in names.iter().filter(|n| !n.starts_with("mcp:")) {
                    if let Some(why) = crate::search::unknown_search_name(n, &Default::default()) {
                        return Err(invalid(why));
                    }
                }
                self.search = Some(names);
            }
            "searxng_url" => self.searxng_url = Some(url(value)?),
            "ollama_url" => self.ollama_url = Some(url(value)?),
            "allowed_hosts" => self.allowed_hosts = list(value),
            // Empty is the built-in list again; `none` is no banned words at all.
            "banned_words" if value.trim().is_empty() => self.banned_words = None,
            "banned_words" => {
                let words: Vec<String> =
                    list(value).into_iter().map(|w| w.to_lowercase()).collect();
                if let Some(bad) = words
                    .iter()
                    .find(|w| !w.chars().all(|c| c.is_alphanumeric() || c == '-'))
                {
                    return Err(invalid(format!(
                        "`{bad}` is not a word; banned words are single words (hyphens allowed)"
                    )));
                }
                self.banned_words = Some(words);
            }
            "trusted_domains" if value.trim().is_empty() => self.trusted_domains = None,
            "trusted_domains" => self.trusted_domains = Some(domains(value)?),
            "low_trust_domains" if value.trim().is_empty() => self.low_trust_domains = None,
            "low_trust_domains" => self.low_trust_domains = Some(domains(value)?),
            "review" => {
                let points = list(value);
                if let Some(bad) = points
                    .iter()
                    .find(|p| !matches!(p.as_str(), "clarify" | "plan" | "report"))
                {
                    return Err(invalid(format!(
                        "unknown review point `{bad}`; use clarify, plan, report or none"
                    )));
                }
                self.review = Some(points);
            }
            "mcp_sources" => self.mcp_sources = mcp_sources(value)?,
            "database" => self.database = crate::database::check_setting(value)?,
            "backups" => {
                self.backups = crate::backups::Rotation::parse(value)?.map(|r| r.to_string())
            }
            "citation_style" => {
                self.citation_style = Some(crate::export::citation_style(value)?.id.to_string())
            }
            other => return Err(unknown_setting(other)),
        }
        Ok(())
    }

    /// Clears one key back to its default.
    pub fn unset(&mut self, key: &str) -> Result<(), ApiError> {
        match key {
            "default_model" => self.default_model = None,
            "fast_model" => self.fast_model = None,
            "search" => self.search = None,
            "searxng_url" => self.searxng_url = None,
            "ollama_url" => self.ollama_url = None,
            "allowed_hosts" => self.allowed_hosts.clear(),
            "review" => self.review = None,
            "banned_words" => self.banned_words = None,
            "trusted_domains" => self.trusted_domains = None,
            "low_trust_domains" => self.low_trust_domains = None,
            "mcp_sources" => self.mcp_sources.clear(),
            "database" => self.database = None,
            "backups" => self.backups = None,
            "citation_style" => self.citation_style = None,
            other => return Err(unknown_setting(other)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_keep_the_apps_own_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, r#"{"theme": "dark", "default_model": "ollama:a"}"#).unwrap();
        let mut s = Settings::load(&path).unwrap();
        assert_eq!(s.default_model.as_deref(), Some("ollama:a"));
        s.set("default_model", "openai:gpt-4o-mini").unwrap();
        s.set("search", "tavily, local").unwrap();
        s.set("searxng_url", "http://127.0.0.1:8888/").unwrap();
        s.set("review", "plan,report").unwrap();
        s.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"theme\": \"dark\""), "{text}");
        let again = Settings::load(&path).unwrap();
        assert_eq!(
            again.search,
            Some(vec!["tavily".to_string(), "local".to_string()])
        );
        assert_eq!(again.searxng_url.as_deref(), Some("http://127.0.0.1:8888"));
        let mut again = again;
        again.unset("searxng_url").unwrap();
        again.save(&path).unwrap();
        assert!(!std::fs::read_to_string(&path)
            .unwrap()
            .contains("searxng_url"));
    }

    #[test]
    fn saved_review_points_read_like_the_flag() {
        let saved = |points: &[&str]| Settings {
            review: Some(points.iter().map(|p| p.to_string()).collect()),
            ..Default::default()
        };
        let points = saved(&["plan, report", "none"])
            .review_points()
            .unwrap()
            .unwrap();
        assert!(!points.clarify && points.plan && points.report);
        assert_eq!(
            saved(&[""]).review_points().unwrap(),
            Some(research_pipeline::ReviewPoints::none())
        );
        assert_eq!(Settings::default().review_points().unwrap(), None);
        let err = saved(&["plan,bogus"]).review_points().unwrap_err();
        assert_eq!(
            err.message,
            "the review setting names `bogus`; use clarify, plan, report or none"
        );
    }

    #[test]
    fn bad_values_are_refused_with_a_sentence() {
        let mut s = Settings::default();
        assert!(s.set("default_model", "nosuch:x").is_err());
        assert!(s
            .set("search", "altavista")
            .unwrap_err()
            .message
            .contains("altavista"));
        assert!(s.set("ollama_url", "ftp://x").is_err());
        assert!(s
            .set("colour", "blue")
            .unwrap_err()
            .message
            .contains("known:"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::write(&path, "{not json").unwrap();
        assert!(Settings::load(&path)
            .unwrap_err()
            .message
            .contains("fix or delete it"));
        assert_eq!(
            Settings::load(&dir.path().join("none.json")).unwrap(),
            Settings::default()
        );
    }
}
