//! A person's or an organisation's name, as a citation style needs it: family name apart.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// An author: a person with a family and given name, or a name written as it is (an
/// organisation, a project), which a style never abbreviates or inverts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum Name {
    /// A person.
    Person {
        /// The family name ("Hipp", "van Rossum").
        family: String,
        /// The given names ("D. Richard"); empty when unknown.
        given: String,
    },
    /// A name written as it is.
    Literal {
        /// The name.
        literal: String,
    },
}

/// Words that make a name an organisation's: it is written as it is, never "O., W. H.".
const ORGANISATION: &[&str] = &[
    "inc",
    "inc.",
    "ltd",
    "ltd.",
    "llc",
    "foundation",
    "project",
    "team",
    "group",
    "organization",
    "organisation",
    "university",
    "institute",
    "association",
    "society",
    "committee",
    "contributors",
    "developers",
    "corporation",
    "council",
    "agency",
    "department",
    "ministry",
    "office",
    "community",
    "consortium",
    "staff",
    "editors",
    "documentation",
    "wiki",
];

/// Words that belong to the family name they come before ("Guido van Rossum").
const PARTICLES: &[&str] = &[
    "van", "von", "de", "der", "den", "da", "di", "del", "della", "la", "le", "du", "dos", "ter",
];

impl Name {
    /// A name as a page or a record writes it: "Family, Given" or "Given Family" for a person
    /// (family-name particles kept with the family name), a single word or an organisation's
    /// name as written. `None` for no name at all or an address (`article:author` is often a
    /// profile's URL).
    pub fn parse(text: &str) -> Option<Name> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let text = words.join(" ");
        let text = text.trim_matches([',', ';', ' ']).trim();
        if text.is_empty()
            || text.contains("://")
            || text.starts_with("www.")
            || text.starts_with('@')
        {
            return None;
        }
        let lower = text.to_lowercase();
        let organisation = lower.split([' ', ',']).any(|w| ORGANISATION.contains(&w));
        if organisation || !text.chars().any(char::is_alphabetic) {
            return Some(Name::Literal {
                literal: text.to_string(),
            });
        }
        if let Some((family, given)) = text.split_once(',') {
            let (family, given) = (family.trim(), given.trim());
            if !family.is_empty() && family.split_whitespace().count() <= 3 {
                return Some(Name::Person {
                    family: family.into(),
                    given: given.into(),
                });
            }
        }
        let words: Vec<&str> = text.split(' ').collect();
        // Chinese and Japanese names put the family name first ("山田 太郎").
        if words.len() == 2 && text.chars().any(is_cjk) {
            return Some(Name::Person {
                family: words[0].into(),
                given: words[1].into(),
            });
        }
        // One word, or more than a name has: written as it is.
        if words.len() < 2 || words.len() > 5 {
            return Some(Name::Literal {
                literal: text.to_string(),
            });
        }
        let mut split = words.len() - 1;
        while split > 1 && PARTICLES.contains(&words[split - 1].to_lowercase().as_str()) {
            split -= 1;
        }
        Some(Name::Person {
            family: words[split..].join(" "),
            given: words[..split].join(" "),
        })
    }

    /// Several names in one value, as an `author` tag or a record may hold them: split at
    /// semicolons and " and ", and at commas when the value is a list ("Ada Lovelace, Alan
    /// Turing") rather than one inverted name ("Lovelace, Ada").
    pub fn parse_list(text: &str) -> Vec<Name> {
        let mut parts: Vec<String> = Vec::new();
        for part in text.split(';') {
            for part in part.split(" and ") {
                let pieces: Vec<&str> = part
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .collect();
                let a_list = pieces.len() > 2
                    || (pieces.len() == 2
                        && pieces.iter().all(|p| p.split_whitespace().count() >= 2));
                if a_list {
                    parts.extend(pieces.iter().map(|p| p.to_string()));
                } else {
                    parts.push(part.to_string());
                }
            }
        }
        parts.iter().filter_map(|p| Name::parse(p)).collect()
    }

    /// The name as a CSL-JSON name object; a family name's leading particles ("van", "von
    /// der") are its `non-dropping-particle`, so a style keeps them where it should ("von
    /// Frisch, K.") rather than moving them after the given name.
    pub fn csl(&self) -> Value {
        match self {
            Name::Person { family, given } => {
                let words: Vec<&str> = family.split(' ').collect();
                let particles = words
                    .iter()
                    .take(words.len().saturating_sub(1))
                    .take_while(|w| PARTICLES.contains(w))
                    .count();
                let mut out = json!({ "family": words[particles..].join(" ") });
                if particles > 0 {
                    out["non-dropping-particle"] = words[..particles].join(" ").into();
                }
                if !given.is_empty() {
                    out["given"] = given.as_str().into();
                }
                out
            }
            Name::Literal { literal } => json!({ "literal": literal }),
        }
    }

    /// A CSL-JSON name object read back (`family`/`given`, or `literal`).
    pub fn from_csl(v: &Value) -> Option<Name> {
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        if let Some(literal) = text("literal") {
            return Some(Name::Literal {
                literal: literal.into(),
            });
        }
        let family = text("family")?;
        // CSL-JSON keeps particles apart; a style puts them back.
        let family = match text("non-dropping-particle") {
            Some(p) => format!("{p} {family}"),
            None => family.to_string(),
        };
        Some(Name::Person {
            family,
            given: text("given").unwrap_or_default().to_string(),
        })
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(family: &str, given: &str) -> Name {
        Name::Person {
            family: family.into(),
            given: given.into(),
        }
    }

    fn literal(l: &str) -> Name {
        Name::Literal { literal: l.into() }
    }

    #[test]
    fn names_as_pages_write_them() {
        assert_eq!(
            Name::parse("Hipp, D. Richard"),
            Some(person("Hipp", "D. Richard"))
        );
        assert_eq!(
            Name::parse("  D. Richard   Hipp "),
            Some(person("Hipp", "D. Richard"))
        );
        assert_eq!(
            Name::parse("Guido van Rossum"),
            Some(person("van Rossum", "Guido"))
        );
        assert_eq!(
            Name::parse("The PostgreSQL Global Development Group"),
            Some(literal("The PostgreSQL Global Development Group"))
        );
        assert_eq!(
            Name::parse("World Health Organization"),
            Some(literal("World Health Organization"))
        );
        assert_eq!(Name::parse("Wikipedia"), Some(literal("Wikipedia")));
        assert_eq!(Name::parse("https://www.facebook.com/someone"), None);
        assert_eq!(Name::parse("   "), None);
        assert_eq!(Name::parse("山田 太郎"), Some(person("山田", "太郎")));
    }

    #[test]
    fn lists_of_names_are_split_but_an_inverted_name_is_not() {
        assert_eq!(
            Name::parse_list("Lovelace, Ada"),
            vec![person("Lovelace", "Ada")]
        );
        assert_eq!(
            Name::parse_list("Ada Lovelace, Alan Turing"),
            vec![person("Lovelace", "Ada"), person("Turing", "Alan")]
        );
        assert_eq!(
            Name::parse_list("Lovelace, Ada; Turing, Alan"),
            vec![person("Lovelace", "Ada"), person("Turing", "Alan")]
        );
        assert_eq!(
            Name::parse_list("Ada Lovelace and Alan Turing"),
            vec![person("Lovelace", "Ada"), person("Turing", "Alan")]
        );
    }

    #[test]
    fn csl_names_round_trip() {
        for n in [
            person("Hipp", "D. Richard"),
            person("Plato", ""),
            literal("SQLite Consortium"),
        ] {
            assert_eq!(Name::from_csl(&n.csl()), Some(n));
        }
        let zotero = serde_json::json!({"family": "Rossum", "given": "Guido", "non-dropping-particle": "van"});
        assert_eq!(Name::from_csl(&zotero), Some(person("van Rossum", "Guido")));
    }
}
