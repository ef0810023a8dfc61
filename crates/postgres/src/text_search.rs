//! How the team library's text is read by PostgreSQL's text search: the configuration (language)
//! a file's words are stemmed with, and the words of a search as a `tsquery` each configuration
//! reads. Apart from the library's statements, which only name them.

use research_library::segment_cjk;

/// The text search configurations passages are stemmed with: each language of [`STOP_WORDS`],
/// and `simple` (words lower-cased, not stemmed) for the rest.
pub(crate) fn configs() -> impl Iterator<Item = &'static str> {
    STOP_WORDS
        .iter()
        .map(|(config, _)| *config)
        .chain(["simple"])
}

/// A few of each language's commonest words, by which a text's language is told.
const STOP_WORDS: &[(&str, &[&str])] = &[
    (
        "english",
        &[
            "the", "and", "of", "to", "is", "in", "that", "it", "with", "for", "are", "this",
        ],
    ),
    (
        "german",
        &[
            "der", "die", "und", "das", "ist", "nicht", "mit", "den", "ein", "eine", "auf", "sich",
        ],
    ),
    (
        "french",
        &[
            "le", "la", "les", "et", "est", "une", "des", "du", "pour", "dans", "que", "pas",
        ],
    ),
    (
        "spanish",
        &[
            "el", "los", "las", "y", "es", "una", "del", "por", "para", "con", "que", "como",
        ],
    ),
    (
        "italian",
        &[
            "il", "di", "che", "è", "della", "per", "una", "sono", "gli", "non", "con", "nel",
        ],
    ),
    (
        "portuguese",
        &[
            "o", "os", "e", "é", "uma", "do", "da", "não", "para", "com", "que", "em",
        ],
    ),
    (
        "dutch",
        &[
            "de", "het", "een", "en", "van", "is", "niet", "op", "dat", "zijn", "met", "voor",
        ],
    ),
    (
        "swedish",
        &[
            "och", "att", "det", "som", "är", "en", "på", "för", "med", "inte", "av", "den",
        ],
    ),
    (
        "russian",
        &[
            "и", "в", "не", "на", "что", "с", "по", "это", "как", "к", "для", "из",
        ],
    ),
];

/// The configuration a file's words are stemmed with (read from its first 20,000 characters):
/// `simple` when most of its letters are Chinese, Japanese or Korean (the library spaced them
/// one to a word), else the language whose common words it uses most, English when none
/// stands out.
pub(crate) fn config_for(passages: &[String]) -> &'static str {
    let sample: String = passages
        .iter()
        .flat_map(|p| p.chars().chain(['\n']))
        .take(20_000)
        .collect();
    let letters = sample.chars().filter(|c| c.is_alphabetic()).count();
    let cjk = sample
        .chars()
        .filter(|c| research_library::is_cjk(*c))
        .count();
    if letters == 0 || cjk * 2 > letters {
        return "simple";
    }
    let words: Vec<String> = sample
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .take(2_000)
        .map(str::to_lowercase)
        .collect();
    let score = |list: &[&str]| words.iter().filter(|w| list.contains(&w.as_str())).count();
    let best = STOP_WORDS
        .iter()
        .map(|(config, list)| (*config, score(list)))
        .max_by_key(|(_, n)| *n);
    match best {
        Some((config, n)) if n >= 2 => config,
        _ => "english",
    }
}

/// The words as a `tsquery` each configuration reads: every word a quoted lexeme (nothing
/// typed is syntax), a CJK word the phrase of its characters; `all` joins them with AND.
pub(crate) fn ts_query(words: &[String], all: bool) -> Option<String> {
    let words: Vec<String> = words
        .iter()
        .filter_map(|word| {
            let tokens: Vec<String> = segment_cjk(word)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|t| !t.is_empty())
                .map(|t| format!("'{t}'"))
                .collect();
            (!tokens.is_empty()).then(|| format!("({})", tokens.join(" <-> ")))
        })
        .collect();
    (!words.is_empty()).then(|| words.join(if all { " & " } else { " | " }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_texts_language_chooses_its_stemmer() {
        assert_eq!(
            config_for(&["The bees of the hive dance in the dark.".to_string()]),
            "english"
        );
        assert_eq!(
            config_for(&["Die Bienen tanzen im Stock, und das ist nicht zufällig.".to_string()]),
            "german"
        );
        assert_eq!(
            config_for(&[
                "Les abeilles dansent dans la ruche et ce n'est pas un hasard.".to_string()
            ]),
            "french"
        );
        assert_eq!(
            config_for(&["量子コンピュータは重ね合わせを利用して計算します。".to_string()]),
            "simple"
        );
        assert_eq!(
            config_for(&["Waggle dance".to_string()]),
            "english",
            "too short to tell"
        );
        assert_eq!(config_for(&["12345".to_string()]), "simple");
    }

    #[test]
    fn typed_text_is_never_query_syntax() {
        let words = research_library::query_words("bees & !wasps | 'x' <-> y:*");
        assert_eq!(
            ts_query(&words, true).unwrap(),
            "('bees') & ('wasps') & ('x') & ('y')"
        );
        assert_eq!(
            ts_query(&research_library::query_words("摇摆舞 dance"), false).unwrap(),
            "('摇' <-> '摆' <-> '舞') | ('dance')"
        );
        assert!(ts_query(&research_library::query_words("!!!"), true).is_none());
    }
}
