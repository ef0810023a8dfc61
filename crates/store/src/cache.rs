//! The search and page caches: what a provider or a server answered lately, so a follow-up,
//! a fork or a recheck within the cache's age does not ask again.

use rusqlite::{params, OptionalExtension};

use crate::sessions::json;
use crate::{CacheStore, SessionStore, SqliteSessions, StoreError};

impl CacheStore for SqliteSessions {
    /// A cached search answer no older than `max_age_ms`.
    fn cached_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let text: Option<String> = self
            .conn()
            .query_row(
                "SELECT hits FROM search_cache WHERE provider = ?1 AND query = ?2 AND max_results = ?3 AND fetched_at_ms >= ?4",
                params![provider, query, limit as i64, now_ms - max_age_ms],
                |r| r.get(0),
            )
            .optional()?;
        Ok(text.map(json))
    }

    /// Caches a search answer.
    fn cache_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        hits: &serde_json::Value,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO search_cache (provider, query, max_results, hits, fetched_at_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![provider, query, limit as i64, hits.to_string(), now_ms],
        )?;
        Ok(())
    }

    /// A cached page (its metadata as JSON, and its text) no older than `max_age_ms`.
    fn cached_page(
        &self,
        url: &str,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<(serde_json::Value, String)>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT p.meta, d.text FROM page_cache p JOIN documents d ON d.sha256 = p.sha256
                 WHERE p.url = ?1 AND p.fetched_at_ms >= ?2",
                params![url, now_ms - max_age_ms],
                |r| Ok((json(r.get(0)?), r.get(1)?)),
            )
            .optional()?)
    }

    /// Caches a page: its text in `documents`, its metadata here.
    fn cache_page(
        &self,
        url: &str,
        meta: &serde_json::Value,
        text: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let sha = self.put_document(text, now_ms)?;
        self.conn().execute(
            "INSERT OR REPLACE INTO page_cache (url, meta, sha256, fetched_at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![url, meta.to_string(), sha, now_ms],
        )?;
        Ok(())
    }
}
