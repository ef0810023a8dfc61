//! Reviewing a draft (seed 000's reviewer): six weighted criteria scored 0–10, itemised issues,
//! and a decision — approve, revise or reject — by one rule ([`decide`]).
//!
//! The checks speak first: the report audit (sentences kept with ⚠, rewritten or removed),
//! banned words, markers that name no source, research questions the draft never touches, prose
//! that failed and was replaced by the passages, a length far short of the target. Each is an
//! issue the model cannot drop, and each caps the score of its criterion, so a model cannot
//! approve what the checks failed. The model adds its own issues and scores under the caps.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod checks;
mod record;

pub use self::checks::check;
pub use self::record::*;
use super::audit::{AuditEntry, AuditStatus};
use super::numbered;
use super::Brief;
use crate::ask::{ask_or, Ctx};
use crate::guard;
use crate::records::{Evidence, Source, Warning};
use crate::report::cited_ids;
use crate::roles::Role;

/// What a draft is judged on (seed 000's six criteria).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    JsonSchema,
    ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// Claims match their sources; nothing unsupported.
    Accuracy,
    /// Every research question answered, expected sections present, enough depth.
    Completeness,
    /// Clear argument, logical order, consistent terms.
    Coherence,
    /// Every claim cited, every marker names a source read.
    Citation,
    /// How the research was done and its limits are said.
    Methodology,
    /// Clear, plain language; no banned words.
    Style,
}

impl Criterion {
    /// Every criterion, in the order of its weight.
    pub const ALL: [Criterion; 6] = [
        Criterion::Accuracy,
        Criterion::Completeness,
        Criterion::Coherence,
        Criterion::Citation,
        Criterion::Methodology,
        Criterion::Style,
    ];

    /// Its weight in the overall score (the six sum to 1).
    pub fn weight(self) -> f64 {
        match self {
            Criterion::Accuracy => 0.25,
            Criterion::Completeness => 0.20,
            Criterion::Coherence => 0.20,
            Criterion::Citation => 0.15,
            Criterion::Methodology => 0.10,
            Criterion::Style => 0.10,
        }
    }

    /// What the reviewer checks for it.
    fn checks(self) -> &'static str {
        match self {
            Criterion::Accuracy => "claims match the cited evidence; no unsupported assertion; numbers reported correctly",
            Criterion::Completeness => "every research question addressed; enough depth; no major gap",
            Criterion::Coherence => "a clear line of argument; logical order; smooth transitions; consistent terms",
            Criterion::Citation => "every claim cited; markers name sources that were read",
            Criterion::Methodology => "limits of the evidence acknowledged; scope appropriate",
            Criterion::Style => "clear, concise, plain language; appropriate tone; no banned words",
        }
    }
}

/// How much an issue matters (seed 000's severity levels).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    JsonSchema,
    ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Invalidates findings (an unverified claim, a marker to nowhere): blocks approval.
    Critical,
    /// Affects quality (a research question not addressed): more than three block approval.
    Major,
    /// Polish.
    Minor,
    /// Optional.
    Suggestion,
}

/// Who found an issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// A deterministic check (the audit, banned words, markers, coverage of the questions).
    Check,
    /// The reviewing model.
    Model,
}

/// One itemised issue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Issue {
    /// The criterion it falls under.
    pub category: Criterion,
    /// How much it matters.
    pub severity: Severity,
    /// Where: a section, a sentence, or "general".
    pub location: String,
    /// What is wrong.
    pub description: String,
    /// What would fix it.
    pub fix: String,
    /// Who found it.
    pub found_by: FoundBy,
}

/// One criterion's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CriterionScore {
    /// The criterion.
    pub criterion: Criterion,
    /// 0–10.
    pub score: f64,
}

/// The reviewer's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Good enough to deliver.
    Approve,
    /// Improvable: revise from the issues.
    Revise,
    /// Poor and not improvable by revision.
    Reject,
}

/// A draft's review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Critique {
    /// Each criterion's score, 0–10.
    pub scores: Vec<CriterionScore>,
    /// The weighted overall score, 0–10.
    pub overall: f64,
    /// Itemised issues, the checks' first.
    pub issues: Vec<Issue>,
    /// The decision.
    pub verdict: Verdict,
    /// The reviewer's summary in a sentence or two.
    pub summary: String,
    /// How much a revision could still improve, 0–1 (the model's estimate).
    pub improvement_potential: f64,
}

