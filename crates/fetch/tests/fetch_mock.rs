//! The HTTP fetcher's own cases. What every fetcher must do (extraction of HTML, PDF and text,
//! charsets, the size and time caps, refused addresses, binary content, redirects) is checked
//! by the conformance suite in `fetch_conformance.rs`; what is left here is particular to
//! `HttpFetcher`'s guarded DNS resolver.

use research_fetch::{AllowedHosts, FetchError, FetchPolicy, Fetcher, HttpFetcher};

fn fetcher() -> HttpFetcher {
    HttpFetcher::new(FetchPolicy {
        allowed_hosts: AllowedHosts::new(["127.0.0.1"]),
        ..FetchPolicy::default()
    })
    .unwrap()
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
