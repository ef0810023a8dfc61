//! Quotes as the page reads: the stored text of a page is Markdown (escapes, emphasis, list
//! numbers the converter wrote), but evidence quotes are the words a person sees there.

mod common;

use common::*;
use research_pipeline::text::{normalize, plain, quote_in};
use research_pipeline::*;

const PAGE: &str = "# Memory in Rust\n\n\
The **drop\\[\\]** hook frees the memory of a Rust value when its owner goes out of scope.\n\n\
To free memory in Rust, we have:\n\n\
1. Rust frees the memory of a value when its owner goes out of scope.\n\
2. Rust never needs a tracing garbage collector for this memory.\n";

#[tokio::test]
async fn quotes_carry_no_markdown_escapes_emphasis_or_list_numbers() {
    let url = "https://example.org/markdown";
    let pages = corpus_with(&[(url, "Memory in Rust", PAGE)]);
    let run = run_script_on(
        pages,
        config(Mode::Single, Structure::Detailed),
        script(DETAILED),
    )
    .await;
    let quotes: Vec<&str> = run
        .state
        .evidence
        .iter()
        .filter(|e| e.source_url == url)
        .map(|e| e.quote.as_str())
        .collect();
    assert!(!quotes.is_empty(), "{:#?}", run.state.evidence);
    for q in &quotes {
        for artefact in ["\\", "**", "\n", "1. ", "2. ", "#"] {
            assert!(!q.contains(artefact), "{artefact:?} in {q:?}");
        }
        // Found in the page as it reads, which has no list numbers.
        assert!(quote_in(q, &normalize(&plain(PAGE))), "{q:?}");
        assert!(!normalize(q).contains("have 1 rust"), "{q:?}");
    }
    assert!(
        quotes.iter().any(|q| q.contains("drop[] hook")),
        "{quotes:?}"
    );
}
