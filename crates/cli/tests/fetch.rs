//! `research fetch` against a local server.

use std::process::Command;

use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

const BIN: &str = env!("CARGO_BIN_EXE_research");

async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || Command::new(BIN).args(args).output().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn fetches_with_an_allowed_local_host_and_refuses_without() {
    let server = MockServer::start().await;
    let page = "<html><head><title>Notes</title></head><body><article><h1>Notes</h1><p>The quick brown fox jumps over the lazy dog, again and again, to fill a paragraph long enough to count as the page's main content.</p><p>A second paragraph keeps the readability scorer satisfied that this is an article worth keeping.</p></article></body></html>";
    Mock::given(path("/notes"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let url = format!("{}/notes", server.uri());
    let origin = format!("127.0.0.1:{}", server.address().port());

    let out = run(vec![
        "fetch".into(),
        url.clone(),
        "--allow-host".into(),
        origin.clone(),
        "--json".into(),
    ])
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "html");
    assert!(doc["text"].as_str().unwrap().contains("quick brown fox"));
    assert_eq!(doc["text_sha256"].as_str().unwrap().len(), 64);

    let out = run(vec!["fetch".into(), url]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("research: refused to fetch")
            && err.contains(&format!("--allow-host {origin}")),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1);
}

/// A proxy from the environment would resolve the page's name itself, out of the guard's
/// sight: the fetcher goes to the page directly and the proxy sees nothing.
#[tokio::test]
async fn the_fetcher_ignores_proxies_from_the_environment() {
    let server = MockServer::start().await;
    let page = "<html><head><title>Direct</title></head><body><article><p>This page was fetched directly from its own server, not through any proxy in between, as the guard requires for every page it reads.</p><p>A second paragraph makes it an article.</p></article></body></html>";
    Mock::given(path("/direct"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let proxy = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("<html><body>proxied</body></html>", "text/html"),
        )
        .mount(&proxy)
        .await;
    let url = format!("{}/direct", server.uri());
    let origin = format!("127.0.0.1:{}", server.address().port());
    let proxy_url = proxy.uri();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(BIN)
            .args(["fetch", &url, "--allow-host", &origin, "--json"])
            .env("HTTP_PROXY", &proxy_url)
            .env("http_proxy", &proxy_url)
            .env("ALL_PROXY", &proxy_url)
            .env_remove("NO_PROXY")
            .env_remove("no_proxy")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        doc["text"].as_str().unwrap().contains("fetched directly"),
        "{doc}"
    );
    assert!(proxy
        .received_requests()
        .await
        .unwrap_or_default()
        .is_empty());
}

/// Every way of writing an address on this machine or a private network is refused before a
/// connection is tried: IPv4 in its odd spellings, IPv6 forms that carry an IPv4 address
/// (mapped, compatible, NAT64, 6to4), and the reserved ranges.
#[tokio::test]
async fn fetch_refuses_every_form_of_a_local_or_private_address() {
    let forms = [
        "http://127.0.0.1:9/",
        "http://localhost/",
        "http://0.0.0.0/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://127.1/",
        "http://10.0.0.1/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://100.64.0.1/",
        "http://192.0.0.8/",
        "http://198.18.0.1/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::7f00:1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://[fec0::1]/",
        "http://[fe80::1]/",
        "http://[fc00::1]/",
        "http://[2001:db8::1]/",
    ];
    for url in forms {
        let out = run(vec!["fetch".into(), url.into()]).await;
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(err.contains("refused to fetch"), "{url}: {err}");
    }
}
