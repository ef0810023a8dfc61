use super::*;

/// Paragraphs of the GNU grep manual page (real reference prose).
const GREP_MANUAL: &str = "grep searches for PATTERNS in each FILE.  PATTERNS is one or more \
patterns separated by newline characters, and grep prints each line that matches a pattern.  \
Typically PATTERNS should be quoted when grep is used in a shell command.

A FILE of \"-\" stands for standard input.  If no FILE is given, recursive searches examine the \
working directory, and nonrecursive searches read standard input.

Debian also includes the variant programs egrep, fgrep and rgrep.  These programs are the same \
as grep -E, grep -F, and grep -r, respectively.  These variants are deprecated upstream, but \
Debian provides for backward compatibility. For portability reasons, it is recommended to avoid \
the variant programs, and use grep with the related option instead.

Select only those lines containing matches that form whole words.  The test is that the \
matching substring must either be at the beginning of the line, or preceded by a non-word \
constituent character.  Similarly, it must be either at the end of the line or followed by a \
non-word constituent character.  Word-constituent characters are letters, digits, and the \
underscore.  This option has no effect if -x is also specified.";

/// Paragraphs of the GNU bash manual page.
const BASH_MANUAL: &str = "Bash is an sh-compatible command language interpreter that executes \
commands read from the standard input or from a file.  Bash also incorporates useful features \
from the Korn and C shells (ksh and csh).

A simple command is a sequence of optional variable assignments followed by blank-separated \
words and redirections, and terminated by a control operator.  The first word specifies the \
command to be executed, and is passed as argument zero.  The remaining words are passed as \
arguments to the invoked command.

A coprocess is a shell command preceded by the coproc reserved word.  A coprocess is executed \
asynchronously in a subshell, as if the command had been terminated with the & control \
operator, with a two-way pipe established between the executing shell and the coprocess.

A non-quoted backslash is the escape character.  It preserves the literal value of the next \
character that follows, with the exception of <newline>.  If a \\<newline> pair appears, and the \
backslash is not itself quoted, the \\<newline> is treated as a line continuation (that is, it \
is removed from the input stream and effectively ignored).";

/// A normal report as the writer should produce it: headings, bullets, citation markers.
const REPORT: &str = "# How does Rust achieve memory safety without a garbage collector?

Rust guarantees memory safety at compile time through ownership, borrowing and lifetimes, so \
programs need neither a garbage collector nor manual calls to free memory [1]. Every value has \
exactly one owner, and the value is dropped when its owner goes out of scope [1][2].

## Ownership and borrowing

- A value can be borrowed immutably by any number of readers, or mutably by exactly one \
writer, but not both at once [2].
- The borrow checker rejects code in which a reference outlives the data it points to [3].
- Moving a value transfers ownership; the old binding can no longer be used [1].

These rules remove whole classes of bugs, such as use-after-free, double free and data races, \
before the program ever runs [3]. The cost is a steeper learning curve: newcomers often report \
fighting the borrow checker during their first weeks with the language [4].

## Unsafe code

Some operations cannot be checked by the compiler, for example dereferencing raw pointers or \
calling C functions. These are allowed inside `unsafe` blocks, which mark the places where the \
programmer, not the compiler, upholds the invariants [2]. Studies of crates published on \
crates.io found that most of them contain no unsafe code at all, and that unsafe blocks tend to \
be small and wrapped in safe interfaces [5].

## Performance

Because memory is freed deterministically, Rust programs avoid garbage-collection pauses and \
have predictable latency, which is why the language is used in browsers, operating-system \
components and embedded firmware [4][5].

## Caveats

- The sources describe the language as of version 1.75, released in December 2023 [2].
- Claims about adoption come from surveys rather than measurements [4].

## Sources

[1] The Rust Programming Language, chapter 4 — https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html
[2] The Rustonomicon — https://doc.rust-lang.org/nomicon/
[3] Rust reference: borrow checking — https://doc.rust-lang.org/reference/
[4] Stack Overflow developer survey 2023 — https://survey.stackoverflow.co/2023/
[5] How do programmers use unsafe Rust? — https://dl.acm.org/doi/10.1145/3428204
";

/// Japanese prose about the same subject.
const JA_PROSE: &str = "Rustは、性能と安全性、特に安全な並行性を重視したプログラミング言語である。\
Rustはガベージコレクタを使わずにメモリ安全性を保証する。そのために所有権と借用という仕組みを導入\
しており、コンパイラが参照の有効期間を検査する。構文はC++に似ているが、型システムは関数型言語の\
影響を強く受けている。2015年5月15日に最初の安定版である1.0がリリースされた。以来、六週間ごとに\
新しい版が公開されている。";