impl Critique {
    /// The critical issues.
    pub fn critical(&self) -> Vec<Issue> {
        self.issues
            .iter()
            .filter(|i| i.severity == Severity::Critical)
            .cloned()
            .collect()
    }

    /// Issues of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.issues
            .iter()
            .filter(|i| i.severity == severity)
            .count()
    }

    /// The itemised issues as the writer's revision instructions.
    pub fn feedback(&self) -> String {
        itemised(&self.issues)
    }
}

/// Issues as a list the writer (and the reviewing model) reads; suggestions left out.
fn itemised(issues: &[Issue]) -> String {
    let mut out = String::new();
    for i in issues.iter().filter(|i| i.severity != Severity::Suggestion) {
        out.push_str(&format!(
            "- [{}] {} ({}): {}",
            severity_word(i.severity),
            criterion_word(i.category),
            i.location,
            i.description
        ));
        if !i.fix.is_empty() {
            out.push_str(&format!(" Fix: {}", i.fix));
        }
        out.push('\n');
    }
    out
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "critical",
        Severity::Major => "major",
        Severity::Minor => "minor",
        Severity::Suggestion => "suggestion",
    }
}

fn criterion_word(c: Criterion) -> &'static str {
    match c {
        Criterion::Accuracy => "accuracy",
        Criterion::Completeness => "completeness",
        Criterion::Coherence => "coherence",
        Criterion::Citation => "citation",
        Criterion::Methodology => "methodology",
        Criterion::Style => "style",
    }
}

/// Overall score at which a draft may be approved.
pub const APPROVE_AT: f64 = 7.5;
/// Overall score under which a draft that revision cannot improve is rejected.
pub const REJECT_UNDER: f64 = 5.0;
/// Major issues a draft may have and still be approved.
pub const MAX_MAJOR_ISSUES: usize = 3;
/// Improvement potential under which a poor draft's issues count as unaddressable.
pub const UNADDRESSABLE_UNDER: f64 = 0.3;

/// Seed 000's decision rule: approve at 7.5 or more with no critical and at most three major
/// issues; reject under 5.0 when a revision cannot help; revise otherwise.
pub fn decide(overall: f64, issues: &[Issue], improvement_potential: f64) -> Verdict {
    let critical = issues
        .iter()
        .filter(|i| i.severity == Severity::Critical)
        .count();
    let major = issues
        .iter()
        .filter(|i| i.severity == Severity::Major)
        .count();
    if overall >= APPROVE_AT && critical == 0 && major <= MAX_MAJOR_ISSUES {
        Verdict::Approve
    } else if overall < REJECT_UNDER && improvement_potential < UNADDRESSABLE_UNDER {
        Verdict::Reject
    } else {
        Verdict::Revise
    }
}

/// The weighted overall score of per-criterion scores.
pub fn overall(scores: &[CriterionScore]) -> f64 {
    let total: f64 = scores.iter().map(|s| s.criterion.weight() * s.score).sum();
    (total * 100.0).round() / 100.0
}

