//! One conformance suite for every HTTP [`SearchProvider`]: the same cases and the same
//! assertions run against each web, academic and news provider, each answered by a local mock
//! server.
//!
//! A provider supplies a [`MockSearch`]: how its request looks (method, path, key, the query)
//! and how its API shapes a list of results. The suite supplies the cases: the shape of hits
//! (title, address, snippet, date, kind, provider, order), the result limit, no results, a
//! refused key, rate limits (retried, `Retry-After` honoured, then reported), server errors,
//! answers that cannot be read, timeouts and a service that is not running.
//!
//! Use [`search_conformance!`](crate::search_conformance) in a test module with an expression
//! that makes the adapter; it writes one `#[tokio::test]` per case.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wiremock::{MockBuilder, MockServer, ResponseTemplate};

use crate::{provider, Hit, HitKind, SearchError, SearchProvider, SearchQuery, SearchSettings};

pub use wiremock;

/// The words every query of the suite searches for.
pub const QUERY: &str = "honey bee dance";

/// One result as the suite serves it; adapters shape it the way their API does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Title.
    pub title: &'static str,
    /// Address.
    pub url: &'static str,
    /// A passage about the query.
    pub snippet: &'static str,
    /// Publication date.
    pub published: &'static str,
}

/// The results the suite serves, best first.
pub const SAMPLES: [Sample; 3] = [
    Sample {
        title: "Waggle dance",
        url: "https://example.org/waggle-dance",
        snippet: "The waggle dance is a behaviour of honey bees.",
        published: "2024-05-01",
    },
    Sample {
        title: "Bee communication",
        url: "https://example.org/bee-communication",
        snippet: "Bees tell each other where food is.",
        published: "2023-11-20",
    },
    Sample {
        title: "Dance language",
        url: "https://example.org/dance-language",
        snippet: "Karl von Frisch decoded the dance.",
        published: "1967-01-01",
    },
];

/// What a provider answers with, for the cases about unreadable answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON API.
    Json,
    /// An Atom feed (arXiv).
    Atom,
    /// An HTML results page (DuckDuckGo).
    Html,
}

/// How one provider's API is mocked.
pub trait MockSearch: Send + Sync {
    /// The provider's name (as [`crate::provider`] takes it and as errors give it).
    fn name(&self) -> &'static str;

    /// The provider for the service at `base` with the request time limit `timeout`; by default
    /// built by [`crate::provider`] with `base` as its base URL and a key `NAME-key`.
    fn provider(&self, base: &str, timeout: Duration) -> Arc<dyn SearchProvider> {
        let mut settings = SearchSettings {
            timeout,
            ..SearchSettings::default()
        };
        settings.base_urls.insert(self.name().into(), base.into());
        settings
            .keys
            .insert(self.name().into(), format!("{}-key", self.name()));
        provider(self.name(), &settings).expect("the provider is built")
    }

    /// Matches one search for [`QUERY`]: method, path, key and query.
    fn call(&self) -> MockBuilder;

    /// The API's answer listing `results`, best first.
    fn results(&self, results: &[Sample]) -> ResponseTemplate;

    /// The API's error body for `status`.
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status)
            .set_body_json(serde_json::json!({"error": format!("HTTP {status}")}))
    }

    /// What kind of source the provider's hits are.
    fn kind(&self) -> HitKind;

    /// What the provider answers with.
    fn format(&self) -> Format {
        Format::Json
    }

    /// Whether the API gives publication dates.
    fn dates(&self) -> bool {
        true
    }

    /// Matches one search for [`QUERY`] published in [`YEARS`], for an API that filters by
    /// date; `None` for one that does not (the query is then searched as usual).
    fn dated_call(&self) -> Option<MockBuilder> {
        None
    }

    /// The address a hit for `sample` has, when the provider builds it (`base` is the server's).
    fn url_of(&self, sample: &Sample, base: &str) -> String {
        let _ = base;
        sample.url.to_string()
    }

    /// The snippet a hit for `sample` has, when the provider adds to it.
    fn snippet_of(&self, sample: &Sample) -> String {
        sample.snippet.to_string()
    }

    /// The error a refused key (`status` 401 or 403) is reported as.
    fn refused(&self, status: u16) -> SearchError {
        SearchError::Unauthorized {
            provider: self.name(),
            status,
        }
    }
}

fn timeout() -> Duration {
    Duration::from_secs(5)
}

async fn search(
    api: &dyn MockSearch,
    server: &MockServer,
    limit: usize,
) -> Result<Vec<Hit>, SearchError> {
    api.provider(&server.uri(), timeout())
        .search(&SearchQuery::new(QUERY, limit))
        .await
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap_or_default().len()
}

