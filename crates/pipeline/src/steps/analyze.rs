//! The analyst (seed 000 §3.1): themes across the evidence, contradictions between sources,
//! the gaps left, and how far the evidence can be trusted — before the writer starts, so the
//! report says where its sources disagree and what they do not answer, instead of leaving that
//! to the Method tab.
//!
//! The model proposes; the record decides. A contradiction must name two evidence items from
//! two different sources about the same thing (they share words), and the report quotes both
//! passages as the sources state them, so it is grounded like any finding. A gap must be plain
//! words on the topic; research questions the evidence left missing are gaps without asking.
//! The confidence is never higher than the share of claims the checks supported.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::audit::{AuditEntry, AuditStatus};
use super::{numbered, plain, Brief};
use crate::ask::{ask_or, Ctx};
use crate::guard;
use crate::records::{Claim, Coverage, Evidence, Source, Warning};
use crate::roles::Role;
use crate::steps::trust::credibility::{self, Credibility};

/// Two sources that disagree, each with the passage that says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Contradiction {
    /// What they disagree about, in a few words.
    pub about: String,
    /// One side: an evidence item.
    pub first: u32,
    /// The other side: an evidence item of another source.
    pub second: u32,
}

/// What the analyst made of the evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Analysis {
    /// Themes that run across the evidence.
    pub themes: Vec<String>,
    /// Sources that disagree.
    pub contradictions: Vec<Contradiction>,
    /// What the evidence does not answer.
    pub gaps: Vec<String>,
    /// How far the evidence can be trusted, 0–1 (never above the supported share of claims).
    pub confidence: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ContradictionOut {
    #[schemars(length(max = 120))]
    about: String,
    first: i64,
    second: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct AnalyzeOut {
    #[schemars(length(max = 5), inner(length(max = 100)))]
    themes: Vec<String>,
    #[schemars(length(max = 4))]
    contradictions: Vec<ContradictionOut>,
    #[schemars(length(max = 4), inner(length(max = 160)))]
    gaps: Vec<String>,
    confidence: f64,
}

const ANALYZE: &str = "You analyse numbered evidence collected for a research question. Name up to 5 \
themes that run across it; list contradictions: pairs of evidence numbers from different sources that \
state incompatible things, with what they disagree about in a few words (none when they agree); name \
what the evidence leaves unanswered; and give your confidence between 0 and 1 that the evidence answers \
the question.";

/// What the analyst works from.
pub struct AnalyzeInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The plan's research questions.
    pub questions: &'a [String],
    /// How well each research question is covered.
    pub coverage: &'a [Coverage],
    /// All evidence.
    pub evidence: &'a [Evidence],
    /// The checked claims.
    pub claims: &'a [Claim],
    /// Conflicts the workers' synthesis named (multi agent), as hints.
    pub conflicts: &'a [String],
}

/// Contradictions the report may state: two existing items of different sources about the
/// same thing, each pair once.
fn grounded(found: Vec<ContradictionOut>, evidence: &[Evidence]) -> Vec<Contradiction> {
    let mut out: Vec<Contradiction> = Vec::new();
    for c in found {
        let item = |n: i64| evidence.iter().find(|e| i64::from(e.id) == n);
        let (Some(a), Some(b)) = (item(c.first), item(c.second)) else {
            continue;
        };
        let about = c.about.trim().to_string();
        let same_subject = guard::shares_content(&a.quote, &b.quote);
        let words = plain(&about) && guard::degenerate(&about).is_none() && !about.is_empty();
        let seen = out
            .iter()
            .any(|o| (o.first, o.second) == (a.id, b.id) || (o.first, o.second) == (b.id, a.id));
        if a.source_id != b.source_id
            && a.quote != b.quote
            && same_subject
            && words
            && !about.contains('[')
            && !seen
        {
            out.push(Contradiction {
                about,
                first: a.id,
                second: b.id,
            });
        }
    }
    out.truncate(3);
    out
}

