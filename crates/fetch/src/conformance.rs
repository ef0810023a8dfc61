//! One conformance suite for every [`Fetcher`] that reaches the web: the same cases and the
//! same assertions for each, against local servers.
//!
//! A fetcher is made by a function from a [`FetchPolicy`] (so the suite can set the limits it
//! checks). The cases: readable text from HTML (main content, title, digest), PDF and plain
//! text; charsets from the header or the page; the size cap (declared and streamed bodies); the
//! time cap (slow headers and slow bodies); refused addresses (loopback, private, link-local,
//! `localhost`, other schemes), directly and after redirects, unless the host is allowed;
//! binary content; redirects; error statuses; documents without text.
//!
//! Use [`fetcher_conformance!`](crate::fetcher_conformance) in a test module with a function
//! that makes the fetcher; it writes one `#[tokio::test]` per case.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::{AllowedHosts, DocumentKind, FetchError, FetchPolicy, Fetcher};

pub use wiremock;

/// Makes the fetcher under test with a policy.
pub type MakeFetcher = dyn Fn(FetchPolicy) -> Arc<dyn Fetcher> + Send + Sync;

/// The default policy, with the mock servers' address (127.0.0.1, any port) allowed.
pub fn local_policy() -> FetchPolicy {
    FetchPolicy {
        allowed_hosts: AllowedHosts::new(["127.0.0.1:*"]),
        ..FetchPolicy::default()
    }
}

/// A web page with navigation, a sidebar and a footer around its article.
pub const ARTICLE: &str = r#"<!doctype html><html><head><title>Bee dances | Field Notes</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<aside class="sidebar">Subscribe to our newsletter for weekly updates!</aside>
<article><h1>How honey bees share directions</h1>
<p>Forager bees perform a waggle dance on the comb to tell their sisters where food is. The angle of the waggle run against vertical encodes the direction of the food relative to the sun.</p>
<p>The duration of the waggle run encodes distance: roughly one second of waggling stands for about one kilometre of flight, although the exact calibration differs between colonies and landscapes.</p>
<p>Karl von Frisch decoded the dance in the 1940s and shared the 1973 Nobel Prize in Physiology or Medicine for this work on animal communication.</p>
</article>
<footer>© 2026 Field Notes. All rights reserved. Privacy policy.</footer></body></html>"#;

async fn serve(route: &str, response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(path(route))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

async fn requests_to(server: &MockServer, route: &str) -> usize {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .filter(|r| r.url.path() == route)
        .count()
}

/// A server for what wiremock cannot send: it answers one connection with `head`, then writes
/// `parts` with `pause` before each, and stops when the client goes away. Returns its base URL.
fn raw_server(head: String, parts: Vec<Vec<u8>>, pause: Duration) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        let Ok((mut conn, _)) = listener.accept() else {
            return;
        };
        let mut request = Vec::new();
        let mut buf = [0u8; 1024];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match conn.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => request.extend_from_slice(&buf[..n]),
            }
        }
        if conn.write_all(head.as_bytes()).is_err() {
            return;
        }
        for part in parts {
            std::thread::sleep(pause);
            if conn.write_all(&part).and_then(|_| conn.flush()).is_err() {
                return;
            }
        }
    });
    base
}

