//! The report as a Word document (Office Open XML, `.docx`): the Markdown as stored (parsed by
//! comrak, as the PDF's is) in Word's own built-in styles — Title, Heading 1–3, List Bullet and
//! List Number, Quote, a table grid — so a person restyles it with their template and Word's
//! navigation pane shows its sections. Citations stay `[n]` as in every other form, and the
//! sources are the report's own list; links are real hyperlinks. Everything is XML-escaped;
//! raw HTML is kept as text, never interpreted.

use std::io::Write;

use comrak::nodes::{AstNode, ListType, NodeValue};
use comrak::{parse_document, Arena};

use crate::{date, ExportError, Report};

/// Escapes text for XML character data and attribute values.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 does not allow at all (control characters but tab and newlines).
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            '\u{FFFE}' | '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[derive(Clone, Copy, Default)]
struct Format {
    bold: bool,
    italic: bool,
    strike: bool,
    code: bool,
}

struct Body {
    out: String,
    /// Hyperlink targets, in order: relationship `rIdLinkN` is the N-th (from 1).
    links: Vec<String>,
    /// Inside the sources list: its entries are Word's Bibliography paragraphs, with the
    /// hanging indent a reference list is set with.
    in_sources: bool,
}

impl Body {
    fn run(&mut self, text: &str, f: Format) {
        if text.is_empty() {
            return;
        }
        self.out.push_str("<w:r>");
        if f.bold || f.italic || f.strike || f.code {
            self.out.push_str("<w:rPr>");
            if f.code {
                self.out.push_str(
                    r#"<w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Consolas"/>"#,
                );
            }
            if f.bold {
                self.out.push_str("<w:b/>");
            }
            if f.italic {
                self.out.push_str("<w:i/>");
            }
            if f.strike {
                self.out.push_str("<w:strike/>");
            }
            self.out.push_str("</w:rPr>");
        }
        self.out.push_str(&format!(
            r#"<w:t xml:space="preserve">{}</w:t></w:r>"#,
            xml(text)
        ));
    }

