//! The report as LaTeX: a `.tex` whose citations are natbib's `\citep` of keys in a `.bib`
//! written beside it, so a person pastes the text into a paper, keeps the references in their
//! own bibliography and lets their journal's BibTeX style format them.
//!
//! The two files compile with the TeX Live Debian packages (`texlive-latex-base`,
//! `texlive-latex-recommended`, `lmodern`): pdfLaTeX by default, LuaLaTeX as well (a report in
//! Japanese or Chinese needs LuaLaTeX with `luatexja`, which its first lines say). The `.bib`
//! is classic BibTeX (`@misc`, `year`), which every `.bst` reads; the citation style chooses
//! natbib's mode: numbered styles number in order of citation (`unsrtnat`), author–date styles
//! cite "(Hipp, 2024)" (`plainnat`). The Markdown (parsed by comrak, as every other form reads
//! it) is escaped everywhere; raw HTML is printed as text, never interpreted.

use std::collections::BTreeSet;

use comrak::nodes::{AstNode, ListType, NodeValue};
use comrak::{parse_document, Arena};

use crate::ast::{dialect, inline_runs, target, text_of, Inline, Target};
use crate::bib::{entries, Dialect};
use crate::{date, CitationStyle, Paper, Report};

/// A report as LaTeX: the document and the bibliography it cites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Latex {
    /// The `.tex` document.
    pub tex: String,
    /// The `.bib` its `\bibliography` names.
    pub bib: String,
}

/// The report as LaTeX in `style` (numbered or author–date citations) on `paper`; `bib` is the
/// name of the `.bib` file (without its extension) the document's `\bibliography` reads, so it
/// must be written beside the `.tex` under that name.
pub fn latex(report: &Report, style: CitationStyle, paper: Paper, bib: &str) -> Latex {
    let ids: BTreeSet<u32> = report.sources.iter().map(|s| s.id).collect();
    let arena = Arena::new();
    let root = parse_document(&arena, &report.markdown, &dialect());
    let bst = if style.author_date {
        "plainnat"
    } else {
        "unsrtnat"
    };
    let mut w = Writer {
        out: String::with_capacity(report.markdown.len() * 2),
        sources: &ids,
        in_sources: false,
        bibliography: format!(
            "\\nocite{{*}}\n\\bibliographystyle{{{bst}}}\n\\bibliography{{{}}}\n\n",
            escape_name(bib)
        ),
        placed: false,
        list_depth: 0,
    };
    // The report's own first heading is its title, as in every other form.
    let mut children = root.children().peekable();
    if children
        .peek()
        .is_some_and(|c| matches!(c.data.borrow().value, NodeValue::Heading(ref h) if h.level == 1))
    {
        children.next();
    }
    for child in children {
        w.block(child);
    }
    if !w.placed && !ids.is_empty() {
        w.out.push_str(&w.bibliography);
    }
    let body = w.out;
    let cjk = report.markdown.chars().any(is_cjk) || report.question.chars().any(is_cjk);
    let stem = bib;
    let mut tex = String::with_capacity(body.len() + 2048);
    tex.push_str(&format!(
        "%% {}\n%% A report written by Research Studio on {}; its sources are in {stem}.bib.\n",
        report.question.replace(['\n', '\r'], " "),
        date(report.created_at_ms)
    ));
    let paper = match paper {
        Paper::A4 => "a4paper",
        Paper::Letter => "letterpaper",
    };
    if cjk {
        tex.push_str(&format!(
            "%% Japanese or Chinese text: compile with LuaLaTeX and luatexja (Debian: texlive-lang-japanese):\n\
             %%   lualatex {stem} && bibtex {stem} && lualatex {stem} && lualatex {stem}\n\
             \\documentclass[{paper}]{{ltjsarticle}}\n"
        ));
    } else {
        tex.push_str(&format!(
            "%% Compile: pdflatex {stem} && bibtex {stem} && pdflatex {stem} && pdflatex {stem}\n\
             %% (or latexmk -pdf {stem}); LuaLaTeX works as well.\n\
             \\documentclass[11pt,{paper}]{{article}}\n"
        ));
    }
    let natbib = if style.author_date {
        "round"
    } else {
        "numbers,square,sort&compress"
    };
    tex.push_str(&format!(
        "\\usepackage{{iftex}}\n\
         \\ifPDFTeX\n\
         \x20 \\usepackage[utf8]{{inputenc}}\n\
         \x20 \\usepackage[T1]{{fontenc}}\n\
         \x20 \\usepackage{{lmodern}}\n\
         \x20 % A character pdfLaTeX has no glyph for is shown by its code point.\n\
         \x20 \\newcommand{{\\rsunicode}}[2]{{[#2]}}\n\
         \\else\n\
         \x20 \\usepackage{{fontspec}}\n\
         \x20 % Letters Latin Modern lacks (Greek, Cyrillic, symbols) from DejaVu where it is installed.\n\
         \x20 \\ifLuaTeX\\IfFontExistsTF{{DejaVu Serif}}{{%\n\
         \x20   \\directlua{{luaotfload.add_fallback(\"rsfallback\", {{\"DejaVu Serif:mode=node;\", \"DejaVu Sans:mode=node;\"}})}}%\n\
         \x20   \\setmainfont{{Latin Modern Roman}}[RawFeature={{fallback=rsfallback}}]}}{{}}\\fi\n\
         \x20 \\newcommand{{\\rsunicode}}[2]{{#1}}\n\
         \\fi\n\
         \\usepackage{{amssymb}}\n\
         \\usepackage{{longtable}}\n\
         \\usepackage{{array}}\n\
         \\usepackage[{natbib}]{{natbib}}\n\
         \\usepackage{{url}}\n\
         \\usepackage[hidelinks]{{hyperref}}\n\
         \\newcommand{{\\rswarning}}{{\\textbf{{(!)}}}}\n\
         \\title{{{}}}\n\
         \\author{{}}\n\
         \\date{{{}}}\n\n\
         \\begin{{document}}\n\
         \\maketitle\n\n",
        escape(&report.question),
        date(report.created_at_ms)
    ));
    tex.push_str(&body);
    tex.push_str("\\end{document}\n");
    Latex {
        tex,
        bib: entries(report, Dialect::Classic),
    }
}

