//! The `Fetcher` seam: from a URL to readable text the pipelines can quote.
//!
//! Fetching is where the open web meets the user's machine, so [`HttpFetcher`] is strict: http
//! and https only, a time limit, a size limit read as the body streams, a redirect limit with
//! every hop checked, no private or local addresses unless allowed (see [`guard`]), a few
//! connections per host at most, and a real user agent. What it returns keeps the extracted text
//! and its SHA-256, because every quote in a report is checked against that stored text.
//!
//! Parsing is the other place where hostile bytes meet the machine, and a parser cannot be made
//! safe from inside its own process: `catch_unwind` catches neither a stack overflow nor an
//! allocation failure, and nothing interrupts a blocking thread stuck in a quadratic loop. So
//! HTML and PDF extraction goes through the [`Extractor`] seam: [`Extractor::ChildProcess`]
//! runs it in a child (the running binary itself, started with a hidden argument, see
//! [`child`]) under a wall-time limit and an address-space limit, and whatever kills the child
//! comes back as an ordinary [`ExtractError`] while the app and its other runs go on.
//! [`Extractor::InProcess`] remains for unit tests and for binaries that do not answer the
//! hidden argument. The fetcher takes its extractor from its [`FetchPolicy`], the library from
//! its own configuration; production builds both with [`Extractor::for_this_program`].
#![deny(missing_docs)]

pub mod child;
/// The conformance suite every web [`Fetcher`] passes against local servers (feature
/// `conformance`; see `tests/fetch_conformance.rs`).
#[cfg(feature = "conformance")]
pub mod conformance;
mod extract;
mod extractor;
pub mod guard;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

pub use extract::{truncate_text, DocumentKind, Extracted, MAX_DEPTH, MAX_ELEMENTS};
pub use extractor::{ExtractError, ExtractLimits, Extractor};
pub use guard::AllowedHosts;

/// Small documents for tests of the crates above this one.
#[doc(hidden)]
pub mod testing {
    /// A one-page PDF showing `text` in Helvetica, with a correct cross-reference table.
    pub fn minimal_pdf(text: &str) -> Vec<u8> {
        let stream = format!("BT /F1 18 Tf 72 720 Td ({text}) Tj ET");
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
                .to_string(),
            format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        ];
        let mut pdf = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
        }
        let xref = pdf.len();
        pdf.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for o in offsets {
            pdf.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
        }
        pdf.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        pdf
    }
}

/// Whether a fetch still waits for its text: false once the fetch is dropped.
struct Wanted(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Default for Wanted {
    fn default() -> Self {
        Wanted(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
            true,
        )))
    }
}

impl Drop for Wanted {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A fetched document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The URL asked for.
    pub url: String,
    /// The URL the content came from, after redirects.
    pub final_url: String,
    /// The title, when one was found.
    pub title: Option<String>,
    /// The readable text (Markdown for web pages).
    pub text: String,
    /// What kind of document it was.
    pub kind: DocumentKind,
    /// The content type the server named.
    pub content_type: String,
    /// Bytes received.
    pub bytes: usize,
    /// SHA-256 of `text`, hex.
    pub text_sha256: String,
    /// Who wrote it and where it appeared, as the document says of itself.
    #[serde(default, skip_serializing_if = "research_cite::Citation::is_empty")]
    pub citation: research_cite::Citation,
}

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Not an http(s) URL, or not a URL at all.
    #[error("{0}")]
    InvalidUrl(String),
    /// The address is private or local and was not allowed.
    #[error("refused to fetch {url}: {reason}")]
    Blocked {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// More redirects than allowed.
    #[error("{url} redirected more than {limit} times")]
    TooManyRedirects {
        /// The URL asked for.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// The body is larger than the limit.
    #[error("{url} is larger than the {limit_mb} MB limit")]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit in MB.
        limit_mb: usize,
    },
    /// No answer in time.
    #[error("{url} did not answer within {seconds} s")]
    Timeout {
        /// The URL.
        url: String,
        /// The limit.
        seconds: u64,
    },
    /// The server could not be reached.
    #[error("could not reach {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The content is not something text can be read from (an image, an archive, …).
    #[error("{url} is {what}, not a page or PDF that text can be read from")]
    Unsupported {
        /// The URL.
        url: String,
        /// What it is.
        what: String,
    },
    /// The content could not be read, or held no text.
    #[error("no readable text could be taken from {url}: {reason}")]
    NoText {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
}

/// Fetches documents.
#[async_trait]
pub trait Fetcher: Send + Sync {
    /// Fetches `url` and extracts its readable text.
    async fn fetch(&self, url: &str) -> Result<Document, FetchError>;
}

/// Limits and permissions of an [`HttpFetcher`].
#[derive(Debug, Clone)]
pub struct FetchPolicy {
    /// Whole-request time limit.
    pub timeout: Duration,
    /// Largest body accepted.
    pub max_bytes: usize,
    /// Redirects followed at most.
    pub max_redirects: usize,
    /// Connections to one host at once.
    pub per_host: usize,
    /// Private or local hosts the user allowed.
    pub allowed_hosts: AllowedHosts,
    /// Where pages and PDFs are parsed.
    pub extractor: Extractor,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(20),
            max_bytes: 5 * 1024 * 1024,
            max_redirects: 5,
            per_host: 2,
            allowed_hosts: AllowedHosts::default(),
            extractor: Extractor::InProcess,
        }
    }
}

