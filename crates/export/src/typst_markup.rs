//! Markdown (parsed by comrak, GFM) to Typst markup. Every piece of text is escaped, URLs and
//! code go into string literals, and raw HTML is printed as text, never interpreted. Citations
//! `[n]` of listed sources become links to the source's entry, which carries a label.

use std::collections::BTreeSet;

use comrak::nodes::{AstNode, ListType, NodeValue, TableAlignment};
use comrak::{parse_document, Arena};

use crate::ast::{dialect, inline_runs, target, text_of, Inline, Target};

/// Escapes text for Typst markup.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '#'
                | '*'
                | '_'
                | '`'
                | '$'
                | '<'
                | '>'
                | '@'
                | '['
                | ']'
                | '~'
                | '='
                | '-'
                | '+'
                | '/'
                | '\''
                | '"'
                | '.'
                | ':'
                | '('
                | ')'
                | ';'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A Typst string literal.
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Writer<'a> {
    out: String,
    sources: &'a BTreeSet<u32>,
    in_sources: bool,
}

/// Converts `markdown` to Typst markup; `sources` are the citation numbers that exist.
pub(crate) fn convert(markdown: &str, sources: &BTreeSet<u32>) -> String {
    let arena = Arena::new();
    let root = parse_document(&arena, markdown, &dialect());
    let mut w = Writer {
        out: String::with_capacity(markdown.len() * 2),
        sources,
        in_sources: false,
    };
    for child in root.children() {
        w.block(child, 0);
    }
    w.out
}