/// A theme or gap the report may state: plain words (no markup, no citation marker), not a
/// loop, and on the topic of `context`.
fn phrase(text: &str, context: &[&str]) -> bool {
    let t = text.trim();
    !t.is_empty()
        && plain(t)
        && !t.contains('[')
        && guard::degenerate(t).is_none()
        && guard::on_topic(t, context)
}

/// Analyses the evidence. A model that cannot answer in shape leaves the record's own gaps and
/// confidence (with a warning); a provider failure is an error.
pub async fn analyze(
    ctx: &Ctx,
    input: &AnalyzeInput<'_>,
) -> Result<(Analysis, Vec<Warning>), NodeError> {
    let supported = if input.claims.is_empty() {
        0.0
    } else {
        input.claims.iter().filter(|c| c.supported).count() as f64 / input.claims.len() as f64
    };
    // Questions the evidence left missing are gaps whatever the model says.
    let mut gaps: Vec<String> = input
        .questions
        .iter()
        .zip(input.coverage)
        .filter(|(_, c)| **c == Coverage::Missing)
        .map(|(q, _)| q.trim().to_string())
        .collect();
    if input.evidence.is_empty() {
        return Ok((
            Analysis {
                gaps,
                ..Default::default()
            },
            Vec::new(),
        ));
    }
    let mut user = input.brief.block();
    user.push_str(&format!(
        "Research questions:\n{}\nEvidence (number, source, quote):\n",
        numbered(input.questions)
    ));
    for e in super::verify::spread(input.evidence, 30) {
        user.push_str(&format!(
            "[{}] (source {}) \"{}\"\n",
            e.id,
            e.source_id,
            e.quote.replace('\n', " ")
        ));
    }
    if !input.conflicts.is_empty() {
        user.push_str("\nConflicts the researchers noticed:\n");
        for c in input.conflicts {
            user.push_str(&format!("- {c}\n"));
        }
    }
    let (out, warnings) =
        ask_or::<AnalyzeOut>(ctx, Role::Analyze, ANALYZE.into(), user, 700).await?;
    let Some(out) = out else {
        return Ok((
            Analysis {
                gaps,
                confidence: supported,
                ..Default::default()
            },
            warnings,
        ));
    };
    let topic = input.brief.topic();
    let mut context: Vec<&str> = vec![topic.as_str()];
    context.extend(input.questions.iter().map(String::as_str));
    for g in out.gaps.iter().filter(|g| phrase(g, &context)) {
        let g = g.trim().to_string();
        if !gaps
            .iter()
            .any(|x| crate::text::query_similarity(x, &g) >= crate::text::DUPLICATE_QUERY)
        {
            gaps.push(g);
        }
    }
    gaps.truncate(5);
    // A theme is about the evidence (words the question may not use): on topic with it.
    let mut read: Vec<&str> = context.clone();
    read.extend(input.evidence.iter().map(|e| e.quote.as_str()));
    let themes = super::clean_list(
        out.themes
            .into_iter()
            .filter(|t| phrase(t, &read))
            .collect(),
        5,
    );
    let confidence = if out.confidence.is_finite() {
        out.confidence.clamp(0.0, 1.0).min(supported)
    } else {
        supported
    };
    Ok((
        Analysis {
            themes,
            contradictions: grounded(out.contradictions, input.evidence),
            gaps,
            confidence,
        },
        warnings,
    ))
}