    fn inlines<'a>(&mut self, node: &'a AstNode<'a>, f: Format) {
        for child in node.children() {
            let value = child.data.borrow().value.clone();
            match value {
                NodeValue::Text(t) => self.run(&t, f),
                NodeValue::SoftBreak => self.run(" ", f),
                NodeValue::LineBreak => self.out.push_str("<w:r><w:br/></w:r>"),
                NodeValue::Code(c) => self.run(&c.literal, Format { code: true, ..f }),
                NodeValue::Emph => self.inlines(child, Format { italic: true, ..f }),
                NodeValue::Strong => self.inlines(child, Format { bold: true, ..f }),
                NodeValue::Strikethrough => self.inlines(child, Format { strike: true, ..f }),
                NodeValue::Link(link) => {
                    // Only links a reader can follow outside the document become hyperlinks; an
                    // in-document anchor (`#source-1`) stays text.
                    let url = link.url.trim();
                    if url.starts_with("http://")
                        || url.starts_with("https://")
                        || url.starts_with("file://")
                    {
                        self.links.push(url.to_string());
                        self.out.push_str(&format!(
                            r#"<w:hyperlink r:id="rIdLink{}" w:history="1">"#,
                            self.links.len()
                        ));
                        let before = self.out.len();
                        self.inlines(child, f);
                        // Hyperlink runs in the Hyperlink character style.
                        let runs = self.out.split_off(before);
                        self.out.push_str(&runs.replace(
                            "<w:r>",
                            r#"<w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr>"#,
                        ));
                        self.out.push_str("</w:hyperlink>");
                    } else {
                        self.inlines(child, f);
                    }
                }
                NodeValue::HtmlInline(html) => self.run(&html, f),
                NodeValue::FootnoteReference(r) => self.run(&format!("[^{}]", r.name), f),
                _ => self.inlines(child, f),
            }
        }
    }

    fn paragraph<'a>(&mut self, node: &'a AstNode<'a>, style: Option<&str>, prefix: &str) {
        self.out.push_str("<w:p>");
        if let Some(style) = style {
            self.out
                .push_str(&format!(r#"<w:pPr><w:pStyle w:val="{style}"/></w:pPr>"#));
        }
        self.run(prefix, Format::default());
        self.inlines(node, Format::default());
        self.out.push_str("</w:p>");
    }

    fn text_paragraph(&mut self, text: &str, style: &str, f: Format) {
        self.out.push_str(&format!(
            r#"<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr>"#
        ));
        self.run(text, f);
        self.out.push_str("</w:p>");
    }

    fn block<'a>(&mut self, node: &'a AstNode<'a>, quote: bool) {
        let value = node.data.borrow().value.clone();
        let body = if quote { Some("Quote") } else { None };
        match value {
            NodeValue::Heading(h) => {
                if h.level <= 2 {
                    let words: String = node
                        .descendants()
                        .filter_map(|d| match &d.data.borrow().value {
                            NodeValue::Text(t) => Some(t.to_string()),
                            _ => None,
                        })
                        .collect();
                    self.in_sources = crate::is_sources_heading(&words);
                }
                let style = format!("Heading{}", h.level.clamp(1, 3));
                self.paragraph(node, Some(&style), "");
            }
            NodeValue::Paragraph if self.in_sources && !quote => {
                self.paragraph(node, Some("Bibliography"), "")
            }
            NodeValue::Paragraph => self.paragraph(node, body, ""),
            NodeValue::List(list) => {
                for (n, item) in (list.start..).zip(node.children()) {
                    let (style, prefix) = match list.list_type {
                        ListType::Bullet => ("ListBullet", "• ".to_string()),
                        ListType::Ordered => ("ListNumber", format!("{n}. ")),
                    };
                    let mut first = true;
                    for child in item.children() {
                        let is_para = matches!(child.data.borrow().value, NodeValue::Paragraph);
                        if is_para {
                            self.paragraph(child, Some(style), if first { &prefix } else { "" });
                        } else {
                            self.block(child, quote);
                        }
                        first = false;
                    }
                }
            }
            NodeValue::BlockQuote => {
                for child in node.children() {
                    self.block(child, true);
                }
            }
            NodeValue::CodeBlock(code) => {
                for line in code.literal.trim_end_matches('\n').lines() {
                    self.text_paragraph(line, "Code", Format::default());
                }
            }
            NodeValue::ThematicBreak => {
                self.out.push_str(r#"<w:p><w:pPr><w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="999999"/></w:pBdr></w:pPr></w:p>"#);
            }
            NodeValue::Table(_) => self.table(node),
            NodeValue::HtmlBlock(html) => {
                for line in html.literal.lines() {
                    self.text_paragraph(line, "Code", Format::default());
                }
            }
            NodeValue::FootnoteDefinition(def) => {
                self.text_paragraph(
                    &format!("[^{}]", def.name),
                    "FootnoteText",
                    Format::default(),
                );
                for child in node.children() {
                    self.block(child, quote);
                }
            }
            _ => {
                for child in node.children() {
                    self.block(child, quote);
                }
            }
        }
    }

    fn table<'a>(&mut self, node: &'a AstNode<'a>) {
        self.out.push_str(r#"<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>"#);
        for row in node.children() {
            let header = matches!(row.data.borrow().value, NodeValue::TableRow(true));
            self.out.push_str("<w:tr>");
            if header {
                self.out.push_str("<w:trPr><w:tblHeader/></w:trPr>");
            }
            for cell in row.children() {
                self.out.push_str("<w:tc><w:p>");
                self.inlines(
                    cell,
                    Format {
                        bold: header,
                        ..Format::default()
                    },
                );
                self.out.push_str("</w:p></w:tc>");
            }
            self.out.push_str("</w:tr>");
        }
        self.out.push_str("</w:tbl>");
    }
}

const NS: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>"#;

const PACKAGE_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>"#;

