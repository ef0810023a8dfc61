//! Text as the checks read it: the sentences of a source (exact byte spans, hard-wrapped prose
//! read as sentences), the words a person sees in Markdown, and the normalisation under which a
//! quote must appear in its source.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

use crate::table;

/// A sentence of a source that may be quoted, as a byte range into the source's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Byte range in the source text.
    pub range: Range<usize>,
    /// For a table's row: its table's header row, which names its cells (a byte range in the
    /// source text). A row is quoted as it stands and read with it ([`Sentence::reading`]).
    pub header: Option<Range<usize>>,
}

impl Sentence {
    /// Whether the sentence is a row of a table.
    pub fn is_row(&self, text: &str) -> bool {
        table::cells(&text[self.range.clone()]).is_some()
    }

    /// What the sentence says, as a person reads it: its words, or a table row's cells each
    /// under its column's name ([`table::reading`]).
    pub fn reading(&self, text: &str) -> String {
        if self.is_row(text) {
            table::reading(text, &self.range, self.header.as_ref())
        } else {
            plain(&text[self.range.clone()])
        }
    }
}

/// The quotable sentences in `range` of `text`: long enough to say something, short enough to
/// be a quote, and free of Markdown link targets (which are not part of the page's words).
///
/// A line break ends a sentence only where a block ends (a blank line, a heading, a list item,
/// a quote, a table row or a fence): hard-wrapped prose — plain-text files, Markdown wrapped at
/// 80 columns — is read as its sentences, not as its lines.
pub fn sentences(text: &str, range: Range<usize>) -> Vec<Sentence> {
    let slice = &text[range.clone()];
    let mut out = Vec::new();
    for block in blocks(slice) {
        let begin = range.start + block.start;
        if let Some(row) = table_row(text, begin..range.start + block.end) {
            out.extend(row);
            continue;
        }
        // The block with its line breaks as spaces (one byte each: the offsets stay the text's)
        // and its link targets masked, so that a title's "3. " does not end a sentence.
        let joined = masked_link_targets(
            &slice[block.clone()]
                .chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                .collect::<String>(),
        );
        for (offset, sentence) in joined.split_sentence_bound_indices() {
            let begin = range.start + block.start + offset;
            let s = begin + (sentence.len() - sentence.trim_start().len());
            let e = begin + sentence.trim_end().len();
            if e <= s {
                continue;
            }
            let candidate = &text[s..e];
            let words = candidate.unicode_words().count();
            let cjk = candidate.chars().filter(|c| *c as u32 >= 0x2E80).count();
            let long_enough = words >= 4 || cjk >= 8;
            if long_enough
                && candidate.chars().count() <= MAX_SENTENCE_CHARS
                && !candidate.contains("](")
                && !candidate.trim_start().starts_with('|')
            {
                out.push(Sentence {
                    range: s..e,
                    header: None,
                });
            }
        }
    }
    out
}