/// The user agent pages see: honest about what we are, shaped like a browser's so that sites
/// serve their ordinary pages.
pub const USER_AGENT: &str = concat!(
    "Mozilla/5.0 (X11; Linux x86_64) ResearchStudio/",
    env!("CARGO_PKG_VERSION"),
    " (+desktop research assistant)"
);

/// Fetches over HTTP(S) under a [`FetchPolicy`].
pub struct HttpFetcher {
    client: reqwest::Client,
    policy: FetchPolicy,
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl HttpFetcher {
    /// A fetcher with `policy`.
    pub fn new(policy: FetchPolicy) -> Result<Self, FetchError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(policy.timeout)
            .connect_timeout(Duration::from_secs(10).min(policy.timeout))
            .user_agent(USER_AGENT)
            // A proxy would resolve names itself, out of the guard's sight.
            .no_proxy()
            .dns_resolver(Arc::new(guard::GuardedResolver {
                allowed: policy.allowed_hosts.clone(),
            }))
            .build()
            .map_err(|e| {
                FetchError::InvalidUrl(format!("could not set up the HTTP client: {e}"))
            })?;
        Ok(Self {
            client,
            policy,
            hosts: Mutex::new(HashMap::new()),
        })
    }

    fn host_slot(&self, host: &str) -> Arc<Semaphore> {
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts
            .entry(host.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(self.policy.per_host.max(1))))
            .clone()
    }

    /// Refuses schemes other than http(s) and literal private addresses (names are checked by
    /// the resolver when connecting).
    fn check(&self, url: &url::Url) -> Result<(), FetchError> {
        match url.scheme() {
            "http" | "https" => {}
            other => {
                return Err(FetchError::InvalidUrl(format!(
                    "only http and https pages can be fetched, not {other}: URLs"
                )));
            }
        }
        let host = url
            .host_str()
            .ok_or_else(|| FetchError::InvalidUrl(format!("{url} has no host")))?;
        if self.policy.allowed_hosts.allows(url) {
            return Ok(());
        }
        if self.policy.allowed_hosts.names(host) {
            // Allowed on another port or scheme only: this origin has no exception.
            return Err(FetchError::Blocked {
                url: url.to_string(),
                reason: format!("{host} is allowed only on the ports and schemes listed for it"),
            });
        }
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            _ => None,
        };
        if let Some(reason) = literal.and_then(guard::private_reason) {
            return Err(FetchError::Blocked {
                url: url.to_string(),
                reason: format!("{host} is {reason}"),
            });
        }
        if host.eq_ignore_ascii_case("localhost")
            || host.to_ascii_lowercase().ends_with(".localhost")
        {
            return Err(FetchError::Blocked {
                url: url.to_string(),
                reason: format!("{host} is this machine"),
            });
        }
        Ok(())
    }

    fn transport(&self, url: &url::Url, e: reqwest::Error) -> FetchError {
        let url = url.to_string();
        if e.is_timeout() {
            return FetchError::Timeout {
                url,
                seconds: self.policy.timeout.as_secs().max(1),
            };
        }
        let mut reason = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            reason = s.to_string();
            source = s.source();
        }
        if reason.contains("resolves to") {
            return FetchError::Blocked { url, reason };
        }
        FetchError::Unreachable { url, reason }
    }

    async fn body(&self, url: &url::Url, resp: reqwest::Response) -> Result<Vec<u8>, FetchError> {
        let limit = self.policy.max_bytes;
        let too_large = || FetchError::TooLarge {
            url: url.to_string(),
            limit_mb: (limit / (1024 * 1024)).max(1),
        };
        if resp.content_length().is_some_and(|n| n as usize > limit) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        let mut stream = resp.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| self.transport(url, e))?;
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

