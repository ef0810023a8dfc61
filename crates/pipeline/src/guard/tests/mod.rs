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

mod evidence;
mod text;

#[test]
fn an_aspect_is_a_heading_not_a_sentence() {
    assert!(usable_aspect("Origins of uninitialised values"));
    assert!(usable_aspect("Borrowing"));
    assert!(usable_aspect("Costs, risks and benefits"));
    assert!(!usable_aspect(
        "Question outlines are created by the user, which can be used"
    ));
    assert!(!usable_aspect(
        "to create questions that may not exist yet."
    ));
    assert!(!usable_aspect(""));
}

#[test]
fn a_title_with_a_citation_is_no_claim_and_a_short_plain_claim_is_one() {
    assert!(no_claim("[1] (Mozilla Public License Version 2.0)"));
    assert!(no_claim("[4] (GNU LESSER GENERAL PUBLICLICENSE)[1]"));
    assert!(no_claim("Memcheck [2]."));
    assert!(!no_claim(
        "- Rust checks ownership rules at compile time [1]"
    ));
    assert!(!no_claim("THERE IS NO WARRANTY FOR THE PROGRAM [2]."));
    assert!(!no_claim("Memcheck finds leaks [1]."));
}