/// The loop a 135M-parameter model wrote instead of a report.
fn fact_loop() -> String {
    "The fact is that ".repeat(200)
}

/// A long report-like text without repetition, built deterministically (for timing and for
/// the "good report that ends in a loop" case).
fn long_prose(words: usize) -> String {
    const SUBJECTS: &[&str] = &[
        "the compiler",
        "each worker",
        "a survey",
        "the library",
        "this study",
        "the kernel",
        "our team",
        "the protocol",
        "every module",
        "the scheduler",
        "that paper",
        "the index",
    ];
    const VERBS: &[&str] = &[
        "measures",
        "reports",
        "reduces",
        "describes",
        "improves",
        "checks",
        "stores",
        "limits",
        "predicts",
        "compares",
        "caches",
        "rejects",
        "explains",
        "tracks",
    ];
    const OBJECTS: &[&str] = &[
        "latency",
        "memory use",
        "throughput",
        "error rates",
        "cold starts",
        "tail latency",
        "disk usage",
        "lock contention",
        "page faults",
        "energy use",
        "build times",
        "coverage",
        "binary size",
        "queue depth",
        "retry storms",
        "cache misses",
    ];
    const TAILS: &[&str] = &[
        "under load",
        "in production",
        "on small devices",
        "across regions",
        "at startup",
        "for large inputs",
        "during upgrades",
        "in the second quarter",
        "on older hardware",
        "with default settings",
        "in nightly builds",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut out = String::new();
    let mut count = 0;
    let mut sentence = 0;
    while count < words {
        let s = format!(
            "{} {} {} {} by {} percent [{}].",
            SUBJECTS[next(SUBJECTS.len())],
            VERBS[next(VERBS.len())],
            OBJECTS[next(OBJECTS.len())],
            TAILS[next(TAILS.len())],
            next(90) + 2,
            next(9) + 1
        );
        count += s.split_whitespace().count();
        out.push_str(&s);
        sentence += 1;
        out.push_str(if sentence % 5 == 0 { "\n\n" } else { " " });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// content_words
// ---------------------------------------------------------------------------------------------

#[test]
fn content_words_drop_stop_words_and_keep_numbers() {
    assert_eq!(
        content_words("What are the main applications of quantum computing in medicine?"),
        vec!["main", "applications", "quantum", "computing", "medicine"]
    );
    assert_eq!(
        content_words("Rust 1.75 was released in December 2023 [2]."),
        vec!["rust", "1.75", "released", "december", "2023"]
    );
    assert_eq!(content_words("The fact is that"), vec!["fact"]);
    assert!(content_words("1. 1. 2. 3.")
        .iter()
        .all(|w| w.parse::<u32>().is_ok()));
    assert!(content_words("").is_empty());
}

#[test]
fn content_words_cut_japanese_without_spaces() {
    assert_eq!(
        content_words("量子コンピュータの応用は何ですか？"),
        vec!["量子", "コンピュータ", "応用"]
    );
    assert_eq!(
        content_words("Rustは所有権という仕組みを持つ"),
        vec!["rust", "所有権", "仕組", "持"]
    );
    assert_eq!(content_words("2023年5月"), vec!["2023", "年", "5", "月"]);
}

#[test]
fn terms_fold_inflections_and_cut_kanji_into_bigrams() {
    assert_eq!(stem("released"), stem("release"));
    assert_eq!(stem("releases"), stem("releasing"));
    assert_eq!(stem("computers"), stem("computing"));
    assert_eq!(stem("studies"), stem("study"));
    assert_eq!(stem("stopped"), stem("stop"));
    assert_eq!(stem("three"), "3");
    assert_eq!(stem("thing"), "thing", "no vowel left: not an -ing form");
    assert_eq!(terms("所有権"), vec!["所有", "有権"]);
}

// ---------------------------------------------------------------------------------------------
// degenerate
// ---------------------------------------------------------------------------------------------

#[test]
fn the_fact_loop_is_degenerate() {
    let text = fact_loop();
    let d = degenerate(&text).expect("a loop");
    match &d {
        Degeneracy::Repetitive { distinct, phrase } => {
            assert!(*distinct < 0.01, "{distinct}");
            assert!([
                "the fact is that",
                "fact is that the",
                "is that the fact",
                "that the fact is"
            ]
            .contains(&phrase.as_str()));
        }
        other => panic!("{other:?}"),
    }
    assert!(d.to_string().contains("repeats itself"), "{d}");
    assert!(distinct_4gram_ratio(&text) < 0.01);
}

#[test]
fn empty_and_numbers_only_are_degenerate() {
    for text in [
        "",
        "   ",
        "...",
        "1. 1. 2. 3. 4. 5.",
        "10,",
        "[1] [2]",
        "— * —",
        "1.\n2.\n3.",
    ] {
        assert_eq!(degenerate(text), Some(Degeneracy::NoWords), "{text:?}");
    }
    assert!(degenerate("").unwrap().to_string().contains("no words"));
}

#[test]
fn a_bare_label_is_degenerate() {
    assert_eq!(
        degenerate("1. Fact:"),
        Some(Degeneracy::Label("Fact:".into()))
    );
    assert!(matches!(
        degenerate("**Answer:**"),
        Some(Degeneracy::Label(_))
    ));
    assert!(matches!(degenerate("事実："), Some(Degeneracy::Label(_))));
    assert!(degenerate("Answer: Rust has no garbage collector.").is_none());
}

#[test]
fn real_prose_and_reports_are_not_degenerate() {
    for text in [GREP_MANUAL, BASH_MANUAL, REPORT, JA_PROSE] {
        assert_eq!(degenerate(text), None, "{text}");
        assert!(
            distinct_4gram_ratio(text) > 0.9,
            "{}",
            distinct_4gram_ratio(text)
        );
    }
    for short in [
        "Rust was first released in 2015.",
        "Yes.",
        "No: the sources disagree [2].",
        "Rustは2015年に公開された。",
        "42",
    ] {
        assert!(
            !matches!(degenerate(short), Some(d) if d != Degeneracy::NoWords) || short == "42",
            "{short}"
        );
    }
    assert_eq!(degenerate("42"), Some(Degeneracy::NoWords));
    assert_eq!(degenerate_within(REPORT, 400), None);
    assert_eq!(degenerate(&long_prose(2_000)), None);
}

#[test]
fn one_sentence_over_and_over_is_degenerate() {
    let text = "Rust is a systems programming language. It is fast. \
                Rust is a systems programming language. It has no garbage collector. \
                Rust is a systems programming language.";
    assert_eq!(
        degenerate(text),
        Some(Degeneracy::RepeatedSentence {
            sentence: "rust is a systems programming language".into(),
            times: 3
        })
    );
    // Twice among five sentences is 40% of them.
    let twice = "The borrow checker rejects dangling references. Ownership moves on assignment. \
                 The borrow checker rejects dangling references. Values are dropped at scope \
                 end. Unsafe blocks mark unchecked code.";
    assert!(matches!(
        degenerate(twice),
        Some(Degeneracy::RepeatedSentence { times: 2, .. })
    ));
    // Twice among ten is a writer restating a point, not a loop.
    let restated = format!("{GREP_MANUAL}\n\nThe test is that the matching substring must either be at the beginning of the line, or preceded by a non-word constituent character.");
    assert_eq!(degenerate(&restated), None);
    // A template filled with different numbers is still one sentence.
    let template: String = (0..60)
        .map(|i| format!("The fact is that item {i} is important. "))
        .collect();
    assert!(distinct_4gram_ratio(&template) > MIN_DISTINCT_4GRAMS);
    assert!(matches!(
        degenerate(&template),
        Some(Degeneracy::RepeatedSentence { times: 60, .. })
    ));
    let ja = "事実は事実である。".repeat(5);
    assert!(matches!(
        degenerate(&ja),
        Some(Degeneracy::RepeatedSentence { times: 5, .. })
    ));
}

#[test]
fn japanese_loops_without_punctuation_are_degenerate() {
    let text = "量子コンピュータは量子コンピュータである".repeat(30);
    match degenerate(&text) {
        Some(Degeneracy::Repetitive { distinct, phrase }) => {
            assert!(distinct < 0.05, "{distinct}");
            assert!(!phrase.contains(' '), "{phrase}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_good_report_that_ends_in_a_loop_is_degenerate() {
    let text = format!(
        "{REPORT}\n\n{}",
        "and the results are the results ".repeat(40)
    );
    assert!(distinct_4gram_ratio(&text) > MIN_DISTINCT_4GRAMS);
    let d = degenerate(&text).expect("a loop at the end");
    assert!(matches!(d, Degeneracy::Loop { .. }), "{d:?}");
    assert!(d.to_string().contains("loops on"), "{d}");
}

#[test]
fn runaway_length_is_degenerate_within_a_budget() {
    let text = long_prose(900);
    assert_eq!(degenerate(&text), None);
    assert!(matches!(
        degenerate_within(&text, 300),
        Some(Degeneracy::Runaway { max_words: 300, .. })
    ));
    assert_eq!(degenerate_within(&text, 600), None);
    assert!(degenerate_within(&text, 300)
        .unwrap()
        .to_string()
        .contains("where about 300 were asked for"));
    // Japanese counts two characters a word.
    assert_eq!(word_count("量子コンピュータ"), 4);
    assert_eq!(word_count("Rust is fast [1]."), 4);
}

#[test]
fn degenerate_checks_a_long_report_fast() {
    let text = long_prose(2_000);
    let start = std::time::Instant::now();
    for _ in 0..10 {
        assert!(degenerate_within(&text, 1_500).is_none());
    }
    let each = start.elapsed() / 10;
    eprintln!("degenerate_within on 2,000 words: {each:?}");
    let limit = if cfg!(debug_assertions) { 100 } else { 5 };
    assert!(each.as_millis() < limit, "{each:?}");
}

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------

#[test]
fn questions_made_of_words_are_usable() {
    for q in [
        "What are the main applications of quantum computing in medicine?",
        "How does Rust achieve memory safety without a garbage collector?",
        "Impact of remote work on team productivity",
        "Which Python versions added pattern matching, and in which year?",
        "Compare PostgreSQL and SQLite for embedded analytics.",
        "量子コンピュータの医療への応用は？",
        "日本の少子化の原因",
        "量子コンピュータとは",
        "What happened at the 1969 Moon landing?",
    ] {
        assert!(usable_question(q), "{q}");
    }
}

#[test]
fn broken_questions_are_not_usable() {
    for q in [
        "What is Rust? 1. 1. 2. 3. 4. 5. 6. 7. 8. 9. 10. 11. 12. 13. 14. 15. 16. 17. 18. 19.",
        "How does Rust manage memory 1. 2. 3.",
        "What are the effects of remote work on the manag",
        "Effects of remote work on the",
        "Effects of remote work on infrastr",
        "1. 1. 2. 3.",
        "10,",
        "1. Fact:",
        "2019 2020 2021 2022?",
        "Rust?",
        "量子",
        "量子コンピュータの",
        "",
        "**name\\[\\]**",
    ] {
        assert!(!usable_question(q), "{q}");
    }
    assert!(!usable_question(&fact_loop()));
}

#[test]
fn keyword_searches_are_usable() {
    for q in [
        "quantum computing medicine",
        "rust 1.75 release notes",
        "GDP 2023",
        "C++ memory safety",
        "\"borrow checker\" site:doc.rust-lang.org",
        "量子コンピュータ 応用",
        "少子化 原因 統計",
        "Rust ownership",
    ] {
        assert!(usable_search(q), "{q}");
    }
}

#[test]
fn broken_searches_are_not_usable() {
    for q in [
        "1. 1. 2. 3.",
        "10,",
        "1.",
        "**name\\[\\]**",
        "",
        "the of and",
        "AI",
        "effects of remote work on the",
        "Rust is a language that lets programmers write fast and safe code without a collector",
        "量子コンピュータは暗号技術に大きな影響を与えると考えられているのだろうか",
        "量子コンピュータの",
        "2019 2020 rust",
    ] {
        assert!(!usable_search(q), "{q}");
    }
    assert!(!usable_search(&fact_loop()));
}

#[test]
fn the_fallback_plan_is_the_question_and_distinct_keyword_queries() {
    let q = "What are the main applications of quantum computing in medicine?";
    let (questions, searches) = fallback_plan(q, 4);
    assert_eq!(questions, vec![q.to_string()]);
    assert_eq!(searches.len(), 4, "{searches:?}");
    assert_eq!(searches[0], "main applications quantum computing medicine");
    assert!(
        searches.contains(&"quantum computing".to_string()),
        "{searches:?}"
    );
    for (i, a) in searches.iter().enumerate() {
        assert!(usable_search(a), "{a}");
        for b in &searches[..i] {
            assert!(query_similarity(a, b) < DUPLICATE_QUERY, "{a} ~ {b}");
        }
    }
    let (_, many) = fallback_plan(q, 50);
    assert!(many.len() > 4 && many.len() < 50, "{many:?}");
    assert!(fallback_plan(q, 0).1.is_empty());
}

#[test]
fn the_fallback_plan_works_in_japanese() {
    let q = "量子コンピュータの医療への応用は？";
    let (questions, searches) = fallback_plan(q, 3);
    assert_eq!(questions, vec![q.to_string()]);
    assert_eq!(searches[0], "量子コンピュータ 医療 応用");
    assert_eq!(searches.len(), 3, "{searches:?}");
    assert!(searches.iter().all(|s| usable_search(s)));
}

#[test]
fn the_fallback_plan_of_a_short_or_empty_question() {
    let (questions, searches) = fallback_plan("Rust?", 3);
    assert_eq!(questions, vec!["Rust?".to_string()]);
    assert_eq!(searches, vec!["rust".to_string()]);
    assert_eq!(fallback_plan("   ", 3), (vec![], vec![]));
    assert!(fallback_plan("1. 2. 3.", 3).1.is_empty());
}

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
        "Rust 1.0 was released on May 15, 2015.[12][13]",
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
