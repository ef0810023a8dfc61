//! Statements, facts, relevance and verification.

use super::*;

// ---------------------------------------------------------------------------------------------
// Statements and facts
// ---------------------------------------------------------------------------------------------

#[test]
fn sentences_of_prose_are_statements() {
    for s in [
        "grep searches for PATTERNS in each FILE.",
        "Typically PATTERNS should be quoted when grep is used in a shell command.",
        "A coprocess is executed asynchronously in a subshell, as if the command had been terminated with the & control operator.",
        "- Rust guarantees memory safety without a garbage collector.",
        "2. The borrow checker rejects code in which a reference outlives its data.",
        "Rust 1.0 was first released to the public on May 15, 2015.[12][13]",
        "Use `cargo build --release` to build an optimised binary of the project.",
        "Rust guarantees memory safety without needing a garbage collector at runtime",
        "Rustはガベージコレクタを使わずにメモリ安全性を保証する。",
        "2015年5月15日に最初の安定版である1.0がリリースされた。",
    ] {
        assert!(statement(s), "{s}");
    }
}

#[test]
fn headings_code_and_metadata_are_not_statements() {
    let sha = format!(
        "{}  foo-1.2.3.tar.gz",
        "3f2a9c0d5e7b1a4f8c6d2e0b9a7f5c3e1d8b6a4f2c0e9d7b5a3f1c8e6d4b2a09"
    );
    for s in [
        "## Installation",
        "# The Rust Programming Language",
        "**name\\[\\]**",
        "1.",
        "-",
        "•",
        "1. Fact:",
        // Five words and a number: a fragment, not a sentence a fact can rest on.
        "holds the value \"block size - 8\".",
        "1. 1. 2. 3. 4. 5. 6. 7. 8.",
        "INSTALLATION AND CONFIGURATION NOTES FOR ALL LINUX USERS",
        "Rust Programming Language - Wikipedia",
        "The Rust Programming Language: Ownership and Borrowing Explained In Depth",
        "Getting started with the borrow checker",
        sha.as_str(),
        "3f2a…  foo.tar.gz",
        "Version 1.2.3 (2023-05-01)",
        "v2.0.1 released on 2024-01-15 with many fixes",
        "Copyright 2023 The Rust Project Developers. All rights reserved.",
        "https://www.rust-lang.org/learn/get-started",
        "May 1, 2023",
        "Last updated: 12 March 2024, 10:42 UTC",
        "let x = compute(a, b); println!(\"{}\", x);",
        "fn main() { println!(\"hello, world\"); }",
        "$ cargo install ripgrep --locked --features pcre2",
        "- Fix crash when opening very large files on Windows (#1234)",
        "a1b2c3d Fix typo in README and update the contributing docs",
        "* Update dependencies by @octocat in https://github.com/o/r/pull/99",
        "The fact is that the fact is that the fact is that",
        // Cut from a longer sentence.
        "Memcheck reports errors as soon as they occur, which",
        "The tool tracks every allocation of the heap and the",
        "Rust is fast.",
        "短い文です。",
        "",
    ] {
        assert!(!statement(s), "{s}");
    }
}

#[test]
fn facts_match_quotes_that_say_them() {
    let quote = "Rust 1.0, the first stable release, was published on May 15, 2015.";
    assert!(fact_matches_quote(
        "Rust 1.0 was released on May 15, 2015.",
        quote
    ));
    assert!(fact_matches_quote(
        "The first stable release of Rust came out in 2015.",
        quote
    ));
    assert!(fact_matches_quote(
        "grep searches for PATTERNS in each FILE",
        GREP_MANUAL
    ));
    assert!(fact_matches_quote(
        "Rustは所有権によってメモリ安全性を保証する。",
        "Rustは所有権と借用という仕組みによって、ガベージコレクタなしでメモリ安全性を保証する。"
    ));
    assert!(fact_matches_quote(
        "The survey had 1000 respondents.",
        "In total the survey had 1,000 respondents from 40 countries."
    ));
}

