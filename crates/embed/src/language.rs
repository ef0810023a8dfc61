//! Which language a text is in, and which languages a model was made for: a question in a
//! language the sentence model does not read is ranked by keywords alone (an English model put
//! Japanese questions' answering pages below where keywords alone put them; BENCHMARKS.md, "The
//! distilled model weighs words by how rare they are").

use std::path::Path;

/// The language of `text` as an ISO 639-1 code (`en`, `ja`, …), `en` when unsure.
pub fn detect_language(text: &str) -> String {
    // Kana decides Japanese even in a short question full of kanji.
    if text
        .chars()
        .any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x31F0..=0x31FF))
    {
        return "ja".into();
    }
    match whatlang::detect(text) {
        Some(info) if info.is_reliable() || text.chars().any(|c| c as u32 >= 0x2E80) => {
            let code = info.lang().code();
            match code {
                "eng" => "en",
                "jpn" => "ja",
                "cmn" => "zh",
                "kor" => "ko",
                "deu" => "de",
                "fra" => "fr",
                "spa" => "es",
                "ita" => "it",
                "por" => "pt",
                "rus" => "ru",
                "nld" => "nl",
                _ => "en",
            }
            .into()
        }
        _ => "en".into(),
    }
}

/// The languages a model's card (`README.md` in its folder, as Hugging Face and the model's
/// package publish it) says the model was made for, as ISO 639-1 codes: its front matter's
/// `language:`, one code or a list. `None` when there is no card or it does not say: the model
/// is then taken to read every language.
pub fn model_languages(folder: &Path) -> Option<Vec<String>> {
    let card = std::fs::read_to_string(folder.join("README.md")).ok()?;
    let front = card.strip_prefix("---")?;
    let front = &front[..front.find("\n---")?];
    let mut lines = front.lines();
    while let Some(line) = lines.next() {
        let Some(value) = line.strip_prefix("language:") else {
            continue;
        };
        let code = |s: &str| s.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
        let value = value.trim();
        let codes: Vec<String> = match value {
            "" => lines
                .clone()
                .map_while(|l| l.trim_start().strip_prefix("- ").map(code))
                .collect(),
            list if list.starts_with('[') => {
                list.trim_matches(['[', ']']).split(',').map(code).collect()
            }
            one => vec![code(one)],
        };
        let codes: Vec<String> = codes.into_iter().filter(|c| !c.is_empty()).collect();
        return (!codes.is_empty()).then_some(codes);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_detected() {
        assert_eq!(detect_language("量子コンピュータとは何ですか？"), "ja");
        assert_eq!(
            detect_language("What are the main uses of quantum computers today?"),
            "en"
        );
    }

    #[test]
    fn a_model_card_names_its_languages_in_any_of_its_forms() {
        let dir = tempfile::tempdir().unwrap();
        let card = |text: &str| {
            std::fs::write(dir.path().join("README.md"), text).unwrap();
            model_languages(dir.path())
        };
        assert_eq!(
            card("---\nlanguage: en\nlicense: apache-2.0\n---\n# m"),
            Some(vec!["en".into()])
        );
        assert_eq!(
            card("---\nlicense: mit\nlanguage:\n- de\n- 'fr'\ntags:\n- x\n---\n"),
            Some(vec!["de".into(), "fr".into()])
        );
        assert_eq!(
            card("---\nlanguage: [ja, en]\n---\n"),
            Some(vec!["ja".into(), "en".into()])
        );
        // No card, no front matter, or no languages: read as every language.
        assert_eq!(card("# all-MiniLM-L6-v2\nlanguage: en\n"), None);
        assert_eq!(card("---\nlicense: mit\n---\n"), None);
        std::fs::remove_file(dir.path().join("README.md")).unwrap();
        assert_eq!(model_languages(dir.path()), None);
    }
}
