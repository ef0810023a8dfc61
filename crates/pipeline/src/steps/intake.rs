//! Reading the question: is it clear enough to research, and if not, which reading to take or
//! which clarification to ask.

use research_graph::NodeError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::Brief;
use crate::ask::{ask_or, Ctx};
use crate::prompts;
use crate::records::{Answer, Decision, Question, Understanding, Warning};
use crate::roles::Role;

#[derive(Debug, Deserialize, JsonSchema)]
struct UnderstandOut {
    is_clear: bool,
    #[schemars(length(max = 3), inner(length(max = 40)))]
    ambiguities: Vec<String>,
    #[schemars(length(max = 200))]
    question: String,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    options: Vec<String>,
    #[schemars(length(max = 200))]
    interpretation: String,
}

/// The model's reading of the question `brief` holds, or nothing when it does not read the
/// question at all: it shares not one word with the question, its clarification or the earlier
/// turns (a follow-up's "Why?" is read through those). A tiny model's "reading" can be a field
/// name ("is_clear") or a run of words ("simpleandconciseanswer"), and a run that took it would
/// research and report that, where the question as asked is the better reading. A reading in
/// another script than the question (English for a Japanese question) cannot share its words
/// and is kept.
pub(crate) fn reading_of(brief: &Brief, interpretation: &str) -> String {
    let interpretation = interpretation.trim();
    let crossed = super::languages::cjk(&brief.query) != super::languages::cjk(interpretation);
    if crossed || crate::guard::mentions(&brief.topic(), interpretation) {
        interpretation.to_string()
    } else {
        String::new()
    }
}

/// What reading the question gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The model's reading (`is_clear` already corrected for clarifications without choices).
    pub understanding: Understanding,
    /// Whether to stop and ask the user.
    pub ask_user: bool,
    /// The reading taken without asking, for an unclear question nobody will be asked about.
    pub taken: Option<(String, Decision)>,
    /// Warnings (the model's answer was unusable).
    pub warnings: Vec<Warning>,
}

/// Clarification rounds at most (seed 003): a still-vague answer is asked about once more, then
/// the best reading is taken and said in the report.
pub const MAX_CLARIFICATIONS: u32 = 2;

/// Reads `brief.query` (with the person's clarifications so far, `asked` of them): clear, or
/// which clarification to ask (when the configuration lets the run ask and fewer than
/// [`MAX_CLARIFICATIONS`] were asked), or which reading to take.
pub async fn understand(ctx: &Ctx, brief: &Brief, asked: u32) -> Result<Reading, NodeError> {
    let clarified = if brief.clarification.is_empty() {
        String::new()
    } else {
        format!(
            "\nThe person clarified: {}\nRead the question in that light; ask again only if it is still unclear.",
            brief.clarification
        )
    };
    let (out, warnings) = ask_or::<UnderstandOut>(
        ctx,
        Role::Understand,
        prompts::UNDERSTAND.to_string(),
        format!("{}Question: {}{clarified}", brief.follow_up(), brief.query),
        600,
    )
    .await?;
    let out = out.unwrap_or_else(|| UnderstandOut {
        is_clear: true,
        ambiguities: Vec::new(),
        question: String::new(),
        options: Vec::new(),
        interpretation: String::new(),
    });
    let mut options: Vec<String> = Vec::new();
    for o in out.options {
        let o = o.trim().to_string();
        if !o.is_empty() && !options.iter().any(|x| x.eq_ignore_ascii_case(&o)) {
            options.push(o);
        }
    }
    options.truncate(5);
    // A clarification without real choices would only stall the run.
    let is_clear = out.is_clear || options.len() < 2 || out.question.trim().is_empty();
    let understanding = Understanding {
        is_clear,
        ambiguities: out.ambiguities,
        question: out.question.trim().to_string(),
        options,
        interpretation: reading_of(brief, &out.interpretation),
    };
    let config = &ctx.config.config;
    let ask_user =
        !is_clear && config.review.clarify && !config.no_input && asked < MAX_CLARIFICATIONS;
    let taken = (!is_clear && !ask_user).then(|| {
        // After the person's answers, their words are the best reading there is.
        let reading = if !brief.clarification.is_empty() {
            brief.clarification.clone()
        } else if understanding.interpretation.is_empty() {
            brief.query.clone()
        } else {
            understanding.interpretation.clone()
        };
        let decision = Decision {
            point: "clarification".into(),
            decision: if asked >= MAX_CLARIFICATIONS {
                format!(
                    "still unclear after {asked} clarifications; the question was read as: {reading}"
                )
            } else {
                format!("the question was read as: {reading}")
            },
            automatic: true,
        };
        (reading, decision)
    });
    Ok(Reading {
        understanding,
        ask_user,
        taken,
        warnings,
    })
}

/// The person's clarification, and whether the question is to be read again with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Clarified {
    /// Every answer so far, joined: the reading to take.
    pub text: String,
    /// The decision record.
    pub decision: Decision,
    /// Whether to read the question again: the answer was the person's own words, not one of
    /// the readings offered (an offered reading is specific enough to research).
    pub reread: bool,
}

/// Asks the user the clarification question (an interrupt); `before` is what they answered in
/// earlier rounds.
pub fn clarify(ctx: &Ctx, u: &Understanding, before: &str) -> Result<Clarified, NodeError> {
    let (answer, timed_out) = crate::ask::ask_person(
        ctx,
        Question::Clarify {
            question: u.question.clone(),
            options: u.options.clone(),
            ambiguities: u.ambiguities.clone(),
        },
    )?;
    let text = match answer {
        Answer::Clarify { text } => text.trim().to_string(),
        other => {
            return Err(NodeError::permanent(format!(
                "the clarification question needs a clarification answer, not {other:?}"
            )))
        }
    };
    let offered = text.is_empty()
        || timed_out.is_some()
        || u.options
            .iter()
            .any(|o| o.trim().eq_ignore_ascii_case(&text));
    let text = if text.is_empty() {
        u.interpretation.clone()
    } else {
        text
    };
    let decision = Decision {
        point: "clarification".into(),
        decision: match &timed_out {
            Some(why) => format!("the question was read as: {text} ({why})"),
            None => text.clone(),
        },
        automatic: timed_out.is_some(),
    };
    let text = if before.trim().is_empty() {
        text
    } else {
        format!("{}; {text}", before.trim())
    };
    Ok(Clarified {
        text,
        decision,
        reread: !offered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_that_shares_no_word_with_the_question_is_none() {
        let asked = |query: &str, context: &str| Brief {
            query: query.into(),
            context: context.into(),
            clarification: String::new(),
            focus: Vec::new(),
            also: String::new(),
        };
        let q = asked("How does Memcheck detect uninitialised values?", "");
        assert_eq!(reading_of(&q, "is_clear"), "");
        assert_eq!(reading_of(&q, "simpleandconciseanswer"), "");
        assert_eq!(
            reading_of(&q, " How Memcheck finds uses of uninitialised memory "),
            "How Memcheck finds uses of uninitialised memory"
        );
        // Another script, and a follow-up read through the turns before it.
        let ja = asked("ミツバチの群れの大きさは？", "");
        assert_eq!(
            reading_of(&ja, "The size of a honeybee colony"),
            "The size of a honeybee colony"
        );
        let why = asked(
            "Why?",
            "Q: Is Rust memory safe?\nA: Rust checks ownership at compile time.",
        );
        assert_eq!(
            reading_of(&why, "Why Rust checks ownership at compile time"),
            "Why Rust checks ownership at compile time"
        );
    }
}
