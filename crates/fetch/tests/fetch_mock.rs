//! The fetcher against local servers: extraction of HTML, PDF and text, and every guard.

use std::time::Duration;

use research_fetch::{AllowedHosts, DocumentKind, FetchError, FetchPolicy, Fetcher, HttpFetcher};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fetcher() -> HttpFetcher {
    HttpFetcher::new(FetchPolicy {
        allowed_hosts: AllowedHosts::new(["127.0.0.1"]),
        ..FetchPolicy::default()
    })
    .unwrap()
}

async fn serve(route: &str, response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(route))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

const ARTICLE: &str = r#"<!doctype html><html><head><title>Bee dances | Field Notes</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<aside class="sidebar">Subscribe to our newsletter for weekly updates!</aside>
<article><h1>How honey bees share directions</h1>
<p>Forager bees perform a waggle dance on the comb to tell their sisters where food is. The angle of the waggle run against vertical encodes the direction of the food relative to the sun.</p>
<p>The duration of the waggle run encodes distance: roughly one second of waggling stands for about one kilometre of flight, although the exact calibration differs between colonies and landscapes.</p>
<p>Karl von Frisch decoded the dance in the 1940s and shared the 1973 Nobel Prize in Physiology or Medicine for this work on animal communication.</p>
</article>
<footer>© 2026 Field Notes. All rights reserved. Privacy policy.</footer></body></html>"#;

#[tokio::test]
async fn a_web_page_gives_its_main_text_as_markdown() {
    let server = serve(
        "/bees",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html; charset=utf-8"),
    )
    .await;
    let url = format!("{}/bees", server.uri());
    let doc = fetcher().fetch(&url).await.unwrap();
    assert_eq!(doc.kind, DocumentKind::Html);
    assert!(
        doc.text.contains("waggle dance on the comb"),
        "{}",
        doc.text
    );
    assert!(doc.text.contains("1973 Nobel Prize"));
    assert!(
        !doc.text.contains("Subscribe to our newsletter"),
        "sidebar removed: {}",
        doc.text
    );
    assert!(!doc.text.contains("All rights reserved"), "footer removed");
    assert!(
        doc.title
            .as_deref()
            .unwrap_or_default()
            .starts_with("Bee dances"),
        "{:?}",
        doc.title
    );
    assert_eq!(doc.text_sha256.len(), 64);
    assert_eq!(doc.final_url, url);
}

use research_fetch::testing::minimal_pdf as tiny_pdf;

#[tokio::test]
async fn a_pdf_gives_its_text() {
    let server = serve(
        "/paper.pdf",
        ResponseTemplate::new(200)
            .set_body_raw(tiny_pdf("Waggle dances encode distance"), "application/pdf"),
    )
    .await;
    let doc = fetcher()
        .fetch(&format!("{}/paper.pdf", server.uri()))
        .await
        .unwrap();
    assert_eq!(doc.kind, DocumentKind::Pdf);
    assert!(
        doc.text.contains("Waggle dances encode distance"),
        "{:?}",
        doc.text
    );

    let server = serve(
        "/broken.pdf",
        ResponseTemplate::new(200).set_body_raw(b"%PDF-1.4\n garbage".to_vec(), "application/pdf"),
    )
    .await;
    let err = fetcher()
        .fetch(&format!("{}/broken.pdf", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::NoText { .. }), "{err}");
}

#[tokio::test]
async fn text_is_decoded_with_its_charset() {
    let server = serve(
        "/note.txt",
        ResponseTemplate::new(200).set_body_raw(
            b"caf\xe9 cr\xe8me".to_vec(),
            "text/plain; charset=iso-8859-1",
        ),
    )
    .await;
    let doc = fetcher()
        .fetch(&format!("{}/note.txt", server.uri()))
        .await
        .unwrap();
    assert_eq!(
        (doc.kind, doc.text.as_str()),
        (DocumentKind::Text, "café crème")
    );
}

#[tokio::test]
async fn binary_and_oversized_bodies_are_refused() {
    let png = [0x89u8, b'P', b'N', b'G', 0, 0, 0, 0x0d].to_vec();
    let server = serve(
        "/logo.png",
        ResponseTemplate::new(200).set_body_raw(png, "image/png"),
    )
    .await;
    let err = fetcher()
        .fetch(&format!("{}/logo.png", server.uri()))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("is image/png, not a page or PDF that text can be read from"),
        "{err}"
    );

    let server = serve(
        "/huge",
        ResponseTemplate::new(200).set_body_raw("x".repeat(3 * 1024 * 1024), "text/plain"),
    )
    .await;
    let small = HttpFetcher::new(FetchPolicy {
        max_bytes: 1024 * 1024,
        allowed_hosts: AllowedHosts::new(["127.0.0.1"]),
        ..FetchPolicy::default()
    })
    .unwrap();
    let err = small
        .fetch(&format!("{}/huge", server.uri()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, FetchError::TooLarge { limit_mb: 1, .. }),
        "{err}"
    );
}