#[test]
fn facts_that_do_not_say_the_quote_do_not_match() {
    let quote = "Rust 1.0, the first stable release, was published on May 15, 2015.";
    assert!(!fact_matches_quote(
        "Rust 1.0 was released on May 16, 2015.",
        quote
    ));
    assert!(!fact_matches_quote(
        "The first stable release of Rust came out in 2016.",
        quote
    ));
    assert!(!fact_matches_quote("1. Fact:", quote));
    assert!(!fact_matches_quote("", quote));
    assert!(!fact_matches_quote(&fact_loop(), quote));
    assert!(!fact_matches_quote(
        "Python uses reference counting for memory management.",
        quote
    ));
    assert!(!fact_matches_quote("Rust", quote), "one word is not a fact");
    // Made up by the scripted model beside SQLite's "Appropriate Uses" page: five of its eight
    // stems are the passage's, in other senses.
    assert!(!fact_matches_quote(
        "It uses a single-threaded database, which allows for faster data processing.",
        "However, client/server database engines (such as PostgreSQL, MySQL, or Oracle) usually \
         support a higher level of concurrency and allow multiple processes to be writing to the \
         same database at the same time. This is possible in a client/server database because \
         there is always a single well-controlled server process available to coordinate access."
    ));
    assert!(!fact_matches_quote(
        "The latest version of the software fixes many bugs.",
        "Release notes - Rust 1.75.0"
    ));
}

// ---------------------------------------------------------------------------------------------
// Relevance
// ---------------------------------------------------------------------------------------------

#[test]
fn bm25_ranks_the_sentence_about_the_query_first() {
    let sentences = [
        "The weather in Tokyo was mild in April.",
        "Rust frees memory without a garbage collector, using ownership instead.",
        "A garbage collector pauses the program to reclaim memory.",
        "The weather in Tokyo was mild in April.",
        "Memory safety bugs account for most security vulnerabilities in C code.",
    ];
    let ranked = rank_sentences("Rust memory safety without a garbage collector", &sentences);
    assert_eq!(ranked.len(), 5);
    assert_eq!(ranked[0].0, 1, "{ranked:?}");
    assert!(ranked[0].1 > ranked[1].1);
    // Nothing in common: zero, last, by index.
    assert_eq!(&ranked[3..], &[(0, 0.0), (3, 0.0)]);
    assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1));
    assert!(rank_sentences("anything", &[]).is_empty());
    // Identical sentences tie and keep their order.
    let tied = rank_sentences("garbage collector", &[sentences[2], sentences[2]]);
    assert_eq!(tied[0].0, 0);
    assert_eq!(tied[0].1, tied[1].1);
}

#[test]
fn bm25_ranks_japanese_sentences() {
    let sentences = [
        "東京の天気は四月に穏やかだった。",
        "Rustは所有権によってガベージコレクタなしでメモリを解放する。",
        "ガベージコレクタはメモリを回収するためにプログラムを一時停止する。",
    ];
    let ranked = rank_sentences("Rustのメモリ安全性と所有権", &sentences);
    assert_eq!(ranked[0].0, 1, "{ranked:?}");
    assert_eq!(ranked[2], (0, 0.0));
}