/// A web page gives its main content as Markdown (without navigation, sidebar and footer), its
/// title, the SHA-256 of its text, and what was asked, received and from where.
pub async fn a_web_page_gives_its_main_text(make: &MakeFetcher) {
    let server = serve(
        "/bees",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html; charset=utf-8"),
    )
    .await;
    let url = format!("{}/bees", server.uri());
    let doc = make(local_policy()).fetch(&url).await.unwrap();
    assert_eq!(doc.kind, DocumentKind::Html);
    assert!(
        doc.text.contains("waggle dance on the comb"),
        "{}",
        doc.text
    );
    assert!(doc.text.contains("1973 Nobel Prize"), "{}", doc.text);
    assert!(
        !doc.text.contains("Subscribe to our newsletter"),
        "sidebar removed: {}",
        doc.text
    );
    assert!(
        !doc.text.contains("All rights reserved"),
        "footer removed: {}",
        doc.text
    );
    assert!(
        doc.title
            .as_deref()
            .unwrap_or_default()
            .starts_with("Bee dances"),
        "{:?}",
        doc.title
    );
    let digest: String = Sha256::digest(doc.text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(doc.text_sha256, digest);
    assert_eq!(
        (doc.url.as_str(), doc.final_url.as_str()),
        (url.as_str(), url.as_str())
    );
    assert_eq!(doc.content_type, "text/html; charset=utf-8");
    assert_eq!(doc.bytes, ARTICLE.len());
}

/// Text is decoded with the charset the server names, else the one the page declares, else
/// UTF-8.
pub async fn text_is_decoded_with_its_charset(make: &MakeFetcher) {
    let fetcher = make(local_policy());
    let (shift_jis, _, _) = encoding_rs::SHIFT_JIS.encode("蜜蜂のダンス");
    let latin_page = ARTICLE
        .replace("<head>", r#"<head><meta charset="windows-1252">"#)
        .replace("Forager bees", "Café crème: forager bees");
    let (latin_page, _, _) = encoding_rs::WINDOWS_1252.encode(&latin_page);
    let cases: [(&str, Vec<u8>, &str, &str, DocumentKind); 4] = [
        (
            "/latin1.txt",
            b"caf\xe9 cr\xe8me".to_vec(),
            "text/plain; charset=iso-8859-1",
            "café crème",
            DocumentKind::Text,
        ),
        (
            "/sjis.txt",
            shift_jis.into_owned(),
            "text/plain; charset=Shift_JIS",
            "蜜蜂のダンス",
            DocumentKind::Text,
        ),
        (
            "/utf8.txt",
            "naïve bees 🐝".as_bytes().to_vec(),
            "text/plain",
            "naïve bees 🐝",
            DocumentKind::Text,
        ),
        (
            "/meta.html",
            latin_page.into_owned(),
            "text/html",
            "Café crème: forager bees",
            DocumentKind::Html,
        ),
    ];
    for (route, body, content_type, expected, kind) in cases {
        let server = serve(
            route,
            ResponseTemplate::new(200).set_body_raw(body, content_type),
        )
        .await;
        let doc = fetcher
            .fetch(&format!("{}{route}", server.uri()))
            .await
            .unwrap();
        assert_eq!(doc.kind, kind, "{route}");
        if kind == DocumentKind::Text {
            assert_eq!(doc.text, expected, "{route}");
        } else {
            assert!(doc.text.contains(expected), "{route}: {:?}", doc.text);
        }
    }
}

/// A body over the size cap is refused, whether its length is declared or it just keeps
/// streaming; a body under the cap is read whole.
pub async fn bodies_over_the_size_cap_are_refused(make: &MakeFetcher) {
    let mb = 1024 * 1024;
    let small = make(FetchPolicy {
        max_bytes: mb,
        ..local_policy()
    });
    let server = serve(
        "/huge",
        ResponseTemplate::new(200).set_body_raw("x".repeat(3 * mb), "text/plain"),
    )
    .await;
    let err = small
        .fetch(&format!("{}/huge", server.uri()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, FetchError::TooLarge { limit_mb: 1, .. }),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("is larger than the 1 MB limit"),
        "{err}"
    );

    // Chunked, with no length: the cap holds while the body streams.
    let chunk = vec![b'x'; 64 * 1024];
    let mut parts: Vec<Vec<u8>> = (0..48)
        .map(|_| {
            let mut c = format!("{:x}\r\n", chunk.len()).into_bytes();
            c.extend_from_slice(&chunk);
            c.extend_from_slice(b"\r\n");
            c
        })
        .collect();
    parts.push(b"0\r\n\r\n".to_vec());
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".into(),
        parts,
        Duration::ZERO,
    );
    let err = small.fetch(&format!("{base}/stream")).await.unwrap_err();
    assert!(
        matches!(err, FetchError::TooLarge { limit_mb: 1, .. }),
        "{err}"
    );

    let server = serve(
        "/fits",
        ResponseTemplate::new(200).set_body_raw("y".repeat(mb - 16), "text/plain"),
    )
    .await;
    let doc = small
        .fetch(&format!("{}/fits", server.uri()))
        .await
        .unwrap();
    assert_eq!(doc.bytes, mb - 16);
}

/// A server that is slow to answer, or slow to send its body, hits the time cap; the error
/// comes when the cap is reached.
pub async fn slow_servers_hit_the_time_cap(make: &MakeFetcher) {
    let quick = make(FetchPolicy {
        timeout: Duration::from_millis(300),
        ..local_policy()
    });
    let server = serve(
        "/slow",
        ResponseTemplate::new(200)
            .set_body_string("late")
            .set_delay(Duration::from_secs(3)),
    )
    .await;
    let started = Instant::now();
    let err = quick
        .fetch(&format!("{}/slow", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));

    // The headers come at once; the body one byte every 50 ms.
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\n".into(),
        (0..100).map(|_| b"z".to_vec()).collect(),
        Duration::from_millis(50),
    );
    let started = Instant::now();
    let err = quick.fetch(&format!("{base}/trickle")).await.unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

/// `found` is the refusal of `url`, naming the address and saying why its host is refused.
fn assert_blocked(found: Result<crate::Document, FetchError>, url: &str) {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .expect("a URL with a host");
    match found {
        Err(FetchError::Blocked {
            url: blocked,
            reason,
        }) => {
            assert_eq!(blocked, url::Url::parse(url).unwrap().to_string());
            assert!(
                reason.starts_with(&format!("{host} is ")),
                "{url}: {reason}"
            );
        }
        other => panic!("{url} was not refused: {other:?}"),
    }
}

/// Loopback, private, link-local, shared and `localhost` addresses are refused before any
/// connection, naming the host and why; so are schemes other than http(s) and non-URLs.
pub async fn local_and_private_addresses_are_refused(make: &MakeFetcher) {
    let server = serve(
        "/secret",
        ResponseTemplate::new(200).set_body_string("the user's secrets"),
    )
    .await;
    let port = server.address().port();
    let strict = make(FetchPolicy::default());
    let err = strict
        .fetch(&format!("{}/secret", server.uri()))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        FetchError::Blocked {
            url: format!("{}/secret", server.uri()),
            reason: "127.0.0.1 is a loopback address".into()
        }
    );
    for url in [
        format!("http://localhost:{port}/secret"),
        format!("http://[::1]:{port}/secret"),
        "http://10.0.0.1/admin".to_string(),
        "http://192.168.1.1/".to_string(),
        "http://172.16.0.9/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://100.64.0.1/".to_string(),
        "http://0.0.0.0/".to_string(),
        "http://[fd00::1]/".to_string(),
        "http://[::ffff:127.0.0.1]/".to_string(),
    ] {
        assert_blocked(strict.fetch(&url).await, &url);
    }
    assert_eq!(requests_to(&server, "/secret").await, 0);
    for url in ["file:///etc/passwd", "ftp://example.org/x", "not a url"] {
        let err = strict.fetch(url).await.unwrap_err();
        assert!(matches!(err, FetchError::InvalidUrl(_)), "{url}: {err}");
    }
    let err = strict.fetch("file:///etc/passwd").await.unwrap_err();
    assert!(err.to_string().contains("only http and https"), "{err}");
}

