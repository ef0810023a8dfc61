//! The `SearchProvider` conformance suite against every HTTP provider, each answered by a local
//! mock of its API. Each provider supplies a small adapter: what its request looks like and how
//! its API lists results, as its documentation shows them.

use research_search::conformance::{Format, MockSearch, Sample, QUERY};
use research_search::{HitKind, SearchError};
use serde_json::{json, Value};
use wiremock::matchers::{
    body_partial_json, body_string_contains, header, method, path, query_param,
};
use wiremock::{Mock, MockBuilder, ResponseTemplate};

fn json_answer(v: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(v)
}

struct Tavily;

impl MockSearch for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/search"))
            .and(header("authorization", "Bearer tavily-key"))
            .and(body_partial_json(json!({"query": QUERY})))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let results: Vec<Value> = results
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"title": s.title, "url": s.url, "content": s.snippet, "score": 0.9 - i as f64 / 10.0, "raw_content": null, "published_date": s.published}))
            .collect();
        json_answer(
            json!({"query": QUERY, "follow_up_questions": null, "answer": null, "images": [], "results": results, "response_time": 1.2}),
        )
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status)
            .set_body_json(json!({"detail": {"error": format!("HTTP {status}")}}))
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
}

struct Brave;

impl MockSearch for Brave {
    fn name(&self) -> &'static str {
        "brave"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/res/v1/web/search"))
            .and(query_param("q", QUERY))
            .and(header("x-subscription-token", "brave-key"))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        // Brave highlights the query's words in descriptions.
        let results: Vec<Value> = results
            .iter()
            .map(|s| {
                json!({"type": "search_result", "title": s.title, "url": s.url,
                            "description": s.snippet.replacen("dance", "<strong>dance</strong>", 1),
                            "age": "3 days ago", "page_age": s.published})
            })
            .collect();
        let mut v = json!({"type": "search", "query": {"original": QUERY}});
        if !results.is_empty() {
            v["web"] = json!({"type": "search", "results": results});
        }
        json_answer(v)
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
}

struct Serper;

impl MockSearch for Serper {
    fn name(&self) -> &'static str {
        "serper"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/search"))
            .and(header("x-api-key", "serper-key"))
            .and(body_partial_json(json!({"q": QUERY})))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let organic: Vec<Value> = results
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"title": s.title, "link": s.url, "snippet": s.snippet, "position": i + 1, "date": s.published}))
            .collect();
        json_answer(json!({"searchParameters": {"q": QUERY, "type": "search"}, "organic": organic}))
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
}

struct NewsApi;

impl MockSearch for NewsApi {
    fn name(&self) -> &'static str {
        "newsapi"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/v2/everything"))
            .and(query_param("q", QUERY))
            .and(header("x-api-key", "newsapi-key"))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let articles: Vec<Value> = results
            .iter()
            .map(|s| json!({"source": {"id": null, "name": "Science Daily"}, "author": null, "title": s.title,
                            "description": s.snippet, "url": s.url, "publishedAt": s.published, "content": null}))
            .collect();
        json_answer(json!({"status": "ok", "totalResults": articles.len(), "articles": articles}))
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        let code = match status {
            401 | 403 => "apiKeyInvalid",
            429 => "rateLimited",
            _ => "unexpectedError",
        };
        ResponseTemplate::new(status).set_body_json(
            json!({"status": "error", "code": code, "message": format!("HTTP {status}")}),
        )
    }
    fn dated_call(&self) -> Option<MockBuilder> {
        Some(
            self.call()
                .and(query_param("from", "2019-01-01"))
                .and(query_param("to", "2023-12-31")),
        )
    }
    fn kind(&self) -> HitKind {
        HitKind::News
    }
    fn snippet_of(&self, sample: &Sample) -> String {
        format!("{} — Science Daily", sample.snippet)
    }
}

struct SearXng;

impl MockSearch for SearXng {
    fn name(&self) -> &'static str {
        "searxng"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/search"))
            .and(query_param("q", QUERY))
            .and(query_param("format", "json"))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let results: Vec<Value> = results
            .iter()
            .map(|s| json!({"url": s.url, "title": s.title, "content": s.snippet, "engine": "brave", "publishedDate": s.published}))
            .collect();
        json_answer(json!({"query": QUERY, "number_of_results": 0, "results": results}))
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_string(format!("HTTP {status}"))
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
    fn refused(&self, _status: u16) -> SearchError {
        // An instance refuses JSON with 403 when its `json` format is not enabled.
        SearchError::Config(
            "your SearXNG instance refused JSON results; add `json` to `search.formats` in its settings.yml".into(),
        )
    }
}

struct DuckDuckGo;

