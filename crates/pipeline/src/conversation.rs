//! A session as a conversation: what a new question in an open session is — a follow-up, a
//! change of topic, or the person calling the turn off — and what the session is about.
//!
//! Why rules first: a cancel must cost no model call and answer at once, and most follow-ups
//! say so in their first words ("what about…", "tell me more…", "compare them…") or lean on a
//! pronoun; the model is asked only when the words cannot tell ([`by_model`]), and whatever
//! decided is shown with why, so the person can override it.

use std::collections::BTreeSet;

use research_llm::{ChatRequest, LlmClient, LlmError, Message, OutputSchema};
use serde::{Deserialize, Serialize};

use crate::text::normalize;

/// What a new question in an open session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// The session's first question.
    First,
    /// It goes on from the session's topic: it inherits the focus and starts from the
    /// session's evidence.
    FollowUp,
    /// A new subject: the history stays, the focus is replaced, nothing is carried over.
    TopicChange,
    /// The person calls the turn off: a polite reply, no research, no model call.
    Cancel,
}

/// Who decided what a turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// The question's own words.
    Rules,
    /// The fast model, when the words could not tell.
    Model,
    /// The person, overriding.
    Person,
}

/// What a turn is, who said so and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Classification {
    /// The kind.
    pub kind: TurnKind,
    /// Who decided.
    pub by: Decider,
    /// Why, in words for the person.
    pub why: String,
}

impl Classification {
    fn rules(kind: TurnKind, why: impl Into<String>) -> Self {
        Classification {
            kind,
            by: Decider::Rules,
            why: why.into(),
        }
    }

    /// The person's choice.
    pub fn person(kind: TurnKind) -> Self {
        Classification {
            kind,
            by: Decider::Person,
            why: "chosen by you".into(),
        }
    }
}

/// Words that only call a turn off when the whole message is made of them and a cancel word
/// ("stop words in NLP" and "cancel my subscription" are questions).
const CANCEL_WORDS: &[&str] = &[
    "cancel",
    "stop",
    "nevermind",
    "nvm",
    "forget",
    "abort",
    "quit",
];
const CANCEL_FILLERS: &[&str] = &[
    "ok", "okay", "oh", "actually", "please", "no", "thanks", "thank", "you", "just", "it", "that",
    "this", "about", "never", "mind", "the", "question", "research", "wait", "hmm", "sorry",
    "nope",
];
/// Japanese: the whole message is a cancel phrase, perhaps with politeness around it.
const CANCEL_JA: &[&str] = &[
    "やめて",
    "やめる",
    "やめます",
    "やめとく",
    "キャンセル",
    "中止",
    "もういい",
    "もういいです",
    "いいや",
    "忘れて",
    "なんでもない",
    "何でもない",
    "取り消し",
    "取り消して",
    "結構です",
    "ストップ",
];
const JA_FILLERS: &[&str] = &[
    "やっぱり",
    "やっぱ",
    "あ、",
    "えっと",
    "すみません",
    "ください",
    "してください",
    "して",
    "します",
    "です",
    "ね",
    "よ",
    "、",
    "。",
    "！",
    "!",
    " ",
    "　",
];

/// Openings that continue the session's topic (seed 003 §9.2).
const FOLLOW_UP_OPENINGS: &[&str] = &[
    "what about",
    "how about",
    "and ",
    "also",
    "tell me more",
    "more about",
    "more on",
    "what else",
    "go deeper",
    "dig deeper",
    "elaborate",
    "expand on",
    "explain",
    "compare",
    "versus",
    "vs",
    "compared to",
    "how does that",
    "how do they",
    "why is that",
    "why does",
    "why do",
    "is that",
    "are they",
    "what are the other",
    "any other",
    "same for",
    "in more detail",
    "can you elaborate",
    "what were",
    "which of these",
    "which of them",
];
/// Words besides the pronouns ([`crate::guard::POINTS_BACK`]) that point back at what the
/// session already talked about.
const BACK_REFERENCES: &[&str] = &["above", "earlier", "previous", "former", "latter"];
const FOLLOW_UP_JA: &[&str] = &[
    "それ",
    "その",
    "これ",
    "この",
    "あれ",
    "彼ら",
    "もっと詳しく",
    "詳しく",
    "さらに",
    "他に",
    "ほかに",
    "比べ",
    "比較",
];
/// Openings that say the subject changes.
const TOPIC_CHANGE_OPENINGS: &[&str] = &[
    "now tell me about",
    "new question",
    "new topic",
    "different question",
    "different topic",
    "change of topic",
    "changing the subject",
    "on another note",
    "unrelated",
    "something else",
    "switching to",
    "let's talk about",
    "lets talk about",
    "forget that,",
    "by the way",
];
const TOPIC_CHANGE_JA: &[&str] = &["話題を変え", "別の質問", "別の話", "ところで", "話は変わ"];

