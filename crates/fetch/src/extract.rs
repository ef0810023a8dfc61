//! Readable text from what a server sent: HTML (main content as Markdown), PDF, plain text.

use serde::{Deserialize, Serialize};

/// What kind of document was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    /// A web page; `text` is its main content as Markdown.
    Html,
    /// A PDF; `text` is its text, page after page.
    Pdf,
    /// Plain text or Markdown, as sent.
    Text,
}

/// Elements an HTML page may have before it is refused unparsed. Real articles have a few
/// thousand; hostile pages have hundreds of thousands, and the parser's cost grows faster than
/// their number.
pub const MAX_ELEMENTS: usize = 100_000;
/// How deep elements may nest before a page is refused unparsed: the tree builder walks the
/// open-element stack on every tag, so a deep page costs depth × tags.
pub const MAX_DEPTH: usize = 5_000;

/// A document's extracted text and title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// What kind of document it was.
    pub kind: DocumentKind,
    /// Its title, when one was found.
    pub title: Option<String>,
    /// Its readable text.
    pub text: String,
}

/// Decides what the body is from its content type and its first bytes.
pub fn sniff(content_type: &str, body: &[u8]) -> Result<DocumentKind, String> {
    let ct = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let head = &body[..body.len().min(4096)];
    if head.starts_with(b"%PDF-") || ct == "application/pdf" {
        return Ok(DocumentKind::Pdf);
    }
    let looks_html = {
        let start = String::from_utf8_lossy(&head[..head.len().min(512)]).to_ascii_lowercase();
        start.contains("<!doctype html")
            || start.contains("<html")
            || start.contains("<head")
            || start.contains("<body")
    };
    if ct == "text/html" || ct == "application/xhtml+xml" || (ct.is_empty() && looks_html) {
        return Ok(DocumentKind::Html);
    }
    let textual = ct.starts_with("text/")
        || ct.ends_with("+json")
        || ct.ends_with("/json")
        || ct.ends_with("+xml")
        || ct.ends_with("/xml");
    if (textual || ct.is_empty() || ct == "application/octet-stream") && !head.contains(&0) {
        return Ok(if looks_html {
            DocumentKind::Html
        } else {
            DocumentKind::Text
        });
    }
    Err(if ct.is_empty() {
        "binary data".to_string()
    } else {
        ct
    })
}

/// Decodes text with the charset the server named, or one the page declares, or UTF-8.
pub fn decode(content_type: &str, body: &[u8]) -> String {
    let declared = charset_param(content_type).or_else(|| meta_charset(body));
    let encoding = declared
        .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        (k.trim().eq_ignore_ascii_case("charset")).then(|| v.trim().trim_matches('"').to_string())
    })
}

fn meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(2048)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let rest = head[at..].trim_start_matches(['"', '\'']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

/// Elements that never have an end tag, or whose end tag may be left out: they do not deepen
/// the nesting estimate.
const FLAT: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "p", "li", "dt", "dd", "td", "th", "tr", "option", "optgroup", "colgroup", "thead",
    "tbody", "tfoot", "rp", "rt", "html", "head", "body", "param", "frame", "keygen",
];

/// Counts start tags and estimates nesting from the raw markup, without building a tree, so
/// that a page too large or too deep to parse is refused in linear time.
fn check_shape(html: &str) -> Result<(), String> {
    let bytes = html.as_bytes();
    let (mut elements, mut depth, mut deepest) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while let Some(off) = memchr_lt(&bytes[i..]) {
        let at = i + off + 1;
        i = at;
        let closing = bytes.get(at) == Some(&b'/');
        let start = if closing { at + 1 } else { at };
        let name_len = bytes[start.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if name_len == 0 || !bytes[start].is_ascii_alphabetic() {
            continue;
        }
        let name = html[start..start + name_len].to_ascii_lowercase();
        if !closing {
            elements += 1;
            if elements > MAX_ELEMENTS {
                return Err(format!(
                    "the page has more than {MAX_ELEMENTS} elements; it was not parsed"
                ));
            }
        }
        if FLAT.contains(&name.as_str()) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            // `<x/>` does not open anything.
            let self_closing = bytes[start + name_len..]
                .iter()
                .take(4096)
                .position(|&b| b == b'>')
                .is_some_and(|end| end > 0 && bytes[start + name_len + end - 1] == b'/');
            if !self_closing {
                depth += 1;
                deepest = deepest.max(depth);
            }
        }
        if deepest > MAX_DEPTH {
            return Err(format!(
                "the page nests elements more than {MAX_DEPTH} deep; it was not parsed"
            ));
        }
    }
    Ok(())
}

fn memchr_lt(haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == b'<')
}

/// Main content of an HTML page, as Markdown.
pub fn html(html: &str, url: &str) -> Result<Extracted, String> {
    check_shape(html)?;
    let cfg = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Markdown,
        // The shape check above counts roughly; this is the parser's own exact bound.
        max_elements_to_parse: MAX_ELEMENTS,
        ..Default::default()
    };
    let mut readability =
        dom_smoothie::Readability::new(html, Some(url), Some(cfg)).map_err(|e| e.to_string())?;
    let article = readability.parse().map_err(|e| e.to_string())?;
    let text = tidy(&article.text_content);
    let title = Some(article.title.trim().to_string()).filter(|t| !t.is_empty());
    Ok(Extracted {
        kind: DocumentKind::Html,
        title,
        text,
    })
}

/// Cuts `text` to at most `max_bytes` bytes at a character boundary, and says so at the end.
pub fn truncate_text(mut text: String, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    let mut cut = max_bytes;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    let mib = max_bytes as f64 / (1024.0 * 1024.0);
    text.push_str(&format!(
        "\n\n[The text was cut here: only its first {mib:.1} MB are kept.]"
    ));
    text
}

/// Sphinx and similar generators leave anchor glyphs and "Permalink" links in the text.
fn tidy(text: &str) -> String {
    let cleaned = text.replace(['\u{f0c1}', '¶'], "");
    let mut out = String::with_capacity(cleaned.len());
    let mut blank = 0;
    for line in cleaned.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// Text of a PDF. The parser runs under `catch_unwind`: a malformed file must not take the app down.
pub fn pdf(bytes: Vec<u8>) -> Result<Extracted, String> {
    let result = std::panic::catch_unwind(move || -> Result<String, String> {
        let doc = pdf_oxide::PdfDocument::from_bytes(bytes).map_err(|e| e.to_string())?;
        doc.extract_all_text().map_err(|e| e.to_string())
    });
    let text = match result {
        Ok(r) => r?,
        Err(_) => return Err("the PDF parser crashed on this file".into()),
    };
    let title = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect());
    Ok(Extracted {
        kind: DocumentKind::Pdf,
        title,
        text: tidy(&text),
    })
}