/// The years a dated conformance query asks for.
pub const YEARS: (i32, i32) = (2019, 2023);

/// A query for a range of years reaches an API that filters by date as its filter (and is
/// searched as usual by one that does not); the provider says what kind of source it finds, so
/// a query for one kind reaches the providers of that kind.
pub async fn a_year_range_reaches_the_api_that_filters_by_date(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.dated_call()
        .unwrap_or_else(|| api.call())
        .respond_with(api.results(&SAMPLES))
        .expect(1)
        .mount(&server)
        .await;
    let provider = api.provider(&server.uri(), timeout());
    assert_eq!(provider.kind(), api.kind());
    let query = SearchQuery::new(QUERY, 10)
        .of_kind(Some(api.kind()))
        .in_years(crate::Years::new(Some(YEARS.0), Some(YEARS.1)));
    let hits = provider.search(&query).await.unwrap();
    assert_eq!(hits.len(), SAMPLES.len(), "{hits:#?}");
}

/// Every hit has a title, an address, a plain-text snippet and (where the API gives one) a
/// date, in the API's order, with the provider's kind and name; the request carries the key
/// and the query.
pub async fn hits_have_the_common_shape(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.results(&SAMPLES))
        .expect(1)
        .mount(&server)
        .await;
    let hits = search(api, &server, 10).await.unwrap();
    assert_eq!(hits.len(), SAMPLES.len(), "{hits:#?}");
    for (hit, sample) in hits.iter().zip(&SAMPLES) {
        assert_eq!(hit.title, sample.title, "{hit:#?}");
        assert_eq!(hit.url, api.url_of(sample, &server.uri()), "{hit:#?}");
        assert!(hit.url.starts_with("http"), "{hit:#?}");
        assert_eq!(hit.snippet, api.snippet_of(sample), "{hit:#?}");
        let date = api.dates().then_some(sample.published);
        assert_eq!(hit.published.as_deref(), date, "{hit:#?}");
        assert_eq!(hit.kind, api.kind());
        assert_eq!(hit.provider, api.name());
    }
}

/// No more hits than the query's limit, the best ones.
pub async fn honours_the_limit(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.results(&SAMPLES))
        .mount(&server)
        .await;
    let hits = search(api, &server, 2).await.unwrap();
    let titles: Vec<&str> = hits.iter().map(|h| h.title.as_str()).collect();
    assert_eq!(titles, [SAMPLES[0].title, SAMPLES[1].title]);
}

/// An answer without results is an empty list, not an error.
pub async fn no_results_is_an_empty_list(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.results(&[]))
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(search(api, &server, 5).await, Ok(vec![]));
}

/// 401 and 403 are a refused key, reported at once and never retried.
pub async fn a_refused_key_is_not_retried(api: &dyn MockSearch) {
    for status in [401, 403] {
        let server = MockServer::start().await;
        api.call()
            .respond_with(api.error(status))
            .expect(1)
            .mount(&server)
            .await;
        assert_eq!(
            search(api, &server, 5).await.unwrap_err(),
            api.refused(status)
        );
    }
}

/// 429 is retried (three attempts in all), then reported as a rate limit.
pub async fn rate_limits_are_retried_then_reported(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.error(429).insert_header("retry-after", "0"))
        .expect(3)
        .mount(&server)
        .await;
    let err = search(api, &server, 5).await.unwrap_err();
    assert_eq!(
        err,
        SearchError::RateLimited {
            provider: api.name()
        }
    );
    assert!(err.to_string().contains("HTTP 429"), "{err}");
}

/// A rate limit waits what `Retry-After` says, then the search succeeds.
pub async fn rate_limits_honour_retry_after_then_succeed(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.error(429).insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    api.call()
        .respond_with(api.results(&SAMPLES[..1]))
        .with_priority(2)
        .expect(1)
        .mount(&server)
        .await;
    let started = Instant::now();
    let hits = search(api, &server, 5).await.unwrap();
    let took = started.elapsed();
    assert_eq!(hits.len(), 1);
    // The backoff alone would wait about 0.3 s.
    assert!(
        took >= Duration::from_millis(900),
        "Retry-After: 1 was not waited for ({took:?})"
    );
}

