//! What a revision may change (seed 000's revision loop): only the sections the issues name,
//! and never the wording of a sentence the audit verified. The writer is asked for both in its
//! prompt; this check makes it so after writing, since a small model rewrites whatever it is
//! shown.
//!
//! A section the issues do not name is put back as it was; a verified sentence that the
//! revision paraphrased (the same content words, reworded) gets its verified wording back. A
//! revision with no section named (a person's feedback, an issue about the whole report) may
//! change every section, but its verified sentences still stay verbatim.

use unicode_segmentation::UnicodeSegmentation;

use super::audit::{AuditEntry, AuditStatus};
use crate::text::query_similarity;

/// A draft being revised, and what the revision must keep.
#[derive(Debug, Clone, Copy)]
pub struct Revision<'a> {
    /// The draft's writer part, as audited.
    pub draft: &'a str,
    /// The issues or the person's feedback, as the writer reads them.
    pub feedback: &'a str,
    /// Where the issues point (their locations); empty when they name no section.
    pub locations: &'a [String],
    /// The draft's sentences the audit verified, as the draft has them.
    pub verified: &'a [String],
}

/// The sentences of `draft` that the audit verified, as the draft has them (the findings
/// list's lines are not the writer's and are left out).
pub fn verified_in(draft: &str, audit: &[AuditEntry]) -> Vec<String> {
    audit
        .iter()
        .filter(|e| e.status == AuditStatus::Verified && draft.contains(&e.sentence))
        .map(|e| e.sentence.clone())
        .collect()
}

/// What [`keep`] put back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kept {
    /// Sections the issues did not name, restored as they were.
    pub sections: usize,
    /// Verified sentences the revision had reworded, restored verbatim.
    pub sentences: usize,
}

/// Share of a verified sentence's content words a revised sentence must share to count as its
/// rewording (and not a new sentence).
pub const REWORDED: f64 = 0.6;

/// One section of a body: its heading line (empty for the text before the first heading) and
/// its text.
#[derive(Debug, Clone, PartialEq)]
struct Section {
    heading: String,
    text: String,
}

fn sections(body: &str) -> Vec<Section> {
    let mut out = vec![Section {
        heading: String::new(),
        text: String::new(),
    }];
    for line in body.split_inclusive('\n') {
        if line.trim_start().starts_with("##") {
            out.push(Section {
                heading: line.trim().to_string(),
                text: String::new(),
            });
        } else if let Some(last) = out.last_mut() {
            last.text.push_str(line);
        }
    }
    out.retain(|s| !s.heading.is_empty() || !s.text.trim().is_empty());
    out
}

/// The heading's words, lower case, without the `#`s.
fn title(heading: &str) -> String {
    heading.trim_start_matches('#').trim().to_lowercase()
}

/// Whether some location names this section's title.
fn named(heading: &str, locations: &[String]) -> bool {
    let title = title(heading);
    !title.is_empty() && locations.iter().any(|l| l.to_lowercase().contains(&title))
}

/// Puts back what the revision of `revision.draft` into `revised` had no leave to change.
pub fn keep(revision: &Revision<'_>, revised: &str) -> (String, Kept) {
    let mut kept = Kept::default();
    let before = sections(revision.draft);
    let after = sections(revised);
    // Sections named by the issues, by the titles the draft had.
    let any_named = before.iter().any(|s| named(&s.heading, revision.locations));
    let mut out: Vec<Section> = Vec::new();
    for section in &after {
        let old = before
            .iter()
            .find(|b| title(&b.heading) == title(&section.heading));
        match old {
            Some(old)
                if any_named
                    && !old.heading.is_empty()
                    && !named(&old.heading, revision.locations)
                    && old.text.trim() != section.text.trim() =>
            {
                kept.sections += 1;
                out.push(old.clone());
            }
            _ => out.push(section.clone()),
        }
    }
    if any_named {
        // An unnamed section the revision dropped comes back where it was.
        for (i, old) in before.iter().enumerate() {
            let present = out.iter().any(|s| title(&s.heading) == title(&old.heading));
            if present || old.heading.is_empty() || named(&old.heading, revision.locations) {
                continue;
            }
            let after_title = before[..i].iter().rev().find_map(|p| {
                out.iter()
                    .position(|s| title(&s.heading) == title(&p.heading))
            });
            let at = after_title.map_or(out.len(), |p| p + 1);
            out.insert(at, old.clone());
            kept.sections += 1;
        }
    }
    let mut body = String::new();
    for s in &out {
        if !s.heading.is_empty() {
            body.push_str(&s.heading);
            body.push('\n');
        }
        body.push_str(&s.text);
        if !body.ends_with('\n') {
            body.push('\n');
        }
    }
    let (body, restored) = verified_verbatim(&body, revision.verified);
    kept.sentences = restored;
    (body, kept)
}