#[test]
fn shared_content_needs_two_content_words() {
    assert!(shares_content(
        "quantum computing in medicine",
        "Quantum computers could speed up drug discovery in medicine."
    ));
    assert!(!shares_content(
        "rust ownership",
        "python garbage collection"
    ));
    assert!(!shares_content(
        "rust ownership rules",
        "Rust is popular in embedded systems."
    ));
    assert!(shares_content(
        "Rust?",
        "Rust is popular in embedded systems."
    ));
    assert!(shares_content(
        "量子コンピュータの医療応用",
        "医療における量子コンピュータ"
    ));
    assert!(!shares_content("", "anything at all"));
    assert!(mentions(
        "How do honeybees communicate and organise their colonies?",
        "Honeybee foragers tell their nestmates where food is by dancing."
    ));
    assert!(!mentions(
        "How do honeybees communicate and organise their colonies?",
        "The release notes list every change since the last version."
    ));
    // A two-word topic needs one of its words; a longer one two.
    assert!(shares_content(
        "What does Cachegrind measure?",
        "Cachegrind simulates how your program interacts with the cache hierarchy."
    ));
    assert!(!shares_content(
        "How does Memcheck detect uninitialised values?",
        "Memcheck is the default tool of Valgrind."
    ));
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

#[test]
fn supported_claims_have_their_words_and_numbers_in_the_quote() {
    let s = supports(
        "Rust's first stable version, 1.0, was released in May 2015 [3].",
        "Rust 1.0, the first stable release, was published on May 15, 2015.",
    );
    assert!(s.supported, "{s:?}");
    assert!(s.numbers_ok);
    assert!(s.overlap >= SUPPORT_OVERLAP);
    assert!(s.reason.starts_with("supported"), "{}", s.reason);

    for (claim, quote) in [
        (
            "The survey had 1000 respondents.",
            "The survey had 1,000 respondents from 40 countries.",
        ),
        (
            "The city has 3.5 million residents.",
            "The city has 3,500,000 residents according to the census.",
        ),
        (
            "The city has 3,500,000 residents.",
            "The city's residents number 3.5 million.",
        ),
        (
            "Unemployment fell to 4.50% in 2023.",
            "In 2023 unemployment fell to 4.5 percent.",
        ),
        (
            "The bridge opened on 2021-03-04 after repairs.",
            "After repairs, the bridge opened on March 4, 2021.",
        ),
        (
            "The team shipped three releases last year.",
            "Last year the team shipped 3 releases.",
        ),
        (
            "安定版の1.0は2015年5月に公開された。",
            "２０１５年５月１５日に最初の安定版である1.0がリリースされ、公開された。",
        ),
        (
            "日本の人口は1億2千万人を超えた。",
            "日本の人口は1億2千万人を超えたと推計されている。",
        ),
    ] {
        let s = supports(claim, quote);
        assert!(s.supported, "{claim} / {quote}: {s:?}");
    }
}

#[test]
fn claims_with_other_numbers_are_not_supported() {
    for (claim, quote) in [
        (
            "Rust 1.0 was released in May 2016.",
            "Rust 1.0, the first stable release, was published on May 15, 2015.",
        ),
        (
            "About 1,200 developers answered the survey.",
            "The survey was answered by 1,250 developers.",
        ),
        (
            "The tax rate is 3.5 percent for residents.",
            "The tax rate for residents is 35 percent.",
        ),
        (
            "The bridge opened in June 2021 after repairs.",
            "After repairs, the bridge opened on March 4, 2021.",
        ),
        (
            "The team shipped four releases last year.",
            "Last year the team shipped 3 releases.",
        ),
        (
            "日本の人口は1億3千万人を超えた。",
            "日本の人口は1億2千万人を超えたと推計されている。",
        ),
    ] {
        let s = supports(claim, quote);
        assert!(!s.supported && !s.numbers_ok, "{claim} / {quote}: {s:?}");
        assert!(s.reason.contains("does not state"), "{}", s.reason);
    }
}

#[test]
fn claims_the_quote_does_not_say_are_not_supported() {
    let quote = "Rust 1.0, the first stable release, was published on May 15, 2015.";
    let s = supports(
        "Rust is used by most operating-system vendors today.",
        quote,
    );
    assert!(!s.supported && s.numbers_ok, "{s:?}");
    assert!(s.overlap < SUPPORT_OVERLAP);
    assert!(s.reason.contains("content words"), "{}", s.reason);

    // Half the words is not enough: "bash" and "default" are in the quote, the claim is not.
    let s = supports(
        "Bash is the default shell on macOS.",
        "Bash can be configured to be POSIX-conformant by default.",
    );
    assert!((s.overlap - 0.5).abs() < 1e-9 && !s.supported, "{s:?}");
    // Paraphrases that keep most words pass.
    for (claim, quote) in [
        (
            "The borrow checker prevents data races at compile time.",
            "Data races are prevented at compile time by the borrow checker.",
        ),
        (
            "Bash can run in POSIX mode by default.",
            "Bash can be configured to be POSIX-conformant by default.",
        ),
        (
            "Rustは所有権でメモリ安全性を保証する。",
            "Rustはガベージコレクタを使わずにメモリ安全性を保証する。そのために所有権と借用という仕組みを導入している。",
        ),
    ] {
        assert!(supports(claim, quote).supported, "{claim}");
    }
    assert!(
        !supports(
            "Rustは最も人気のある言語である。",
            "Rustはガベージコレクタを使わずにメモリ安全性を保証する。"
        )
        .supported
    );

    // What the tiny model's verifier called 11/11 supported.
    let page_title = "Rust Programming Language - Wikipedia";
    for claim in [
        "1. Fact:",
        "The fact is that the fact is that the fact is that",
        // Cut from a longer sentence.
        "Memcheck reports errors as soon as they occur, which",
        "The tool tracks every allocation of the heap and the",
    ] {
        let s = supports(claim, page_title);
        assert!(!s.supported, "{claim}: {s:?}");
    }
    assert!(!supports(&fact_loop(), quote).supported);
    assert!(
        !supports("Rust.", quote).supported,
        "one word is not a claim"
    );
    assert!(!supports("", quote).supported);
}

#[test]
fn citation_markers_are_not_numbers_of_the_claim() {
    let s = supports(
        "Rust was first released as a stable language in 2015 [7].",
        "Rust 1.0, the first stable release of the language, was published in 2015.",
    );
    assert!(s.numbers_ok && s.supported, "{s:?}");
}

#[test]
fn numbers_are_read_in_their_usual_forms() {
    let forms = number_forms("1,000 users, 3.50 dollars, 007, v2.0, 2023年, ５月, 1,2 and 3 [9]");
    for n in ["1000", "3.5", "7", "2023", "5", "1", "2", "3"] {
        assert!(forms.contains(n), "{n} in {forms:?}");
    }
    assert!(!forms.contains("9"), "citation markers are not numbers");
    assert!(number_forms("about 2 million people").contains("2000000"));
    assert!(number_forms("about 2 million people").contains("2"));
    assert!(number_forms("3万人").contains("30000"));
    assert!(number_forms("1.25 billion").contains("1250000000"));
    assert!(number_forms("5k stars").contains("5000"));
    assert_eq!(
        missing_numbers("It may rain.", "Sunny."),
        Vec::<String>::new()
    );
}

#[test]
fn other_numbers_about_the_same_subject_disagree_and_another_subject_does_not() {
    let claim = "The queen lays up to 2,000 eggs a day in spring.";
    assert_eq!(
        disagrees(
            claim,
            "The queen lays up to 1,500 eggs a day in spring, beekeepers say."
        ),
        Some(vec!["1,500".to_string()])
    );
    // The same numbers, or another topic, is no disagreement.
    assert_eq!(
        disagrees(claim, "In spring the queen lays up to 2,000 eggs a day."),
        None
    );
    assert_eq!(disagrees(claim, "Drones live 8 weeks in the hive."), None);
    // Two numbers, none agreeing: another subject, not a contradiction.
    let town = "The harbour of town 1 handles about 1,037 ships in a typical year.";
    assert_eq!(
        disagrees(
            town,
            "The harbour of town 3 handles about 1,111 ships in a typical year."
        ),
        None
    );
    assert!(disagrees(
        town,
        "The harbour of town 1 handles about 1,537 ships in a typical year."
    )
    .is_some());
}

#[test]
fn a_sentence_opening_on_the_one_before_leans_on_it() {
    for s in [
        "This provides better compatibility with other SQL implementations.",
        "It measures how much heap memory your program uses.",
        "It\u{2019}s deleted at the end.",
        "However, the journal is kept.",
        "But with SQLite, 200 or more SQL statements per webpage is not a problem.",
        "Nevertheless, client/server database systems can usually handle far more write concurrency.",
        "- Such a file is called a hot journal.",
        "その場合は手順を繰り返します。",
        // Pointing back from within (SQLite's "Appropriate Uses" and "Serverless" pages).
        "SQLite does not work this way.",
        "Developers report that SQLite is often faster than a client/server SQL database engine in this scenario.",
    ] {
        assert!(leans_on_previous(s), "{s}");
    }
    for s in [
        "SQLite does not need to be installed.",
        "Thistle is a plant.",
        "Butter is made from cream.",
        "SQLite reads and writes directly from the database files on disk.",
        "There is no setup procedure.",
        "ミツバチは花を探す。",
    ] {
        assert!(!leans_on_previous(s), "{s}");
    }
}