fn words(text: &str) -> Vec<String> {
    normalize(text)
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the whole message calls the turn off.
pub fn is_cancel(question: &str) -> bool {
    let q = question.trim();
    if q.chars()
        .any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF))
    {
        let mut rest = q.to_string();
        // Fillers around the phrase, longest first so "してください" goes before "して".
        let mut fillers = JA_FILLERS.to_vec();
        fillers.sort_by_key(|f| std::cmp::Reverse(f.chars().count()));
        for _ in 0..3 {
            for f in &fillers {
                if let Some(r) = rest.strip_prefix(f) {
                    rest = r.to_string();
                }
                if let Some(r) = rest.strip_suffix(f) {
                    rest = r.to_string();
                }
            }
        }
        return CANCEL_JA.contains(&rest.as_str());
    }
    let words = words(q);
    let cancel = words
        .iter()
        .any(|w| CANCEL_WORDS.contains(&w.as_str()) || w == "mind");
    let phrase = q.to_lowercase();
    cancel
        && (phrase.contains("never mind")
            || words.iter().any(|w| CANCEL_WORDS.contains(&w.as_str())))
        && words
            .iter()
            .all(|w| CANCEL_WORDS.contains(&w.as_str()) || CANCEL_FILLERS.contains(&w.as_str()))
}

/// The polite reply to a cancelled turn, in the question's language.
pub fn cancel_reply(question: &str) -> String {
    if crate::text::detect_language(question) == "ja" {
        "承知しました。このターンは中止し、何も調べていません。また質問があればどうぞ。".into()
    } else {
        "Understood — this turn is cancelled and nothing was researched. Ask another question whenever you like.".into()
    }
}

/// What a session is about: the things its questions name, most recent first.
pub fn focus_of(question: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "about", "tell", "me", "more", "please", "explain", "describe", "give", "overview", "what",
        "which", "how", "why", "when", "where", "who", "whom", "does", "do", "did", "is", "are",
        "was", "were", "can", "could", "should", "would", "will", "the", "a", "an", "of", "in",
        "on", "for", "to", "and", "or", "with", "by", "from", "at", "as", "into", "its", "it",
        "they", "them", "their", "this", "that", "these", "those", "now", "instead", "compare",
        "versus", "vs", "between", "than", "new", "question", "topic", "actually", "let's", "lets",
        "talk", "know", "want", "some", "any", "main", "work", "works", "use", "used", "make",
        "made", "have", "has", "had", "be", "been", "being", "say", "says",
    ];
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let cjk = |c: char| c as u32 >= 0x2E80;
    for w in words(question) {
        if w.chars().any(cjk) {
            continue;
        }
        let w = w.trim_matches('\'').to_string();
        if w.chars().count() < 3 || STOP.contains(&w.as_str()) || w.chars().all(char::is_numeric) {
            continue;
        }
        let stem = w.trim_end_matches('s').to_string();
        if seen.insert(stem) {
            out.push(w);
        }
    }
    // CJK has no spaces: keep the question's own runs of kanji and katakana.
    {
        let mut run = String::new();
        for c in question.chars().chain(std::iter::once(' ')) {
            if matches!(c as u32, 0x30A0..=0x30FF | 0x4E00..=0x9FFF) {
                run.push(c);
            } else {
                if run.chars().count() >= 2 && seen.insert(run.clone()) {
                    out.push(run.clone());
                }
                run.clear();
            }
        }
    }
    out.truncate(8);
    out
}

