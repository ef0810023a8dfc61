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
    /// Who wrote it and where it appeared, as far as the document says (a page's `<meta>`
    /// tags, a DOI on a paper's first page).
    pub citation: research_cite::Citation,
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
    let document = dom_query::Document::from(html);
    let citation = citation_of(&document);
    keep_words_in_prose(&document);
    let mut readability = dom_smoothie::Readability::with_document(document, Some(url), Some(cfg))
        .map_err(|e| e.to_string())?;
    let article = readability.parse().map_err(|e| e.to_string())?;
    let text = tidy(&article.text_content);
    let title = Some(article.title.trim().to_string()).filter(|t| !t.is_empty());
    Ok(Extracted {
        kind: DocumentKind::Html,
        title,
        text,
        citation,
    })
}

/// What the page's `<meta>` tags say about who wrote it and where it appeared.
fn citation_of(document: &dom_query::Document) -> research_cite::Citation {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for node in document.select("meta[content]").nodes() {
        let name = node
            .attr("name")
            .or_else(|| node.attr("property"))
            .or_else(|| node.attr("itemprop"));
        if let (Some(name), Some(content)) = (name, node.attr("content")) {
            pairs.push((name.to_string(), content.to_string()));
        }
        // A page has a few dozen; a page of ten thousand is not describing itself.
        if pairs.len() >= 500 {
            break;
        }
    }
    research_cite::Citation::from_meta(pairs.iter().map(|(n, c)| (n.as_str(), c.as_str())))
}

/// Elements that mark up words inside a sentence rather than hold blocks of a page.
const PHRASING: &[&str] = &[
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font",
    "i", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt",
    "u", "var",
];

/// Blocks whose content is running text even when a phrasing element is all they hold (a term,
/// a heading, a cell). A list item is not among them: a bare `<li><span class="menu-…">` is
/// how navigation menus are built.
const TEXT_BLOCKS: &[&str] = &[
    "p",
    "dt",
    "dd",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "caption",
    "figcaption",
    "blockquote",
    "pre",
];

/// Readability drops every element whose class or id looks like boilerplate ("menu", "extra",
/// "remark", "footer", …), inline ones included, so a manual's `<span class="guimenu">Layer</span>`
/// vanished from the middle of a sentence. That heuristic is meant for containers (a
/// `<nav class="menu">`, a `<div class="footer">`): a phrasing element inside running text
/// loses its class and id here, and readability judges only the blocks around it.
fn keep_words_in_prose(document: &dom_query::Document) {
    let selector = PHRASING
        .iter()
        .flat_map(|tag| [format!("{tag}[class]"), format!("{tag}[id]")])
        .collect::<Vec<_>>()
        .join(", ");
    for node in document.select(&selector).nodes() {
        if in_running_text(node) && !holds_blocks(node) {
            node.remove_attrs(&["class", "id"]);
        }
    }
}

fn name_in(node: &dom_query::NodeRef, names: &[&str]) -> bool {
    node.node_name()
        .is_some_and(|n| names.contains(&n.as_ref()))
}

fn has_own_words(node: &dom_query::NodeRef) -> bool {
    node.children_it(false)
        .any(|c| c.is_text() && !c.text().trim().is_empty())
}

/// Whether `node` sits in a sentence: some element from it up to its nearest block holds words
/// of its own, or that block is one whose content is text.
fn in_running_text(node: &dom_query::NodeRef) -> bool {
    let mut current = node.parent();
    while let Some(parent) = current {
        if has_own_words(&parent) {
            return true;
        }
        if !name_in(&parent, PHRASING) {
            return name_in(&parent, TEXT_BLOCKS);
        }
        current = parent.parent();
    }
    false
}