/// 5xx is retried (three attempts in all), then reported as the service being unavailable; a
/// server error followed by an answer is a success.
pub async fn server_errors_are_retried(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.error(500).insert_header("retry-after", "0"))
        .expect(3)
        .mount(&server)
        .await;
    assert_eq!(
        search(api, &server, 5).await.unwrap_err(),
        SearchError::Unavailable {
            provider: api.name(),
            reason: "HTTP 500".into()
        }
    );

    let server = MockServer::start().await;
    api.call()
        .respond_with(api.error(503).insert_header("retry-after", "0"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    api.call()
        .respond_with(api.results(&SAMPLES))
        .with_priority(2)
        .mount(&server)
        .await;
    assert_eq!(search(api, &server, 5).await.unwrap().len(), SAMPLES.len());
    assert_eq!(requests(&server).await, 2);
}

/// Another 4xx is a bad answer naming the status, not retried.
pub async fn other_statuses_are_not_retried(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(ResponseTemplate::new(422).set_body_string("query too long"))
        .expect(1)
        .mount(&server)
        .await;
    let err = search(api, &server, 5).await.unwrap_err();
    assert!(
        matches!(&err, SearchError::BadResponse { provider, detail } if *provider == api.name() && detail.contains("HTTP 422")),
        "{err:?}"
    );
}

/// A body that is not the API's format is a clear error naming the provider.
pub async fn a_malformed_answer_is_a_clear_error(api: &dyn MockSearch) {
    let (body, mime, expected) = match api.format() {
        Format::Json => ("{\"results\": [", "application/json", "malformed JSON"),
        Format::Atom => (
            "<feed><entry>",
            "application/atom+xml",
            "malformed Atom XML",
        ),
        // Any HTML parses; an HTML page is what a broken one would be read as.
        Format::Html => return,
    };
    let server = MockServer::start().await;
    api.call()
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, mime))
        .mount(&server)
        .await;
    let err = search(api, &server, 5).await.unwrap_err();
    assert!(
        matches!(&err, SearchError::BadResponse { provider, .. } if *provider == api.name()),
        "{err:?}"
    );
    assert!(err.to_string().contains(expected), "{err}");
}

/// An HTML page where the API's JSON or Atom answer was expected (a captive portal, a login
/// wall) is an error, not "no results".
pub async fn an_html_page_is_not_an_answer(api: &dyn MockSearch) {
    if api.format() == Format::Html {
        return;
    }
    let server = MockServer::start().await;
    api.call()
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("<html><body>Captive portal</body></html>", "text/html"),
        )
        .mount(&server)
        .await;
    let err = search(api, &server, 5).await.unwrap_err();
    assert!(
        matches!(&err, SearchError::BadResponse { provider, .. } if *provider == api.name()),
        "{err:?}"
    );
}

/// A service that does not answer in time is unavailable, said so, after the retries.
pub async fn a_silent_service_times_out(api: &dyn MockSearch) {
    let server = MockServer::start().await;
    api.call()
        .respond_with(api.results(&SAMPLES).set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let started = Instant::now();
    let err = api
        .provider(&server.uri(), Duration::from_millis(200))
        .search(&SearchQuery::new(QUERY, 5))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        SearchError::Unavailable {
            provider: api.name(),
            reason: "it did not answer in time".into()
        }
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A service that is not running is unavailable, with the reason.
pub async fn a_service_that_is_not_running_is_unavailable(api: &dyn MockSearch) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = api
        .provider(&format!("http://127.0.0.1:{port}"), timeout())
        .search(&SearchQuery::new(QUERY, 5))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SearchError::Unavailable { provider, reason } if *provider == api.name() && reason.contains("Connection refused")),
        "{err:?}"
    );
}

/// Writes one `#[tokio::test]` per conformance case for the [`MockSearch`] made by `$api`;
/// `search_conformance!(@tests $api; case, …)` writes only the named cases (for a provider
/// with a known gap, whose failing case is then kept as an ignored test).
#[macro_export]
macro_rules! search_conformance {
    ($api:expr) => {
        $crate::search_conformance!(@tests $api;
            a_year_range_reaches_the_api_that_filters_by_date, hits_have_the_common_shape, honours_the_limit, no_results_is_an_empty_list,
            a_refused_key_is_not_retried, rate_limits_are_retried_then_reported,
            rate_limits_honour_retry_after_then_succeed, server_errors_are_retried,
            other_statuses_are_not_retried, a_malformed_answer_is_a_clear_error,
            an_html_page_is_not_an_answer, a_silent_service_times_out,
            a_service_that_is_not_running_is_unavailable);
    };
    (@tests $api:expr; $($case:ident),*) => {
        $(
            #[tokio::test]
            async fn $case() {
                let api = $api;
                $crate::conformance::$case(&api).await;
            }
        )*
    };
}
