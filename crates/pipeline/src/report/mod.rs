//! Turning the writer's draft into the final report: citation markers normalised and validated
//! (a marker that names no source is repaired to the source that says it or removed), the
//! evidence-backed findings, the sources list and the method section, with localised headings.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

use crate::records::{Claim, Decision, Evidence, Source};
use crate::steps::trust::credibility::{Credibility, MIN_CREDIBILITY};
use crate::text::overlap;

mod method;
pub(crate) use method::method_section;

/// Section headings in one language.
pub(crate) struct Headings {
    pub summary: &'static str,
    pub findings: &'static str,
    pub caveats: &'static str,
    pub sources: &'static str,
    pub method: &'static str,
    pub accessed: &'static str,
    pub excluded: &'static str,
    pub credibility: &'static str,
    /// An academic report's first section.
    pub r#abstract: &'static str,
    /// An academic report's last section.
    pub conclusion: &'static str,
}

pub(crate) fn headings(language: &str) -> Headings {
    match language {
        "ja" => Headings {
            summary: "要約",
            findings: "主な発見",
            caveats: "注意点",
            sources: "出典",
            method: "調査方法と検証",
            accessed: "閲覧日",
            excluded: "除外した出典",
            credibility: "信頼度",
            r#abstract: "要旨",
            conclusion: "結論",
        },
        _ => Headings {
            summary: "Summary",
            findings: "Key findings",
            caveats: "Caveats",
            sources: "Sources",
            method: "Method and verification",
            accessed: "accessed",
            excluded: "Sources left out",
            credibility: "credibility",
            r#abstract: "Abstract",
            conclusion: "Conclusion",
        },
    }
}

/// The sources list's heading in `language` (`en`, `ja`), as reports are written.
pub fn sources_heading(language: &str) -> &'static str {
    headings(language).sources
}

/// Whether a heading's words are the sources list's heading in a language reports are
/// written in: where an exporter finds the list to link, style or lay out.
pub fn is_sources_heading(words: &str) -> bool {
    let words = words.trim_start_matches('#').trim();
    ["en", "ja"].iter().any(|l| sources_heading(l) == words)
}

fn marker_regex() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\[(?:(?:Source|source|S|Ref|ref)\s*)?(\d{1,4}(?:\s*[,;]\s*(?:(?:Source|source|S)\s*)?\d{1,4})*)\](?:\([^)]*\))?")
            .expect("valid regex")
    })
}

/// `text` without its citation markers (a length counted in words counts no `[3]`).
pub(crate) fn without_markers(text: &str) -> String {
    marker_regex().replace_all(text, "").into_owned()
}

/// Citation numbers in `text`, in the `[n]` and `[Sn]` forms the report uses.
pub fn cited_ids(text: &str) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    for cap in marker_regex().captures_iter(text) {
        for n in cap[1].split([',', ';']) {
            let digits: String = n.chars().filter(|c| c.is_ascii_digit()).collect();
            if let Ok(id) = digits.parse() {
                ids.insert(id);
            }
        }
    }
    ids
}

