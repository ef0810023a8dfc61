//! The trust pipeline's planner (seed 002, node 4): a research tree — primary questions that
//! answer the question, secondary ones that support them, tertiary ones for background — typed
//! searches (web, academic, news, with the years to search when the question has a time scope;
//! the providers that filter by date get them), and the outline the writer follows. One model
//! call, held to the same guards as every plan ([`planning::guarded`]).

use research_graph::NodeError;
use research_search::{HitKind, SearchQuery, Years};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::planning;
use super::profile::Profile;
use super::Brief;
use crate::ask::{ask_or, Ctx};
use crate::records::{Plan, Warning};
use crate::roles::Role;

/// How directly a research question answers the question.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
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
pub enum Level {
    /// Answers it directly.
    #[default]
    Primary,
    /// Supports a primary question.
    Secondary,
    /// Background.
    Tertiary,
}

/// Where a search should look.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum SearchKind {
    /// Web pages.
    #[default]
    Web,
    /// Papers and preprints.
    Academic,
    /// News articles.
    News,
}

impl SearchKind {
    fn hit_kind(self) -> HitKind {
        match self {
            SearchKind::Web => HitKind::Web,
            SearchKind::Academic => HitKind::Academic,
            SearchKind::News => HitKind::News,
        }
    }
}

/// A research question of the tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TreeQuestion {
    /// The question.
    pub question: String,
    /// How directly it answers the question.
    pub level: Level,
}

/// A search with where to look and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TypedSearch {
    /// The keyword query.
    pub query: String,
    /// Where to look.
    pub kind: SearchKind,
    /// The first publication year wanted.
    pub from_year: Option<i32>,
    /// The last publication year wanted.
    pub to_year: Option<i32>,
}

impl TypedSearch {
    /// `query` as this search asks it: its kind, and its years for the providers that filter.
    pub fn apply(&self, query: SearchQuery) -> SearchQuery {
        query
            .of_kind(Some(self.kind.hit_kind()))
            .in_years(Years::new(self.from_year, self.to_year))
    }
}

/// The research tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResearchTree {
    /// The research questions, primary first.
    pub questions: Vec<TreeQuestion>,
    /// The searches that run, typed.
    pub searches: Vec<TypedSearch>,
    /// The report's sections, in order.
    pub outline: Vec<String>,
}

impl ResearchTree {
    /// `query` with the kind and years its search in the tree has (as it is, when none).
    pub fn typed(&self, query: SearchQuery) -> SearchQuery {
        match self.searches.iter().find(|s| s.query == query.text) {
            Some(s) => s.apply(query),
            None => query,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct QuestionOut {
    #[schemars(length(min = 3, max = 160))]
    question: String,
    level: Level,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchOut {
    #[schemars(length(min = 3, max = 80))]
    query: String,
    kind: SearchKind,
    /// The first year to search, or 0 for no limit.
    from_year: i32,
    /// The last year to search, or 0 for no limit.
    to_year: i32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TreeOut {
    #[schemars(length(min = 1, max = 6))]
    questions: Vec<QuestionOut>,
    #[schemars(length(max = 6), inner(length(max = 60)))]
    outline: Vec<String>,
    #[schemars(length(min = 1, max = 6))]
    searches: Vec<SearchOut>,
}

const PLAN_TREE: &str = "You plan a research project as a tree. Write research questions, each \
with its level: primary (answers the question directly), secondary (supports a primary one) or \
tertiary (background); about {questions} in all, primary first. Write the outline: the report's \
sections in order. Write {searches} short keyword searches, each different, and for each say \
where to look: web (pages), academic (papers) or news (articles); give from_year and to_year \
when the question is about a period (0 for no limit).";

/// Plans the research of `brief` as a tree (one model call), guarded like every plan.
pub async fn plan(
    ctx: &Ctx,
    brief: &Brief,
    profile: &Profile,
) -> Result<(Plan, ResearchTree, Vec<Warning>), NodeError> {
    let l = ctx.config.config.limits();
    let system = crate::prompts::fill(
        PLAN_TREE,
        &[
            ("questions", l.questions.to_string()),
            ("searches", l.initial_searches.to_string()),
        ],
    );
    let mut user = brief.block();
    user.push_str(&ctx.config.config.background.block());
    if let Some(period) = &profile.temporal {
        user.push_str(&format!("Time scope: {period}\n"));
    }
    let (out, mut warnings) = ask_or::<TreeOut>(ctx, Role::Plan, system, user, 900).await?;
    let out = out.unwrap_or(TreeOut {
        questions: Vec::new(),
        outline: Vec::new(),
        searches: Vec::new(),
    });
    let mut questions = out.questions;
    // Primary first, the model's order kept within a level.
    questions.sort_by_key(|q| q.level);
    let (plan, mut more) = planning::guarded(
        ctx,
        brief,
        questions.iter().map(|q| q.question.clone()).collect(),
        out.outline,
        out.searches.iter().map(|s| s.query.clone()).collect(),
    );
    warnings.append(&mut more);
    let level_of = |q: &str| {
        questions
            .iter()
            .find(|t| t.question.trim() == q)
            .map_or(Level::Primary, |t| t.level)
    };
    let year = |y: i32| (y != 0).then_some(y);
    let tree = ResearchTree {
        questions: plan
            .questions
            .iter()
            .map(|q| TreeQuestion {
                question: q.clone(),
                level: level_of(q),
            })
            .collect(),
        searches: plan
            .searches
            .iter()
            .map(|q| {
                let typed = out.searches.iter().find(|s| s.query.trim() == q);
                let years = typed.and_then(|s| Years::new(year(s.from_year), year(s.to_year)));
                TypedSearch {
                    query: q.clone(),
                    kind: typed.map_or(SearchKind::Web, |s| s.kind),
                    from_year: years.and_then(|y| y.from),
                    to_year: years.and_then(|y| y.to),
                }
            })
            .collect(),
        outline: plan.aspects.clone(),
    };
    Ok((plan, tree, warnings))
}
