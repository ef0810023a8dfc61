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

/// Extracted text and title.
pub(crate) struct Extracted {
    pub kind: DocumentKind,
    pub title: Option<String>,
    pub text: String,
}

/// Decides what the body is from its content type and its first bytes.
pub(crate) fn sniff(content_type: &str, body: &[u8]) -> Result<DocumentKind, String> {
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
pub(crate) fn decode(content_type: &str, body: &[u8]) -> String {
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

/// Main content of an HTML page, as Markdown.
pub(crate) fn html(html: &str, url: &str) -> Result<Extracted, String> {
    let cfg = dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Markdown,
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
pub(crate) fn pdf(bytes: Vec<u8>) -> Result<Extracted, String> {
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