/// Rewrites every citation marker of `draft` to `[n]` form with valid numbers only. A number
/// that names no source is replaced by the source whose evidence best matches the sentence it
/// stands in, or dropped when none does. Returns the text and how many markers were repaired
/// and removed.
pub(crate) fn repair_citations(draft: &str, evidence: &[Evidence]) -> (String, usize, usize) {
    let mut by_source: BTreeMap<u32, String> = BTreeMap::new();
    for e in evidence {
        let text = by_source.entry(e.source_id).or_default();
        text.push_str(&e.fact);
        text.push(' ');
        text.push_str(&e.quote);
        text.push(' ');
    }
    let (mut repaired, mut removed) = (0, 0);
    let mut out = String::with_capacity(draft.len());
    for line in draft.split_inclusive('\n') {
        let mut last = 0;
        for cap in marker_regex().captures_iter(line) {
            let whole = cap.get(0).expect("match");
            out.push_str(&line[last..whole.start()]);
            let next = line[whole.end()..].chars().next();
            last = whole.end();
            let context = &line[..whole.start()];
            let sentence_start = context
                .rfind(['.', '!', '?', '。'])
                .map(|i| i + 1)
                .unwrap_or(0);
            let sentence = &line[sentence_start..whole.start()];
            let mut ids = Vec::new();
            for n in cap[1].split([',', ';']) {
                let digits: String = n.chars().filter(|c| c.is_ascii_digit()).collect();
                let Ok(id) = digits.parse::<u32>() else {
                    continue;
                };
                if by_source.contains_key(&id) {
                    ids.push(id);
                    continue;
                }
                let mut scores: Vec<(usize, u32)> = by_source
                    .iter()
                    .map(|(sid, text)| (overlap(sentence, text), *sid))
                    .collect();
                scores.sort_unstable_by(|a, b| b.cmp(a));
                // Only a clear winner: a wrong citation is worse than none.
                let runner_up = scores.get(1).map(|s| s.0).unwrap_or(0);
                match scores.first() {
                    Some(&(score, sid)) if score >= 3 && score > runner_up => {
                        ids.push(sid);
                        repaired += 1;
                    }
                    _ => removed += 1,
                }
            }
            ids.dedup();
            // A dropped marker must not leave "word ." behind.
            if ids.is_empty() && next.is_none_or(|c| c.is_ascii_punctuation() || c == '\n') {
                out.truncate(out.trim_end_matches([' ', '\t']).len());
            }
            for id in ids {
                let marker = format!("[{id}]");
                // "[2][19]" repaired to "[2][2]" reads as one citation.
                if !out.ends_with(&marker) {
                    out.push_str(&marker);
                }
            }
        }
        out.push_str(&line[last..]);
    }
    (out, repaired, removed)
}

fn quote_regex() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#""([^"\n]{12,})"|“([^”\n]{12,})”|「([^」\n]{6,})」"#).expect("valid regex")
    })
}

/// Shortest quote, in normalised characters, that counts as found: a shorter one would be
/// "found" almost anywhere.
pub const MIN_QUOTE_CHARS: usize = 8;

/// Takes the quotation marks off quoted spans of `body` that the source they cite does not
/// contain (normalised, at least [`MIN_QUOTE_CHARS`]): a report may paraphrase, but what it
/// presents as a quote must be one, and from the source its sentence cites — a quote found only
/// in another source is misattributed. A sentence that cites nothing may quote any source read.
/// `texts` holds each source's normalised text by its number. Returns the text and how many
/// spans were unquoted.
pub(crate) fn unquote_unfound(body: &str, texts: &BTreeMap<u32, String>) -> (String, usize) {
    use unicode_segmentation::UnicodeSegmentation;
    let mut count = 0;
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        for sentence in line.split_sentence_bounds() {
            let cited = cited_ids(sentence);
            let candidates: Vec<&String> = if cited.is_empty() {
                texts.values().collect()
            } else {
                cited.iter().filter_map(|id| texts.get(id)).collect()
            };
            let kept = quote_regex().replace_all(sentence, |cap: &regex::Captures<'_>| {
                let inner = cap
                    .get(1)
                    .or_else(|| cap.get(2))
                    .or_else(|| cap.get(3))
                    .map(|m| m.as_str())
                    .unwrap_or_default();
                let n = crate::text::normalize(inner);
                if n.chars().count() >= MIN_QUOTE_CHARS && candidates.iter().any(|t| t.contains(&n))
                {
                    cap[0].to_string()
                } else {
                    count += 1;
                    inner.to_string()
                }
            });
            out.push_str(&kept);
        }
    }
    (out, count)
}

