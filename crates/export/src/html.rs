//! Markdown to HTML for the desktop app's report view. Raw HTML in the Markdown is never passed
//! through (a report quotes fetched pages, and nothing from a page may run or load in the
//! webview); dangerous link schemes are dropped by comrak; citation markers `[n]` of known
//! sources become `#cite-n` links the UI attaches its popovers to.

use std::cell::RefCell;
use std::collections::BTreeSet;

use comrak::nodes::{Ast, AstNode, NodeLink, NodeValue};
use comrak::{format_html, parse_document, Arena, Options};

/// Renders `markdown` as safe HTML; `sources` are the citation numbers that exist.
pub fn html(markdown: &str, sources: &BTreeSet<u32>) -> String {
    let arena = Arena::new();
    let mut options = Options::default();
    options.extension.table = true;
    options.extension.autolink = true;
    options.extension.strikethrough = true;
    // Never pass raw HTML through, whatever the defaults become.
    options.render.r#unsafe = false;
    let root = parse_document(&arena, markdown, &options);
    link_citations(&arena, root, sources);
    let mut out = String::with_capacity(markdown.len() * 2);
    format_html(root, &options, &mut out).expect("writing to a String cannot fail");
    out
}

fn link_citations<'a>(arena: &'a Arena<'a>, root: &'a AstNode<'a>, sources: &BTreeSet<u32>) {
    // comrak splits "[1]" into several text nodes ("[", "1]"): merge adjacent texts first.
    let parents: Vec<&'a AstNode<'a>> = root
        .descendants()
        .filter(|n| {
            !matches!(
                n.data.borrow().value,
                NodeValue::Link(_) | NodeValue::Image(_) | NodeValue::CodeBlock(_)
            ) && n
                .children()
                .any(|c| matches!(c.data.borrow().value, NodeValue::Text(_)))
        })
        .collect();
    for parent in parents {
        if parent
            .ancestors()
            .any(|a| matches!(a.data.borrow().value, NodeValue::Link(_)))
        {
            continue;
        }
        let children: Vec<_> = parent.children().collect();
        let mut run: Vec<&'a AstNode<'a>> = Vec::new();
        let flush = |run: &mut Vec<&'a AstNode<'a>>| {
            if run.is_empty() {
                return;
            }
            let text: String = run
                .iter()
                .map(|n| match &n.data.borrow().value {
                    NodeValue::Text(t) => t.to_string(),
                    _ => String::new(),
                })
                .collect();
            let marks = crate::markdown::markers(&text, |n| sources.contains(&n));
            if marks.is_empty() {
                run.clear();
                return;
            }
            let anchor = run[0];
            let mut last = 0;
            let text_node = |s: &str| {
                arena.alloc(AstNode::new(RefCell::new(Ast::new(
                    NodeValue::Text(s.to_string().into()),
                    (1, 1).into(),
                ))))
            };
            for (start, end, n) in marks {
                if start > last {
                    anchor.insert_before(text_node(&text[last..start]));
                }
                let link = arena.alloc(AstNode::new(RefCell::new(Ast::new(
                    NodeValue::Link(Box::new(NodeLink {
                        url: format!("#cite-{n}"),
                        title: format!("Source {n}"),
                    })),
                    (1, 1).into(),
                ))));
                link.append(text_node(&text[start..end]));
                anchor.insert_before(link);
                last = end;
            }
            if last < text.len() {
                anchor.insert_before(text_node(&text[last..]));
            }
            for n in run.drain(..) {
                n.detach();
            }
        };
        for child in children {
            if matches!(child.data.borrow().value, NodeValue::Text(_)) {
                run.push(child);
            } else {
                flush(&mut run);
            }
        }
        flush(&mut run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeSet<u32> {
        [1, 2].into_iter().collect()
    }

    #[test]
    fn citations_become_links_and_unknown_numbers_stay_text() {
        let out = html("Bees dance [1][2]; see [7] and `[1]`.\n", &known());
        assert_eq!(
            out,
            "<p>Bees dance <a href=\"#cite-1\" title=\"Source 1\">[1]</a><a href=\"#cite-2\" title=\"Source 2\">[2]</a>; see [7] and <code>[1]</code>.</p>\n"
        );
    }

    #[test]
    fn raw_html_and_script_links_never_pass_through() {
        let md = "<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> [a](javascript:alert(1)) [1]\n\n<iframe src=\"https://example.com\"></iframe>\n";
        let out = html(md, &known());
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<iframe"), "{out}");
        assert!(!out.contains("javascript:"), "{out}");
        assert!(out.contains("href=\"#cite-1\""), "{out}");
    }

    #[test]
    fn links_keep_their_text_and_tables_render() {
        let md = "[The paper [1]](https://example.org/p)\n\n| a | b |\n|---|---|\n| x [2] | y |\n";
        let out = html(md, &known());
        assert!(
            out.contains("<a href=\"https://example.org/p\">The paper [1]</a>"),
            "{out}"
        );
        assert!(out.contains("<td>x <a href=\"#cite-2\""), "{out}");
    }
}
