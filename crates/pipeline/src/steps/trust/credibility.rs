//! How far a source can be trusted before anything it says is checked (seed 004's E-E-A-T,
//! made explainable): four signals, each with the words that say why, weighted into one score.
//! A source under [`MIN_CREDIBILITY`] is kept out of the writer's evidence and listed as
//! excluded with its reasons. No model is asked: a page cannot talk its own score up.

use serde::{Deserialize, Serialize};

use crate::records::Source;

/// Below this score a source is excluded from the writer's evidence (seed 004's
/// `min_source_credibility`).
pub const MIN_CREDIBILITY: f64 = 0.35;

/// A source on a low-trust domain scores at most this: under the bar whatever else it has.
pub const LOW_TRUST_CAP: f64 = 0.3;

/// The weights of the four signals: domain, authority (kind of source), freshness, content.
const WEIGHTS: [f64; 4] = [0.4, 0.25, 0.15, 0.2];

/// Stored text shorter than this (characters) is a thin page: a stub, a paywall or an error.
pub const THIN_PAGE_CHARS: usize = 400;

/// A source's credibility and the reasons for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Credibility {
    /// The source.
    pub source_id: u32,
    /// 0 to 1.
    pub score: f64,
    /// Whether it is kept out of the writer's evidence (under [`MIN_CREDIBILITY`]).
    pub excluded: bool,
    /// Why, one reason per signal, in words.
    pub why: Vec<String>,
}

/// The domain lists a score is made against.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Domains {
    /// Trusted entries (`.edu` matches a suffix, `arxiv.org` the domain and its subdomains).
    pub trusted: Vec<String>,
    /// Low-trust entries, matched the same way.
    pub low_trust: Vec<String>,
}

impl Domains {
    /// The lists a run configuration holds (the user's or the defaults).
    pub fn of(config: &crate::RunConfig) -> Self {
        Self {
            trusted: config.trusted(),
            low_trust: config.low_trust(),
        }
    }
}

/// The host of an http(s) URL, lower-cased, without `www.` (`None` for other URLs).
pub fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?.split(':').next()?;
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    (!host.is_empty()).then_some(host)
}

/// The entry of `list` that `host` matches, if any.
fn matching<'a>(host: &str, list: &'a [String]) -> Option<&'a str> {
    list.iter().map(|e| e.trim()).find(|entry| {
        let entry = entry.trim_start_matches("www.").to_ascii_lowercase();
        if entry.is_empty() {
            return false;
        }
        if entry.starts_with('.') {
            host.ends_with(&entry) || host == entry.trim_start_matches('.')
        } else {
            host == entry || host.ends_with(&format!(".{entry}"))
        }
    })
}

/// The year a provider's date string names (`2023-05-01`, `May 2023`, `2 years ago` gives none).
pub fn year_of(published: &str) -> Option<i32> {
    let bytes = published.as_bytes();
    (0..bytes.len().saturating_sub(3)).find_map(|i| {
        let run = &published.get(i..i + 4)?;
        let before = i.checked_sub(1).map(|j| bytes[j].is_ascii_digit());
        let after = bytes.get(i + 4).map(u8::is_ascii_digit);
        if before == Some(true) || after == Some(true) || !run.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let year: i32 = run.parse().ok()?;
        (1900..=2200).contains(&year).then_some(year)
    })
}

/// The year of `ms` since the epoch.
fn year_at(ms: i64) -> i32 {
    crate::report::date(ms)[..4].parse().unwrap_or(1970)
}

/// Words a page selling or baiting uses.
const BAIT: &[&str] = &[
    "you won't believe",
    "click here",
    "buy now",
    "sponsored content",
    "limited time offer",
    "subscribe to read",
    "sign in to continue",
];