/// Removes a title, sources or references section the model wrote despite being told not to.
pub(crate) fn strip_model_extras(draft: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in draft.lines() {
        let t = line.trim();
        if t.starts_with("# ") && out.is_empty() {
            continue;
        }
        // Chat-template turn markers a small model writes out as text.
        if t.starts_with("<|") || t.starts_with("<start_of_turn") || t.starts_with("<end_of_turn") {
            continue;
        }
        if t.starts_with('#') {
            let title = t.trim_start_matches('#').trim().to_lowercase();
            skipping = matches!(
                title.as_str(),
                "sources" | "references" | "bibliography" | "citations" | "出典" | "参考文献"
            );
        }
        if !skipping {
            out.push(line);
        }
    }
    out.join("\n").trim().to_string()
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm): the
/// inverse of [`date`].
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A civil date (YYYY-MM-DD, UTC) from ms since the epoch.
pub fn date(ms: i64) -> String {
    // Civil date from days since the epoch (Howard Hinnant's algorithm), so no clock crate is
    // needed for one line.
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

/// The findings section: every evidence item given to the writer, with its verbatim quote.
pub(crate) fn findings_section(language: &str, evidence: &[Evidence]) -> String {
    if evidence.is_empty() {
        return String::new();
    }
    let h = headings(language);
    let mut out = format!("## {}\n\n", h.findings);
    for e in evidence {
        let quote = e.quote.replace('\n', " ");
        if e.reads_as_its_quote() {
            // The fact is its quote (a small model's fact was replaced by it): say it once.
            out.push_str(&format!("- \"{}\" [{}]\n", quote.trim(), e.source_id));
            continue;
        }
        out.push_str(&format!(
            "- {} [{}]\n  > \"{}\"\n",
            e.fact.trim(),
            e.source_id,
            quote.trim()
        ));
    }
    out
}

/// What the report's fixed sections are made from, whichever pipeline wrote it.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// How the run searched, in words (the run's [`crate::Env::notes`]).
    pub notes: &'a [String],
    /// Sources that have nothing on the question, in a sentence each ([`crate::Env::off_the_question`]).
    pub off_the_question: &'a [String],
    /// The plan: its approach, the planner's confidence and concerns go in the method section.
    pub plan: &'a crate::records::Plan,
    /// The question (the report's title).
    pub query: &'a str,
    /// The report's language.
    pub language: &'a str,
    /// Sources read.
    pub sources: &'a [Source],
    /// The evidence the report may cite: all of it, until the writer narrows it to what is on
    /// the question.
    pub evidence: &'a [Evidence],
    /// Every passage read, on the question or not.
    pub read: &'a [Evidence],
    /// The run's warnings (the method section lists the refused searches and questions).
    pub warnings: &'a [crate::records::Warning],
    /// Checked claims.
    pub claims: &'a [Claim],
    /// Supported / checked claims.
    pub confidence: f64,
    /// Rounds of research.
    pub iteration: u32,
    /// Searches run.
    pub searches_done: &'a [String],
    /// Coverage of the research questions.
    pub coverage: f64,
    /// The plan's research questions.
    pub questions: &'a [String],
    /// The question's key terms in the sources' language, when they were searched.
    pub crossing: Option<&'a crate::steps::languages::Crossing>,
    /// Decisions taken at review points.
    pub decisions: &'a [Decision],
    /// Each source's credibility (the trust pipeline; empty in the others).
    pub credibility: &'a [Credibility],
}

/// Assembles the final report: title, the writer's body, findings, caveats, sources and method.
pub(crate) fn assemble(
    state: &Facts<'_>,
    body: &str,
    evidence: &[Evidence],
    caveats: &[String],
    now_ms: i64,
    llm_calls: u64,
) -> String {
    let h = headings(state.language);
    let mut report = format!("# {}\n\n", state.query.trim());
    let body = body.trim();
    if !body.is_empty() {
        report.push_str(body);
        report.push_str("\n\n");
    }
    let findings = findings_section(state.language, evidence);
    if !findings.is_empty() {
        report.push_str(&findings);
        report.push('\n');
    }
    if !caveats.is_empty() {
        report.push_str(&format!("## {}\n\n", h.caveats));
        for c in caveats {
            report.push_str(&format!("- {c}\n"));
        }
        report.push('\n');
    }
    let cited = cited_ids(&report);
    report.push_str(&sources_section(state, &cited));
    report.push('\n');
    report.push_str(&method_section(state, now_ms, llm_calls));
    report
}