impl MockSearch for DuckDuckGo {
    fn name(&self) -> &'static str {
        "duckduckgo"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("POST"))
            .and(path("/html/"))
            .and(body_string_contains("q=honey+bee+dance"))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        // Links go through DuckDuckGo's redirector, titles and snippets carry stray spaces and
        // markup, ads come first.
        let mut page = String::from(
            r#"<html><body><div class="results"><div class="result results_links result--ad"><a class="result__a" href="https://ads.example/">Buy bees</a></div>"#,
        );
        for s in results {
            let target: String = url::form_urlencoded::byte_serialize(s.url.as_bytes()).collect();
            page.push_str(&format!(
                r#"<div class="result results_links web-result"><h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg={target}&amp;rut=abc">{}</a></h2><a class="result__snippet" href="{}">{}</a></div>"#,
                s.title.replace(' ', "  "),
                s.url,
                s.snippet.replacen("dance", "<b>dance</b>", 1)
            ));
        }
        if results.is_empty() {
            page.push_str(
                r#"<div class="no-results">No results found for <b>honey bee dance</b>.</div>"#,
            );
        }
        page.push_str("</div></body></html>");
        ResponseTemplate::new(200).set_body_raw(page, "text/html")
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_raw("<html><body>Error</body></html>", "text/html")
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
    fn format(&self) -> Format {
        Format::Html
    }
    fn dates(&self) -> bool {
        false
    }
}

struct SemanticScholar;

impl MockSearch for SemanticScholar {
    fn name(&self) -> &'static str {
        "semantic-scholar"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/graph/v1/paper/search"))
            .and(query_param("query", QUERY))
            .and(header("x-api-key", "semantic-scholar-key"))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let data: Vec<Value> = results
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"paperId": format!("p{i}"), "title": s.title, "url": s.url, "abstract": s.snippet,
                                 "year": 2024, "publicationDate": s.published, "externalIds": {}, "openAccessPdf": null}))
            .collect();
        let mut v = json!({"total": data.len(), "offset": 0});
        if !data.is_empty() {
            v["data"] = json!(data);
        }
        json_answer(v)
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_json(json!({"message": format!("HTTP {status}")}))
    }
    fn dated_call(&self) -> Option<MockBuilder> {
        Some(self.call().and(query_param("year", "2019-2023")))
    }
    fn kind(&self) -> HitKind {
        HitKind::Academic
    }
}

struct ArXiv;

impl MockSearch for ArXiv {
    fn name(&self) -> &'static str {
        "arxiv"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/api/query"))
            .and(query_param("search_query", format!("all:{QUERY}")))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        let mut feed = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <title type="html">ArXiv Query: search_query=all:{QUERY}</title>
  <opensearch:totalResults>{}</opensearch:totalResults>"#,
            results.len()
        );
        for s in results {
            feed.push_str(&format!(
                "\n  <entry>\n    <id>{}</id>\n    <published>{}</published>\n    <title>{}</title>\n    <summary>  {}\n    </summary>\n    <author><name>A. Apis</name></author>\n  </entry>",
                s.url,
                s.published,
                // Titles and summaries wrap over lines.
                s.title.replacen(' ', "\n      ", 1),
                s.snippet.replacen(' ', "  \n      ", 2)
            ));
        }
        feed.push_str("\n</feed>\n");
        ResponseTemplate::new(200).set_body_raw(feed, "application/atom+xml")
    }
    fn error(&self, status: u16) -> ResponseTemplate {
        ResponseTemplate::new(status).set_body_string(format!("HTTP {status}"))
    }
    fn dated_call(&self) -> Option<MockBuilder> {
        Some(
            Mock::given(method("GET"))
                .and(path("/api/query"))
                .and(query_param(
                    "search_query",
                    format!("(all:{QUERY}) AND submittedDate:[201901010000 TO 202312312359]"),
                )),
        )
    }
    fn kind(&self) -> HitKind {
        HitKind::Academic
    }
    fn format(&self) -> Format {
        Format::Atom
    }
}

struct Wikipedia;

impl MockSearch for Wikipedia {
    fn name(&self) -> &'static str {
        "wikipedia"
    }
    fn call(&self) -> MockBuilder {
        Mock::given(method("GET"))
            .and(path("/w/api.php"))
            .and(query_param("list", "search"))
            .and(query_param("srsearch", QUERY))
    }
    fn results(&self, results: &[Sample]) -> ResponseTemplate {
        // Snippets come with the query's words marked up.
        let search: Vec<Value> = results
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"ns": 0, "title": s.title, "pageid": i + 1,
                                 "snippet": s.snippet.replacen("dance", r#"<span class="searchmatch">dance</span>"#, 1),
                                 "timestamp": s.published}))
            .collect();
        json_answer(
            json!({"batchcomplete": "", "query": {"searchinfo": {"totalhits": search.len()}, "search": search}}),
        )
    }
    fn kind(&self) -> HitKind {
        HitKind::Web
    }
    fn url_of(&self, sample: &Sample, base: &str) -> String {
        format!("{base}/wiki/{}", sample.title.replace(' ', "_"))
    }
}

mod tavily {
    research_search::search_conformance!(super::Tavily);
}

mod brave {
    research_search::search_conformance!(super::Brave);
}

mod serper {
    research_search::search_conformance!(super::Serper);
}

mod newsapi {
    research_search::search_conformance!(super::NewsApi);
}

mod searxng {
    research_search::search_conformance!(super::SearXng);
}

mod duckduckgo {
    research_search::search_conformance!(super::DuckDuckGo);
}

mod semantic_scholar {
    research_search::search_conformance!(super::SemanticScholar);
}

mod arxiv {
    research_search::search_conformance!(super::ArXiv);
}

mod wikipedia {
    research_search::search_conformance!(super::Wikipedia);
}
