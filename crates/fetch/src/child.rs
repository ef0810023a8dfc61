//! The extraction child: what a binary does when it is started as an [`Extractor::ChildProcess`]
//! (see the crate documentation for why), and the small framed format parent and child speak.
//!
//! Every binary that may be used as the child answers the hidden argument first thing in `main`,
//! before any other set-up:
//!
//! ```no_run
//! if research_fetch::child::is_child_invocation() {
//!     research_fetch::child::serve();
//! }
//! ```
//!
//! The request on stdin is `MAGIC`, the content type and the URL (each a little-endian `u32`
//! length and UTF-8), the text limit (`u64`), then the body to the end. The answer on stdout is
//! `MAGIC`, then `0`, the kind (`u8`), the title (`u32` length, `u32::MAX` for none) and the text
//! to the end; or `1`, the error class (`u8`) and the message to the end.
//!
//! [`Extractor::ChildProcess`]: crate::Extractor::ChildProcess

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::extract::{self, DocumentKind, Extracted};
use crate::ExtractError;

/// The hidden first argument that makes a binary an extraction child.
pub const CHILD_ARG: &str = "__extract";
const MAGIC: &[u8; 4] = b"RSX1";
/// Stack of the extracting thread: deep documents recurse in places; the address-space limit
/// still bounds the whole child.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// Set once a binary's `main` has asked [`is_child_invocation`]: only then can that binary be
/// started as the child ([`crate::Extractor::for_this_program`]); a test binary never asks.
static ANSWERS: AtomicBool = AtomicBool::new(false);

/// Whether this process was started as an extraction child. Also records that this binary
/// answers the hidden argument, so it may start itself as one.
pub fn is_child_invocation() -> bool {
    ANSWERS.store(true, Ordering::SeqCst);
    std::env::args_os().nth(1).is_some_and(|a| a == CHILD_ARG)
}

/// Whether this binary's `main` answers the hidden argument.
pub(crate) fn answers() -> bool {
    ANSWERS.load(Ordering::SeqCst)
}

/// Reads one request on stdin, extracts, writes the answer on stdout and exits.
pub fn serve() -> ! {
    let mut input = Vec::new();
    let answer = match std::io::stdin().lock().read_to_end(&mut input) {
        Ok(_) => match decode_request(input) {
            Some(request) => run(request),
            None => Err(ExtractError::Unreadable(
                "the extraction request was malformed".into(),
            )),
        },
        Err(e) => Err(ExtractError::Unreadable(format!(
            "could not read the request: {e}"
        ))),
    };
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(&encode_answer(&answer))
        .and_then(|_| out.flush());
    std::process::exit(if written.is_ok() { 0 } else { 1 })
}

pub(crate) struct Request {
    pub content_type: String,
    pub url: String,
    pub max_text_bytes: usize,
    pub body: Vec<u8>,
}

fn run(request: Request) -> Result<Extracted, ExtractError> {
    let max = request.max_text_bytes;
    let work = move || {
        std::panic::catch_unwind(move || {
            extract_here(&request.content_type, request.body, &request.url)
        })
        .unwrap_or_else(|_| Err(ExtractError::Unreadable("the parser failed".into())))
    };
    let result = match std::thread::Builder::new()
        .name("extract".into())
        .stack_size(STACK_BYTES)
        .spawn(work)
    {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err(ExtractError::Unreadable("the parser failed".into()))),
        Err(e) => Err(ExtractError::Unreadable(format!(
            "could not start the extracting thread: {e}"
        ))),
    };
    result.map(|e| Extracted {
        text: extract::truncate_text(e.text, max),
        ..e
    })
}

