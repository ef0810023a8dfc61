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
            if let Some(v4) = embedded_v4(v6) {
                // An IPv4 address inside an IPv6 one reaches that IPv4 host (NAT64 of a public
                // address is how IPv6-only networks reach the IPv4 web).
                return v4_reason(v4);
            }
            let seg = v6.segments();
            let seg0 = seg[0];
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
            } else if seg0 & 0xffc0 == 0xfec0 {
                Some("a site-local address")
            } else if seg0 == 0x2001 && seg[1] == 0x0db8 {
                Some("a documentation address")
            } else if seg0 == 0x2001 && seg[1] == 0 {
                Some("a Teredo tunnel address")
            } else if seg0 == 0x0100 && seg[1..4] == [0, 0, 0] {
                Some("a discard address")
            } else if seg0 & 0xe000 != 0x2000 {
                // Only 2000::/3 is allocated for global unicast.
                Some("an address outside the global unicast range")
            } else if v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
                Some("a cloud metadata address")
            } else {
                None
            }
        }
    }
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002:aabb:ccdd::/48`).
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let from =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0; 6] && !v6.is_loopback() && !v6.is_unspecified() {
        return Some(from(s[6], s[7]));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(from(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return Some(from(s[1], s[2]));
    }
    None
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
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
    } else if a == 192 && b == 0 && c == 0 {
        Some("an IETF protocol address")
    } else if a == 198 && (b == 18 || b == 19) {
        Some("a benchmarking address")
    } else if (a, b, c) == (192, 0, 2) || (a, b, c) == (198, 51, 100) || (a, b, c) == (203, 0, 113)
    {
        Some("a documentation address")
    } else {
        None
    }
}

/// One origin the user allowed although it is local or private.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    /// `http` or `https`; either when the entry named none.
    scheme: Option<String>,
    /// Lower case, without brackets.
    host: String,
    /// The port; the scheme's default when the entry named none.
    port: Option<u16>,
    /// The entry said `:*`: every port of the host.
    any_port: bool,
}

/// The origins the user allowed to be local or private: nothing is allowed implicitly, and an
/// entry allows exactly what it names — `intranet.lan` that host on the default ports (80 for
/// http, 443 for https), `127.0.0.1:8888` that port, `http://10.0.0.5:8080` that scheme and
/// port, `127.0.0.1:*` every port of it (said outright, never assumed). A page on another
/// port of an allowed host (a router's admin page, a local model server) stays refused.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts(Arc<Vec<Origin>>);

fn bare(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

impl AllowedHosts {
    /// Allows these entries (`host`, `host:port`, `host:*` or `scheme://host[:port]`; case and IPv6
    /// brackets do not matter). An entry that names no host is ignored.
    pub fn new(entries: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let origins = entries
            .into_iter()
            .filter_map(|entry| {
                let entry = entry.into();
                let entry = entry.trim();
                let (entry, any_port) = match entry.strip_suffix(":*") {
                    Some(host) => (host, true),
                    None => (entry, false),
                };
                let (scheme, url) = if entry.contains("://") {
                    let url = url::Url::parse(entry).ok()?;
                    (Some(url.scheme().to_string()), url)
                } else {
                    (None, url::Url::parse(&format!("http://{entry}")).ok()?)
                };
                let port = match &scheme {
                    Some(_) => url.port_or_known_default(),
                    None => url.port(),
                };
                Some(Origin {
                    scheme,
                    host: bare(url.host_str()?),
                    port,
                    any_port,
                })
            })
            .collect();
        Self(Arc::new(origins))
    }

    /// Whether `url`'s scheme, host and port are allowed.
    pub fn allows(&self, url: &url::Url) -> bool {
        let Some(host) = url.host_str().map(bare) else {
            return false;
        };
        let port = url.port_or_known_default();
        let default = match url.scheme() {
            "https" => Some(443),
            "http" => Some(80),
            _ => None,
        };
        self.0.iter().any(|o| {
            o.host == host
                && o.scheme.as_deref().is_none_or(|s| s == url.scheme())
                && (o.any_port || o.port.or(default) == port)
        })
    }

    /// Whether some entry names `host` (on any port): its name may resolve to a private
    /// address, since every URL is checked with [`AllowedHosts::allows`] before it is asked.
    pub fn names(&self, host: &str) -> bool {
        let host = bare(host);
        self.0.iter().any(|o| o.host == host)
    }

    /// [`AllowedHosts::entry_for`] of an address given as text; `None` when it does not parse.
    pub fn entry_for_address(url: &str) -> Option<String> {
        Self::entry_for(&url::Url::parse(url).ok()?)
    }

    /// The entry that would allow `url`, as a person would write it: the host, with its port
    /// when that is not the scheme's default.
    pub fn entry_for(url: &url::Url) -> Option<String> {
        let host = url.host_str()?;
        Some(match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        })
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
            if allowed.names(&host) {
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
            // IPv4 inside IPv6: compatible, NAT64, 6to4.
            "::7f00:1",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::10.0.0.1",
            "2002:7f00:1::1",
            "2002:c0a8:101::",
            "fec0::1",
            "2001:db8::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "192.0.0.8",
            "198.18.0.1",
            "198.19.255.254",
            "192.0.2.1",
            "203.0.113.7",
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
            "64:ff9b::5db8:d822",
            "2002:5db8:d822::1",
            "198.20.0.1",
        ] {
            assert!(
                private_reason(public.parse().unwrap()).is_none(),
                "{public}"
            );
        }
    }

    #[test]
    fn an_allowed_entry_matches_scheme_host_and_port() {
        let url = |u: &str| url::Url::parse(u).unwrap();
        let allowed = AllowedHosts::new([
            "LocalHost",
            "[::1]:8080",
            "http://10.0.0.5:8888",
            "192.168.1.9:*",
        ]);
        assert!(allowed.allows(&url("http://192.168.1.9:3000/")));
        assert!(allowed.allows(&url("https://192.168.1.9/")));
        assert!(allowed.allows(&url("http://localhost/")));
        assert!(allowed.allows(&url("https://LOCALHOST/x")));
        assert!(!allowed.allows(&url("http://localhost:11434/api/tags")));
        assert!(allowed.allows(&url("http://[::1]:8080/")));
        assert!(!allowed.allows(&url("http://[::1]/")));
        assert!(allowed.allows(&url("http://10.0.0.5:8888/search")));
        assert!(!allowed.allows(&url("https://10.0.0.5:8888/search")));
        assert!(!allowed.allows(&url("http://10.0.0.5:8889/")));
        assert!(!allowed.allows(&url("http://127.0.0.1/")));
        assert!(allowed.names("LOCALHOST") && allowed.names("::1") && !allowed.names("127.0.0.1"));
        assert_eq!(
            AllowedHosts::entry_for(&url("http://127.0.0.1:9000/a")).as_deref(),
            Some("127.0.0.1:9000")
        );
        assert_eq!(
            AllowedHosts::entry_for(&url("https://intranet.lan/a")).as_deref(),
            Some("intranet.lan")
        );
    }
}
