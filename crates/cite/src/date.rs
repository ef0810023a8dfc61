//! Publication dates as pages and records write them, made `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.

use serde_json::Value;

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A publication date as `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, from what a page or record wrote:
/// ISO dates and times (`2024-03-05T10:00:00Z`), `2024/03/05`, `20240305`, "March 5, 2024",
/// "5 Mar 2024", "March 2024", or a bare year. `None` when no year between 1000 and 2999 is
/// there.
pub fn issued(text: &str) -> Option<String> {
    let text = text.trim();
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() == 8 && text.len() == 8 {
        return from_parts(&digits[..4], Some(&digits[4..6]), Some(&digits[6..8]));
    }
    // ISO-like first: year, then month and day in any of - / . .
    if digits.len() == 4 {
        let mut rest = text[4..].split(['-', '/', '.', 'T', ' ']);
        let _ = rest.next();
        let month = rest
            .next()
            .filter(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()));
        let day = month
            .and(rest.next())
            .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        if let Some(found) = from_parts(&digits, month, day) {
            return Some(found);
        }
    }
    // Words: a month's name, a day and a year in either order.
    let lower = text.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.')
        .filter(|t| !t.is_empty())
        .collect();
    let year = tokens
        .iter()
        .find(|t| t.len() == 4 && t.chars().all(|c| c.is_ascii_digit()))?;
    let month = tokens.iter().find_map(|t| {
        MONTHS
            .iter()
            .position(|m| t.len() >= 3 && t.starts_with(m))
            .map(|i| format!("{:02}", i + 1))
    });
    let day = month.as_ref().and_then(|_| {
        tokens.iter().find(|t| {
            let t = t.trim_end_matches(|c: char| c.is_alphabetic());
            !t.is_empty() && t.len() <= 2 && t.chars().all(|c| c.is_ascii_digit())
        })
    });
    let day = day.map(|d| d.trim_end_matches(|c: char| c.is_alphabetic()));
    from_parts(year, month.as_deref(), day)
}

/// Checks the parts and writes them; a month or day out of range is dropped, not guessed.
fn from_parts(year: &str, month: Option<&str>, day: Option<&str>) -> Option<String> {
    let y: u32 = year.parse().ok().filter(|y| (1000..3000).contains(y))?;
    let m: Option<u32> = month
        .and_then(|m| m.parse().ok())
        .filter(|m| (1..=12).contains(m));
    let d: Option<u32> = m
        .and(day)
        .and_then(|d| d.parse().ok())
        .filter(|d| (1..=31).contains(d));
    Some(match (m, d) {
        (Some(m), Some(d)) => format!("{y:04}-{m:02}-{d:02}"),
        (Some(m), None) => format!("{y:04}-{m:02}"),
        _ => format!("{y:04}"),
    })
}

/// A date as CSL-JSON's date parts: `[2024, 3, 5]`.
pub(crate) fn parts(issued: &str) -> Option<Vec<u32>> {
    let parts: Vec<u32> = issued.split('-').map_while(|p| p.parse().ok()).collect();
    (!parts.is_empty()).then_some(parts)
}

/// A CSL-JSON date read: `{"date-parts": [[2024, 3]]}`, `{"raw": "March 2024"}`, or a string.
pub(crate) fn from_csl(v: &Value) -> Option<String> {
    if let Some(s) = v.as_str() {
        return issued(s);
    }
    if let Some(first) = v.pointer("/date-parts/0").and_then(Value::as_array) {
        let text: Vec<String> = first
            .iter()
            .map_while(|p| match p {
                Value::Number(n) => n.as_u64().map(|n| n.to_string()),
                Value::String(s) => Some(s.trim().to_string()),
                _ => None,
            })
            .collect();
        let year = text.first()?;
        return from_parts(
            year,
            text.get(1).map(String::as_str),
            text.get(2).map(String::as_str),
        );
    }
    v.get("raw")
        .or_else(|| v.get("literal"))
        .and_then(Value::as_str)
        .and_then(issued)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_pages_write_them() {
        let cases = [
            ("2024-03-05T10:00:00Z", Some("2024-03-05")),
            ("2024-03-05", Some("2024-03-05")),
            ("2024/3/5", Some("2024-03-05")),
            ("2024-03", Some("2024-03")),
            ("2024", Some("2024")),
            ("20240305", Some("2024-03-05")),
            ("March 5, 2024", Some("2024-03-05")),
            ("5 Mar 2024", Some("2024-03-05")),
            ("5th March 2024", Some("2024-03-05")),
            ("September 2019", Some("2019-09")),
            ("Copyright 2019", Some("2019")),
            ("2024-13-40", Some("2024")),
            ("yesterday", None),
            ("0999", None),
        ];
        for (text, want) in cases {
            assert_eq!(issued(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn csl_dates() {
        assert_eq!(
            from_csl(&serde_json::json!({"date-parts": [[2024, 3, 5]]})).as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(
            from_csl(&serde_json::json!({"date-parts": [["2019"]]})).as_deref(),
            Some("2019")
        );
        assert_eq!(
            from_csl(&serde_json::json!({"raw": "2018-07"})).as_deref(),
            Some("2018-07")
        );
        assert_eq!(parts("2024-03"), Some(vec![2024, 3]));
    }
}
