//! Which addresses a fetch may reach. Pages come from the open web, and a page (or a redirect)
//! must not be able to make the app read the user's own machine or network: loopback, private,
//! link-local (cloud metadata at 169.254.169.254 included), shared, multicast and unspecified
//! addresses are refused unless the user allowed that host (their own Ollama or SearXNG).
//! The check runs on the URL of every hop and, through the DNS resolver, on every address a name
//! resolves to, so a name that resolves to a private address (DNS rebinding) is refused too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Why an address is not public, or `None` when it is.
pub fn private_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return v4_reason(v4);
            }
            let seg0 = v6.segments()[0];
            if v6.is_loopback() {
                Some("a loopback address")
            } else if v6.is_unspecified() {
                Some("an unspecified address")
            } else if v6.is_multicast() {
                Some("a multicast address")
            } else if seg0 & 0xfe00 == 0xfc00 {
                Some("a private (unique local) address")
            } else if seg0 & 0xffc0 == 0xfe80 {
                Some("a link-local address")
            } else if v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
                Some("a cloud metadata address")
            } else {
                None
            }
        }
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private network address")
    } else if ip.is_link_local() {
        Some("a link-local or cloud metadata address")
    } else if a == 100 && (64..128).contains(&b) {
        Some("a shared (carrier-grade NAT) address")
    } else if ip.is_unspecified() || a == 0 {
        Some("an unspecified address")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("a multicast, broadcast or reserved address")
    } else {
        None
    }
}

/// The hosts the user allowed to be private.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts(Arc<Vec<String>>);

impl AllowedHosts {
    /// Allows these host names or addresses (compared without case, without port).
    pub fn new(hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self(Arc::new(
            hosts
                .into_iter()
                .map(|h| {
                    h.into()
                        .trim()
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .to_ascii_lowercase()
                })
                .collect(),
        ))
    }

    /// Whether `host` was allowed.
    pub fn contains(&self, host: &str) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        self.0.contains(&host)
    }
}

/// Resolves names and drops private answers for hosts that are not allowed.
pub(crate) struct GuardedResolver {
    pub(crate) allowed: AllowedHosts,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allowed = self.allowed.clone();
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if allowed.contains(&host) {
                return Ok(Box::new(addrs.into_iter()) as Addrs);
            }
            if let Some((ip, reason)) = addrs
                .iter()
                .find_map(|a| private_reason(a.ip()).map(|r| (a.ip(), r)))
            {
                let error: Box<dyn std::error::Error + Send + Sync> =
                    format!("{host} resolves to {ip}, {reason}").into();
                return Err(error);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_public_addresses() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.9",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(
                private_reason(private.parse().unwrap()).is_some(),
                "{private}"
            );
        }
        for public in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "100.128.0.1",
        ] {
            assert!(
                private_reason(public.parse().unwrap()).is_none(),
                "{public}"
            );
        }
    }

    #[test]
    fn allowed_hosts_ignore_case_and_brackets() {
        let allowed = AllowedHosts::new(["LocalHost", "[::1]"]);
        assert!(allowed.contains("localhost"));
        assert!(allowed.contains("::1"));
        assert!(!allowed.contains("127.0.0.1"));
    }
}
