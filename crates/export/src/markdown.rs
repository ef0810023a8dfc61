//! The report as a Markdown file: as stored, with every citation `[n]` linked to its entry in
//! the sources list, which gets an anchor per source.

use crate::Report;

/// The Markdown export.
pub fn markdown(report: &Report) -> String {
    let ids: std::collections::BTreeSet<u32> = report.sources.iter().map(|s| s.id).collect();
    let mut out = String::with_capacity(report.markdown.len() + 64 * ids.len());
    let mut in_sources = false;
    let mut in_code = false;
    for line in report.markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        if line.starts_with("## ") {
            let title = line.trim_start_matches('#').trim();
            in_sources = crate::is_sources_heading(title);
        }
        if in_code {
            out.push_str(line);
        } else if in_sources {
            // "[n] Title — <url> (accessed …)": an anchor for the citations to land on.
            match line
                .strip_prefix('[')
                .and_then(|rest| rest.split_once(']'))
                .and_then(|(n, rest)| n.parse::<u32>().ok().map(|n| (n, rest)))
            {
                Some((n, rest)) if ids.contains(&n) => {
                    out.push_str(&format!("<a id=\"source-{n}\"></a>\\[{n}\\]{rest}"));
                }
                _ => out.push_str(line),
            }
        } else {
            out.push_str(&link_citations(line, &ids));
        }
        out.push('\n');
    }
    out
}

/// `[n]` markers of known sources, as `(start, end, n)` byte ranges; a `[n](…)` Markdown link
/// and a marker inside a code span (`` `a[1]` ``) are left alone.
pub(crate) fn markers(line: &str, known: impl Fn(u32) -> bool) -> Vec<(usize, usize, u32)> {
    let bytes = line.as_bytes();
    let code = code_spans(line);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(&(_, end)) = code.iter().find(|(s, e)| (*s..*e).contains(&i)) {
            i = end;
            continue;
        }
        if bytes[i] == b'[' {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let close = i + 1 + digits;
            if (1..=4).contains(&digits)
                && bytes.get(close) == Some(&b']')
                && bytes.get(close + 1) != Some(&b'(')
            {
                if let Ok(n) = line[i + 1..close].parse::<u32>() {
                    if known(n) {
                        out.push((i, close + 1, n));
                        i = close + 1;
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
    out
}

/// The byte ranges of a line's code spans: a run of backticks up to the next run of as many.
fn code_spans(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let run = |at: usize| bytes[at..].iter().take_while(|&&b| b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let mut closed = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = run(j);
                if m == n {
                    closed = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                spans.push((i, end));
                i = end;
            }
            // An unmatched run is literal backticks.
            None => i += n,
        }
    }
    spans
}

fn link_citations(line: &str, ids: &std::collections::BTreeSet<u32>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    for (start, end, n) in markers(line, |n| ids.contains(&n)) {
        out.push_str(&line[last..start]);
        out.push_str(&format!("[\\[{n}\\]](#source-{n})"));
        last = end;
    }
    out.push_str(&line[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceRef;

    #[test]
    fn markdown_golden() {
        let report = Report {
            question: "Q".into(),
            markdown: "# Q\n\n## Summary\nBees dance [1][2]. Unknown [9]. A [link](http://x) stays. `a[1]` and ``b`[2]`` are code.\n\n```\ncode [1]\n```\n\n## Sources\n\n[1] One — <https://a> (accessed 2026-11-18)\n\n[2] Two — </tmp/b.md> (accessed 2026-11-18)\n\n## Method and verification\n\n- Iterations: 1\n".into(),
            sources: vec![
                SourceRef { id: 1, url: "https://a".into(), title: "One".into(), kind: "web".into(), accessed_at_ms: 0, citation: None },
                SourceRef { id: 2, url: "file:///tmp/b.md".into(), title: "Two".into(), kind: "local".into(), accessed_at_ms: 0, citation: None },
            ],
            created_at_ms: 0,
            models: vec![],
        };
        assert_eq!(
            markdown(&report),
            "# Q\n\n## Summary\nBees dance [\\[1\\]](#source-1)[\\[2\\]](#source-2). Unknown [9]. A [link](http://x) stays. `a[1]` and ``b`[2]`` are code.\n\n```\ncode [1]\n```\n\n## Sources\n\n<a id=\"source-1\"></a>\\[1\\] One — <https://a> (accessed 2026-11-18)\n\n<a id=\"source-2\"></a>\\[2\\] Two — </tmp/b.md> (accessed 2026-11-18)\n\n## Method and verification\n\n- Iterations: 1\n"
        );
    }
}