/// The report's section on where the sources disagree and what they leave open, with the audit
/// of its cited lines (each quotes both passages as the sources state them). Empty when there
/// is nothing to say.
pub fn section(
    analysis: &Analysis,
    evidence: &[Evidence],
    sides: &Sides<'_>,
    language: &str,
) -> (String, Vec<AuditEntry>) {
    let ja = language == "ja";
    let mut lines = Vec::new();
    let mut entries = Vec::new();
    for c in &analysis.contradictions {
        let item = |id: u32| evidence.iter().find(|e| e.id == id);
        let (Some(a), Some(b)) = (item(c.first), item(c.second)) else {
            continue;
        };
        let settled = sides.settle(a.source_id, b.source_id, ja);
        let quote = |e: &Evidence| e.quote.replace('\n', " ").trim().to_string();
        let sentence = if ja {
            format!(
                "{}について、[{}] は「{}」と述べ、[{}] は「{}」と述べています。",
                c.about,
                a.source_id,
                quote(a),
                b.source_id,
                quote(b)
            )
        } else {
            format!(
                "On {}, [{}] says \"{}\", while [{}] says \"{}\".",
                c.about,
                a.source_id,
                quote(a),
                b.source_id,
                quote(b)
            )
        };
        entries.push(AuditEntry {
            sentence: sentence.clone(),
            sources: vec![a.source_id, b.source_id],
            status: AuditStatus::Verified,
            evidence: vec![a.id, b.id],
            check: "both passages quoted as their sources state them".into(),
            written: None,
            passage: None,
            score: None,
        });
        lines.push(format!("{sentence} {settled}"));
    }
    for g in &analysis.gaps {
        lines.push(if ja {
            format!("読んだ出典では答えが得られなかった点: {g}")
        } else {
            format!("Not answered by the sources read: {g}")
        });
    }
    if lines.is_empty() {
        return (String::new(), entries);
    }
    let mut out = format!(
        "## {}\n\n",
        if ja {
            "出典間の食い違いと未解決の点"
        } else {
            "Contradictions and gaps"
        }
    );
    for l in lines {
        out.push_str(&format!("- {l}\n"));
    }
    (out, entries)
}

/// Credibility this far apart settles a contradiction for the more credible side (a trusted
/// domain against one on neither list is 0.45 apart on the domain signal alone; two pages of
/// the same standing are within a tenth).
pub const SETTLE_BY_CREDIBILITY: f64 = 0.15;

/// What settles a contradiction between two sources (seed 000: by credibility, then by date):
/// their credibility scores (the trust pipeline's, or the same signals read from each source's
/// address and kind) and their publication dates.
pub struct Sides<'a> {
    /// The sources read.
    pub sources: &'a [Source],
    /// The trust pipeline's scores, when it made them (empty otherwise).
    pub credibility: &'a [Credibility],
    /// Now, for the age of a source.
    pub now_ms: i64,
}

