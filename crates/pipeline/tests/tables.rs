//! Tables on pages (issue 32): a table is stored as a Markdown table, a row is quoted as it
//! stands, and a number a report takes from a row is checked against that row read with its
//! header — the right row's number verified, another row's not.

mod common;

use common::*;
use research_pipeline::steps::audit::AuditStatus;
use research_pipeline::*;
use serde_json::json;

const Q: &str = "What is the offset of the page size in the SQLite database file header?";

/// SQLite's file format page, abridged, its table as the HTML extractor stores it.
const PAGE: &str =
    "The first 100 bytes of the SQLite database file comprise the database file header.\n\n\
| Offset | Size | Description |\n\
| --- | --- | --- |\n\
| 0 | 16 | The header string of the database file |\n\
| 16 | 2 | The database page size in bytes. |\n\
| 18 | 1 | File format write version of the database file. |\n\n\
All multibyte fields in the database file header are big-endian.\n";

fn replace(
    answers: &mut Vec<research_llm::ScriptedAnswer>,
    purpose: &str,
    json: serde_json::Value,
) {
    answers.retain(|a| a.purpose.as_deref() != Some(purpose));
    answers.push(answer(purpose, json));
}

#[tokio::test]
async fn a_number_from_a_table_row_is_quoted_as_the_row_and_checked_with_its_header() {
    let report = "## Summary\nThe database page size in bytes has offset 16 and size 2 [1]. \
The file format write version of the database file has offset 16 and size 1 [1].\n";
    let mut answers = script(report);
    replace(
        &mut answers,
        "plan",
        json!({"questions": ["Where in the database file header is the page size?"],
               "aspects": ["file header"], "searches": ["sqlite database file header page size"]}),
    );
    // The model picks the page size's row by its number in the listing (the rows it was shown
    // read with their header, so it can tell the offset from the size), with no fact of its own.
    replace(
        &mut answers,
        "extract",
        // Its fact says nothing of its own: the row as it stands stands in for it.
        json!({"facts": [{"fact": "Yes.", "sentence": 3, "end_sentence": 3}]}),
    );
    replace(&mut answers, "verify", json!({"verdicts": []}));
    let c = corpus_of(&[(
        "https://docs.example/fileformat",
        "Database File Format",
        PAGE,
    )]);
    let run = ask_on(c, Q, config(Mode::Single, Structure::Detailed), answers).await;
    let state = &run.state;
    let extraction = run
        .model
        .requests()
        .into_iter()
        .find(|r| r.purpose.as_deref() == Some("extract"))
        .unwrap_or_else(|| {
            panic!(
                "no extraction call: searches {:?}, sources {:?}, warnings {:?}, purposes {:?}",
                state.searches_done,
                state.sources,
                state.warnings,
                run.model
                    .requests()
                    .iter()
                    .map(|r| r.purpose.clone())
                    .collect::<Vec<_>>()
            )
        });
    let shown: String = extraction
        .messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        shown.contains("[3] Offset: 16; Size: 2; Description: The database page size in bytes."),
        "the model reads the row under its header: {shown}"
    );
    // The quote is the row as the page has it.
    let row = state
        .evidence
        .iter()
        .find(|e| e.quote.contains("page size"))
        .expect("the row was taken");
    assert_eq!(row.quote, "| 16 | 2 | The database page size in bytes. |");
    // The report's numbers: the row's verified, the other row's offset contradicted (and the
    // sentence rewritten from its evidence).
    let entry = |needle: &str| {
        state
            .audit
            .iter()
            .find(|a| a.written.as_deref().unwrap_or(&a.sentence).contains(needle))
            .unwrap_or_else(|| panic!("no audit entry for {needle}: {:#?}", state.audit))
    };
    let right = entry("page size in bytes has offset 16");
    assert_eq!(right.status, AuditStatus::Verified, "{right:#?}");
    assert_eq!(
        right.passage.as_deref(),
        Some("Offset: 16; Size: 2; Description: The database page size in bytes.")
    );
    let wrong = entry("write version");
    assert_ne!(wrong.status, AuditStatus::Verified, "{wrong:#?}");
    assert!(
        wrong.check.contains("contradicted") && wrong.check.contains("\"18\""),
        "{wrong:#?}"
    );
    assert!(!state
        .report
        .contains("write version of the database file has offset 16"));
    // The writer was shown the row read with its header, not its pipes.
    let write = run
        .model
        .requests()
        .into_iter()
        .find(|r| r.purpose.as_deref() == Some("write"))
        .expect("a write call");
    let shown: String = write.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(
        shown.contains("Offset: 16; Size: 2; Description: The database page size in bytes."),
        "{shown}"
    );
    // The prose reads as sentences; the row appears only where the report quotes its sources
    // verbatim (the key findings), as the page has it.
    let prose = state.report.split("## Key findings").next().unwrap();
    assert!(!prose.contains("| 16 |"), "{}", state.report);
}