/// Whether a character is Chinese, Japanese or Korean script (or their punctuation), which
/// only LuaLaTeX with luatexja sets.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF
        | 0xAC00..=0xD7AF)
}

/// Whether pdfLaTeX's UTF-8 input with T1 fonts (and textcomp, in the kernel) sets `c`.
fn pdftex_sets(c: char) -> bool {
    // Latin-1 and Latin Extended-A but the eight letters T1 has no glyph for (Ħ ħ ĸ Ŀ ŀ ŉ Ŧ ŧ),
    // found by compiling each.
    (matches!(c as u32, 0x20..=0x7E | 0xA0..=0x17E)
        && !matches!(
            c as u32,
            0x126 | 0x127 | 0x138 | 0x13F | 0x140 | 0x149 | 0x166 | 0x167
        ))
        || matches!(
            c,
            '\u{2018}'
                | '\u{2019}'
                | '\u{201A}'
                | '\u{201C}'
                | '\u{201D}'
                | '\u{201E}'
                | '\u{2013}'
                | '\u{2014}'
                | '\u{2026}'
                | '\u{2022}'
                | '\u{2020}'
                | '\u{2021}'
                | '\u{2030}'
                | '\u{2039}'
                | '\u{203A}'
                | '\u{20AC}'
                | '\u{2122}'
        )
}

