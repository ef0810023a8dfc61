//! Answering a waiting research thread: from the flags, or from the person at the terminal.

use std::io::{BufRead, Write};

use anyhow::Context;
use research_api::{Answer, PendingQuestion, Question, ThreadId};

use super::options::invalid;
use super::AnswerArgs;

/// Milliseconds since the epoch, as the api's clock counts them.
pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Why the terminal prompt gave up: nobody answered before the review timeout.
#[derive(Debug)]
struct TimedOut;

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no answer before the review timeout")
    }
}

impl std::error::Error for TimedOut {}

/// A line from the terminal, or [`TimedOut`] once `deadline_ms` passes.
fn read_line_until(prompt: &str, deadline_ms: Option<i64>) -> anyhow::Result<String> {
    eprint!("{prompt}");
    std::io::stderr().flush().ok();
    let Some(deadline) = deadline_ms else {
        return read_stdin_line();
    };
    // The read blocks, so it runs beside the wait; a line typed after the deadline is left
    // to that thread.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(read_stdin_line()).ok());
    let wait = u64::try_from(deadline - now_ms()).unwrap_or(0);
    match rx.recv_timeout(std::time::Duration::from_millis(wait)) {
        Ok(line) => line,
        Err(_) => {
            eprintln!();
            Err(TimedOut.into())
        }
    }
}

fn read_stdin_line() -> anyhow::Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("could not read the answer")?;
    Ok(line.trim().to_string())
}

/// The draft a person edits in their editor (`$VISUAL`, `$EDITOR`, else `vi`), in a file next
/// to the database's temporary files.
fn edit_in_editor(draft: &str) -> anyhow::Result<String> {
    let path = std::env::temp_dir().join(format!("research-draft-{}.md", std::process::id()));
    std::fs::write(&path, draft).with_context(|| format!("could not write {}", path.display()))?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let status = std::process::Command::new(&editor)
        .arg(&path)
        .status()
        .with_context(|| format!("could not start the editor `{editor}` (set $EDITOR)"))?;
    let edited = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {}", path.display()))?;
    std::fs::remove_file(&path).ok();
    anyhow::ensure!(
        status.success(),
        "the editor `{editor}` failed ({status}); the draft is unchanged"
    );
    Ok(edited)
}

/// An escalation's answer in words (`accept`, `research-more`, `stop`, or their first letter).
fn escalation_answer(text: &str) -> Option<Answer> {
    match text.trim().to_lowercase().as_str() {
        "" | "a" | "accept" => Some(Answer::AcceptWithCaveats),
        "r" | "more" | "research-more" | "research more" => Some(Answer::ResearchMore),
        "s" | "stop" => Some(Answer::StopRun),
        _ => None,
    }
}

/// Asks the person at the terminal; `None` when nobody answered before the question's review
/// timeout (the run then takes the action chosen for it).
pub(super) fn ask_terminal(pending: &PendingQuestion) -> anyhow::Result<Option<Answer>> {
    if let Some(deadline) = pending.deadline_ms {
        let minutes = (deadline - now_ms()).max(0) / 60_000;
        eprintln!("\n(unanswered, the run goes on by itself in about {minutes} minutes)");
    }
    let read_line = |prompt: &str| read_line_until(prompt, pending.deadline_ms);
    match asked(&pending.question, read_line) {
        Ok(answer) => Ok(Some(answer)),
        Err(e) if e.is::<TimedOut>() => Ok(None),
        Err(e) => Err(e),
    }
}

