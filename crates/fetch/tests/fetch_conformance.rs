//! The `Fetcher` conformance suite against the guarded HTTP fetcher.

use std::sync::Arc;

use research_fetch::{FetchPolicy, Fetcher, HttpFetcher};

fn http(policy: FetchPolicy) -> Arc<dyn Fetcher> {
    Arc::new(HttpFetcher::new(policy).expect("the HTTP client is set up"))
}

research_fetch::fetcher_conformance!(http);