/// Escapes text for LaTeX: its special characters written as commands, the check marks a
/// report carries drawn, and a character pdfLaTeX cannot set kept for LuaLaTeX.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            // A straight quote, as typed (T1 would set a closing curly one).
            '"' => out.push_str("\\textquotedbl{}"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\u{2713}' | '\u{2714}' => out.push_str("\\checkmark{}"),
            '\u{2717}' | '\u{2718}' => out.push_str("$\\times$"),
            '\u{26A0}' => out.push_str("\\rswarning{}"),
            '\u{FE0F}' => {}
            c if c.is_control() => {}
            c if pdftex_sets(c) || is_cjk(c) => out.push(c),
            c => out.push_str(&format!("\\rsunicode{{{c}}}{{U+{:04X}}}", c as u32)),
        }
    }
    out
}

/// A URL for `\url` and `\href`: the characters that would end or break the argument
/// percent-encoded, `%` and `#` escaped as hyperref reads them.
fn url(u: &str) -> String {
    let mut out = String::with_capacity(u.len());
    for c in u.chars() {
        match c {
            '\\' => out.push_str("%5C"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            '%' => out.push_str("\\%"),
            '#' => out.push_str("\\#"),
            c if c.is_whitespace() || c.is_control() => out.push_str("%20"),
            c => out.push(c),
        }
    }
    out
}

/// The `.bib` file's name as `\bibliography` takes it: no spaces or braces.
fn escape_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

struct Writer<'a> {
    out: String,
    sources: &'a BTreeSet<u32>,
    in_sources: bool,
    /// The bibliography's commands, set where the report's own sources list was.
    bibliography: String,
    /// Whether they are set already.
    placed: bool,
    list_depth: usize,
}