impl Sides<'_> {
    fn credibility(&self, source_id: u32) -> Option<f64> {
        if let Some(c) = self.credibility.iter().find(|c| c.source_id == source_id) {
            return Some(c.score);
        }
        let source = self.sources.iter().find(|s| s.id == source_id)?;
        Some(credibility::score(source, "", &credibility::Domains::default(), self.now_ms).score)
    }

    fn year(&self, source_id: u32) -> Option<i32> {
        let source = self.sources.iter().find(|s| s.id == source_id)?;
        credibility::year_of(source.published.as_deref()?)
    }

    /// How the contradiction between sources `a` and `b` is settled, or why it is left open, in
    /// one sentence: for the clearly more credible source, else for the more recent one, else
    /// open. Sources are named by number without brackets: the sentence is the report's
    /// judgement, not a claim a source makes, so it carries no citation to check.
    pub fn settle(&self, a: u32, b: u32, ja: bool) -> String {
        let (ca, cb) = (self.credibility(a), self.credibility(b));
        if let (Some(ca), Some(cb)) = (ca, cb) {
            if (ca - cb).abs() >= SETTLE_BY_CREDIBILITY {
                let (win, lose, cw, cl) = if ca > cb {
                    (a, b, ca, cb)
                } else {
                    (b, a, cb, ca)
                };
                return if ja {
                    format!("信頼度で出典 {win} を採ります（{cw:.2} 対 出典 {lose} の {cl:.2}）。")
                } else {
                    format!("Settled for source {win}: it is the more credible ({cw:.2} against {cl:.2} for source {lose}).")
                };
            }
        }
        match (self.year(a), self.year(b)) {
            (Some(ya), Some(yb)) if ya != yb => {
                let (win, lose, yw, yl) = if ya > yb { (a, b, ya, yb) } else { (b, a, yb, ya) };
                if ja {
                    format!("信頼度は同程度のため、新しい出典 {win}（{yw}年、出典 {lose} は {yl}年）を採ります。")
                } else {
                    format!("Settled for source {win}: the two are alike in credibility, and it is the more recent ({yw}, against {yl} for source {lose}).")
                }
            }
            _ if ja => "未解決: 二つの出典は信頼度が同程度で、どちらが新しいかも分かりません。".to_string(),
            _ => "Left open: the two sources are alike in credibility, and their dates do not tell them apart.".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(id: u32, source_id: u32, quote: &str) -> Evidence {
        Evidence {
            id,
            source_id,
            ..Evidence::unnumbered(quote.into(), quote.into())
        }
    }

    #[test]
    fn only_two_sources_on_one_subject_make_a_contradiction() {
        let evidence = vec![
            ev(
                1,
                1,
                "Memcheck slows programs down by a factor of 10 to 50.",
            ),
            ev(2, 2, "Memcheck slows programs down by a factor of about 5."),
            ev(3, 1, "Memcheck also reports leaks at exit."),
            ev(4, 3, "Cachegrind simulates the cache hierarchy."),
        ];
        let out = |about: &str, first, second| ContradictionOut {
            about: about.into(),
            first,
            second,
        };
        let found = grounded(
            vec![
                out("how much Memcheck slows programs", 1, 2),
                out("the same source", 1, 3),
                out("unrelated things", 1, 4),
                out("no such item", 1, 9),
                out("how much Memcheck slows programs", 2, 1),
                out("1. 1. 1. 1. 1. 1. 1. 1.", 2, 1),
            ],
            &evidence,
        );
        assert_eq!(
            found,
            vec![Contradiction {
                about: "how much Memcheck slows programs".into(),
                first: 1,
                second: 2
            }]
        );
        let source = |id: u32, url: &str, published: Option<&str>| Source {
            id,
            url: url.into(),
            title: format!("page {id}"),
            kind: "web".into(),
            provider: "test".into(),
            published: published.map(str::to_string),
            sha256: String::new(),
            accessed_at_ms: 0,
            citation: None,
        };
        let now = 1_795_000_000_000;
        // Alike in credibility, dated: the more recent settles it.
        let dated = [
            source(1, "https://a.example/m", Some("2019-03-01")),
            source(2, "https://b.example/m", Some("2024-06-01")),
        ];
        let sides = Sides {
            sources: &dated,
            credibility: &[],
            now_ms: now,
        };
        let (text, entries) = section(
            &Analysis {
                contradictions: found.clone(),
                gaps: vec!["How does Helgrind compare?".into()],
                ..Default::default()
            },
            &evidence,
            &sides,
            "en",
        );
        assert!(
            text.contains("Settled for source 2: the two are alike in credibility, and it is the more recent (2024, against 2019 for source 1)."),
            "{text}"
        );
        // A trusted source against a low-trust one: credibility settles it, whatever the dates.
        let scored = [
            Credibility {
                source_id: 1,
                score: 0.9,
                excluded: false,
                why: vec![],
            },
            Credibility {
                source_id: 2,
                score: 0.3,
                excluded: false,
                why: vec![],
            },
        ];
        let by_credibility = Sides {
            credibility: &scored,
            ..sides
        };
        assert_eq!(
            by_credibility.settle(1, 2, false),
            "Settled for source 1: it is the more credible (0.90 against 0.30 for source 2)."
        );
        // Alike, and undated: left open, saying why.
        let undated = [
            source(1, "https://a.example/m", None),
            source(2, "https://b.example/m", None),
        ];
        let open = Sides {
            sources: &undated,
            credibility: &[],
            now_ms: now,
        };
        assert!(open.settle(1, 2, false).starts_with("Left open"));
        assert!(text.starts_with("## Contradictions and gaps"), "{text}");
        assert!(text.contains("[1] says \"Memcheck slows programs down by a factor of 10 to 50.\""));
        assert!(text.contains("Not answered by the sources read: How does Helgrind compare?"));
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].sources, vec![1, 2]);
    }
}
