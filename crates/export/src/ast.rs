//! The Markdown a report is stored in, read the same way by every form that lays it out (PDF,
//! Word, LaTeX): its dialect, and the two rules for walking its tree.

use comrak::nodes::{AstNode, NodeValue};
use comrak::Options;

/// The Markdown a report is stored in, as every form that lays it out reads it: GFM tables,
/// autolinks, strikethrough and footnotes.
pub(crate) fn dialect() -> Options<'static> {
    let mut options = Options::default();
    options.extension.table = true;
    options.extension.autolink = true;
    options.extension.strikethrough = true;
    options.extension.footnotes = true;
    options
}

/// A node's words: its text and code, breaks as spaces.
pub(crate) fn text_of<'a>(node: &'a AstNode<'a>) -> String {
    let mut out = String::new();
    for d in node.descendants() {
        match &d.data.borrow().value {
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::Code(c) => out.push_str(&c.literal),
            NodeValue::SoftBreak | NodeValue::LineBreak => out.push(' '),
            _ => {}
        }
    }
    out
}

/// A piece of a node's inline content.
pub(crate) enum Inline<'a> {
    /// A run of text, whole.
    Text(String),
    /// Anything else, with its value.
    Node(&'a AstNode<'a>, NodeValue),
}

/// A node's inline children with each run of text joined into one piece: comrak splits "[1]"
/// into several text nodes, and a citation marker is only found in the whole run.
pub(crate) fn inline_runs<'a>(node: &'a AstNode<'a>) -> Vec<Inline<'a>> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for child in node.children() {
        let value = child.data.borrow().value.clone();
        if let NodeValue::Text(t) = &value {
            pending.push_str(t);
            continue;
        }
        if !pending.is_empty() {
            out.push(Inline::Text(std::mem::take(&mut pending)));
        }
        out.push(Inline::Node(child, value));
    }
    if !pending.is_empty() {
        out.push(Inline::Text(pending));
    }
    out
}

/// Where a report's link leads, as a reader of an exported file can follow it.
pub(crate) enum Target<'u> {
    /// A web address or mail link: a real link.
    Web(&'u str),
    /// A file on the machine that wrote the report (`file://` or an absolute path): shown as its
    /// path, not a link a reader's machine cannot follow.
    File(&'u str),
    /// Anything else (an anchor inside the document): its text alone.
    Other,
}

/// Where the link to `url` leads.
pub(crate) fn target(url: &str) -> Target<'_> {
    let url = url.trim();
    if url.starts_with("http://") || url.starts_with("https://") || url.starts_with("mailto:") {
        Target::Web(url)
    } else if let Some(path) = url
        .strip_prefix("file://")
        .or_else(|| url.starts_with('/').then_some(url))
    {
        Target::File(path)
    } else {
        Target::Other
    }
}