/// The sources list: every cited source, with its title, URL or path, and access date (and its
/// credibility with the reasons, when the run scored it); then the sources the credibility bar
/// kept out of the report, with why.
pub(crate) fn sources_section(facts: &Facts<'_>, cited: &BTreeSet<u32>) -> String {
    let h = headings(facts.language);
    let location = |s: &Source| {
        s.url
            .strip_prefix("file://")
            .map(str::to_string)
            .unwrap_or_else(|| s.url.clone())
    };
    let credibility = |id: u32| facts.credibility.iter().find(|c| c.source_id == id);
    let mut out = format!("## {}\n\n", h.sources);
    for s in facts.sources.iter().filter(|s| cited.contains(&s.id)) {
        let scored = credibility(s.id)
            .map(|c| format!("; {} {:.2}: {}", h.credibility, c.score, c.why.join(", ")))
            .unwrap_or_default();
        out.push_str(&format!(
            "[{}] {} — <{}> ({} {}{scored})\n\n",
            s.id,
            s.title.trim(),
            location(s),
            h.accessed,
            date(s.accessed_at_ms)
        ));
    }
    let excluded: Vec<(&Source, &Credibility)> = facts
        .sources
        .iter()
        .filter_map(|s| credibility(s.id).filter(|c| c.excluded).map(|c| (s, c)))
        .collect();
    if !excluded.is_empty() {
        out.push_str(&format!("## {}\n\n", h.excluded));
        for (s, c) in excluded {
            // No citation marker: these are not sources of the report.
            out.push_str(&format!(
                "- {} — <{}> ({} {:.2}, under {:.2}: {})\n",
                s.title.trim(),
                location(s),
                h.credibility,
                c.score,
                MIN_CREDIBILITY,
                c.why.join(", ")
            ));
        }
        out.push('\n');
    }
    out
}

/// The honest answer when passages were read but none answers the question: nothing found that
/// answers it, what was searched, and what was found instead (`instead`: an audited body of
/// cited passages, empty when there is none to show). Returns the report's body.
pub(crate) fn nothing_answers_body(state: &Facts<'_>, instead: &str) -> String {
    let ja = state.language == "ja";
    let h = headings(state.language);
    let sources: BTreeSet<u32> = state.read.iter().map(|e| e.source_id).collect();
    let mut out = format!("## {}\n\n", h.summary);
    // A note, not a claim: set apart as a quotation block, which the audit leaves alone.
    out.push_str(&if ja {
        format!(
            "> 「{}」に答えるものは見つかりませんでした。読んだ {} 件の出典の {} 件の箇所は、どれも質問とその調査課題に答えていません（語が重なる箇所があっても、答えを述べてはいません）。答えでない箇所を答えとして示すことはしません。\n\n",
            state.query.trim(),
            sources.len(),
            state.read.len()
        )
    } else {
        format!(
            "> Nothing found that answers \"{}\". None of the {} passages read from {} sources answers the question or its research questions (some may share its words without saying what it asks), so this report does not present them as an answer.\n\n",
            state.query.trim(),
            state.read.len(),
            sources.len()
        )
    });
    if !state.searches_done.is_empty() {
        // Also a note (the searches are not claims): quoted, so the audit leaves it alone.
        let searches: Vec<String> = state
            .searches_done
            .iter()
            .map(|q| format!("`{}`", q.replace('`', "'")))
            .collect();
        out.push_str(&if ja {
            format!("> 検索したこと: {}\n\n", searches.join("、"))
        } else {
            format!("> What was searched: {}.\n\n", searches.join(", "))
        });
    }
    if !instead.trim().is_empty() {
        out.push_str(if ja {
            "### 代わりに見つかったもの\n\n"
        } else {
            "### What was found instead\n\n"
        });
        out.push_str(instead.trim());
        out.push_str("\n\n");
    }
    out
}

/// The honest answer when nothing was found (seed 003's graceful degradation).
pub(crate) fn nothing_found(state: &Facts<'_>, now_ms: i64, llm_calls: u64) -> String {
    let h = headings(state.language);
    let unread = crate::method::unread_pages(state.warnings);
    let blocked = blocked_entries(state.warnings);
    // Pages the guard refused are the likelier reason even when another page was read: the
    // report says which and what allows them, not to rephrase the question (issue 52, N7).
    let body = if !unread.is_empty() && (state.sources.is_empty() || !blocked.is_empty()) {
        unread_explained(
            state.sources.len(),
            &unread,
            &blocked,
            state.language == "ja",
        )
    } else if !state.off_the_question.is_empty() && state.sources.is_empty() {
        off_the_question(state.off_the_question, state.language == "ja")
    } else if state.language == "ja" {
        "この質問について、読める出典から根拠を見つけることができませんでした。推測で答えることはしません。\n\n\
次を試してください:\n\n- 質問をより具体的に言い換える\n- ライブラリに関連する資料のフォルダを追加する\n\
- 別の検索プロバイダーを選ぶか、API キーを設定する\n"
            .to_string()
    } else {
        "No evidence for this question could be found in the sources that were searched and read, so this \
report does not answer it rather than guess.\n\nWhat might help:\n\n- rephrase the question more specifically;\n\
- add a folder with relevant documents to your library;\n- choose other search providers or set an API key for one.\n"
            .to_string()
    };
    format!(
        "# {}\n\n## {}\n\n{body}\n{}",
        state.query.trim(),
        h.summary,
        method_section(state, now_ms, llm_calls)
    )
}