/// Scores `source`, whose stored plain text is `text`, at `now_ms`.
pub fn score(source: &Source, text: &str, domains: &Domains, now_ms: i64) -> Credibility {
    let mut why = Vec::new();
    let local = source.url.starts_with("file://") || source.kind == "local";
    let host = host_of(&source.url);
    let mut low_trust = false;
    // Domain (E-E-A-T's trust).
    let domain = match (&host, local) {
        (_, true) => {
            why.push("in your library".to_string());
            0.75
        }
        (Some(h), false) => {
            if let Some(entry) = matching(h, &domains.low_trust) {
                low_trust = true;
                why.push(format!("low-trust domain ({entry})"));
                0.1
            } else if let Some(entry) = matching(h, &domains.trusted) {
                why.push(format!("trusted domain ({entry})"));
                0.95
            } else {
                why.push(format!("domain {h} is on neither list"));
                0.5
            }
        }
        (None, false) => {
            why.push("no web address".to_string());
            0.4
        }
    };
    // Authority from the kind of source (E-E-A-T's expertise).
    let authority = match source.kind.as_str() {
        "academic" => {
            why.push("a paper or preprint".to_string());
            0.9
        }
        "news" => {
            why.push("a news article".to_string());
            0.6
        }
        "local" => 0.7,
        _ => 0.5,
    };
    // Freshness from the date the provider gave.
    let freshness = match source.published.as_deref().and_then(year_of) {
        Some(year) => {
            let age = (year_at(now_ms) - year).max(0);
            why.push(match age {
                0 => format!("published {year}"),
                1 => format!("published {year} (1 year ago)"),
                a => format!("published {year} ({a} years ago)"),
            });
            match age {
                0..=2 => 1.0,
                3..=5 => 0.8,
                6..=10 => 0.6,
                _ => 0.4,
            }
        }
        None => 0.5,
    };
    // Content signals (E-E-A-T's experience shows in substance, sources and no bait).
    let chars = text.chars().count();
    let lower = text.to_lowercase();
    let mut content: f64 = if chars < THIN_PAGE_CHARS {
        why.push(format!("thin page ({chars} characters)"));
        0.1
    } else if chars < 2_000 {
        0.5
    } else {
        0.7
    };
    let cites = lower.contains("doi.org/")
        || lower.contains("\nreferences")
        || lower.contains("bibliography")
        || text.matches("et al.").count() >= 2;
    if cites {
        why.push("cites its own sources".to_string());
        content += 0.25;
    }
    let bait: Vec<&str> = BAIT.iter().copied().filter(|b| lower.contains(b)).collect();
    if !bait.is_empty() {
        why.push(format!(
            "bait or paywall words (\"{}\")",
            bait.join("\", \"")
        ));
        content -= 0.3;
    }
    let content = content.clamp(0.0, 1.0);
    let signals = [domain, authority, freshness, content];
    let mut score: f64 = signals.iter().zip(WEIGHTS).map(|(s, w)| s * w).sum();
    // A low-trust site, or a stub that asks to sign in or sells: under the bar whatever else.
    if low_trust || (chars < THIN_PAGE_CHARS && !bait.is_empty()) {
        score = score.min(LOW_TRUST_CAP);
    }
    let score = (score * 100.0).round() / 100.0;
    Credibility {
        source_id: source.id,
        score,
        excluded: score < MIN_CREDIBILITY,
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(url: &str, kind: &str, published: Option<&str>) -> Source {
        Source {
            kind: kind.into(),
            published: published.map(str::to_string),
            ..super::super::a_source(1, url)
        }
    }

    fn domains() -> Domains {
        Domains::of(&crate::RunConfig::default())
    }

    const NOW: i64 = 1_795_000_000_000; // 2026-11

    #[test]
    fn trusted_domains_score_high_and_low_trust_ones_are_excluded() {
        let body = "Honeybees communicate by dancing. ".repeat(80);
        let edu = score(
            &source("https://bio.stanford.edu/bees", "web", Some("2025-03-01")),
            &body,
            &domains(),
            NOW,
        );
        assert!(edu.score > 0.7, "{edu:?}");
        assert!(edu.why.iter().any(|w| w.contains(".edu")));
        assert!(edu.why.iter().any(|w| w.contains("2025")));
        let quora = score(
            &source("https://www.quora.com/q/bees", "web", None),
            &body,
            &domains(),
            NOW,
        );
        assert!(quora.excluded && quora.score <= LOW_TRUST_CAP, "{quora:?}");
        assert!(quora.why[0].contains("quora.com"));
        // The user's lists replace the defaults.
        let mine = Domains {
            trusted: vec!["quora.com".into()],
            low_trust: vec![],
        };
        let q = score(
            &source("https://quora.com/x", "web", None),
            &body,
            &mine,
            NOW,
        );
        assert!(!q.excluded && q.score > 0.6, "{q:?}");
    }

    #[test]
    fn thin_or_baiting_pages_fall_under_the_bar_and_say_why() {
        let thin = score(
            &source("https://example.com/a", "web", None),
            "Subscribe to read. Click here.",
            &domains(),
            NOW,
        );
        assert!(thin.excluded, "{thin:?}");
        assert!(thin.why.iter().any(|w| w.starts_with("thin page")));
        assert!(thin.why.iter().any(|w| w.starts_with("bait")));
        let library = score(
            &source("file:///docs/manual.html", "local", None),
            &"Valgrind is a tool suite. ".repeat(100),
            &domains(),
            NOW,
        );
        assert!(!library.excluded && library.score >= 0.6, "{library:?}");
    }

    #[test]
    fn hosts_and_years_are_read_strictly() {
        assert_eq!(
            host_of("https://WWW.Nature.com:443/x?y").as_deref(),
            Some("nature.com")
        );
        assert_eq!(host_of("file:///x"), None);
        assert_eq!(year_of("2023-05-01"), Some(2023));
        assert_eq!(year_of("May 2019"), Some(2019));
        assert_eq!(year_of("12345"), None);
        assert_eq!(year_of("2 days ago"), None);
        // A suffix entry does not match a domain that merely ends in the same letters.
        let d = Domains {
            trusted: vec!["arxiv.org".into()],
            low_trust: vec![],
        };
        assert!(matching("export.arxiv.org", &d.trusted).is_some());
        assert!(matching("notarxiv.org", &d.trusted).is_none());
    }
}