fn holds_blocks(node: &dom_query::NodeRef) -> bool {
    node.descendants_it()
        .any(|d| d.is_element() && !name_in(&d, PHRASING) && !name_in(&d, &["br", "wbr", "img"]))
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
    // The Markdown writer keeps a line break inside a block it writes on one line (a table
    // cell, a list item) as `<br>`: markup in what a quote shows. A space keeps the words apart.
    let cleaned = text
        .replace(['\u{f0c1}', '¶'], "")
        .replace("<br />", " ")
        .replace("<br/>", " ")
        .replace("<br>", " ");
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
        // A page with a table is written as Markdown, its tables as Markdown tables (rows a
        // quote and the checker read with their header); a page without one as its text, which
        // keeps the parser's joining of words hyphenated at a line end ("manip-ulation").
        let options = pdf_oxide::converters::ConversionOptions {
            extract_tables: true,
            ..Default::default()
        };
        let mut text = String::new();
        for page in 0..doc.page_count().map_err(|e| e.to_string())? {
            if page > 0 {
                text.push('\x0c');
            }
            let tables = doc.extract_tables(page).map(|t| !t.is_empty());
            let read = if tables.unwrap_or(false) {
                doc.to_markdown(page, &options)
            } else {
                doc.extract_text(page)
            };
            // A page that cannot be read leaves a gap, as the parser's own whole-text reading
            // does; the rest of the document still counts.
            if let Ok(t) = read {
                text.push_str(&t);
            }
        }
        Ok(text)
    });
    let text = match result {
        Ok(r) => r?,
        Err(_) => return Err("the PDF parser crashed on this file".into()),
    };
    // A paper prints its DOI on its first page; the first one there is its own (those of the
    // works it cites come later, in its references).
    let first_page = text.split('\x0c').next().unwrap_or_default();
    let citation = research_cite::Citation {
        doi: first_page
            .lines()
            .find(|l| l.to_lowercase().contains("doi"))
            .and_then(research_cite::doi),
        ..Default::default()
    };
    // The first line with words, without the heading marks the Markdown writer gave it.
    let title = text
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(200).collect());
    Ok(Extracted {
        kind: DocumentKind::Pdf,
        title,
        text: tidy(&text),
        citation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DocBook manual page's shape: navigation tables above and below, a section whose
    /// definition list holds paragraphs with GUI names marked up inline.
    fn manual_page(paragraph: &str) -> String {
        format!(
            r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>2. シートの重ね方</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">2. シートの重ね方</th></tr>
<tr><td><a accesskey="p" href="prev.html">前のページ</a></td><th>第1章</th><td><a accesskey="n" href="next.html">次のページ</a></td></tr></table></div>
<nav class="menu"><ul><li><a href="/home">ナビのホーム</a></li><li><a href="/list">ナビの一覧</a></li></ul></nav>
<div class="sect1"><div class="titlepage"><h2 class="title">2. シートの重ね方</h2></div>
<div class="variablelist"><dl class="variablelist"><dt><span class="term">大きさと縁</span></dt><dd>
<a id="idm1" class="indexterm"></a>
<p>シートの縁より外側には何も描けないので、 作業の前に縁の位置を確かめておくと安心です。 縁は点線で示され、 大きさはあとからいつでも変えられます。</p>
<p>{paragraph}</p>
<p>新しいシートを作るとき、 その大きさは画像全体と同じになるとは限りません。 文字を置いたシートは文字がちょうど収まる大きさになり、 貼り付けで作ったシートは貼り付けたものの大きさになります。 どのシートが作業の対象かは一覧で強調表示され、 対象を切り替えるには一覧の行を選びます。 シートの名前は行をダブルクリックして変えられ、 似た名前が並ぶときは色ラベルを付けておくと見分けやすくなります。</p>
<p>シートを動かすには移動ツールを使います。 矢印キーでも一画素ずつ動かせるので、 細かい位置合わせにはそちらが便利です。 動かしたシートが画像の外にはみ出しても中身は失われず、 あとで戻せば再び見えるようになります。 複数のシートをまとめて動かしたいときは、 鎖の印でつないでから動かします。</p>
<p>重ねたシートは上から順に合成されるので、 上のシートが不透明なら下のシートは見えません。 透明度を下げると下のシートが透けて見えるようになり、 合成の結果を確かめながら作業を進められます。</p>
</dd></dl></div></div>
<div class="navfooter"><table width="100%" summary="Navigation footer"><tr><td><a href="prev.html">前のフッター</a></td><td><a href="index.html">目次へ戻る</a></td></tr></table></div>
</body></html>"#
        )
    }

    fn text_of(page: &str) -> String {
        html(page, "https://manual.example/ja/sheets.html")
            .expect("the page is extracted")
            .text
    }

    /// Issue 55: a page's own `<meta>` tags say who wrote it and where it appeared.
    #[test]
    fn a_pages_meta_tags_give_its_citation() {
        let page = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>WAL</title>
<meta name="citation_author" content="Hipp, D. Richard">
<meta name="citation_publication_date" content="2022/08/01">
<meta name="citation_doi" content="10.14778/3554821.3554842">
<meta property="og:site_name" content="SQLite">
</head><body><article><h1>WAL</h1><p>The write-ahead log is a way to implement atomic commit and rollback in a database, and this paragraph is long enough to be kept as the article's text by readability.</p></article></body></html>"#;
        let e = html(page, "https://sqlite.org/wal.html").unwrap();
        assert_eq!(
            e.citation.authors,
            vec![research_cite::Name::parse("Hipp, D. Richard").unwrap()]
        );
        assert_eq!(e.citation.issued.as_deref(), Some("2022-08-01"));
        assert_eq!(e.citation.doi.as_deref(), Some("10.14778/3554821.3554842"));
        assert_eq!(e.citation.container.as_deref(), Some("SQLite"));
        assert!(html(&manual_page("Plain words."), "https://a.example/")
            .unwrap()
            .citation
            .is_empty());
    }

    #[test]
    fn a_line_break_the_markdown_writer_keeps_as_markup_reads_as_a_space() {
        assert_eq!(
            tidy("using SQL commands.<br> You will be able<br/>to extend it.<br />"),
            "using SQL commands.  You will be able to extend it."
        );
    }

    #[test]
    fn a_menu_name_in_a_sentence_keeps_its_words() {
        let text = text_of(&manual_page(
            r#"大きさは変えても構いません。 <span class="guimenu">シート</span> メニューの <span class="guisubmenu">配置</span> から <span class="guimenuitem">上へ</span> を選びます。"#,
        ));
        assert!(
            text.contains("構いません。 シート メニューの 配置 から 上へ を選びます。"),
            "{text}"
        );
    }

    #[test]
    fn an_accelerator_letter_inside_a_menu_name_reads_as_one_word() {
        let text = text_of(&manual_page(
            r#"古い版では <span class="guimenu">Acq<span class="accel">u</span>ire</span> メニューと <span class="guilabel"><span class="accel">F</span>ull</span> 表示と <u>f</u>ull 画面を使いました。"#,
        ));
        assert!(
            text.contains("古い版では Acquire メニューと Full 表示と full 画面を使いました。"),
            "{text}"
        );
    }

    #[test]
    fn other_inline_markup_of_a_manual_keeps_its_words() {
        let text = text_of(&manual_page(
            r#"<span class="guibutton">適用</span> を押し、 <span class="guilabel">不透明度</span> を決め、 <span class="keycap">Shift</span> を押したまま <span class="emphasis"><em>慎重に</em></span> ドラッグし、 <code class="filename">notes.txt</code> に <code class="literal">depth=3</code> と書きます。"#,
        ));
        assert!(
            text.contains(
                "適用 を押し、 不透明度 を決め、 Shift を押したまま *慎重に* ドラッグし、 `notes.txt` に `depth=3` と書きます。"
            ),
            "{text}"
        );
    }

    #[test]
    fn navigation_menus_and_headers_are_still_dropped() {
        let text = text_of(&manual_page(
            r#"大きさは変えても構いません。 <span class="guimenu">シート</span> メニューから選びます。"#,
        ));
        assert!(text.contains("シート メニュー"), "{text}");
        for boilerplate in [
            "ナビのホーム",
            "ナビの一覧",
            "前のページ",
            "前のフッター",
            "目次へ戻る",
        ] {
            assert!(!text.contains(boilerplate), "{boilerplate} kept: {text}");
        }
    }

    #[test]
    fn a_menu_label_that_is_all_a_list_item_holds_is_still_dropped() {
        // The shape of a site menu without a class on its container: only the label is marked.
        let mut page = manual_page("本文の段落です。");
        page = page.replace(
            "<nav class=\"menu\">",
            "<ul><li><span class=\"menu-label\">メニューの見出し</span></li></ul><nav class=\"menu\">",
        );
        let text = text_of(&page);
        assert!(!text.contains("メニューの見出し"), "{text}");
    }
}