/// Why nothing was found when the sources searched were judged to have nothing on the question
/// (`why`, a sentence each): rephrasing would not find it in them, so the report says what would.
fn off_the_question(why: &[String], ja: bool) -> String {
    let mut out = if ja {
        "検索した出典には、この質問に関するものが見つかりませんでした。推測で答えることはしません。\n\n".to_string()
    } else {
        "Nothing on this question was found in the sources searched, so this report does not answer it rather than guess.\n\n"
            .to_string()
    };
    for why in why {
        out.push_str(&format!("- {why}\n"));
    }
    out.push_str(if ja {
        "\n次を試してください:\n\n- この主題の資料のフォルダをライブラリに追加する\n- ウェブなど別の検索プロバイダーを選ぶ\n"
    } else {
        "\nWhat might help:\n\n- add a folder with documents on this subject to your library;\n- choose other search providers, such as the web.\n"
    });
    out
}

/// Unread pages listed by name; the rest are counted.
const UNREAD_LISTED: usize = 5;

/// The allowed-hosts entries that would let the fetcher read the pages its guard refused.
fn blocked_entries(warnings: &[crate::records::Warning]) -> BTreeSet<String> {
    warnings
        .iter()
        .filter(|w| w.kind == crate::records::WarningKind::Blocked)
        .filter_map(|w| research_fetch::AllowedHosts::entry_for_address(w.url.as_deref()?))
        .collect()
}

/// Why nothing was found when pages the searches found could not be read: `read` pages were
/// read (none answering), each unread page with why, and for addresses the fetcher's guard
/// refused, the exact entry that allows them (`blocked`). Rephrasing the question cannot help
/// there, so the report does not suggest it.
fn unread_explained(
    read: usize,
    unread: &[crate::method::UnreadPage],
    blocked: &BTreeSet<String>,
    ja: bool,
) -> String {
    let mut out = match (ja, read) {
        (true, 0) => format!(
            "検索で見つかった {} ページはどれも読めなかったため、根拠を取り出せませんでした。質問を言い換えても解決しません。\n\n理由:\n\n",
            unread.len()
        ),
        (true, _) => format!(
            "読めた {read} ページには質問に答える箇所がなく、ほかの {} ページは読めませんでした。質問を言い換えても解決しません。\n\n読めなかった理由:\n\n",
            unread.len()
        ),
        (false, 0) => format!(
            "The searches found {} page{}, and none could be read, so there was no evidence to take; rephrasing the question would not help.\n\nWhy:\n\n",
            unread.len(),
            if unread.len() == 1 { "" } else { "s" }
        ),
        (false, _) => format!(
            "{read} page{} could be read and said nothing that answers the question; {} other page{} could not be read, so rephrasing the question would not help.\n\nWhy they could not be read:\n\n",
            if read == 1 { "" } else { "s" },
            unread.len(),
            if unread.len() == 1 { "" } else { "s" }
        ),
    };
    for page in unread.iter().take(UNREAD_LISTED) {
        out.push_str(&format!("- {}: {}\n", page.url, page.reason));
    }
    if unread.len() > UNREAD_LISTED {
        let more = unread.len() - UNREAD_LISTED;
        out.push_str(&if ja {
            format!("- ほか {more} ページ\n")
        } else {
            format!("- and {more} more\n")
        });
    }
    if !blocked.is_empty() {
        let entries = blocked.iter().cloned().collect::<Vec<_>>().join(", ");
        out.push_str(&if ja {
            format!(
                "\nこれらはローカルまたはプライベートなアドレスです。読むには {entries} を許可するホストに加えてください（アプリの設定の allowed_hosts、`research` では --allow-host）。\n"
            )
        } else {
            format!(
                "\nThese addresses are local or private, which the fetcher refuses unless allowed. To read them, add {entries} to the allowed hosts (allowed_hosts in the app's Settings; --allow-host with `research`).\n"
            )
        });
    }
    out
}