impl Writer<'_> {
    fn block<'a>(&mut self, node: &'a AstNode<'a>) {
        let value = node.data.borrow().value.clone();
        if self.in_sources && !matches!(value, NodeValue::Heading(_)) {
            // The report's list of sources is the bibliography BibTeX writes from the .bib.
            return;
        }
        match value {
            NodeValue::Heading(h) => {
                let title = text_of(node);
                if h.level <= 2 {
                    self.in_sources = crate::is_sources_heading(&title);
                }
                if self.in_sources && !self.placed && !self.sources.is_empty() {
                    // The bibliography is set under the report's own heading for it.
                    self.out.push_str(&format!(
                        "\\renewcommand{{\\refname}}{{{}}}\n",
                        escape(title.trim())
                    ));
                    self.placed = true;
                    self.out.push_str(&self.bibliography);
                    return;
                }
                let command = match h.level {
                    1 | 2 => "section",
                    3 => "subsection",
                    _ => "subsubsection",
                };
                self.out.push_str(&format!("\\{command}*{{"));
                self.inlines(node);
                self.out.push_str("}\n\n");
            }
            NodeValue::Paragraph => {
                self.inlines(node);
                self.out.push_str("\n\n");
            }
            NodeValue::List(list) => {
                // LaTeX nests lists four deep; deeper items are set as indented paragraphs.
                let deep = self.list_depth >= 4;
                let env = match list.list_type {
                    ListType::Bullet => "itemize",
                    ListType::Ordered => "enumerate",
                };
                if !deep {
                    self.out.push_str(&format!("\\begin{{{env}}}\n"));
                    if list.list_type == ListType::Ordered && list.start > 1 {
                        let counter = ["enumi", "enumii", "enumiii", "enumiv"][self.list_depth];
                        self.out.push_str(&format!(
                            "\\setcounter{{{counter}}}{{{}}}\n",
                            list.start - 1
                        ));
                    }
                }
                self.list_depth += 1;
                for item in node.children() {
                    self.out
                        .push_str(if deep { "\\par\\quad--- " } else { "\\item " });
                    for child in item.children() {
                        self.block(child);
                    }
                }
                self.list_depth -= 1;
                if !deep {
                    self.out.push_str(&format!("\\end{{{env}}}\n\n"));
                }
            }
            NodeValue::BlockQuote => {
                self.out.push_str("\\begin{quote}\n");
                for child in node.children() {
                    self.block(child);
                }
                self.out.push_str("\\end{quote}\n\n");
            }
            NodeValue::CodeBlock(code) => self.verbatim(&code.literal),
            NodeValue::HtmlBlock(html) => self.verbatim(&html.literal),
            NodeValue::ThematicBreak => {
                self.out
                    .push_str("\\par\\noindent\\rule{\\linewidth}{0.4pt}\\par\n\n");
            }
            NodeValue::Table(table) => self.table(node, table.alignments.len().max(1)),
            NodeValue::FootnoteDefinition(def) => {
                self.out.push_str(&format!(
                    "\\noindent\\textsuperscript{{{}}} ",
                    escape(&def.name)
                ));
                for child in node.children() {
                    self.block(child);
                }
            }
            _ => {
                for child in node.children() {
                    self.block(child);
                }
            }
        }
    }

    /// Code and raw HTML: typewriter lines, every character escaped (never `verbatim`, whose
    /// end a line of the text could write).
    fn verbatim(&mut self, text: &str) {
        self.out.push_str("\\begin{flushleft}\\ttfamily\\small\n");
        for line in text.trim_end_matches('\n').lines() {
            let line = escape(line).replace(' ', "~");
            if line.is_empty() {
                self.out.push_str("\\mbox{}\\\\\n");
            } else {
                self.out.push_str(&format!("{line}\\\\\n"));
            }
        }
        self.out.push_str("\\end{flushleft}\n\n");
    }

    fn table<'a>(&mut self, node: &'a AstNode<'a>, columns: usize) {
        // Columns share the line's width and wrap their text, so a wide table stays on the page.
        let width = format!("{:.3}", 0.95 / columns as f64);
        let spec = vec![format!("p{{{width}\\linewidth}}"); columns].join("|");
        self.out
            .push_str(&format!("\\begin{{longtable}}{{|{spec}|}}\n\\hline\n"));
        for row in node.children() {
            let header = matches!(row.data.borrow().value, NodeValue::TableRow(true));
            let mut first = true;
            for cell in row.children() {
                if !first {
                    self.out.push_str(" & ");
                }
                first = false;
                if header {
                    self.out.push_str("\\textbf{");
                }
                self.inlines(cell);
                if header {
                    self.out.push('}');
                }
            }
            self.out.push_str(" \\\\\n\\hline\n");
            if header {
                self.out.push_str("\\endhead\n");
            }
        }
        self.out.push_str("\\end{longtable}\n\n");
    }

    fn inlines<'a>(&mut self, node: &'a AstNode<'a>) {
        for piece in inline_runs(node) {
            match piece {
                Inline::Text(text) => self.text(&text),
                Inline::Node(child, value) => self.inline(child, value),
            }
        }
    }

    /// Text with its `[n]` markers as `\citep`: adjacent markers (`[1][2]`, `[1], [2]`) are
    /// one citation of several keys.
    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let mut last = 0;
        let mut keys: Vec<u32> = Vec::new();
        for (start, end, n) in crate::markdown::markers(text, |n| self.sources.contains(&n)) {
            let between = &text[last..start];
            let joins = !keys.is_empty() && between.trim_matches([' ', ',', ';']).is_empty();
            if !joins {
                self.cite(&mut keys);
                self.out.push_str(&escape(between));
            }
            keys.push(n);
            last = end;
        }
        self.cite(&mut keys);
        self.out.push_str(&escape(&text[last..]));
    }

    fn cite(&mut self, keys: &mut Vec<u32>) {
        if keys.is_empty() {
            return;
        }
        let list: Vec<String> = keys.iter().map(|n| format!("source{n}")).collect();
        // A citation never starts a line apart from the words it supports.
        if self.out.ends_with(' ') {
            self.out.pop();
            self.out.push('~');
        }
        self.out.push_str(&format!("\\citep{{{}}}", list.join(",")));
        keys.clear();
    }

    fn inline<'a>(&mut self, node: &'a AstNode<'a>, value: NodeValue) {
        match value {
            NodeValue::Emph => {
                self.out.push_str("\\emph{");
                self.inlines(node);
                self.out.push('}');
            }
            NodeValue::Strong => {
                self.out.push_str("\\textbf{");
                self.inlines(node);
                self.out.push('}');
            }
            NodeValue::Code(code) => {
                self.out
                    .push_str(&format!("\\texttt{{{}}}", escape(&code.literal)));
            }
            NodeValue::Link(link) => {
                let label = text_of(node);
                let bare = label.trim().is_empty() || label.trim() == link.url.trim();
                match target(&link.url) {
                    Target::Web(to) if bare => {
                        self.out.push_str(&format!("\\url{{{}}}", url(to)));
                    }
                    Target::Web(to) => {
                        self.out.push_str(&format!("\\href{{{}}}{{", url(to)));
                        self.inlines(node);
                        self.out.push('}');
                    }
                    Target::File(path) if bare => {
                        self.out.push_str(&format!("\\texttt{{{}}}", escape(path)));
                    }
                    Target::File(_) | Target::Other => self.inlines(node),
                }
            }
            NodeValue::Image(image) => {
                // Images are not fetched: their description and address stand in.
                self.out
                    .push_str(&escape(&format!("[image: {}] ", text_of(node))));
                self.out.push_str(&format!("\\url{{{}}}", url(&image.url)));
            }
            NodeValue::SoftBreak => self.out.push('\n'),
            NodeValue::LineBreak => self.out.push_str("\\newline\n"),
            NodeValue::HtmlInline(html) => self.out.push_str(&escape(&html)),
            NodeValue::FootnoteReference(r) => {
                self.out
                    .push_str(&format!("\\textsuperscript{{{}}}", escape(&r.name)));
            }
            NodeValue::Text(t) => self.text(&t),
            // Strikethrough and whatever else: their text.
            _ => self.inlines(node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SourceRef, STYLES};

    fn report(markdown: &str) -> Report {
        Report {
            question: "How do bees dance & why?".into(),
            markdown: markdown.into(),
            sources: vec![
                SourceRef {
                    id: 1,
                    url: "https://example.org/a?x=1#top".into(),
                    title: "Waggle dance".into(),
                    kind: "web".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
                SourceRef {
                    id: 2,
                    url: "file:///home/me/notes_2024.md".into(),
                    title: "My notes".into(),
                    kind: "local".into(),
                    accessed_at_ms: 1_795_000_000_000,
                    citation: None,
                },
            ],
            created_at_ms: 1_795_000_000_000,
            models: vec![],
        }
    }

    #[test]
    fn citations_are_cite_commands_and_the_sources_list_is_the_bibliography() {
        let r = report(
            "# How do bees dance?\n\n## Summary\nBees dance [1][2]. One more [1], [2]; unknown [9]. Cost: 5$ #1 50% a_b ~x^2 \\o.\n\n## Sources\n\n[1] Waggle dance — <https://example.org/a> (accessed 2026-11-18)\n\n[2] My notes — </home/me/notes_2024.md> (accessed 2026-11-18)\n\n## Method and verification\n\n- Trust: 2 ✓✓, 1 ✓, 1 ⚠\n",
        );
        let out = latex(&r, STYLES[0], Paper::A4, "bees report");
        let tex = &out.tex;
        assert!(
            tex.contains("Bees dance~\\citep{source1,source2}. One more~\\citep{source1,source2}; unknown [9]."),
            "{tex}"
        );
        assert!(
            tex.contains("Cost: 5\\$ \\#1 50\\% a\\_b \\textasciitilde{}x\\textasciicircum{}2 \\textbackslash{}o."),
            "{tex}"
        );
        assert!(tex.contains("\\section*{Summary}"), "{tex}");
        // The report's title is the document's, not a section.
        assert!(tex.contains("\\title{How do bees dance \\& why?}"), "{tex}");
        assert!(!tex.contains("\\section*{How do bees dance?}"), "{tex}");
        // The sources list is BibTeX's, under the report's heading; its lines are not repeated.
        assert!(
            tex.contains("\\renewcommand{\\refname}{Sources}\n\\nocite{*}\n\\bibliographystyle{unsrtnat}\n\\bibliography{bees_report}"),
            "{tex}"
        );
        assert!(!tex.contains("Waggle dance"), "{tex}");
        assert!(tex.contains("\\section*{Method and verification}"), "{tex}");
        assert!(
            tex.contains("Trust: 2 \\checkmark{}\\checkmark{}, 1 \\checkmark{}, 1 \\rswarning{}"),
            "{tex}"
        );
        assert!(tex.contains("[numbers,square,sort&compress]{natbib}"));
        assert!(tex.contains("\\documentclass[11pt,a4paper]{article}"));
        assert!(
            out.bib.starts_with("@misc{source1,\n  author = {{Waggle dance}},\n  year = {n.d.},\n  url = {https://example.org/a?x=1#top},\n  note = {Accessed 2026-11-18},\n}"),
            "{}",
            out.bib
        );
    }

    #[test]
    fn author_date_styles_cite_by_author_and_year() {
        let r = report("## Summary\nBees dance [1].\n\n## Sources\n\n[1] x\n");
        let apa = crate::CitationStyle::named("apa").unwrap();
        let tex = latex(&r, apa, Paper::Letter, "r").tex;
        assert!(tex.contains("\\usepackage[round]{natbib}"), "{tex}");
        assert!(tex.contains("\\bibliographystyle{plainnat}"), "{tex}");
        assert!(tex.contains("letterpaper"), "{tex}");
    }

    #[test]
    fn code_html_links_and_tables_cannot_break_out() {
        let r = report(
            "## A\n\n```\n\\end{document} 100%\n  x\n```\n\n<div>\\input{x}</div>\n\n[a link](https://x.org/a%20b#c) and <https://y.org/{z}> and [notes](file:///tmp/a_b.md)\n\n| a | b |\n|---|---|\n| `x` | ∀α |\n",
        );
        let tex = latex(&r, STYLES[0], Paper::A4, "r").tex;
        assert!(
            tex.contains("\\textbackslash{}end\\{document\\}~100\\%\\\\\n~~x\\\\"),
            "{tex}"
        );
        assert!(
            tex.contains("\\textless{}div\\textgreater{}\\textbackslash{}input\\{x\\}"),
            "{tex}"
        );
        assert!(
            tex.contains("\\href{https://x.org/a\\%20b\\#c}{a link}"),
            "{tex}"
        );
        assert!(tex.contains("\\url{https://y.org/%7Bz%7D}"), "{tex}");
        assert!(tex.contains("[notes]") || tex.contains("notes"), "{tex}");
        assert!(
            tex.contains("\\begin{longtable}{|p{0.475\\linewidth}|p{0.475\\linewidth}|}"),
            "{tex}"
        );
        assert!(
            tex.contains("\\rsunicode{∀}{U+2200}\\rsunicode{α}{U+03B1}"),
            "{tex}"
        );
        // One \end{document}: the document's own.
        assert_eq!(tex.matches("\\end{document}").count(), 1, "{tex}");
    }

    #[test]
    fn japanese_reports_use_luatexja() {
        let mut r = report("## 要約\nミツバチは踊る [1]。\n");
        r.question = "ミツバチはどう踊るか".into();
        let tex = latex(&r, STYLES[0], Paper::A4, "r").tex;
        assert!(
            tex.contains("\\documentclass[a4paper]{ltjsarticle}"),
            "{tex}"
        );
        assert!(tex.contains("ミツバチは踊る~\\citep{source1}。"), "{tex}");
        // No sources heading: the bibliography closes the document.
        assert!(
            tex.contains("\\bibliography{r}\n\n\\end{document}"),
            "{tex}"
        );
    }
}