/// Extraction in this process, the same for the child and for [`crate::Extractor::InProcess`].
pub(crate) fn extract_here(
    content_type: &str,
    body: Vec<u8>,
    url: &str,
) -> Result<Extracted, ExtractError> {
    let kind = extract::sniff(content_type, &body).map_err(ExtractError::Unsupported)?;
    match kind {
        DocumentKind::Pdf => extract::pdf(body).map_err(ExtractError::Unreadable),
        DocumentKind::Html => extract::html(&extract::decode(content_type, &body), url)
            .map_err(ExtractError::Unreadable),
        DocumentKind::Text => Ok(Extracted {
            kind,
            title: None,
            text: extract::decode(content_type, &body).trim().to_string(),
            citation: Default::default(),
        }),
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The request's bytes up to the body (the body follows as it is).
pub(crate) fn encode_request_head(content_type: &str, url: &str, max_text_bytes: usize) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_str(&mut out, content_type);
    put_str(&mut out, url);
    out.extend_from_slice(&(max_text_bytes as u64).to_le_bytes());
    out
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        (self.0.len() >= n).then(|| {
            let (head, rest) = self.0.split_at(n);
            self.0 = rest;
            head
        })
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn string(&mut self, len: u32) -> Option<String> {
        String::from_utf8(self.take(len as usize)?.to_vec()).ok()
    }
}

pub(crate) fn decode_request(mut input: Vec<u8>) -> Option<Request> {
    let mut c = Cursor(&input);
    if c.take(4)? != MAGIC {
        return None;
    }
    let n = c.u32()?;
    let content_type = c.string(n)?;
    let n = c.u32()?;
    let url = c.string(n)?;
    let max_text_bytes = u64::from_le_bytes(c.take(8)?.try_into().ok()?) as usize;
    let head = input.len() - c.0.len();
    input.drain(..head);
    Some(Request {
        content_type,
        url,
        max_text_bytes,
        body: input,
    })
}

fn kind_byte(kind: DocumentKind) -> u8 {
    match kind {
        DocumentKind::Html => 0,
        DocumentKind::Pdf => 1,
        DocumentKind::Text => 2,
    }
}

pub(crate) fn encode_answer(answer: &Result<Extracted, ExtractError>) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    match answer {
        Ok(e) => {
            out.push(0);
            out.push(kind_byte(e.kind));
            match &e.title {
                Some(t) => put_str(&mut out, t),
                None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
            }
            put_str(
                &mut out,
                &serde_json::to_string(&e.citation).expect("a citation serializes"),
            );
            out.extend_from_slice(e.text.as_bytes());
        }
        Err(e) => {
            out.push(1);
            let (class, message) = match e {
                ExtractError::Unsupported(what) => (1, what.clone()),
                other => (2, other.reason()),
            };
            out.push(class);
            out.extend_from_slice(message.as_bytes());
        }
    }
    out
}

/// The child's answer, or `None` when it is not one.
pub(crate) fn decode_answer(bytes: &[u8]) -> Option<Result<Extracted, ExtractError>> {
    let mut c = Cursor(bytes);
    if c.take(4)? != MAGIC {
        return None;
    }
    match c.take(1)?[0] {
        0 => {
            let kind = match c.take(1)?[0] {
                0 => DocumentKind::Html,
                1 => DocumentKind::Pdf,
                2 => DocumentKind::Text,
                _ => return None,
            };
            let title = match c.u32()? {
                u32::MAX => None,
                n => Some(c.string(n)?),
            };
            let n = c.u32()?;
            let citation = serde_json::from_str(&c.string(n)?).ok()?;
            let text = String::from_utf8(c.0.to_vec()).ok()?;
            Some(Ok(Extracted {
                kind,
                title,
                text,
                citation,
            }))
        }
        1 => {
            let class = c.take(1)?[0];
            let message = String::from_utf8_lossy(c.0).into_owned();
            Some(Err(match class {
                1 => ExtractError::Unsupported(message),
                _ => ExtractError::Unreadable(message),
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_survive_the_frame() {
        let mut bytes = encode_request_head("text/html; charset=utf-8", "https://a.example/é", 77);
        bytes.extend_from_slice(b"<p>body</p>");
        let r = decode_request(bytes).unwrap();
        assert_eq!(
            (r.content_type.as_str(), r.url.as_str(), r.max_text_bytes),
            ("text/html; charset=utf-8", "https://a.example/é", 77)
        );
        assert_eq!(r.body, b"<p>body</p>");
        assert!(decode_request(b"RSX0".to_vec()).is_none());

        for answer in [
            Ok(Extracted {
                kind: DocumentKind::Pdf,
                title: Some("Tïtle".into()),
                text: "text\nlines".into(),
                citation: research_cite::Citation {
                    doi: Some("10.1/x".into()),
                    ..Default::default()
                },
            }),
            Ok(Extracted {
                kind: DocumentKind::Html,
                title: None,
                text: String::new(),
                citation: Default::default(),
            }),
            Err(ExtractError::Unsupported("image/png".into())),
            Err(ExtractError::Unreadable("bad xref".into())),
        ] {
            assert_eq!(decode_answer(&encode_answer(&answer)), Some(answer));
        }
        assert!(decode_answer(b"RSX1\x07").is_none());
    }
}