/// What the reviewer works from.
pub struct ReviewInput<'a> {
    /// The question.
    pub brief: &'a Brief,
    /// The writer's part of the draft, as audited.
    pub body: &'a str,
    /// The audit of its cited sentences.
    pub audit: &'a [AuditEntry],
    /// Why the writer's prose was replaced by the passages, when it was.
    pub rejected: Option<&'a str>,
    /// The plan's research questions.
    pub questions: &'a [String],
    /// Sources read.
    pub sources: &'a [Source],
    /// All evidence.
    pub evidence: &'a [Evidence],
    /// Which draft this is (1 for the first).
    pub version: u32,
    /// The plan's aspects, the sections the report should have.
    pub outline: &'a [String],
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ScoresOut {
    accuracy: f64,
    completeness: f64,
    coherence: f64,
    citation: f64,
    methodology: f64,
    style: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct IssueOut {
    category: Criterion,
    severity: Severity,
    #[schemars(length(max = 80))]
    location: String,
    #[schemars(length(max = 300))]
    description: String,
    #[schemars(length(max = 200))]
    fix: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ReviewOut {
    scores: ScoresOut,
    #[schemars(length(max = 8))]
    issues: Vec<IssueOut>,
    #[schemars(length(max = 400))]
    summary: String,
    improvement_potential: f64,
}

const REVIEW: &str = "You review a research report. Score each criterion from 0 to 10 \
(9-10 excellent, 7-8.9 good, 5-6.9 acceptable, 3-4.9 poor, 0-2.9 unacceptable):\n{criteria}\n\
List concrete issues with category, severity (critical: invalidates findings; major: affects quality; \
minor: polish; suggestion: optional), location (a section heading or \"general\"), description and a fix. \
Give improvement_potential between 0 and 1: how much a revision from the same evidence could improve it. \
Judge only against the evidence given; the checks below were already run and stand.";

/// Reviews a draft: the checks, then the model under their caps. A model that cannot answer
/// in shape leaves the checks to decide (with a warning); a provider failure is an error.
pub async fn review(
    ctx: &Ctx,
    input: &ReviewInput<'_>,
) -> Result<(Critique, Vec<Warning>), NodeError> {
    let config = &ctx.config.config;
    let (mut issues, caps) = check(input, config);
    let criteria: String = Criterion::ALL
        .iter()
        .map(|c| {
            format!(
                "- {} (weight {:.2}): {}\n",
                criterion_word(*c),
                c.weight(),
                c.checks()
            )
        })
        .collect();
    let mut user = input.brief.block();
    user.push_str(&format!(
        "Research questions:\n{}\nDraft {}:\n{}\n\nChecks already run:\n{}\nEvidence (source number, quote):\n",
        numbered(input.questions),
        input.version,
        input.body,
        if issues.is_empty() {
            "- none failed\n".to_string()
        } else {
            itemised(&issues)
        }
    ));
    for e in super::verify::spread(input.evidence, 20) {
        user.push_str(&format!(
            "[{}] \"{}\"\n",
            e.source_id,
            e.quote.replace('\n', " ")
        ));
    }
    let system = crate::prompts::fill(REVIEW, &[("criteria", criteria)]);
    let (out, warnings) = ask_or::<ReviewOut>(ctx, Role::Review, system, user, 900).await?;
    let (model_scores, summary, potential) = match out {
        Some(out) => {
            let s = out.scores;
            issues.extend(out.issues.into_iter().take(8).filter_map(|i| {
                let description = i.description.trim().to_string();
                // An empty or looping item is not an issue anyone can act on.
                (!description.is_empty() && guard::degenerate(&description).is_none()).then(|| {
                    Issue {
                        category: i.category,
                        severity: i.severity,
                        location: i.location.trim().to_string(),
                        description,
                        fix: i.fix.trim().to_string(),
                        found_by: FoundBy::Model,
                    }
                })
            }));
            (
                [
                    s.accuracy,
                    s.completeness,
                    s.coherence,
                    s.citation,
                    s.methodology,
                    s.style,
                ],
                out.summary.trim().to_string(),
                out.improvement_potential,
            )
        }
        // No usable answer: the checks' caps are the scores.
        None => (caps, String::new(), 0.5),
    };
    let scores: Vec<CriterionScore> = Criterion::ALL
        .iter()
        .zip(model_scores.iter().zip(caps.iter()))
        .map(|(c, (m, cap))| CriterionScore {
            criterion: *c,
            score: if m.is_finite() {
                m.clamp(0.0, 10.0).min(*cap)
            } else {
                *cap
            },
        })
        .collect();
    let overall = overall(&scores);
    let potential = if potential.is_finite() {
        potential.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let verdict = decide(overall, &issues, potential);
    Ok((
        Critique {
            scores,
            overall,
            issues,
            verdict,
            summary,
            improvement_potential: potential,
        },
        warnings,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{Evidence, Source};

    fn issue(severity: Severity) -> Issue {
        Issue {
            category: Criterion::Accuracy,
            severity,
            location: "general".into(),
            description: "x".into(),
            fix: String::new(),
            found_by: FoundBy::Model,
        }
    }

    #[test]
    fn the_weights_sum_to_one() {
        let sum: f64 = Criterion::ALL.iter().map(|c| c.weight()).sum();
        assert!((sum - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_decision_matrix() {
        use Severity::*;
        assert_eq!(decide(7.5, &[], 0.5), Verdict::Approve);
        assert_eq!(decide(9.0, &vec![issue(Major); 3], 0.5), Verdict::Approve);
        // A critical issue or a fourth major one blocks approval at any score.
        assert_eq!(decide(9.5, &[issue(Critical)], 0.5), Verdict::Revise);
        assert_eq!(decide(9.0, &vec![issue(Major); 4], 0.5), Verdict::Revise);
        assert_eq!(decide(7.4, &[issue(Minor)], 0.5), Verdict::Revise);
        // Poor: revised while a revision can help, rejected when it cannot.
        assert_eq!(decide(4.0, &[issue(Major)], 0.6), Verdict::Revise);
        assert_eq!(decide(4.0, &[issue(Major)], 0.1), Verdict::Reject);
        assert_eq!(decide(5.0, &[], 0.0), Verdict::Revise);
    }

    #[test]
    fn the_checks_fail_what_a_model_cannot_approve() {
        let brief = Brief {
            query: "How does Memcheck find leaks?".into(),
            ..Default::default()
        };
        let audit = vec![AuditEntry {
            sentence: "Memcheck was written in 1820 [1].".into(),
            sources: vec![1],
            status: AuditStatus::Flagged,
            evidence: vec![1],
            check: "the number 1820 is not in the evidence".into(),
            written: None,
            passage: None,
            score: None,
        }];
        let questions = vec![
            "How does Memcheck find leaks?".to_string(),
            "Which tools compete with Helgrind?".to_string(),
            "Who wrote Massif in 2003?".to_string(),
        ];
        let sources = vec![Source {
            id: 1,
            url: "file:///m.html".into(),
            title: "Memcheck".into(),
            kind: "web".into(),
            provider: "local".into(),
            published: None,
            sha256: String::new(),
            accessed_at_ms: 0,
            citation: None,
        }];
        let quote = "DRD and Helgrind are tools that compete at finding data races.";
        let evidence = vec![Evidence::unnumbered(quote.into(), quote.into())];
        let config = crate::RunConfig::default();
        let outline = vec!["Data races".to_string(), "Lunar geology".to_string()];
        let input = ReviewInput {
            brief: &brief,
            body:
                "Memcheck finds leaks at exit [1]. It was written in 1820 [1] [7]. A robust tool.",
            audit: &audit,
            rejected: None,
            questions: &questions,
            sources: &sources,
            evidence: &evidence,
            version: 1,
            outline: &outline,
        };
        let (issues, caps) = check(&input, &config);
        let found = |c: Criterion, s: Severity| {
            issues
                .iter()
                .any(|i| i.category == c && i.severity == s && i.found_by == FoundBy::Check)
        };
        assert!(
            found(Criterion::Accuracy, Severity::Critical),
            "{issues:#?}"
        );
        assert!(
            found(Criterion::Citation, Severity::Critical),
            "{issues:#?}"
        );
        assert!(found(Criterion::Style, Severity::Major), "{issues:#?}");
        assert!(
            found(Criterion::Completeness, Severity::Major),
            "{issues:#?}"
        );
        // An aspect of the plan the evidence covers has no section; one it does not is no gap
        // of the draft.
        assert!(issues
            .iter()
            .any(|i| i.location == "outline"
                && i.description.contains("\"Data races\" has no section")));
        assert!(!issues.iter().any(|i| i.description.contains("Lunar")));
        // A question no passage speaks to is the research's gap, not the draft's: minor.
        assert!(issues.iter().any(|i| i.severity == Severity::Minor
            && i.description
                .contains("no source read answers \"Who wrote Massif")));
        // A model that gives 10 everywhere is capped, and cannot approve.
        let scores: Vec<CriterionScore> = Criterion::ALL
            .iter()
            .zip(caps)
            .map(|(c, cap)| CriterionScore {
                criterion: *c,
                score: 10f64.min(cap),
            })
            .collect();
        assert!(overall(&scores) < 8.0, "{scores:?}");
        assert_eq!(decide(10.0, &issues, 1.0), Verdict::Revise);
    }

    #[test]
    fn overall_is_the_weighted_sum() {
        let scores: Vec<CriterionScore> = Criterion::ALL
            .iter()
            .zip([10.0, 5.0, 5.0, 10.0, 0.0, 10.0])
            .map(|(c, score)| CriterionScore {
                criterion: *c,
                score,
            })
            .collect();
        // 2.5 + 1.0 + 1.0 + 1.5 + 0 + 1.0
        assert_eq!(overall(&scores), 7.0);
    }
}
