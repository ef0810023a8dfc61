//! Every search provider against a local server answering in its API's documented shape.

use std::time::Duration;

use research_search::{provider, HitKind, SearchError, SearchQuery, SearchSettings};
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn settings(name: &str, server: &MockServer) -> SearchSettings {
    let mut s = SearchSettings {
        timeout: Duration::from_secs(5),
        ..SearchSettings::default()
    };
    s.base_urls.insert(name.into(), server.uri());
    for keyed in ["tavily", "brave", "serper", "newsapi", "semantic-scholar"] {
        s.keys.insert(keyed.into(), format!("{keyed}-key"));
    }
    s
}

async fn run(
    name: &str,
    server: &MockServer,
    limit: usize,
) -> Result<Vec<research_search::Hit>, SearchError> {
    provider(name, &settings(name, server))
        .unwrap()
        .search(&SearchQuery::new("honey bee dance", limit))
        .await
}

#[tokio::test]
async fn tavily() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/search"))
        .and(header("authorization", "Bearer tavily-key"))
        .and(body_partial_json(json!({"query": "honey bee dance", "max_results": 2})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "query": "honey bee dance", "response_time": 1.2,
            "results": [
                {"title": "Waggle dance", "url": "https://en.wikipedia.org/wiki/Waggle_dance", "content": "The waggle dance is a behaviour…", "score": 0.98},
                {"title": "Bee communication", "url": "https://example.org/bees", "content": "Bees talk.", "score": 0.7, "published_date": "2024-05-01"},
                {"title": "Extra", "url": "https://example.org/x", "content": "…", "score": 0.1}
            ]})))
        .mount(&server)
        .await;
    let hits = run("tavily", &server, 2).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].url, "https://en.wikipedia.org/wiki/Waggle_dance");
    assert_eq!(
        (
            hits[1].published.as_deref(),
            hits[1].kind,
            hits[1].provider.as_str()
        ),
        (Some("2024-05-01"), HitKind::Web, "tavily")
    );
}

#[tokio::test]
async fn brave() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/res/v1/web/search"))
        .and(query_param("q", "honey bee dance"))
        .and(header("x-subscription-token", "brave-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"type": "search", "web": {"type": "search", "results": [
            {"title": "The <strong>Waggle</strong> Dance", "url": "https://example.org/waggle", "description": "How <strong>bees</strong> dance.", "age": "3 days ago", "page_age": "2026-11-19T00:00:00"}
        ]}})))
        .mount(&server)
        .await;
    let hits = run("brave", &server, 5).await.unwrap();
    assert_eq!(hits[0].snippet, "How bees dance.");
    assert_eq!(hits[0].published.as_deref(), Some("2026-11-19T00:00:00"));
}

#[tokio::test]
async fn serper() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/search"))
        .and(header("x-api-key", "serper-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "searchParameters": {"q": "honey bee dance", "type": "search"},
            "organic": [{"title": "Waggle dance - Wikipedia", "link": "https://en.wikipedia.org/wiki/Waggle_dance", "snippet": "Waggle dance is a term…", "position": 1, "date": "Jan 3, 2025"}]
        })))
        .mount(&server)
        .await;
    let hits = run("serper", &server, 5).await.unwrap();
    assert_eq!(
        (hits[0].url.as_str(), hits[0].published.as_deref()),
        (
            "https://en.wikipedia.org/wiki/Waggle_dance",
            Some("Jan 3, 2025")
        )
    );
}

#[tokio::test]
async fn newsapi_and_its_key_errors() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v2/everything"))
        .and(header("x-api-key", "newsapi-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "ok", "totalResults": 2, "articles": [
            {"source": {"id": null, "name": "Science Daily"}, "title": "Bees dance differently in cities", "description": "A study finds…", "url": "https://news.example/bees", "publishedAt": "2026-10-01T12:00:00Z"},
            {"source": {"id": null, "name": "[Removed]"}, "title": "[Removed]", "description": "[Removed]", "url": "https://removed.com", "publishedAt": "1970-01-01T00:00:00Z"}
        ]})))
        .mount(&server)
        .await;
    let hits = run("newsapi", &server, 5).await.unwrap();
    assert_eq!(hits.len(), 1, "removed articles are dropped");
    assert_eq!(
        (hits[0].kind, hits[0].snippet.as_str()),
        (HitKind::News, "A study finds… — Science Daily")
    );

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"status": "error", "code": "apiKeyInvalid", "message": "Your API key is invalid"})))
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(
        run("newsapi", &server, 5).await.unwrap_err(),
        SearchError::Unauthorized {
            provider: "newsapi",
            status: 401
        }
    );
}

#[tokio::test]
async fn searxng_and_disabled_json() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/search"))
        .and(query_param("format", "json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"query": "honey bee dance", "number_of_results": 0, "results": [
            {"url": "https://example.org/a", "title": "A", "content": "about bees", "engine": "duckduckgo", "publishedDate": null},
            {"url": "https://example.org/b", "title": "B", "content": "more bees", "engine": "brave", "publishedDate": "2025-02-02T00:00:00"}
        ]})))
        .mount(&server)
        .await;
    let hits = run("searxng", &server, 5).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[1].published.as_deref(), Some("2025-02-02T00:00:00"));

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(403).set_body_string("Forbidden"))
        .mount(&server)
        .await;
    let err = run("searxng", &server, 5).await.unwrap_err().to_string();
    assert!(err.contains("settings.yml"), "{err}");
    let err = provider("searxng", &SearchSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("--searxng-url"), "{err}");
}

