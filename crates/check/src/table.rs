//! Tables as the checks read them. A page's table is stored as a Markdown table (the HTML
//! extractor writes one, with its provenance: the page and the row), and a row is quoted as it
//! stands — "| 16 | 2 | The database page size in bytes. |" is in the page's text, so any checker
//! finds it there. What a row *says* needs its header: "16" and "2" are an offset and a size.
//! [`reading`] pairs each cell with its column's name, and that reading is what a claim citing
//! the row is aligned with and measured against, so a number quoted from a table is checked
//! like one quoted from a sentence.

use std::ops::Range;

use crate::text::plain;

/// The cells of a Markdown table row (`| a | b |`, also inside a block quote `> | a | b |`),
/// split at the pipes that are not escaped; `None` for a line that is not a row.
pub fn cells(line: &str) -> Option<Vec<&str>> {
    let body = row_body(line)?;
    let inner = body.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'|' => {
                out.push(inner[start..i].trim());
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    out.push(inner[start.min(inner.len())..].trim());
    Some(out)
}

/// The row itself within `line`: after block-quote marks, from its first pipe to its last.
/// A line that does not both open and close with a pipe is not a row (prose with a `|` in it).
fn row_body(line: &str) -> Option<&str> {
    let mut rest = line.trim();
    while let Some(r) = rest.strip_prefix('>') {
        rest = r.trim_start();
    }
    (rest.len() >= 3 && rest.starts_with('|') && rest.ends_with('|') && !rest.ends_with("\\|"))
        .then_some(rest)
}

/// The byte range of the row within `line` (block-quote marks and spaces left out).
pub fn row_range(line: &str) -> Option<Range<usize>> {
    let body = row_body(line)?;
    let start = body.as_ptr() as usize - line.as_ptr() as usize;
    Some(start..start + body.len())
}

/// Whether a row is the line under a table's header (`| --- | :-: |`).
pub fn separator(cells: &[&str]) -> bool {
    !cells.is_empty()
        && cells.iter().all(|c| {
            let c = c.trim_matches(':');
            !c.is_empty() && c.bytes().all(|b| b == b'-')
        })
}

/// What a row can say: two cells with something in them, one with a letter or digit.
pub fn says_something(cells: &[&str]) -> bool {
    cells.iter().filter(|c| !c.is_empty()).count() >= 2
        && cells.iter().any(|c| c.chars().any(char::is_alphanumeric))
}

/// The lines of `text[..end]` from the last one up, each with its byte offset, read lazily: a
/// row's header is a few lines up, and a long document is not read again for each of its rows.
fn lines_up(text: &str, end: usize) -> impl Iterator<Item = (usize, &str)> {
    let mut end = end.min(text.len());
    std::iter::from_fn(move || {
        if end == 0 {
            return None;
        }
        let body = &text[..end];
        let body = body.strip_suffix('\n').unwrap_or(body);
        let start = body.rfind('\n').map_or(0, |i| i + 1);
        let line = body[start..].trim_end_matches('\r');
        end = start;
        Some((start, line))
    })
}

/// The header row of the table whose body row starts at byte `row_start` of `text`: the row
/// just above the table's separator, when the rows above `row_start` lead up to one.
pub fn header(text: &str, row_start: usize) -> Option<Range<usize>> {
    let above = &text[..row_start.min(text.len())];
    let end = above.rfind('\n').map_or(0, |i| i + 1);
    let mut lines = lines_up(text, end);
    // Up through the body rows to the separator; the row above it is the header.
    loop {
        let (_, line) = lines.next()?;
        if separator(&cells(line)?) {
            let (at, line) = lines.next()?;
            if separator(&cells(line)?) {
                return None;
            }
            let r = row_range(line)?;
            return Some(at + r.start..at + r.end);
        }
    }
}

/// What row `row` of `text` says, read with its `header`: each cell under its column's name
/// ("Offset: 16; Size: 2; Description: The database page size in bytes."), the words as a
/// person sees them. Without a header, or when the header has another number of cells, the
/// cells alone.
pub fn reading(text: &str, row: &Range<usize>, header: Option<&Range<usize>>) -> String {
    let Some(row_cells) = cells(&text[row.clone()]) else {
        return plain(&text[row.clone()]);
    };
    let names: Option<Vec<&str>> = header
        .and_then(|h| cells(&text[h.clone()]))
        .filter(|h| h.len() == row_cells.len());
    let mut parts: Vec<String> = Vec::new();
    for (i, cell) in row_cells.iter().enumerate() {
        let value = plain(cell);
        if value.is_empty() {
            continue;
        }
        let name = names.as_ref().map(|n| plain(n[i])).unwrap_or_default();
        parts.push(if name.is_empty() {
            value
        } else {
            format!("{name}: {value}")
        });
    }
    parts.join("; ")
}

/// What `row` — a table row as quoted ("| 16 | 2 | … |") — says in `text`, read with the header
/// of the table it is in there; `None` when `row` is not a row or `text` has no such row.
pub fn reading_in(text: &str, row: &str) -> Option<String> {
    let wanted: Vec<String> = cells(row)?.iter().map(|c| plain(c)).collect();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let at = start;
        start += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        let Some(found) = cells(trimmed) else {
            continue;
        };
        if found.len() == wanted.len() && found.iter().zip(&wanted).all(|(c, w)| plain(c) == *w) {
            let range = row_range(trimmed)?;
            let range = at + range.start..at + range.end;
            return Some(reading(text, &range, header(text, at).as_ref()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "The header of the file:\n\n\
        | Offset | Size | Description |\n\
        | --- | :-: | --- |\n\
        | 0 | 16 | The header string: \"SQLite format 3\\000\" |\n\
        | 16 | 2 | The database page size in bytes. |\n\
        | 18 | 1 | File format write version. 1 for legacy; 2 for \\| WAL. |\n\nAfter it.\n";

    fn row_at(text: &str, needle: &str) -> Range<usize> {
        let start = text.find(needle).unwrap();
        let end = start + text[start..].find('\n').unwrap();
        start..end
    }

    #[test]
    fn a_row_is_read_with_its_header() {
        let row = row_at(TABLE, "| 16 | 2 |");
        let header = header(TABLE, row.start).expect("the header");
        assert_eq!(&TABLE[header.clone()], "| Offset | Size | Description |");
        assert_eq!(
            reading(TABLE, &row, Some(&header)),
            "Offset: 16; Size: 2; Description: The database page size in bytes."
        );
        // An escaped pipe is a character of its cell.
        let row = row_at(TABLE, "| 18 |");
        assert!(reading(TABLE, &row, Some(&header))
            .ends_with("Description: File format write version. 1 for legacy; 2 for | WAL."));
    }

    #[test]
    fn separators_headers_and_prose_are_not_body_rows() {
        assert!(separator(&cells("| --- | :-: |").unwrap()));
        assert!(!separator(&cells("| 16 | 2 |").unwrap()));
        assert_eq!(cells("a | b"), None, "prose with a pipe in it");
        assert_eq!(cells("> | a | b |"), Some(vec!["a", "b"]));
        let header_row = row_at(TABLE, "| Offset");
        assert_eq!(header(TABLE, header_row.start), None, "a header has none");
        let quoted = "> | Name | Affinity |\n> | --- | --- |\n> | INT | INTEGER |\n";
        let row = row_at(quoted, "> | INT");
        let h = header(quoted, row.start).unwrap();
        assert_eq!(
            reading(quoted, &row, Some(&h)),
            "Name: INT; Affinity: INTEGER"
        );
        assert!(!says_something(&cells("| | x |").unwrap()));
        assert_eq!(
            reading_in(TABLE, "| 16 | 2 | The database page size in bytes. |").as_deref(),
            Some("Offset: 16; Size: 2; Description: The database page size in bytes.")
        );
        assert_eq!(reading_in(TABLE, "| 99 | 9 | nowhere |"), None);
    }
}
