//! Which sources speak with one voice. Two sources are one origin when they are on the same
//! site (the same registrable domain; for library files, the same folder), or when one's text is
//! a copy of the other's — the same stored text, or most of its five-word runs found in the
//! other (a mirror or a syndicated copy). Cross-validation counts origins, not sources, so a
//! claim copied across ten sites is still one source's word.

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use super::credibility::host_of;
use crate::records::Source;

/// Share of the shorter text's five-word runs found in the other above which it is a copy.
pub const COPY_CONTAINMENT: f64 = 0.8;

/// Texts with fewer five-word runs than this are compared only for being the same text.
const MIN_SHINGLES: usize = 12;

/// Characters of a text compared for copying (a copy shows in its first pages).
const COMPARED_CHARS: usize = 200_000;

/// Two-label public suffixes under which a registrable domain has three labels.
const SECOND_LEVEL: &[&str] = &[
    "co.uk", "ac.uk", "gov.uk", "org.uk", "co.jp", "ac.jp", "go.jp", "ne.jp", "or.jp", "com.au",
    "edu.au", "gov.au", "co.nz", "com.br", "co.in", "com.cn",
];

/// A source found to be the same origin as an earlier one, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SameOrigin {
    /// The later source.
    pub source_id: u32,
    /// The earlier source it speaks with.
    pub of: u32,
    /// Why, in words ("the same site, example.org", "a copy of its text").
    pub why: String,
}

/// The site of a source: its registrable domain, the folder of a library file, or its URL.
pub fn site_of(source: &Source) -> String {
    if let Some(path) = source.url.strip_prefix("file://") {
        return match path.rfind('/') {
            Some(i) => format!("file://{}", &path[..i]),
            None => source.url.clone(),
        };
    }
    let Some(host) = host_of(&source.url) else {
        return source.url.clone();
    };
    let labels: Vec<&str> = host.split('.').collect();
    if host.parse::<std::net::IpAddr>().is_ok() || labels.len() <= 2 {
        return host;
    }
    let last_two = labels[labels.len() - 2..].join(".");
    let keep = if SECOND_LEVEL.contains(&last_two.as_str()) {
        3
    } else {
        2
    };
    labels[labels.len().saturating_sub(keep)..].join(".")
}

fn shingles(text: &str) -> HashSet<u64> {
    let cut: String = text.chars().take(COMPARED_CHARS).collect();
    let words: Vec<String> = cut
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words
        .windows(5)
        .map(|w| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            w.hash(&mut h);
            h.finish()
        })
        .collect()
}

/// The origins of a run's sources.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origins {
    /// Each source's origin: the id of the first source of its group.
    group: BTreeMap<u32, u32>,
    /// Every source that joined an earlier one's origin, and why.
    pub same: Vec<SameOrigin>,
}

impl Origins {
    /// Groups `sources` (in order; the first of a group names it), with `texts` their stored
    /// plain texts by source id (a source without text is grouped by site alone).
    pub fn of(sources: &[Source], texts: &BTreeMap<u32, String>) -> Self {
        let mut origins = Origins::default();
        let shingled: BTreeMap<u32, HashSet<u64>> =
            texts.iter().map(|(id, t)| (*id, shingles(t))).collect();
        let mut seen: Vec<&Source> = Vec::new();
        for s in sources {
            let site = site_of(s);
            let copy_of = seen.iter().find_map(|earlier| {
                if !s.sha256.is_empty() && s.sha256 == earlier.sha256 {
                    return Some((earlier.id, "the same text".to_string()));
                }
                let (a, b) = (shingled.get(&s.id)?, shingled.get(&earlier.id)?);
                let smaller = a.len().min(b.len());
                if smaller < MIN_SHINGLES {
                    return None;
                }
                let shared = a.intersection(b).count();
                let share = shared as f64 / smaller as f64;
                (share >= COPY_CONTAINMENT).then(|| {
                    (
                        earlier.id,
                        format!("a copy of its text ({:.0}% shared)", share * 100.0),
                    )
                })
            });
            let same_site = || {
                seen.iter()
                    .find(|earlier| site_of(earlier) == site)
                    .map(|earlier| (earlier.id, format!("the same site, {site}")))
            };
            match copy_of.or_else(same_site) {
                Some((of, why)) => {
                    let root = origins.group.get(&of).copied().unwrap_or(of);
                    origins.group.insert(s.id, root);
                    origins.same.push(SameOrigin {
                        source_id: s.id,
                        of,
                        why,
                    });
                }
                None => {
                    origins.group.insert(s.id, s.id);
                }
            }
            seen.push(s);
        }
        origins
    }

    /// The origin of source `id` (itself when unknown).
    pub fn origin(&self, id: u32) -> u32 {
        self.group.get(&id).copied().unwrap_or(id)
    }

    /// How many independent origins `ids` come from.
    pub fn independent(&self, ids: impl IntoIterator<Item = u32>) -> usize {
        ids.into_iter()
            .map(|id| self.origin(id))
            .collect::<HashSet<_>>()
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(id: u32, url: &str, sha: &str) -> Source {
        Source {
            sha256: sha.into(),
            ..super::super::a_source(id, url)
        }
    }

    #[test]
    fn sites_are_registrable_domains_and_library_folders() {
        let s = |u: &str| site_of(&source(1, u, ""));
        assert_eq!(s("https://news.bbc.co.uk/a"), "bbc.co.uk");
        assert_eq!(s("https://docs.example.org/x"), "example.org");
        assert_eq!(s("https://example.org"), "example.org");
        assert_eq!(
            s("file:///usr/share/doc/x/a.html"),
            "file:///usr/share/doc/x"
        );
        assert_eq!(s("http://127.0.0.1:8080/a"), "127.0.0.1");
    }

    #[test]
    fn mirrors_copies_and_one_site_count_once() {
        let article =
            "Honeybee colonies in temperate climates hold between twenty and sixty thousand \
workers in summer, and the queen lays up to two thousand eggs a day at the peak of the season. \
Workers live about six weeks in summer and several months in winter, when the colony clusters to \
keep warm and eats the honey it stored.";
        let sources = vec![
            source(1, "https://bees.example.org/colony", "a"),
            source(2, "https://mirror.example.net/colony", "b"),
            source(3, "https://syndicated.example.com/news/bees", "c"),
            source(4, "https://blog.example.org/other", "d"),
            source(5, "https://independent.example.edu/bees", "e"),
            source(6, "https://same.example.info/bees", "e"),
        ];
        let mut texts = BTreeMap::new();
        texts.insert(1, article.to_string());
        texts.insert(2, format!("Mirror of bees.example.org. {article}"));
        texts.insert(
            3,
            format!("{article} Reprinted with permission; subscribe for more."),
        );
        texts.insert(4, "A different post about wasps and their nests in old walls and what to do about them in spring and summer when they are active.".to_string());
        texts.insert(5, "Bee colonies were counted by the university survey over ten years in four countries with twelve hundred hives and found to shrink in cold winters.".to_string());
        texts.insert(6, String::new());
        let o = Origins::of(&sources, &texts);
        assert_eq!(o.origin(2), 1, "{:?}", o.same);
        assert_eq!(o.origin(3), 1);
        assert_eq!(o.origin(4), 1, "same site");
        assert_eq!(o.origin(5), 5);
        assert_eq!(o.origin(6), 5, "same stored text");
        assert_eq!(o.independent([1, 2, 3, 4]), 1);
        assert_eq!(o.independent([1, 5, 6]), 2);
        assert!(o
            .same
            .iter()
            .any(|s| s.source_id == 2 && s.why.starts_with("a copy")));
    }
}
