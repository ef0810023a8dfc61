//! How the library cuts and queries text: files into passages, CJK text spaced for a
//! tokenizer and back, the words of what a person typed, and the
//! excerpt shown for a hit found by meaning. Kept apart from indexing and search, which only
//! call these.

/// Splits text into passages at paragraph (then sentence, then character) boundaries.
pub fn passages(text: &str, max_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| {
        let t = current.trim();
        if !t.is_empty() {
            out.push(t.to_string());
        }
        current.clear();
    };
    for para in text.split("\n\n") {
        let para = para.trim();
        if para.is_empty() {
            continue;
        }
        if current.chars().count() + para.chars().count() + 2 > max_chars {
            flush(&mut current, &mut out);
        }
        if para.chars().count() > max_chars {
            // A very long paragraph: cut at sentence ends where possible.
            let mut piece = String::new();
            for sentence in para.split_inclusive(['.', '。', '!', '?', '\n']) {
                if piece.chars().count() + sentence.chars().count() > max_chars {
                    flush(&mut piece, &mut out);
                }
                if sentence.chars().count() > max_chars {
                    let chars: Vec<char> = sentence.chars().collect();
                    for chunk in chars.chunks(max_chars) {
                        out.push(chunk.iter().collect::<String>().trim().to_string());
                    }
                } else {
                    piece.push_str(sentence);
                }
            }
            flush(&mut piece, &mut out);
            continue;
        }
        if !current.is_empty() {
            current.push_str("\n\n");
        }
        current.push_str(para);
    }
    flush(&mut current, &mut out);
    out.retain(|p| !p.is_empty());
    out
}

/// Whether `c` is written without spaces between words (Chinese, Japanese kana, Korean).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0x20000..=0x2FFFF) // extensions B and later
}

/// Puts a space around every CJK character, so that a tokenizer (FTS5's `unicode61` and
/// PostgreSQL's parser keep a run of CJK text as one token, since it has no spaces) indexes each character, and a word
/// typed in Japanese or Chinese is found as a phrase of characters anywhere in a sentence.
pub fn segment_cjk(text: &str) -> String {
    if !text.chars().any(is_cjk) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if is_cjk(c) {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Undoes [`segment_cjk`] for display: drops spaces that have CJK on both sides or that it put
/// next to CJK characters.
pub(crate) fn unsegment_cjk(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            if prev.is_some_and(is_cjk) || next.is_some_and(is_cjk) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The words of what a person typed, as every index matches them: runs of letters and digits
/// (so `AND`, `-`, `:` and quotes are not syntax anywhere), Japanese cut at hiragana too. Japanese
/// has no spaces: hiragana (particles and endings, in 「ファジー選択と色域選択の違いは何ですか」)
/// separates its words, so a whole question is not one phrase.
pub fn query_words(text: &str) -> Vec<String> {
    let hiragana = |c: char| ('\u{3040}'..='\u{309F}').contains(&c);
    text.split(|c: char| !c.is_alphanumeric() || hiragana(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The start of a passage, cut at a word, for a hit found by meaning (no keyword snippet).
pub(crate) fn excerpt(text: &str) -> String {
    const CHARS: usize = 300;
    let text = text.trim();
    if text.chars().count() <= CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(CHARS).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(i) if i > CHARS / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_respect_the_limit_and_keep_paragraphs() {
        let text = format!(
            "{}\n\n{}\n\n{}",
            "a".repeat(700),
            "b".repeat(700),
            "c".repeat(700)
        );
        let p = passages(&text, 1500);
        assert_eq!(p.len(), 2);
        assert!(p[0].contains('a') && p[0].contains('b') && !p[0].contains('c'));
        let long = "Sentence one. ".repeat(300);
        assert!(passages(&long, 1500)
            .iter()
            .all(|p| p.chars().count() <= 1500));
    }
}