#[tokio::test]
async fn private_addresses_are_refused_directly_and_after_redirects() {
    let server = MockServer::start().await;
    let port = server.address().port();
    for (route, target) in [
        ("/to-private", "http://10.0.0.1/admin".to_string()),
        (
            "/to-metadata",
            "http://169.254.169.254/latest/meta-data/".to_string(),
        ),
        ("/to-localhost", format!("http://localhost:{port}/secret")),
        ("/to-file", "file:///etc/passwd".to_string()),
    ] {
        Mock::given(path(route))
            .respond_with(ResponseTemplate::new(302).insert_header("location", target.as_str()))
            .mount(&server)
            .await;
    }
    Mock::given(path("/secret"))
        .respond_with(ResponseTemplate::new(200).set_body_string("the user's secrets"))
        .mount(&server)
        .await;
    let f = fetcher();
    for route in ["/to-private", "/to-metadata", "/to-localhost"] {
        let err = f
            .fetch(&format!("{}{route}", server.uri()))
            .await
            .unwrap_err();
        assert!(matches!(err, FetchError::Blocked { .. }), "{route}: {err}");
        assert!(err.to_string().contains("--allow-host"), "{err}");
    }
    let err = f
        .fetch(&format!("{}/to-file", server.uri()))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("only http and https"), "{err}");
    assert_eq!(
        server
            .received_requests()
            .await
            .unwrap()
            .iter()
            .filter(|r| r.url.path() == "/secret")
            .count(),
        0
    );

    // Without the allowance, the local server itself is refused.
    let strict = HttpFetcher::new(FetchPolicy::default()).unwrap();
    let err = strict
        .fetch(&format!("{}/secret", server.uri()))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("127.0.0.1 is a loopback address"),
        "{err}"
    );
    let err = strict.fetch("file:///etc/passwd").await.unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl(_)));
}

#[tokio::test]
async fn a_name_that_resolves_to_a_private_address_is_refused() {
    // A name from /etc/hosts that points at this machine but is not spelled "localhost".
    let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    let name = hosts.lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        let ip: std::net::IpAddr = parts.next()?.parse().ok()?;
        if !ip.is_loopback() {
            return None;
        }
        parts
            .find(|n| !n.starts_with('#') && !n.contains("localhost"))
            .map(str::to_string)
    });
    let Some(name) = name else {
        eprintln!("skipped: /etc/hosts names no loopback host other than localhost");
        return;
    };
    let err = fetcher()
        .fetch(&format!("http://{name}:9/"))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Blocked { .. }), "{err}");
    assert!(
        err.to_string().contains(&format!("{name} resolves to")),
        "{err}"
    );
}

#[tokio::test]
async fn redirect_loops_errors_and_slow_servers() {
    let server = MockServer::start().await;
    Mock::given(path("/loop"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", "/loop"))
        .mount(&server)
        .await;
    Mock::given(path("/gone"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    Mock::given(path("/slow"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string("late")
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    Mock::given(path("/moved"))
        .respond_with(ResponseTemplate::new(301).insert_header("location", "/final"))
        .mount(&server)
        .await;
    Mock::given(path("/final"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("arrived", "text/plain"))
        .mount(&server)
        .await;
    let f = fetcher();
    assert!(matches!(
        f.fetch(&format!("{}/loop", server.uri()))
            .await
            .unwrap_err(),
        FetchError::TooManyRedirects { limit: 5, .. }
    ));
    assert!(matches!(
        f.fetch(&format!("{}/gone", server.uri()))
            .await
            .unwrap_err(),
        FetchError::Status { status: 404, .. }
    ));
    let doc = f.fetch(&format!("{}/moved", server.uri())).await.unwrap();
    assert!(doc.final_url.ends_with("/final") && doc.text == "arrived");
    let quick = HttpFetcher::new(FetchPolicy {
        timeout: Duration::from_millis(300),
        allowed_hosts: AllowedHosts::new(["127.0.0.1"]),
        ..FetchPolicy::default()
    })
    .unwrap();
    let err = quick
        .fetch(&format!("{}/slow", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    assert!(matches!(
        f.fetch("not a url").await.unwrap_err(),
        FetchError::InvalidUrl(_)
    ));
}