fn asked(
    question: &Question,
    read_line: impl Fn(&str) -> anyhow::Result<String>,
) -> anyhow::Result<Answer> {
    match question {
        Question::Clarify {
            question, options, ..
        } => {
            eprintln!("\n{question}");
            for (i, o) in options.iter().enumerate() {
                eprintln!("  {}. {o}", i + 1);
            }
            let line = read_line("Your choice (a number, or your own words): ")?;
            let text = line
                .parse::<usize>()
                .ok()
                .and_then(|n| options.get(n.wrapping_sub(1)).cloned())
                .unwrap_or(line);
            Ok(Answer::Clarify { text })
        }
        Question::PlanReview { plan } => {
            eprintln!("\n{}", plan.describe());
            loop {
                let line = read_line("Approve the plan? [y]es / [e]dit searches / [c]ancel: ")?;
                match line.to_lowercase().chars().next() {
                    Some('y') | None => return Ok(Answer::ApprovePlan),
                    Some('c') => return Ok(Answer::CancelPlan),
                    Some('e') => {
                        let line = read_line("Searches, separated by ';': ")?;
                        let mut plan = plan.clone();
                        plan.searches = line
                            .split(';')
                            .map(|s| s.trim().to_string())
                            .filter(|s| !s.is_empty())
                            .collect();
                        return Ok(Answer::EditPlan { plan });
                    }
                    _ => {}
                }
            }
        }
        Question::Escalation { issues, .. } => {
            eprintln!("\n{}", question.escalation_headline().unwrap_or_default());
            for i in issues {
                eprintln!("  - {} ({})", i.description, i.location);
            }
            loop {
                let line = read_line(
                    "Accept the best draft with these as caveats, research more, or stop? [a]ccept / [r]esearch more / [s]top: ",
                )?;
                if let Some(answer) = escalation_answer(&line) {
                    return Ok(answer);
                }
            }
        }
        Question::ReportReview { report, draft } => {
            eprintln!("\n{report}\n");
            loop {
                let line = read_line(
                    "Approve the report? [y]es / [r]evise with feedback / [e]dit it yourself / re[j]ect: ",
                )?;
                match line.to_lowercase().chars().next() {
                    Some('y') | None => return Ok(Answer::ApproveReport),
                    Some('e') => {
                        let edited = edit_in_editor(draft)?;
                        if edited.trim() == draft.trim() {
                            eprintln!("The draft is unchanged.");
                            continue;
                        }
                        return Ok(Answer::EditReport { draft: edited });
                    }
                    Some('r') => {
                        let feedback = read_line("What should change? ")?;
                        return Ok(Answer::ReviseReport { feedback });
                    }
                    Some('j') => {
                        let reason = read_line("Why? ")?;
                        return Ok(Answer::RejectReport { reason });
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The answer the flags give for `question`, if they give one.
pub(super) fn answer_from_flags(
    question: &Question,
    a: &AnswerArgs,
) -> anyhow::Result<Option<Answer>> {
    Ok(match question {
        Question::Clarify { .. } => a.answer.clone().map(|text| Answer::Clarify { text }),
        Question::PlanReview { .. } => {
            if let Some(path) = &a.plan {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("could not read {}", path.display()))?;
                let plan = serde_json::from_str(&text)
                    .map_err(|e| invalid(format!("{} is not a plan: {e}", path.display())))?;
                Some(Answer::EditPlan { plan })
            } else if a.cancel {
                Some(Answer::CancelPlan)
            } else if a.approve || a.no_input {
                Some(Answer::ApprovePlan)
            } else {
                None
            }
        }
        Question::Escalation { .. } => match &a.answer {
            Some(text) => Some(escalation_answer(text).ok_or_else(|| {
                invalid(format!(
                    "`{text}` does not answer the escalation; use accept, research-more or stop"
                ))
            })?),
            None if a.cancel => Some(Answer::StopRun),
            None if a.approve || a.no_input => Some(Answer::AcceptWithCaveats),
            None => None,
        },
        Question::ReportReview { .. } => {
            if let Some(path) = &a.edit {
                let draft = std::fs::read_to_string(path)
                    .with_context(|| format!("could not read {}", path.display()))?;
                Some(Answer::EditReport { draft })
            } else if let Some(feedback) = &a.revise {
                Some(Answer::ReviseReport {
                    feedback: feedback.clone(),
                })
            } else if let Some(reason) = &a.reject {
                Some(Answer::RejectReport {
                    reason: reason.clone(),
                })
            } else if a.approve || a.no_input {
                Some(Answer::ApproveReport)
            } else {
                None
            }
        }
    })
}

pub(super) fn how_to_answer(q: &PendingQuestion, thread: &ThreadId) -> String {
    match &q.question {
        Question::Clarify {
            question, options, ..
        } => format!(
            "the run asks: {question} (options: {}); answer with: research resume {thread} --answer TEXT",
            options.join(" | ")
        ),
        Question::PlanReview { .. } => format!(
            "the plan waits for review; continue with: research resume {thread} --approve | --plan FILE | --cancel"
        ),
        Question::Escalation { reason, .. } => format!(
            "{reason}; continue with: research resume {thread} --answer accept | research-more | stop"
        ),
        Question::ReportReview { .. } => format!(
            "the report waits for review; continue with: research resume {thread} --approve | --revise TEXT | --edit FILE | --reject TEXT"
        ),
    }
}
