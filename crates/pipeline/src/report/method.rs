//! The method section (seed 001): what was done, how much of it checked out, what the run
//! decided and refused — apart from the rest of the report because it grows with every signal
//! a run keeps.

use super::{date, headings, Facts};

/// The method section (seed 001): what was done and how much of it checked out.
pub(crate) fn method_section(state: &Facts<'_>, now_ms: i64, llm_calls: u64) -> String {
    let h = headings(state.language);
    let supported = state.claims.iter().filter(|c| c.supported).count();
    let total = state.claims.len();
    let mut out = format!("## {}\n\n", h.method);
    let lines: Vec<String> = if state.language == "ja" {
        vec![
            format!("- 反復回数: {}", state.iteration),
            format!("- 実行した検索: {}", state.searches_done.len()),
            format!("- 読んだ出典: {}", state.sources.len()),
            format!("- 証拠: {} 件", state.evidence.len()),
            format!(
                "- 検証された主張: {supported}/{total}（引用照合で裏付けられ、モデルに尋ねた場合はモデルも認めたもの）"
            ),
            format!(
                "- 網羅度: {:.0}%（読んだ一節が述べる、完全な答えの見込みの割合。同じ点は一度だけ数える）",
                state.coverage * 100.0
            ),
            format!("- モデル呼び出し: {llm_calls}"),
            format!("- 作成日: {}", date(now_ms)),
        ]
    } else {
        vec![
            format!("- Iterations: {}", state.iteration),
            format!("- Searches run: {}", state.searches_done.len()),
            format!("- Sources read: {}", state.sources.len()),
            format!("- Evidence items: {}", state.evidence.len()),
            format!(
                "- Claims supported by their quotes: {supported}/{total} (the citation \
                 checker verifies them, and the model agrees where it is asked)"
            ),
            format!(
                "- Coverage of the research questions: {:.0}% (the expected share of a \
                 complete answer that the checked passages state, each point counted once)",
                state.coverage * 100.0
            ),
            format!("- Model calls: {llm_calls}"),
            format!("- Written: {}", date(now_ms)),
        ]
    };
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    for note in state.notes {
        out.push_str(&format!("- {note}\n"));
    }
    let grades = crate::steps::grade::grades(state.evidence, state.claims);
    if let Some(line) = crate::steps::grade::summary(&grades, state.language == "ja") {
        out.push_str(&format!("- {line}\n"));
    }
    if let Some(line) = state.plan.planner_line() {
        out.push_str(&format!("- {line}\n"));
    }
    for concern in &state.plan.concerns {
        out.push_str(&format!(
            "- The planner's concern about the scope: {concern}\n"
        ));
    }
    out.push_str(&on_question_lines(state));
    for d in state.decisions {
        let auto = if d.automatic {
            if state.language == "ja" {
                "（自動）"
            } else {
                " (taken automatically, no one was asked)"
            }
        } else {
            ""
        };
        out.push_str(&format!("- {}: {}{auto}\n", d.point, d.decision));
    }
    out
}

/// Refusals listed in the method section at most (the rest are counted).
const LISTED_REFUSALS: usize = 6;

/// The method section's lines on relevance: how many passages read were on the question, and
/// the model's searches and research questions refused, with why.
fn on_question_lines(state: &Facts<'_>) -> String {
    let ja = state.language == "ja";
    let mut out = String::new();
    if !state.read.is_empty() {
        // Counted by what the passages say (the answering measure that also caps the
        // coverage), not by a word they share with the question.
        let gate = crate::steps::relevance::Gate::new(state.query, state.questions);
        let answering = gate
            .answers(state.evidence)
            .into_iter()
            .filter(|a| *a)
            .count();
        out.push_str(&if ja {
            format!(
                "- 質問に答える証拠: {answering} / {} 件（質問に関わる {} 件だけを引用し、網羅度には答えるものだけを数える）\n",
                state.read.len(),
                state.evidence.len(),
            )
        } else {
            format!(
                "- Passages that answer the question: {answering} of the {} read ({} on the \
                 question may be cited; the coverage counts only those that answer)\n",
                state.read.len(),
                state.evidence.len(),
            )
        });
    }
    // Seed 000 (000-12): the searches tried on every kind of source after finding nothing.
    for w in state
        .warnings
        .iter()
        .filter(|w| w.kind == crate::records::WarningKind::Switched)
    {
        out.push_str(&format!(
            "- {} {}\n",
            if ja {
                "検索の切り替え:"
            } else {
                "A search switched:"
            },
            w.message
        ));
    }
    let copies = state
        .warnings
        .iter()
        .filter(|w| w.kind == crate::records::WarningKind::Repeated)
        .count();
    if copies > 0 {
        out.push_str(&if ja {
            format!("- 既に読んだページと同じ内容のため読まなかったページ: {copies}\n")
        } else {
            format!(
                "- Pages that said what a page already read says (a copy), read once: {copies}\n"
            )
        });
    }
    let refused: Vec<&crate::records::Warning> = state
        .warnings
        .iter()
        .filter(|w| w.kind == crate::records::WarningKind::Refused)
        .collect();
    if !refused.is_empty() {
        out.push_str(&if ja {
            format!("- 使わなかったモデルの検索・調査課題: {}\n", refused.len())
        } else {
            format!(
                "- The model's searches and research questions refused: {}\n",
                refused.len()
            )
        });
        for w in refused.iter().take(LISTED_REFUSALS) {
            // The model's words as refused, without the citation markers they may hold: a
            // "[3],[4],[5]" there is no citation of the report's.
            let line = research_check::words::without_citations(&w.message.replace('\n', " "));
            out.push_str(&format!(
                "  - {}\n",
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        if refused.len() > LISTED_REFUSALS {
            out.push_str(&format!("  - … {}\n", refused.len() - LISTED_REFUSALS));
        }
    }
    out
}