/// Word's built-in styles by their ids, so a template's styles take their place.
fn styles() -> String {
    let para = |id: &str, name: &str, props: &str, run: &str| {
        format!(
            r#"<w:style w:type="paragraph" w:styleId="{id}"><w:name w:val="{name}"/><w:basedOn w:val="Normal"/><w:qFormat/><w:pPr>{props}</w:pPr><w:rPr>{run}</w:rPr></w:style>"#
        )
    };
    let heading = |level: u32, size: u32| {
        para(
            &format!("Heading{level}"),
            &format!("heading {level}"),
            &format!(
                r#"<w:keepNext/><w:spacing w:before="240" w:after="80"/><w:outlineLvl w:val="{}"/>"#,
                level - 1
            ),
            &format!(r#"<w:b/><w:sz w:val="{size}"/>"#),
        )
    };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles {NS}><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Noto Sans CJK JP" w:cs="Calibri"/><w:sz w:val="22"/><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="276" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>{title}{h1}{h2}{h3}{bullet}{number}{quote}{code}{note}{bibliography}<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="1155CC"/><w:u w:val="single"/></w:rPr></w:style><w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:color="999999"/><w:left w:val="single" w:sz="4" w:color="999999"/><w:bottom w:val="single" w:sz="4" w:color="999999"/><w:right w:val="single" w:sz="4" w:color="999999"/><w:insideH w:val="single" w:sz="4" w:color="999999"/><w:insideV w:val="single" w:sz="4" w:color="999999"/></w:tblBorders></w:tblPr></w:style></w:styles>"#,
        title = para(
            "Title",
            "Title",
            r#"<w:spacing w:after="60"/>"#,
            r#"<w:b/><w:sz w:val="40"/>"#
        ),
        h1 = heading(1, 32),
        h2 = heading(2, 28),
        h3 = heading(3, 24),
        bullet = para(
            "ListBullet",
            "List Bullet",
            r#"<w:ind w:left="360" w:hanging="360"/>"#,
            ""
        ),
        number = para(
            "ListNumber",
            "List Number",
            r#"<w:ind w:left="360" w:hanging="360"/>"#,
            ""
        ),
        quote = para(
            "Quote",
            "Quote",
            r#"<w:ind w:left="567" w:right="567"/>"#,
            "<w:i/>"
        ),
        code = para(
            "Code",
            "Code",
            r#"<w:spacing w:after="0"/>"#,
            r#"<w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Consolas"/><w:sz w:val="19"/>"#
        ),
        note = para("Subtitle", "Subtitle", "", r#"<w:color w:val="666666"/>"#),
        bibliography = para(
            "Bibliography",
            "Bibliography",
            r#"<w:ind w:left="567" w:hanging="567"/>"#,
            ""
        ),
    )
}

/// The report as a `.docx` file's bytes.
pub fn docx(report: &Report) -> Result<Vec<u8>, ExportError> {
    let arena = Arena::new();
    let root = parse_document(&arena, &report.markdown, &crate::ast::dialect());
    let mut body = Body {
        out: String::with_capacity(report.markdown.len() * 3),
        links: Vec::new(),
        in_sources: false,
    };
    // The report's own first heading is its title; without one the question is.
    let mut children = root.children().peekable();
    let titled = children.peek().is_some_and(
        |c| matches!(c.data.borrow().value, NodeValue::Heading(ref h) if h.level == 1),
    );
    if titled {
        if let Some(first) = children.next() {
            body.paragraph(first, Some("Title"), "");
        }
    } else {
        body.text_paragraph(report.question.trim(), "Title", Format::default());
    }
    body.text_paragraph(
        &format!("Written {}", date(report.created_at_ms)),
        "Subtitle",
        Format::default(),
    );
    for child in children {
        body.block(child, false);
    }
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document {NS}><w:body>{}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1304" w:bottom="1440" w:left="1304" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>"#,
        body.out
    );
    let rels: String = body
        .links
        .iter()
        .enumerate()
        .map(|(i, url)| {
            format!(
                r#"<Relationship Id="rIdLink{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="{}" TargetMode="External"/>"#,
                i + 1,
                xml(url)
            )
        })
        .collect();
    let document_rels = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>{rels}</Relationships>"#
    );
    let created = format!("{}T00:00:00Z", date(report.created_at_ms));
    let core = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>{}</dc:title><dc:creator>Research Studio</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">{created}</dcterms:created></cp:coreProperties>"#,
        xml(report.question.trim())
    );
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let fail = |e: &dyn std::fmt::Display| ExportError::Docx(e.to_string());
    for (name, text) in [
        ("[Content_Types].xml", CONTENT_TYPES.to_string()),
        ("_rels/.rels", PACKAGE_RELS.to_string()),
        ("word/document.xml", document),
        ("word/styles.xml", styles()),
        ("word/_rels/document.xml.rels", document_rels),
        ("docProps/core.xml", core),
    ] {
        zip.start_file(name, options).map_err(|e| fail(&e))?;
        zip.write_all(text.as_bytes()).map_err(|e| fail(&e))?;
    }
    Ok(zip.finish().map_err(|e| fail(&e))?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn report(markdown: &str) -> Report {
        Report {
            question: "How do honeybees communicate?".into(),
            markdown: markdown.into(),
            sources: Vec::new(),
            created_at_ms: 1_764_000_000_000,
            models: Vec::new(),
        }
    }

    fn part(bytes: &[u8], name: &str) -> String {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut text = String::new();
        zip.by_name(name)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    #[test]
    fn headings_lists_tables_links_and_markup_become_words_own() {
        let md = "# Honeybees\n\n## Summary\n\nForagers *dance* [1] & <script>x</script> run **on**.\n\n\
                  - first\n- second\n\n1. one\n2. two\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
                  ## Sources\n\n1. [Bees](https://example.org/bees?a=1&b=2)\n";
        let bytes = docx(&report(md)).unwrap();
        let doc = part(&bytes, "word/document.xml");
        assert!(doc.contains(r#"<w:pStyle w:val="Title"/>"#), "{doc}");
        assert!(doc.contains(r#"<w:pStyle w:val="Heading2"/>"#));
        assert!(doc.contains(r#"<w:pStyle w:val="ListBullet"/>"#));
        assert!(doc.contains("2. </w:t>"));
        assert!(doc.contains(r#"<w:pStyle w:val="Quote"/>"#));
        // The sources list is set as a bibliography (a hanging indent).
        let styled = docx(&report(
            "## Summary\n\nA [1].\n\n## Sources\n\nHipp, D. R. (2022). *WAL*.\n",
        ))
        .unwrap();
        let styled_doc = part(&styled, "word/document.xml");
        let (before, after) = styled_doc.split_once(">Sources<").expect("the heading");
        assert!(!before.contains(r#"w:val="Bibliography""#), "{styled_doc}");
        assert!(after.contains(r#"w:val="Bibliography""#), "{styled_doc}");
        assert!(part(&styled, "word/styles.xml").contains(r#"w:styleId="Bibliography""#));
        assert!(doc.contains("<w:tbl>") && doc.contains("<w:tblHeader/>"));
        assert!(
            doc.contains("[1] &amp; "),
            "the citation stays, & is escaped: {doc}"
        );
        assert!(doc.contains("&lt;script&gt;"), "raw HTML is text");
        assert!(doc.contains("<w:i/>") && doc.contains("<w:b/>"));
        let rels = part(&bytes, "word/_rels/document.xml.rels");
        assert!(
            rels.contains(r#"Target="https://example.org/bees?a=1&amp;b=2""#),
            "{rels}"
        );
        assert!(doc.contains(r#"<w:hyperlink r:id="rIdLink1""#));
        assert!(part(&bytes, "docProps/core.xml").contains("How do honeybees communicate?"));
        assert!(part(&bytes, "[Content_Types].xml").contains("wordprocessingml.document.main"));
    }

    #[test]
    fn characters_xml_cannot_hold_are_left_out() {
        let bytes = docx(&report("A\u{1}B \u{FFFF}C")).unwrap();
        let doc = part(&bytes, "word/document.xml");
        assert!(doc.contains("AB C"), "{doc}");
    }
}