#[async_trait]
impl Fetcher for HttpFetcher {
    async fn fetch(&self, url: &str) -> Result<Document, FetchError> {
        let requested = url.trim();
        let mut current = url::Url::parse(requested)
            .map_err(|e| FetchError::InvalidUrl(format!("`{requested}` is not a URL ({e})")))?;
        for _ in 0..=self.policy.max_redirects {
            self.check(&current)?;
            let host = current.host_str().unwrap_or_default().to_string();
            let slot = self.host_slot(&host);
            let _permit = slot.acquire().await.map_err(|_| FetchError::Unreachable {
                url: current.to_string(),
                reason: "shutting down".into(),
            })?;
            let resp = self
                .client
                .get(current.clone())
                .send()
                .await
                .map_err(|e| self.transport(&current, e))?;
            let status = resp.status();
            if status.is_redirection() {
                let location = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| FetchError::Status {
                        url: current.to_string(),
                        status: status.as_u16(),
                    })?;
                current = current.join(location).map_err(|e| {
                    FetchError::InvalidUrl(format!(
                        "{current} redirected to a bad URL `{location}` ({e})"
                    ))
                })?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: current.to_string(),
                    status: status.as_u16(),
                });
            }
            let content_type = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let body = self.body(&current, resp).await?;
            let final_url = current.to_string();
            let bytes = body.len();
            // Sniffed here too, so that what cannot be read is named before a child starts.
            extract::sniff(&content_type, &body).map_err(|what| FetchError::Unsupported {
                url: final_url.clone(),
                what,
            })?;
            let extractor = self.policy.extractor.clone();
            let ct = content_type.clone();
            let page_url = final_url.clone();
            // Dropping this fetch (a cancelled run) stops the extraction child.
            let wanted = Wanted::default();
            let still = wanted.0.clone();
            let extracted = tokio::task::spawn_blocking(move || {
                extractor.extract_while(&ct, body, &page_url, &|| {
                    still.load(std::sync::atomic::Ordering::SeqCst)
                })
            })
            .await
            .map_err(|e| FetchError::NoText {
                url: final_url.clone(),
                reason: e.to_string(),
            })?
            .map_err(|e| match e {
                ExtractError::Unsupported(what) => FetchError::Unsupported {
                    url: final_url.clone(),
                    what,
                },
                other => FetchError::NoText {
                    url: final_url.clone(),
                    reason: other.to_string(),
                },
            })?;
            if extracted.text.trim().is_empty() {
                return Err(FetchError::NoText {
                    url: final_url,
                    reason: "the document holds no text".into(),
                });
            }
            let text_sha256 = Sha256::digest(extracted.text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            return Ok(Document {
                url: requested.to_string(),
                final_url,
                title: extracted.title,
                text: extracted.text,
                kind: extracted.kind,
                content_type,
                bytes,
                text_sha256,
                citation: extracted.citation,
            });
        }
        Err(FetchError::TooManyRedirects {
            url: requested.to_string(),
            limit: self.policy.max_redirects,
        })
    }
}