/// `text` with each link's `(target "title")` after its `](` overwritten by `x`s of the same
/// byte length: sentence boundaries are then found in the words a person reads, never inside an
/// address or a title (`[blur](x.html "3. Blur filters")` is one sentence with its neighbours).
fn masked_link_targets(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        out.push(chars[i]);
        if chars[i] == ']' && chars.get(i + 1) == Some(&'(') {
            if let Some(end) = link_target_end(&chars, i + 2) {
                out.push('(');
                for c in &chars[i + 2..end] {
                    out.extend(std::iter::repeat_n('x', c.len_utf8()));
                }
                out.push(')');
                i = end + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The longest sentence (or table row) a quote may be, in characters.
const MAX_SENTENCE_CHARS: usize = 500;

/// The block at `block` of `text` read as a table row: `None` when it is not a row; a row that
/// is quoted (`Some(Some(…))`: a body row with two cells that say something, with its header);
/// or `Some(None)` for a row that is not (the header, the separator, an empty row).
fn table_row(text: &str, block: Range<usize>) -> Option<Option<Sentence>> {
    let line = text[block.clone()].trim_end_matches(['\n', '\r']);
    if line.contains('\n') {
        return None;
    }
    let cells = table::cells(line)?;
    let within = table::row_range(line)?;
    let next = text[block.end..].lines().next().unwrap_or("");
    let is_header = table::cells(next).is_some_and(|c| table::separator(&c));
    let quoted = !table::separator(&cells)
        && !is_header
        && table::says_something(&cells)
        && line.chars().count() <= MAX_SENTENCE_CHARS;
    let range = block.start + within.start..block.start + within.end;
    Some(quoted.then(|| Sentence {
        header: table::header(text, block.start),
        range,
    }))
}

/// A Markdown or plain text as the checker reads a source: each line's words as a person sees
/// them ([`plain`]: links as their text, no emphasis marks), lines and blank lines kept, so
/// that [`sentences`] still finds paragraphs and list items and no sentence is dropped for a
/// link in it. Headings keep their `#` and stay blocks of their own.
pub fn readable(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        let body = line.trim_start();
        if let Some(cells) = body.starts_with('|').then(|| table::cells(body)).flatten() {
            // A table row stays a row, each cell's words as the page shows them (a link as its
            // text), a pipe in a cell kept escaped.
            let shown: Vec<String> = cells.iter().map(|c| plain(c).replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |", shown.join(" | ")));
        } else if body.starts_with('#') || body.starts_with('|') || body.is_empty() {
            out.push_str(line);
        } else {
            // Block marks stay (they end blocks); the words after them are made plain.
            let marks = body.len() - body.trim_start_matches(['>', '-', '*', '+', ' ']).len();
            out.push_str(&body[..marks]);
            out.push_str(&plain(&body[marks..]));
        }
        out.push('\n');
    }
    out
}

/// The blocks of `text` (byte ranges): runs of lines that continue one another.
fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut open = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let body = line.trim();
        if body.is_empty() {
            open = false;
        } else {
            let starts_block = starts_block(body);
            match out.last_mut() {
                Some(last) if open && !starts_block => last.end = end,
                _ => out.push(start..end),
            }
            // A heading or a table row is a block of its own line.
            open = !(body.starts_with('#') || body.starts_with('|'));
        }
        start = end;
    }
    out
}

/// Whether a line (trimmed) begins a block of its own rather than continuing the one before.
fn starts_block(line: &str) -> bool {
    let marker = |m: &str| line.starts_with(m);
    if marker("#") || marker(">") || marker("|") || marker("```") || marker("~~~") {
        return true;
    }
    if ["- ", "* ", "+ ", "• "].iter().any(|m| marker(m)) {
        return true;
    }
    // "1. ", "12) ": a numbered item.
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && digits <= 3
        && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

/// The words a person sees in `span` of the stored text, which is Markdown: no heading marks,
/// block quotes or list markers at line starts (the page shows its own numbering, or none), no
/// escapes (`\\[` is `[`), no emphasis or code marks (`**name**` is `name`, but `foo_bar`,
/// `--track_origins` and `a*b` keep theirs), links as their text, and lines joined by single
/// spaces. Quotes are made of this, so a quote reads as the page does and is found in it.
pub fn plain(span: &str) -> String {
    let mut out = String::with_capacity(span.len());
    for line in span.lines() {
        let line = line_body(line);
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&inline_plain(line));
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line without the block marks before its words: `#`s, `>`s and a list marker.
fn line_body(line: &str) -> &str {
    let mut rest = line.trim();
    loop {
        let before = rest;
        if let Some(r) = rest.strip_prefix('>') {
            rest = r.trim_start();
        }
        let hashes = rest.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && rest[hashes..].starts_with([' ', '\t']) {
            rest = rest[hashes..].trim_start();
        }
        for bullet in ["- ", "* ", "+ ", "• "] {
            if let Some(r) = rest.strip_prefix(bullet) {
                rest = r.trim_start();
            }
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if (1..=3).contains(&digits)
            && (rest[digits..].starts_with(". ") || rest[digits..].starts_with(") "))
        {
            rest = rest[digits + 1..].trim_start();
        }
        if rest == before {
            return rest;
        }
    }
}

/// Inline Markdown to the text it shows.
fn inline_plain(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    // `[`s shown and not yet closed.
    let mut open = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                // A code span shows its content as written: `__gconv_init` keeps its
                // underscores, `a*b*c` its stars. A run of backticks nothing closes is dropped.
                let run = chars[i..].iter().take_while(|x| **x == '`').count();
                let close = (i + run..chars.len()).find(|&j| {
                    chars[j..].iter().take_while(|x| **x == '`').count() == run
                        && chars[j - 1] != '`'
                });
                match close {
                    Some(end) => {
                        out.extend(&chars[i + run..end]);
                        i = end + run;
                    }
                    None => i += run,
                }
            }
            '!' if chars.get(i + 1) == Some(&'[') => i += 1,
            '[' => {
                // A link `[text](target)` shows its text; a bare `[x]` stays as it is.
                if let Some(close) = link_text_end(&chars, i) {
                    if let Some(end) = link_target_end(&chars, close + 2) {
                        out.push_str(&inline_plain(
                            &chars[i + 1..close].iter().collect::<String>(),
                        ));
                        i = end + 1;
                        continue;
                    }
                }
                // A `[` that nothing closes on its line opens a link whose `](target)` is on the
                // next line (a table of contents): it is not shown.
                if chars[i + 1..].contains(&']') {
                    out.push(c);
                    open += 1;
                }
                i += 1;
            }
            ']' if open == 0 && chars.get(i + 1) == Some(&'(') => {
                // The `](target)` of a link opened on an earlier line: not shown either.
                match link_target_end(&chars, i + 2) {
                    Some(end) => i = end + 1,
                    None => i = chars.len(),
                }
            }
            ']' => {
                open = open.saturating_sub(1);
                out.push(c);
                i += 1;
            }
            '*' | '_' => {
                let run = chars[i..].iter().take_while(|x| **x == c).count();
                let before = i.checked_sub(1).map(|b| chars[b]);
                let after = chars.get(i + run).copied();
                let word = |x: Option<char>| x.is_some_and(char::is_alphanumeric);
                let space = |x: Option<char>| x.is_none_or(char::is_whitespace);
                // Inside a word (`foo_bar`, `a*b`) or standing alone (` * `) it is a character
                // of the text; touching a word on one side only, it is emphasis.
                // (`**` inside a word is still emphasis, as in "メモリは**所有権**で".)
                let inside = word(before) && word(after) && (c == '_' || run == 1);
                let alone = space(before) && space(after);
                if !(inside || alone) {
                    i += run;
                    continue;
                }
                for _ in 0..run {
                    out.push(c);
                }
                i += run;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The index of the `)` that closes a link's target starting at `start` (just after its `(`):
/// parentheses in the address are balanced (`Rust_(language)`), and a title in quotes may hold
/// any (`(url "1.4. Color (management)")`).
fn link_target_end(chars: &[char], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = start;
    while j < chars.len() {
        match chars[j] {
            q @ ('"' | '\'') if j > start && chars[j - 1].is_whitespace() => {
                // A title: to its closing quote, then the `)`.
                let close = (j + 1..chars.len()).find(|&k| chars[k] == q)?;
                let end = (close + 1..chars.len()).find(|&k| !chars[k].is_whitespace())?;
                return (chars[end] == ')').then_some(end);
            }
            '(' => depth += 1,
            ')' if depth == 0 => return Some(j),
            ')' => depth -= 1,
            _ => {}
        }
        j += 1;
    }
    None
}

/// The index of the `]` that closes the link text opened at `open`, when a `(` follows it.
fn link_text_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, c) in chars.iter().enumerate().skip(open) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return (chars.get(j + 1) == Some(&'(')).then_some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Lower-cases, unifies quotes and dashes, and collapses everything that is not a letter or
/// digit to single spaces: the normalisation under which a quote must appear in its source.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        if c.is_alphanumeric() {
            for l in c.to_lowercase() {
                out.push(l);
            }
            space = false;
        } else if !space {
            out.push(' ');
            space = true;
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Whether `quote` appears in `source` under [`normalize`], and is long enough to mean
/// something.
pub fn quote_in(quote: &str, normalized_source: &str) -> bool {
    let q = normalize(quote);
    q.chars().count() >= 8 && normalized_source.contains(&q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_what_the_page_shows() {
        for (markdown, shown) in [
            ("**name\\[\\]** is an array", "name[] is an array"),
            (
                "1. Initialize the client first.",
                "Initialize the client first.",
            ),
            (
                "we have:\n\n1. Initialize the client.",
                "we have: Initialize the client.",
            ),
            ("## Memcheck options", "Memcheck options"),
            ("> - quoted item here", "quoted item here"),
            (
                "See [the manual](https://x.org/m) for *all* options.",
                "See the manual for all options.",
            ),
            (
                "詳しくは [「色管理」](http://x/p.html#c \"1.4. カラーマネジメント (色管理)\") をご覧ください。",
                "詳しくは 「色管理」 をご覧ください。",
            ),
            (
                "See [Rust](https://en.wikipedia.org/wiki/Rust_(language)) here.",
                "See Rust here.",
            ),
            (
                "Use `--track-origins=yes` to see where.",
                "Use --track-origins=yes to see where.",
            ),
            (
                "The foo_bar and a*b stay, __init__ too.",
                "The foo_bar and a*b stay, init too.",
            ),
            (
                "occurs in the function `__gconv_transform_ascii_internal`, when `a*b*c` runs",
                "occurs in the function __gconv_transform_ascii_internal, when a*b*c runs",
            ),
            (
                "\\_\\_libc\\_freeres runs at exit",
                "__libc_freeres runs at exit",
            ),
            (
                "VALGRIND_MALLOCLIKE_BLOCK marks a block.",
                "VALGRIND_MALLOCLIKE_BLOCK marks a block.",
            ),
            (
                "メモリは**所有権**で管理される。",
                "メモリは所有権で管理される。",
            ),
            ("a [x] box and 2 * 3", "a [x] box and 2 * 3"),
            (
                "[Valgrind FAQ\n](https://x.org/faq.html) explains why.",
                "Valgrind FAQ explains why.",
            ),
            ("a b] c (d) and [e]", "a b] c (d) and [e]"),
        ] {
            assert_eq!(plain(markdown), shown, "{markdown:?}");
            // A part's plain text is found in the whole page's, as quotes are checked.
            let page = plain(&format!("Intro line.\n{markdown}\nOutro."));
            assert!(
                quote_in(&plain(markdown), &normalize(&page)),
                "{markdown:?}"
            );
        }
    }

    #[test]
    fn sentences_are_exact_spans_and_skip_links() {
        let text = "# Heading of the page\nRust is a language with ownership. See [docs](http://x) for more words here. 短い。\nBorrowing lets code use values without owning them.";
        let s = sentences(text, 0..text.len());
        let got: Vec<&str> = s.iter().map(|s| &text[s.range.clone()]).collect();
        assert_eq!(
            got,
            vec![
                "# Heading of the page",
                "Rust is a language with ownership.",
                "Borrowing lets code use values without owning them."
            ]
        );
    }

    #[test]
    fn a_link_title_does_not_end_a_sentence() {
        // As GIMP's Japanese help links a chapter: the title's "3. " is not a sentence's end,
        // so no half of the sentence (the half after the title) is quoted as if it were one.
        let text = "畳み込みは [ぼかしフィルター](filters-blur.html \"3. ぼかしフィルター\") を使う方が簡単で効果的な場合があります。次の文はここから始まり、続きます。";
        let s = sentences(text, 0..text.len());
        let got: Vec<&str> = s.iter().map(|s| &text[s.range.clone()]).collect();
        assert_eq!(got, vec!["次の文はここから始まり、続きます。"], "{got:?}");
        assert_eq!(masked_link_targets(text).len(), text.len());
    }

    #[test]
    fn hard_wrapped_prose_is_read_as_sentences_and_blocks_still_end_them() {
        // As licence texts and Markdown sources are written: 70-column lines.
        let text = "  15. Disclaimer of Warranty.\n\n  THERE IS NO WARRANTY FOR THE PROGRAM, TO THE EXTENT PERMITTED BY\nAPPLICABLE LAW.  Distributors may offer support\nfor a fee.\n\n## Limits\nLists:\n- the first item of a list runs\n  over two lines\n- the second item stands alone here\n| a | table row with words |\n";
        let s = sentences(text, 0..text.len());
        let got: Vec<String> = s.iter().map(|s| plain(&text[s.range.clone()])).collect();
        assert_eq!(
            got,
            vec![
                "THERE IS NO WARRANTY FOR THE PROGRAM, TO THE EXTENT PERMITTED BY APPLICABLE LAW.",
                "Distributors may offer support for a fee.",
                "the first item of a list runs over two lines",
                "the second item stands alone here",
                "| a | table row with words |",
            ]
        );
        // A table's row is a block of its own, read with its header; the header and the line
        // under it are not quoted.
        let text = "Limits:\n\n| Limit | Default |\n| --- | --- |\n| Page size | 4096 bytes |\n";
        let s = sentences(text, 0..text.len());
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(&text[s[0].range.clone()], "| Page size | 4096 bytes |");
        assert_eq!(s[0].reading(text), "Limit: Page size; Default: 4096 bytes");
    }

    #[test]
    fn a_table_row_reads_as_the_page_shows_it() {
        let text = readable(
            "| Name | Site |\n| --- | --- |\n| [SQLite](https://sqlite.org) | a \\| b |\n",
        );
        assert!(text.contains("| SQLite | a \\| b |"), "{text}");
        let s = sentences(&text, 0..text.len());
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].reading(&text), "Name: SQLite; Site: a | b");
        // The quote the extractor makes of the row is in it.
        let quote = plain("| [SQLite](https://sqlite.org) | a \\| b |");
        assert!(quote_in(&quote, &normalize(&text)), "{quote}");
    }

    #[test]
    fn readable_text_keeps_paragraphs_and_drops_link_targets() {
        let text = readable("# Title\n\nSee [the manual](https://x.org) for **all** options.\n- An item of a list.\n");
        assert_eq!(
            text,
            "# Title\n\nSee the manual for all options.\n- An item of a list.\n"
        );
        let s: Vec<&str> = sentences(&text, 0..text.len())
            .iter()
            .map(|s| &text[s.range.clone()])
            .collect();
        assert_eq!(
            s,
            vec!["See the manual for all options.", "- An item of a list."]
        );
    }

    #[test]
    fn quotes_match_under_normalisation_only() {
        let source = normalize("The “borrow checker” enforces   rules.\nIt runs at compile time.");
        assert!(quote_in("the \"borrow checker\" enforces rules", &source));
        assert!(quote_in("rules. It runs at compile", &source));
        assert!(!quote_in("the borrow checker enforces laws", &source));
        assert!(!quote_in("rules", &source), "too short to mean anything");
    }
}
