//! Answering a waiting research thread: from the flags, or from the person at the terminal.

use std::io::{BufRead, Write};

use anyhow::Context;
use research_api::{Answer, PendingQuestion, Question, ThreadId};

use super::options::invalid;
use super::AnswerArgs;

fn read_line(prompt: &str) -> anyhow::Result<String> {
    eprint!("{prompt}");
    std::io::stderr().flush().ok();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("could not read the answer")?;
    Ok(line.trim().to_string())
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

/// Asks the person at the terminal.
pub(super) fn ask_terminal(question: &Question) -> anyhow::Result<Answer> {
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
            eprintln!("\nResearch questions:");
            for q in &plan.questions {
                eprintln!("  - {q}");
            }
            eprintln!("Searches:");
            for s in &plan.searches {
                eprintln!("  - {s}");
            }
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
        Question::Escalation {
            reason,
            issues,
            score,
        } => {
            eprintln!(
                "\nThe reviewer's critical issues stay open: {reason} (best draft {score:.1}/10)."
            );
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
        Question::ReportReview { report } => {
            eprintln!("\n{report}\n");
            loop {
                let line =
                    read_line("Approve the report? [y]es / [r]evise with feedback / re[j]ect: ")?;
                match line.to_lowercase().chars().next() {
                    Some('y') | None => return Ok(Answer::ApproveReport),
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
            if let Some(feedback) = &a.revise {
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
            "the report waits for review; continue with: research resume {thread} --approve | --revise TEXT | --reject TEXT"
        ),
    }
}