#[tokio::test]
async fn duckduckgo_html_results() {
    let server = MockServer::start().await;
    let page = r##"<html><body><div class="results">
      <div class="result results_links result--ad"><a class="result__a" href="https://ads.example/">Buy bees</a></div>
      <div class="result results_links results_links_deep web-result">
        <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FWaggle_dance&amp;rut=abc">Waggle  dance - Wikipedia</a></h2>
        <a class="result__snippet" href="#">The <b>waggle dance</b> is a term used in beekeeping…</a>
      </div>
      <div class="result results_links web-result">
        <h2 class="result__title"><a class="result__a" href="https://example.org/bees">Bees</a></h2>
        <a class="result__snippet" href="#">All about bees.</a>
      </div></div></body></html>"##;
    Mock::given(method("POST"))
        .and(path("/html/"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let hits = run("duckduckgo", &server, 5).await.unwrap();
    assert_eq!(hits.len(), 2, "ads are skipped");
    assert_eq!(hits[0].url, "https://en.wikipedia.org/wiki/Waggle_dance");
    assert_eq!(hits[0].title, "Waggle dance - Wikipedia");
    assert_eq!(
        hits[0].snippet,
        "The waggle dance is a term used in beekeeping…"
    );
}

#[tokio::test]
async fn semantic_scholar_and_rate_limits() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0")
                .set_body_json(json!({"message": "Too Many Requests"})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/graph/v1/paper/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"total": 1, "offset": 0, "data": [
            {"paperId": "abc123", "title": "The dance language of honeybees", "url": "https://www.semanticscholar.org/paper/abc123", "abstract": "We decode…", "year": 1967, "publicationDate": null}
        ]})))
        .with_priority(2)
        .mount(&server)
        .await;
    let hits = run("semantic-scholar", &server, 5).await.unwrap();
    assert_eq!(
        (hits[0].kind, hits[0].published.as_deref()),
        (HitKind::Academic, Some("1967"))
    );

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(429))
        .expect(3)
        .mount(&server)
        .await;
    assert_eq!(
        run("semantic-scholar", &server, 5).await.unwrap_err(),
        SearchError::RateLimited {
            provider: "semantic-scholar"
        }
    );
}

#[tokio::test]
async fn arxiv_atom() {
    let server = MockServer::start().await;
    let atom = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=all:honey bee dance</title>
  <entry>
    <id>http://arxiv.org/abs/2101.00001v1</id>
    <published>2021-01-01T00:00:00Z</published>
    <title>Modelling the
      waggle dance</title>
    <summary>  We model how bees
      communicate.  </summary>
    <author><name>A. Apis</name></author>
  </entry>
</feed>"#;
    Mock::given(method("GET"))
        .and(path("/api/query"))
        .and(query_param("search_query", "all:honey bee dance"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(atom, "application/atom+xml"))
        .mount(&server)
        .await;
    let hits = run("arxiv", &server, 5).await.unwrap();
    assert_eq!(hits[0].url, "https://arxiv.org/abs/2101.00001v1");
    assert_eq!(
        (hits[0].title.as_str(), hits[0].snippet.as_str()),
        (
            "Modelling the waggle dance",
            "We model how bees communicate."
        )
    );

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<feed><entry>", "application/atom+xml"),
        )
        .mount(&server)
        .await;
    assert!(matches!(
        run("arxiv", &server, 5).await.unwrap_err(),
        SearchError::BadResponse {
            provider: "arxiv",
            ..
        }
    ));
}

#[tokio::test]
async fn wikipedia_and_malformed_answers() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/w/api.php"))
        .and(query_param("list", "search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": 1}, "search": [
            {"ns": 0, "title": "Waggle dance", "pageid": 1, "snippet": "The <span class=\"searchmatch\">waggle</span> <span class=\"searchmatch\">dance</span> is", "timestamp": "2026-09-01T10:00:00Z"}
        ]}})))
        .mount(&server)
        .await;
    let hits = run("wikipedia", &server, 5).await.unwrap();
    assert_eq!(hits[0].url, format!("{}/wiki/Waggle_dance", server.uri()));
    assert_eq!(hits[0].snippet, "The waggle dance is");

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("{\"query\": ", "application/json"))
        .mount(&server)
        .await;
    assert!(run("wikipedia", &server, 5)
        .await
        .unwrap_err()
        .to_string()
        .contains("malformed JSON"));

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html>Captive portal</html>", "text/html"),
        )
        .mount(&server)
        .await;
    assert!(run("wikipedia", &server, 5)
        .await
        .unwrap_err()
        .to_string()
        .contains("HTML page instead of JSON"));

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"batchcomplete": "", "query": {"search": []}})),
        )
        .mount(&server)
        .await;
    assert!(
        run("wikipedia", &server, 5).await.unwrap().is_empty(),
        "no results is not an error"
    );
}

#[test]
fn keys_and_names_are_checked() {
    let err = provider("tavily", &SearchSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("TAVILY_API_KEY"), "{err}");
    let err = provider("bing", &SearchSettings::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("unknown search provider `bing`"), "{err}");
}