/// Each verified sentence the body rewords (and does not also keep) gets its verified wording
/// back.
fn verified_verbatim(body: &str, verified: &[String]) -> (String, usize) {
    let mut restored = 0;
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            out.push_str(line);
            continue;
        }
        for sentence in line.split_sentence_bounds() {
            let text = sentence.trim();
            let original = verified
                .iter()
                .find(|v| v.as_str() != text && !body.contains(v.as_str()) && rewording(v, text));
            match original {
                Some(v) => {
                    restored += 1;
                    out.push_str(v);
                    out.push_str(&sentence[sentence.trim_end().len()..]);
                }
                None => out.push_str(sentence),
            }
        }
    }
    (out, restored)
}

/// Whether `revised` says what `verified` says in other words: most of their content words
/// shared (a sentence of a few words is too short to tell).
fn rewording(verified: &str, revised: &str) -> bool {
    verified.unicode_words().count() >= 4 && query_similarity(verified, revised) >= REWORDED
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAFT: &str = "## Summary\nRust manages memory through ownership rules checked at compile time [1].\n\n\
## Ownership\nEach value has a single owner and is dropped when the owner goes out of scope [1].\n\n\
## Compared with garbage collection\nTracing collectors work at run time [2].\n";

    fn verified() -> Vec<String> {
        vec![
            "Rust manages memory through ownership rules checked at compile time [1].".into(),
            "Each value has a single owner and is dropped when the owner goes out of scope [1]."
                .into(),
        ]
    }

    #[test]
    fn sections_the_issues_do_not_name_stay_as_they_were() {
        let locations = vec!["Compared with garbage collection".to_string()];
        let verified = verified();
        let revision = Revision {
            draft: DRAFT,
            feedback: "",
            locations: &locations,
            verified: &verified,
        };
        let revised = "## Summary\nRust is memory safe [1].\n\n\
## Compared with garbage collection\nTracing collectors in Java and Go work at run time [2].\n";
        let (body, kept) = keep(&revision, revised);
        assert!(body.contains(&verified[0]), "{body}");
        assert!(
            body.contains("## Ownership\nEach value has a single owner"),
            "{body}"
        );
        assert!(
            body.contains("in Java and Go"),
            "the named section is revised: {body}"
        );
        assert_eq!(kept.sections, 2);
        // In the draft's order.
        assert!(body.find("## Ownership").unwrap() < body.find("## Compared").unwrap());
    }

    #[test]
    fn a_reworded_verified_sentence_gets_its_wording_back_anywhere() {
        let verified = verified();
        let revision = Revision {
            draft: DRAFT,
            feedback: "Shorter, please.",
            locations: &[],
            verified: &verified,
        };
        let revised = "## Summary\nRust manages its memory through ownership rules that are checked at compile time [1]. \
It has no collector [2].\n";
        let (body, kept) = keep(&revision, revised);
        assert_eq!(kept.sections, 0, "no section named: all may change");
        assert_eq!(kept.sentences, 1);
        assert!(
            body.contains(&format!("{} It has no collector [2].", verified[0])),
            "{body}"
        );
        assert!(
            !body.contains("Ownership"),
            "dropping a section is the person's call: {body}"
        );
    }

    #[test]
    fn a_new_sentence_is_not_mistaken_for_a_rewording() {
        let verified = verified();
        let revision = Revision {
            draft: DRAFT,
            feedback: "",
            locations: &[],
            verified: &verified,
        };
        let revised = "## Summary\nGarbage collectors pause programs at run time [2].\n";
        let (body, kept) = keep(&revision, revised);
        assert_eq!(body, revised);
        assert_eq!(kept, Kept::default());
    }
}
