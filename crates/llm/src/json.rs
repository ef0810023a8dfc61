//! Getting JSON out of what models actually write: reasoning blocks, code fences, prose around
//! the object, trailing commas, an answer cut off before its closing brackets.

/// The JSON value inside a model's answer, as text, with light repairs applied; `None` when the
/// answer holds no `{` or `[` at all.
pub fn extract(text: &str) -> Option<String> {
    let text = strip_reasoning(text);
    let body = fenced(&text).unwrap_or(&text);
    let start = body.find(['{', '['])?;
    let candidate = &body[start..];
    let end = matching_end(candidate);
    let slice = match end {
        Some(end) => &candidate[..=end],
        None => candidate,
    };
    Some(repair(slice))
}

/// Removes `<think>…</think>` blocks (reasoning models put them before the answer); an unclosed
/// block swallows everything after it only when no JSON follows its opening.
fn strip_reasoning(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<think>") {
        out.push_str(&rest[..open]);
        match rest[open..].find("</think>") {
            Some(close) => rest = &rest[open + close + "</think>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The contents of the first ``` fence that holds a `{` or `[`.
fn fenced(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(0, |n| n + 1);
        let body = &after[body_start..];
        let close = body.find("```").unwrap_or(body.len());
        let inner = &body[..close];
        if inner.contains(['{', '[']) {
            return Some(inner);
        }
        rest = &body[close.min(body.len())..];
        if close == body.len() {
            break;
        }
        rest = &rest[3..];
    }
    None
}

/// Index of the bracket that closes the one at position 0, outside strings.
fn matching_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Drops trailing commas and closes what a cut-off answer left open.
fn repair(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' => {
                stack.push('}');
                out.push(c);
            }
            '[' => {
                stack.push(']');
                out.push(c);
            }
            '}' | ']' => {
                trim_trailing_comma(&mut out);
                stack.pop();
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if in_string {
        out.push('"');
    }
    while let Some(close) = stack.pop() {
        trim_trailing_comma(&mut out);
        out.push(close);
    }
    out
}

fn trim_trailing_comma(out: &mut String) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::extract;

    fn parses(text: &str) -> serde_json::Value {
        serde_json::from_str(&extract(text).expect("some JSON")).expect("valid JSON")
    }

    #[test]
    fn plain_object() {
        assert_eq!(parses(r#"{"a": 1}"#)["a"], 1);
    }

    #[test]
    fn reasoning_block_and_fence_and_prose() {
        let text = "<think>The user wants {json}. Let me think.</think>\nSure! Here it is:\n```json\n{\"questions\": [\"a\", \"b\"]}\n```\nHope this helps.";
        assert_eq!(parses(text)["questions"][1], "b");
    }

    #[test]
    fn trailing_prose_with_braces_is_ignored() {
        let text = "{\"x\": \"a } inside\"} and then {more}";
        assert_eq!(parses(text)["x"], "a } inside");
    }

    #[test]
    fn trailing_commas_and_cut_off_answers_are_repaired() {
        assert_eq!(parses("{\"a\": [1, 2,], }")["a"][1], 2);
        let cut = parses("{\"a\": [1, 2], \"b\": {\"c\": \"unfinish");
        assert_eq!(cut["b"]["c"], "unfinish");
    }

    #[test]
    fn no_json_at_all() {
        assert!(extract("I cannot help with that.").is_none());
    }
}
