//! The shared steps every pipeline is built from. Each is a function from explicit inputs (and
//! the run's [`Ctx`](crate::ask::Ctx) for models, providers, clock and progress) to domain
//! values — a reading of the question, a plan, a [`Harvest`](harvest::Harvest), claims, a
//! draft — and knows nothing of any pipeline's state. A pipeline's node adapters pick the inputs
//! out of its own state and map the values into its updates.

pub mod analyze;
pub mod audit;
pub mod backtrack;
pub mod caveats;
pub mod extract;
mod findings;
pub mod gaps;
pub mod grade;
pub mod harvest;
pub mod intake;
pub mod languages;
pub mod planning;
pub mod profile;
pub mod relevance;
pub mod review;
pub mod revise;
pub mod tree;
pub mod trust;
pub mod verify;
pub mod workers;
pub mod write;

use crate::text::{query_similarity, DUPLICATE_QUERY};

/// What every prompt is told about the question: the earlier turns of the session (for a
/// follow-up), the question and the user's clarification.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Brief {
    /// The question.
    pub query: String,
    /// Earlier turns of the session, empty for a first question.
    pub context: String,
    /// The user's clarification or the reading taken.
    pub clarification: String,
    /// What the session is about, for a follow-up (its focus entities); empty otherwise.
    pub focus: Vec<String>,
    /// The question's key terms in the sources' language, when they are not in the question's
    /// ([`languages::Crossing`]): words of the question too.
    pub also: String,
}

impl Brief {
    /// The user's words: the question, its clarification and the earlier turns — what
    /// evidence and searches must be about (the prompt block's labels are not).
    pub fn topic(&self) -> String {
        if !self.also.is_empty() {
            let plain = Brief {
                also: String::new(),
                ..self.clone()
            };
            return format!("{} {}", plain.topic(), self.also);
        }
        if self.focus.is_empty() {
            format!("{} {} {}", self.query, self.clarification, self.context)
        } else {
            // A follow-up is about what it newly names ("liability" in "what do they say about
            // liability?"): the evidence it adds must be about that. Only a question that names
            // nothing of its own ("why?", "tell me more") is about the session's focus.
            // Its own words count, not the pronouns and verbs around them ("they", "say").
            let own = crate::conversation::focus_of(&self.query);
            if own.is_empty() {
                format!(
                    "{} {} {}",
                    self.query,
                    self.clarification,
                    self.focus.join(" ")
                )
            } else {
                format!("{} {}", own.join(" "), self.clarification)
            }
        }
    }

    /// What research question `q` asks, as passages must show it ([`languages::asked`]).
    pub fn asked(&self, q: &str) -> String {
        languages::asked(q, &self.also)
    }

    /// The block that opens most prompts.
    pub fn block(&self) -> String {
        let mut out = String::new();
        if !self.context.is_empty() {
            // A follow-up: the earlier turns of the session, so "it" and "they" resolve.
            out.push_str(&format!(
                "Earlier in this research session:\n{}\n\nThis is a follow-up question.\n",
                self.context
            ));
        }
        out.push_str(&format!("Research question: {}\n", self.query));
        if !self.clarification.is_empty() {
            out.push_str(&format!("Clarification: {}\n", self.clarification));
        }
        out
    }

    /// The earlier turns, for the step that reads the question.
    pub(crate) fn follow_up(&self) -> String {
        if self.context.is_empty() {
            String::new()
        } else {
            format!(
                "Earlier in this research session:\n{}\n\nThe new question is a follow-up; read it in that light.\n",
                self.context
            )
        }
    }
}

pub(crate) fn numbered(items: &[String]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{}. {q}\n", i + 1))
        .collect()
}

/// Text without markup: a small model under a JSON grammar sometimes fills strings with HTML
/// tags, JSON or code (`<h1>PlanOut</h1>`, `<p><span class=`), or echoes its schema
/// (`type':'object',`), which no search or research question should be.
pub(crate) fn plain(text: &str) -> bool {
    const JSON_MARKS: [&str; 6] = ["':", "\":", ":'", ":\"", "','", "\",\""];
    !text.contains(['<', '>', '{', '}', '`', '|']) && !JSON_MARKS.iter().any(|m| text.contains(m))
}

/// The model's searches that may run, in order: plain keyword queries
/// ([`guard::usable_search`]) about the research ([`guard::on_topic`] of the `context` items
/// that are themselves plain text, not a schema the model echoed).
pub(crate) fn runnable_searches(candidates: Vec<String>, context: &[&str]) -> Vec<String> {
    let context: Vec<&str> = context.iter().copied().filter(|c| plain(c)).collect();
    candidates
        .into_iter()
        .filter(|q| {
            plain(q) && crate::guard::usable_search(q) && crate::guard::on_topic(q, &context)
        })
        .collect()
}

/// Trims, drops empties and near-duplicates (of each other and of `done`), and caps the count.
pub(crate) fn distinct_searches(
    candidates: Vec<String>,
    done: &[String],
    max: usize,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in candidates {
        let c = c.trim().trim_matches('"').trim().to_string();
        if c.is_empty() || c.chars().count() > 300 {
            continue;
        }
        let seen = done
            .iter()
            .chain(out.iter())
            .any(|d| query_similarity(d, &c) >= DUPLICATE_QUERY);
        if !seen {
            out.push(c);
        }
        if out.len() >= max {
            break;
        }
    }
    out
}

/// Trims, drops empties and repeats, and caps the count.
pub(crate) fn clean_list(items: Vec<String>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        let i = i.trim().to_string();
        if !i.is_empty() && !out.contains(&i) {
            out.push(i);
        }
    }
    out.truncate(max);
    out
}
