//! The search and page caches on PostgreSQL.

use research_store::{document_sha256, CacheStore, StoreError};

use super::{json, put_document, PgSessions};

impl CacheStore for PgSessions {
    fn cached_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let (limit, oldest) = (limit as i32, now_ms - max_age_ms);
        self.run(|c| async move {
            Ok(c
                .query_opt(
                    "SELECT hits FROM search_cache WHERE provider = $1 AND query = $2 AND max_results = $3 AND fetched_at_ms >= $4",
                    &[&provider, &query, &limit, &oldest],
                )
                .await?
                .map(|r| json(r.get(0))))
        })
    }

    fn cache_search(
        &self,
        provider: &str,
        query: &str,
        limit: usize,
        hits: &serde_json::Value,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let (limit, hits) = (limit as i32, hits.to_string());
        self.run(|c| async move {
            c.execute(
                "INSERT INTO search_cache (provider, query, max_results, hits, fetched_at_ms) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (provider, query, max_results) DO UPDATE SET hits = EXCLUDED.hits, fetched_at_ms = EXCLUDED.fetched_at_ms",
                &[&provider, &query, &limit, &hits, &now_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn cached_page(
        &self,
        url: &str,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<Option<(serde_json::Value, String)>, StoreError> {
        let oldest = now_ms - max_age_ms;
        self.run(|c| async move {
            Ok(c.query_opt(
                "SELECT p.meta, d.text FROM page_cache p JOIN documents d ON d.sha256 = p.sha256
                     WHERE p.url = $1 AND p.fetched_at_ms >= $2",
                &[&url, &oldest],
            )
            .await?
            .map(|r| (json(r.get(0)), r.get(1))))
        })
    }

    fn cache_page(
        &self,
        url: &str,
        meta: &serde_json::Value,
        text: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let (sha, meta) = (document_sha256(text), meta.to_string());
        self.run(|mut c| async move {
            let tx = c.transaction().await?;
            put_document(&*tx, &sha, text, now_ms).await?;
            tx.execute(
                "INSERT INTO page_cache (url, meta, sha256, fetched_at_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (url) DO UPDATE SET meta = EXCLUDED.meta, sha256 = EXCLUDED.sha256, fetched_at_ms = EXCLUDED.fetched_at_ms",
                &[&url, &meta, &sha, &now_ms],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })
    }
}