/// A redirect to a refused address is refused too, and the address is never asked.
pub async fn redirects_to_refused_addresses_are_refused(make: &MakeFetcher) {
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
    let f = make(local_policy());
    for (route, target) in [
        ("/to-private", "http://10.0.0.1/admin".to_string()),
        (
            "/to-metadata",
            "http://169.254.169.254/latest/meta-data/".to_string(),
        ),
        ("/to-localhost", format!("http://localhost:{port}/secret")),
    ] {
        let found = f.fetch(&format!("{}{route}", server.uri())).await;
        assert_blocked(found, &target);
    }
    let err = f
        .fetch(&format!("{}/to-file", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl(_)), "{err}");
    assert!(err.to_string().contains("only http and https"), "{err}");
    assert_eq!(requests_to(&server, "/secret").await, 0);
}

/// A local host the user allowed can be fetched, by name or by address.
pub async fn allowed_hosts_can_be_local(make: &MakeFetcher) {
    let server = serve(
        "/mine",
        ResponseTemplate::new(200).set_body_raw("my own server", "text/plain"),
    )
    .await;
    let port = server.address().port();
    for (allowed, url) in [
        (
            format!("127.0.0.1:{port}"),
            format!("http://127.0.0.1:{port}/mine"),
        ),
        (
            format!("http://LocalHost:{port}"),
            format!("http://localhost:{port}/mine"),
        ),
    ] {
        let f = make(FetchPolicy {
            allowed_hosts: AllowedHosts::new([allowed]),
            ..FetchPolicy::default()
        });
        let doc = f.fetch(&url).await.unwrap();
        assert_eq!(doc.text, "my own server", "{url}");
    }
    // Another port of an allowed host (a local model server, a router) is still refused, by
    // address and by name, and so is the allowed host without its port.
    let other = serve(
        "/api/tags",
        ResponseTemplate::new(200).set_body_raw("models", "text/plain"),
    )
    .await;
    let other_port = other.address().port();
    let f = make(FetchPolicy {
        allowed_hosts: AllowedHosts::new([
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
        ]),
        ..FetchPolicy::default()
    });
    for url in [
        format!("http://127.0.0.1:{other_port}/api/tags"),
        format!("http://localhost:{other_port}/api/tags"),
    ] {
        let err = f.fetch(&url).await.unwrap_err();
        assert!(matches!(err, FetchError::Blocked { .. }), "{url}: {err}");
    }
    let host_only = make(FetchPolicy {
        allowed_hosts: AllowedHosts::new(["127.0.0.1"]),
        ..FetchPolicy::default()
    });
    let err = host_only
        .fetch(&format!("http://127.0.0.1:{port}/mine"))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Blocked { .. }), "{err}");
    assert_eq!(requests_to(&other, "/api/tags").await, 0);
}