/// The first section after the title of a report (its summary), cut to about 1,200 characters:
/// what a follow-up question is told of an earlier turn.
pub fn summary_of(report: &str) -> String {
    let mut out = String::new();
    for line in report
        .lines()
        .skip_while(|l| !l.starts_with("## "))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
    {
        out.push_str(line.trim());
        out.push(' ');
    }
    let out = out.trim();
    if out.chars().count() > 1_200 {
        format!("{}…", out.chars().take(1_200).collect::<String>())
    } else {
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 52, N7: with one page read and the rest refused by the guard, the report said to
    /// rephrase the question; it names the refused pages and the entry that allows them.
    #[test]
    fn refused_pages_are_explained_when_another_page_was_read() {
        let unread = [crate::method::UnreadPage {
            url: "http://127.0.0.1:8080/bees.html".into(),
            reason: "a loopback address, refused unless allowed".into(),
        }];
        let blocked = BTreeSet::from(["127.0.0.1:8080".to_string()]);
        let one = unread_explained(1, &unread, &blocked, false);
        assert!(
            one.starts_with("1 page could be read and said nothing"),
            "{one}"
        );
        assert!(
            one.contains("add 127.0.0.1:8080 to the allowed hosts"),
            "{one}"
        );
        assert!(one.contains("http://127.0.0.1:8080/bees.html"), "{one}");
        assert!(!one.contains("rephrase the question more"), "{one}");
        let none = unread_explained(0, &unread, &blocked, false);
        assert!(none.contains("none could be read"), "{none}");
        let ja = unread_explained(2, &unread, &blocked, true);
        assert!(ja.contains("読めた 2 ページ"), "{ja}");
    }

    fn ev(source_id: u32, fact: &str) -> Evidence {
        Evidence {
            id: source_id,
            source_id,
            source_url: format!("https://example.org/{source_id}"),
            fact: fact.into(),
            quote: fact.into(),
            question: None,
            query: String::new(),
        }
    }

    #[test]
    fn markers_are_normalised_and_invalid_ones_repaired_or_removed() {
        let evidence = vec![
            ev(1, "Rust ownership rules prevent data races"),
            ev(3, "Python uses reference counting garbage collection"),
        ];
        let draft = "Ownership rules prevent data races in Rust [19]. Python counts references [Source 3]. \
Both [1, 3]. Nothing here [7].";
        let (text, repaired, removed) = repair_citations(draft, &evidence);
        assert_eq!(
            text,
            "Ownership rules prevent data races in Rust [1]. Python counts references [3]. Both [1][3]. Nothing here."
        );
        assert_eq!((repaired, removed), (1, 1));
        assert_eq!(cited_ids(&text), BTreeSet::from([1, 3]));
    }

    #[test]
    fn quotes_no_source_contains_lose_their_marks() {
        let texts = BTreeMap::from([
            (
                1,
                crate::text::normalize("Bees dance to show where food is. The queen lays eggs."),
            ),
            (2, crate::text::normalize("Wasps build paper nests.")),
        ]);
        let (out, n) = unquote_unfound(
            "They say \"bees dance to show where food is\" [1] and “bees vote with pheromones daily” [2].",
            &texts,
        );
        assert_eq!(n, 1);
        assert_eq!(
            out,
            "They say \"bees dance to show where food is\" [1] and bees vote with pheromones daily [2]."
        );
        // Found, but in a source the sentence does not cite: misattributed.
        let (out, n) = unquote_unfound("Wasps \"dance to show where food is\" [2].", &texts);
        assert_eq!(
            (out.as_str(), n),
            ("Wasps dance to show where food is [2].", 1)
        );
        // A sentence citing nothing may quote any source read.
        let (_, n) = unquote_unfound("As one page puts it, \"build paper nests\".", &texts);
        assert_eq!(n, 0);
    }

    #[test]
    fn model_written_titles_and_reference_lists_are_dropped() {
        let draft =
            "# My title\n## Summary\nText [1].\n## References\n[1] something\n## Details\nMore.";
        assert_eq!(
            strip_model_extras(draft),
            "## Summary\nText [1].\n## Details\nMore."
        );
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_795_000_000_000), "2026-11-18");
    }
}