/// Whether the question compares (with what the session was about, as a follow-up does).
pub fn is_comparison(question: &str) -> bool {
    const WORDS: &[&str] = &[
        "compare",
        "compared",
        "comparison",
        "versus",
        "vs",
        "than",
        "differ",
        "difference",
        "differences",
    ];
    words(question).iter().any(|w| WORDS.contains(&w.as_str()))
        || ["比べ", "比較", "違い"]
            .iter()
            .any(|m| question.contains(m))
}

fn stems(terms: &[String]) -> BTreeSet<String> {
    terms
        .iter()
        .flat_map(|t| words(t))
        .map(|w| w.trim_end_matches('s').to_string())
        .collect()
}

/// What the question's own words say it is, or `None` when they cannot tell. `focus` is what
/// the session is about ([`focus_of`] its questions, or the entities a run found).
pub fn by_rules(question: &str, focus: &[String]) -> Option<Classification> {
    let q = question.trim();
    if is_cancel(q) {
        return Some(Classification::rules(
            TurnKind::Cancel,
            "the message only calls the turn off",
        ));
    }
    let lower = normalize(q);
    let japanese = q
        .chars()
        .any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF));
    if let Some(m) = TOPIC_CHANGE_OPENINGS
        .iter()
        .find(|m| lower.starts_with(*m))
        .or_else(|| TOPIC_CHANGE_JA.iter().find(|m| japanese && q.contains(*m)))
    {
        return Some(Classification::rules(
            TurnKind::TopicChange,
            format!("it says the subject changes (\"{}\")", m.trim()),
        ));
    }
    if let Some(m) = FOLLOW_UP_OPENINGS
        .iter()
        .find(|m| lower.starts_with(*m) && word_boundary(&lower, m.len()))
    {
        return Some(Classification::rules(
            TurnKind::FollowUp,
            format!("it opens with \"{}\"", m.trim()),
        ));
    }
    if japanese {
        if let Some(m) = FOLLOW_UP_JA.iter().find(|m| q.contains(*m)) {
            return Some(Classification::rules(
                TurnKind::FollowUp,
                format!("it refers back (\"{m}\")"),
            ));
        }
    }
    let ws = words(q);
    if let Some(w) = ws
        .iter()
        .find(|w| crate::guard::points_back(w, BACK_REFERENCES))
    {
        // "What is it like…" opens many fresh questions; a back-reference counts only when
        // the question names nothing of its own besides.
        if focus_of(q).len() <= 2 || lower.starts_with(&format!("{w} ")) {
            return Some(Classification::rules(
                TurnKind::FollowUp,
                format!("\"{w}\" refers to what the session talked about"),
            ));
        }
    }
    let own = focus_of(q);
    let shared: Vec<&String> = {
        let session = stems(focus);
        own.iter()
            .filter(|t| session.contains(t.trim_end_matches('s')))
            .collect()
    };
    if let Some(t) = shared.first() {
        return Some(Classification::rules(
            TurnKind::FollowUp,
            format!("it is about \"{t}\", as the session is"),
        ));
    }
    if own.len() >= 2 && !focus.is_empty() {
        return Some(Classification::rules(
            TurnKind::TopicChange,
            format!(
                "it names {} and nothing the session was about",
                own.iter()
                    .take(3)
                    .map(|t| format!("\"{t}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    None
}

fn word_boundary(text: &str, at: usize) -> bool {
    text[at..]
        .chars()
        .next()
        .is_none_or(|c| !c.is_alphanumeric())
        || text[..at].ends_with(' ')
}

#[derive(Deserialize)]
struct ModelVerdict {
    kind: String,
    #[serde(default)]
    why: String,
}

/// Asks `model` what the turn is, when [`by_rules`] could not tell.
pub async fn by_model(
    model: &dyn LlmClient,
    question: &str,
    focus: &[String],
    earlier: &[String],
) -> Result<Classification, LlmError> {
    let prompt = format!(
        "A research session so far.\nIts topic: {}\nEarlier questions:\n{}\n\nNew message: {question}\n\n\
         Is the new message a follow_up (it goes on with the same topic), a topic_change (a new, \
         unrelated subject) or a cancel (the person wants to stop)? Answer in JSON with `kind` \
         and a short `why`.",
        if focus.is_empty() {
            "(unknown)".to_string()
        } else {
            focus.join(", ")
        },
        earlier
            .iter()
            .map(|q| format!("- {q}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let schema = OutputSchema {
        name: "turn".into(),
        schema: serde_json::json!({
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["follow_up", "topic_change", "cancel"]},
                "why": {"type": "string", "maxLength": 200}
            },
            "required": ["kind", "why"]
        }),
    };
    let request = ChatRequest::new(vec![Message::user(prompt)]).purpose("classify_turn");
    let out = research_llm::generate_json(model, request, schema, None).await?;
    let verdict: ModelVerdict =
        serde_json::from_value(out.value).map_err(|e| LlmError::InvalidOutput {
            schema: "turn".into(),
            error: e.to_string(),
            raw: String::new(),
        })?;
    let kind = match verdict.kind.as_str() {
        "topic_change" => TurnKind::TopicChange,
        "cancel" => TurnKind::Cancel,
        _ => TurnKind::FollowUp,
    };
    Ok(Classification {
        kind,
        by: Decider::Model,
        why: if verdict.why.trim().is_empty() {
            "the model's reading".into()
        } else {
            verdict.why.trim().chars().take(200).collect()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(q: &str, focus: &[&str]) -> Option<TurnKind> {
        let focus: Vec<String> = focus.iter().map(|s| s.to_string()).collect();
        by_rules(q, &focus).map(|c| c.kind)
    }

    #[test]
    fn cancel_phrases_end_the_turn_and_questions_that_contain_them_do_not() {
        for q in [
            "nevermind",
            "Never mind.",
            "cancel",
            "Stop!",
            "forget it",
            "ok, forget about it",
            "actually never mind, thanks",
            "やめて",
            "キャンセル",
            "もういいです",
            "やっぱりやめて",
            "忘れてください",
            "中止してください",
            "なんでもない",
        ] {
            assert!(is_cancel(q), "{q}");
            assert_eq!(kind(q, &["honeybees"]), Some(TurnKind::Cancel), "{q}");
        }
        for q in [
            "stop words in NLP",
            "How do I cancel a Debian package upgrade?",
            "Why do bees stop dancing?",
            "キャンセル料はいくらですか",
            "mind mapping tools",
        ] {
            assert!(!is_cancel(q), "{q}");
        }
        assert!(cancel_reply("やめて").contains("中止"));
        assert!(cancel_reply("stop").contains("cancelled"));
    }

    #[test]
    fn follow_ups_continue_and_topic_changes_say_so_or_share_nothing() {
        let bees = ["honeybees", "communicate", "colonies"];
        for q in [
            "What about their predators?",
            "Tell me more about the waggle dance",
            "Compare them to bumblebees",
            "Why is that?",
            "How do they find flowers?",
            "And in winter?",
            "What do honeybees eat?",
            "それについてもっと詳しく",
        ] {
            assert_eq!(kind(q, &bees), Some(TurnKind::FollowUp), "{q}");
        }
        for q in [
            "Now tell me about the Rust borrow checker",
            "New topic: how does TCP congestion control work?",
            "How does TCP congestion control work?",
            "ところで、量子コンピュータとは何ですか",
        ] {
            assert_eq!(kind(q, &bees), Some(TurnKind::TopicChange), "{q}");
        }
        // Too little to tell: the model decides.
        assert_eq!(kind("Really?", &bees), None);
        // "What is it like…" names things of its own: not a back-reference.
        assert_eq!(
            kind("What is it like to keep chickens in a city garden?", &bees),
            Some(TurnKind::TopicChange)
        );
    }

    #[test]
    fn focus_is_the_things_a_question_names() {
        assert_eq!(
            focus_of("How do honeybees communicate and organise their colonies?"),
            vec!["honeybees", "communicate", "organise", "colonies"]
        );
        assert_eq!(
            focus_of("量子コンピュータとは何ですか"),
            vec!["量子コンピュータ"]
        );
        assert!(focus_of("what about it?").is_empty());
        assert!(is_comparison("Compare them to bumblebees"));
        assert!(is_comparison("How do they differ from wasps?"));
        assert!(is_comparison("スズメバチと比べて"));
        assert!(!is_comparison("What do they eat?"));
    }
}