/// Images, archives and other binary bodies are refused as what they are.
pub async fn binary_content_is_refused(make: &MakeFetcher) {
    let f = make(local_policy());
    let png = vec![
        0x89u8, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 0x0d,
    ];
    let zip = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
    for (route, response, what) in [
        (
            "/logo.png",
            ResponseTemplate::new(200).set_body_raw(png.clone(), "image/png"),
            "image/png",
        ),
        (
            "/data.zip",
            ResponseTemplate::new(200).set_body_raw(zip.clone(), "application/zip"),
            "application/zip",
        ),
        (
            "/blob",
            ResponseTemplate::new(200).set_body_raw(zip, "application/octet-stream"),
            "application/octet-stream",
        ),
        // No content type at all: the bytes say it is binary.
        (
            "/unnamed",
            ResponseTemplate::new(200).set_body_bytes(png),
            "binary data",
        ),
    ] {
        let server = serve(route, response).await;
        let err = f
            .fetch(&format!("{}{route}", server.uri()))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, FetchError::Unsupported { what: w, .. } if w == what),
            "{route}: {err:?}"
        );
        assert!(
            err.to_string().ends_with(&format!(
                "is {what}, not a page or PDF that text can be read from"
            )),
            "{err}"
        );
    }
}

/// A PDF gives its text; a broken one is "no readable text", not a crash.
pub async fn pdfs_give_their_text(make: &MakeFetcher) {
    let f = make(local_policy());
    let server = serve(
        "/paper.pdf",
        ResponseTemplate::new(200).set_body_raw(
            crate::testing::minimal_pdf("Waggle dances encode distance"),
            "application/pdf",
        ),
    )
    .await;
    let doc = f
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
    let err = f
        .fetch(&format!("{}/broken.pdf", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::NoText { .. }), "{err}");
}