impl Writer<'_> {
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn block<'a>(&mut self, node: &'a AstNode<'a>, depth: usize) {
        let value = node.data.borrow().value.clone();
        match value {
            NodeValue::Heading(h) => {
                let title = text_of(node);
                if h.level <= 2 {
                    self.in_sources = crate::is_sources_heading(&title);
                }
                self.indent(depth);
                self.out.push_str(&"=".repeat(h.level as usize));
                self.out.push(' ');
                self.inlines(node);
                self.out.push_str("\n\n");
            }
            NodeValue::Paragraph => {
                self.indent(depth);
                if self.in_sources {
                    self.source_entry(node);
                } else {
                    self.inlines(node);
                }
                self.out.push_str("\n\n");
            }
            NodeValue::List(list) => {
                let mut n = list.start;
                for item in node.children() {
                    self.indent(depth);
                    match list.list_type {
                        ListType::Bullet => self.out.push_str("- "),
                        ListType::Ordered => {
                            self.out.push_str(&format!("{n}. "));
                            n += 1;
                        }
                    }
                    let mut first = true;
                    for child in item.children() {
                        let is_para = matches!(child.data.borrow().value, NodeValue::Paragraph);
                        if first && is_para {
                            self.inlines(child);
                            self.out.push('\n');
                        } else {
                            if first {
                                self.out.push('\n');
                            }
                            self.block(child, depth + 1);
                        }
                        first = false;
                    }
                    if first {
                        self.out.push('\n');
                    }
                }
                self.out.push('\n');
            }
            NodeValue::BlockQuote => {
                self.indent(depth);
                self.out.push_str("#quote(block: true)[\n");
                for child in node.children() {
                    self.block(child, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("]\n\n");
            }
            NodeValue::CodeBlock(code) => {
                let lang = code.info.split_whitespace().next().unwrap_or_default();
                self.indent(depth);
                if lang.chars().all(|c| c.is_ascii_alphanumeric()) && !lang.is_empty() {
                    self.out.push_str(&format!(
                        "#raw(block: true, lang: {}, {})\n\n",
                        string(lang),
                        string(&code.literal)
                    ));
                } else {
                    self.out
                        .push_str(&format!("#raw(block: true, {})\n\n", string(&code.literal)));
                }
            }
            NodeValue::ThematicBreak => {
                self.indent(depth);
                self.out.push_str("#line(length: 100%)\n\n");
            }
            NodeValue::Table(table) => self.table(node, &table.alignments, depth),
            NodeValue::HtmlBlock(html) => {
                // Raw HTML is shown as the text it is, never interpreted.
                self.indent(depth);
                self.out
                    .push_str(&format!("#raw(block: true, {})\n\n", string(&html.literal)));
            }
            NodeValue::FootnoteDefinition(def) => {
                self.indent(depth);
                self.out
                    .push_str(&format!("#super[{}] ", escape(&def.name)));
                for child in node.children() {
                    if matches!(child.data.borrow().value, NodeValue::Paragraph) {
                        self.inlines(child);
                    }
                }
                self.out.push_str("\n\n");
            }
            _ => {
                for child in node.children() {
                    self.block(child, depth);
                }
            }
        }
    }

    fn table<'a>(&mut self, node: &'a AstNode<'a>, alignments: &[TableAlignment], depth: usize) {
        let columns = alignments.len().max(1);
        let align: Vec<&str> = alignments
            .iter()
            .map(|a| match a {
                TableAlignment::Right => "right",
                TableAlignment::Center => "center",
                _ => "left",
            })
            .collect();
        self.indent(depth);
        self.out.push_str(&format!(
            "#table(columns: {columns}, align: ({},), stroke: 0.5pt + gray,\n",
            align.join(", ")
        ));
        for row in node.children() {
            let header = matches!(row.data.borrow().value, NodeValue::TableRow(true));
            if header {
                self.out.push_str("  table.header(");
            }
            for cell in row.children() {
                self.out.push_str(if header { "[#strong[" } else { "  [" });
                self.inlines(cell);
                self.out.push_str(if header { "]], " } else { "],\n" });
            }
            if header {
                self.out.push_str("),\n");
            }
        }
        self.out.push_str(")\n\n");
    }

    /// A sources-list paragraph `[n] Title — <url> (accessed …)`: labelled so citations can
    /// link to it.
    fn source_entry<'a>(&mut self, node: &'a AstNode<'a>) {
        let text = text_of(node);
        let n = text
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(n, _)| n.parse::<u32>().ok());
        if let Some(n) = n.filter(|n| self.sources.contains(n)) {
            self.out.push_str(&format!("#metadata(none) <src-{n}>"));
        }
        self.inlines(node);
    }

    fn inlines<'a>(&mut self, node: &'a AstNode<'a>) {
        for piece in inline_runs(node) {
            match piece {
                Inline::Text(text) => self.text(&text),
                Inline::Node(child, value) => self.inline(child, value),
            }
        }
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut last = 0;
        for (start, end, n) in crate::markdown::markers(text, |n| self.sources.contains(&n)) {
            self.out.push_str(&escape(&text[last..start]));
            if self.in_sources {
                self.out.push_str(&escape(&text[start..end]));
            } else {
                self.out
                    .push_str(&format!("#link(<src-{n}>)[#super[\\[{n}\\]]]"));
            }
            last = end;
        }
        self.out.push_str(&escape(&text[last..]));
    }

    fn inline<'a>(&mut self, node: &'a AstNode<'a>, value: NodeValue) {
        match value {
            NodeValue::Emph => {
                self.out.push_str("#emph[");
                self.inlines(node);
                self.out.push(']');
            }
            NodeValue::Strong => {
                self.out.push_str("#strong[");
                self.inlines(node);
                self.out.push(']');
            }
            NodeValue::Strikethrough => {
                self.out.push_str("#strike[");
                self.inlines(node);
                self.out.push(']');
            }
            NodeValue::Code(code) => {
                self.out
                    .push_str(&format!("#raw({})", string(&code.literal)));
            }
            NodeValue::Link(link) => match target(&link.url) {
                Target::Web(url) => {
                    self.out.push_str(&format!("#link({})[", string(url)));
                    self.inlines(node);
                    self.out.push(']');
                }
                Target::File(path) => {
                    let label = text_of(node);
                    if label.trim().is_empty() || label.trim() == link.url.trim() {
                        self.out.push_str(&escape(path));
                    } else {
                        self.inlines(node);
                    }
                }
                Target::Other => self.inlines(node),
            },
            NodeValue::Image(image) => {
                // Images are not fetched: their description and address stand in.
                self.out
                    .push_str(&escape(&format!("[image: {}] ", text_of(node))));
                self.out.push_str(&escape(&image.url));
            }
            NodeValue::SoftBreak => self.out.push(' '),
            NodeValue::LineBreak => self.out.push_str(" \\\n"),
            NodeValue::HtmlInline(html) => self.out.push_str(&escape(&html)),
            NodeValue::FootnoteReference(r) => {
                self.out.push_str(&format!("#super[{}]", escape(&r.name)));
            }
            NodeValue::Text(t) => self.text(&t),
            _ => self.inlines(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_citations_link_to_listed_sources() {
        let ids = BTreeSet::from([1]);
        let typ = convert(
            "## Summary\nCost is $5 #tag *bold* [1] and [7].\n\n## Sources\n\n[1] Title — <https://a.org/x> (accessed 2026-11-18)\n",
            &ids,
        );
        assert!(
            typ.contains(
                "Cost is \\$5 \\#tag #emph[bold] #link(<src-1>)[#super[\\[1\\]]] and \\[7\\]\\."
            ),
            "{typ}"
        );
        assert!(
            typ.contains("#metadata(none) <src-1>\\[1\\] Title"),
            "{typ}"
        );
        assert!(typ.contains("#link(\"https://a.org/x\")"), "{typ}");
    }

    #[test]
    fn raw_html_is_text_and_tables_keep_alignment() {
        let typ = convert(
            "<script>alert(1)</script>\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n",
            &BTreeSet::new(),
        );
        assert!(
            typ.contains("#raw(block: true, \"<script>alert(1)</script>"),
            "{typ}"
        );
        assert!(
            typ.contains("#table(columns: 2, align: (left, right,)"),
            "{typ}"
        );
        assert!(
            typ.contains("table.header([#strong[a]], [#strong[b]], )"),
            "{typ}"
        );
    }
}