/// Redirects are followed to the final address, up to the policy's limit; loops end there.
pub async fn redirects_are_followed_up_to_the_limit(make: &MakeFetcher) {
    let server = MockServer::start().await;
    for (route, to) in [
        ("/loop", "/loop"),
        ("/moved", "/final"),
        ("/a", "/b"),
        ("/b", "/final"),
    ] {
        Mock::given(path(route))
            .respond_with(ResponseTemplate::new(301).insert_header("location", to))
            .mount(&server)
            .await;
    }
    Mock::given(path("/final"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("arrived", "text/plain"))
        .mount(&server)
        .await;
    let f = make(local_policy());
    let doc = f.fetch(&format!("{}/moved", server.uri())).await.unwrap();
    assert_eq!(doc.final_url, format!("{}/final", server.uri()));
    assert_eq!(doc.url, format!("{}/moved", server.uri()));
    assert_eq!(doc.text, "arrived");
    assert!(matches!(
        f.fetch(&format!("{}/loop", server.uri()))
            .await
            .unwrap_err(),
        FetchError::TooManyRedirects { limit: 5, .. }
    ));
    let one = make(FetchPolicy {
        max_redirects: 1,
        ..local_policy()
    });
    assert!(matches!(
        one.fetch(&format!("{}/a", server.uri())).await.unwrap_err(),
        FetchError::TooManyRedirects { limit: 1, .. }
    ));
}

/// Error statuses are reported with the status, a redirect without a target included.
pub async fn error_statuses_are_reported(make: &MakeFetcher) {
    let f = make(local_policy());
    for status in [404u16, 410, 500, 503] {
        let server = serve("/page", ResponseTemplate::new(status)).await;
        let err = f
            .fetch(&format!("{}/page", server.uri()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, FetchError::Status { status: s, .. } if s == status),
            "{status}: {err}"
        );
    }
    let server = serve("/nowhere", ResponseTemplate::new(302)).await;
    assert!(matches!(
        f.fetch(&format!("{}/nowhere", server.uri()))
            .await
            .unwrap_err(),
        FetchError::Status { status: 302, .. }
    ));
}

/// A document with nothing to read is "no readable text", not an empty success.
pub async fn documents_without_text_are_refused(make: &MakeFetcher) {
    let f = make(local_policy());
    let server = serve(
        "/blank.txt",
        ResponseTemplate::new(200).set_body_raw(" \n\t \n", "text/plain"),
    )
    .await;
    let err = f
        .fetch(&format!("{}/blank.txt", server.uri()))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::NoText { .. }), "{err}");
}

/// Writes one `#[tokio::test]` per conformance case for the fetchers made by `$make`, a
/// function from a [`FetchPolicy`] to an `Arc<dyn Fetcher>`.
#[macro_export]
macro_rules! fetcher_conformance {
    ($make:expr) => {
        $crate::fetcher_conformance!(@tests $make;
            a_web_page_gives_its_main_text, text_is_decoded_with_its_charset,
            bodies_over_the_size_cap_are_refused, slow_servers_hit_the_time_cap,
            local_and_private_addresses_are_refused, redirects_to_refused_addresses_are_refused,
            allowed_hosts_can_be_local, binary_content_is_refused, pdfs_give_their_text,
            redirects_are_followed_up_to_the_limit, error_statuses_are_reported,
            documents_without_text_are_refused);
    };
    (@tests $make:expr; $($case:ident),*) => {
        $(
            #[tokio::test]
            async fn $case() {
                $crate::conformance::$case(&$make).await;
            }
        )*
    };
}
