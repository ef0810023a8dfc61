//! Issue 55, item 3: the LaTeX export compiles with the TeX Live Debian packages (pdfLaTeX and
//! LuaLaTeX, BibTeX through natbib), and the PDF it makes cites by the style chosen — read
//! back with `pdftotext`, the way a person would see it.

use std::path::Path;
use std::process::Command;

use research_export::{latex, Citation, CitationStyle, Paper, Report, SourceRef, STYLES};

fn report() -> Report {
    let hipp = Citation {
        authors: vec![
            research_cite::Name::Person {
                family: "Hipp".into(),
                given: "D. Richard".into(),
            },
            research_cite::Name::Literal {
                literal: "SQLite Consortium".into(),
            },
        ],
        issued: Some("2024-03-05".into()),
        container: Some("SQLite Documentation".into()),
        ..Citation::default()
    };
    let article = Citation {
        authors: vec![research_cite::Name::Person {
            family: "von Frisch".into(),
            given: "Karl".into(),
        }],
        issued: Some("1967".into()),
        container: Some("The Dance Language & Orientation of Bees".into()),
        volume: Some("12".into()),
        issue: Some("3".into()),
        pages: Some("101-119".into()),
        doi: Some("10.1000/xyz_123".into()),
        publisher: Some("Harvard University Press".into()),
        kind: Some("article-journal".into()),
    };
    let mut every_latin = String::new();
    for (i, c) in (0xA1u32..=0x17E).filter_map(char::from_u32).enumerate() {
        every_latin.push(c);
        if i % 12 == 11 {
            every_latin.push(' ');
        }
    }
    Report {
        question: "What are the trade-offs of WAL & rollback journals?".into(),
        markdown: format!(
            "# What are the trade-offs of WAL & rollback journals?\n\n\
             ## Summary\n\n\
             WAL is faster in most cases [1] and readers do not block writers [1][2]. \
             Bees are unrelated ✓✓ but cited ✓ [3] ⚠.\n\n\
             - a point with `code_{{x}}` and **bold** and *emphasis*\n  - nested [2]\n\
             1. first\n2. second\n\n\
             > A quoted passage, 100% #1 $5 ~ ^ \\ < > |.\n\n\
             ```\n\\end{{document}}\n  indented {{braces}}\n```\n\n\
             | Mode | Readers block writers? |\n|---|---|\n| WAL | No [1] |\n| Rollback | Yes — sometimes |\n\n\
             Every Latin letter: {every_latin}. Others: ∀ α ж 🙂 “quoted” – — … €.\n\n\
             ## Sources\n\n\
             [1] Write-Ahead Logging — <https://sqlite.org/wal.html> (accessed 2026-11-18)\n\n\
             [2] An article — <https://doi.org/10.1000/xyz_123> (accessed 2026-11-18)\n\n\
             [3] My notes — </home/me/notes_2024.md> (accessed 2026-11-18)\n\n\
             ## Method and verification\n\n\
             - Trust: 2 claims ✓✓, 1 ✓, 1 ⚠\n"
        ),
        sources: vec![
            SourceRef {
                id: 1,
                url: "https://sqlite.org/wal.html".into(),
                title: "Write-Ahead Logging".into(),
                kind: "web".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: Some(hipp),
            },
            SourceRef {
                id: 2,
                url: "https://doi.org/10.1000/xyz_123".into(),
                title: "The {Dance} of the Bees: 50% of foragers".into(),
                kind: "academic".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: Some(article),
            },
            SourceRef {
                id: 3,
                url: "file:///home/me/notes_2024.md".into(),
                title: "My notes".into(),
                kind: "local".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: None,
            },
        ],
        created_at_ms: 1_795_000_000_000,
        models: vec![],
    }
}

/// Compiles `name.tex` in `dir` as a person would (engine, bibtex, engine twice) and returns
/// the PDF's text; every step must succeed and leave no undefined citation.
fn compile(dir: &Path, name: &str, engine: &str) -> String {
    let run = |program: &str, args: &[&str]| {
        let out = Command::new(program)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| {
                panic!("{program} could not start (scripts/install-deps.sh installs TeX Live): {e}")
            });
        let log = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{program} {args:?} failed:\n{log}");
        log
    };
    let engine_args = ["-interaction=nonstopmode", "-halt-on-error", name];
    run(engine, &engine_args);
    let bibtex = run("bibtex", &[name]);
    assert!(!bibtex.contains("Warning--"), "bibtex warned:\n{bibtex}");
    run(engine, &engine_args);
    let log = run(engine, &engine_args);
    assert!(
        !log.contains("undefined"),
        "{engine} left citations undefined:\n{log}"
    );
    let pdf = dir.join(format!("{name}.pdf"));
    let text = Command::new("pdftotext")
        .args(["-layout".as_ref(), pdf.as_os_str(), "-".as_ref()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&text.stdout).to_string()
}

fn write(dir: &Path, name: &str, style: CitationStyle) {
    let out = latex(&report(), style, Paper::A4, name);
    std::fs::write(dir.join(format!("{name}.tex")), &out.tex).unwrap();
    std::fs::write(dir.join(format!("{name}.bib")), &out.bib).unwrap();
    if let Some(keep) = std::env::var_os("RS_EXPORT_ARTIFACTS") {
        let keep = Path::new(&keep);
        std::fs::create_dir_all(keep).unwrap();
        std::fs::write(keep.join(format!("{name}.tex")), &out.tex).unwrap();
        std::fs::write(keep.join(format!("{name}.bib")), &out.bib).unwrap();
    }
}

#[test]
fn an_author_date_report_compiles_with_pdflatex_and_cites_by_author_and_year() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "report", CitationStyle::named("apa").unwrap());
    let text = compile(dir.path(), "report", "pdflatex");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // natbib's author–year citations, two keys in one.
    assert!(
        flat.contains("faster in most cases (Hipp and SQLite Consortium, 2024)"),
        "{flat}"
    );
    assert!(
        flat.contains("(Hipp and SQLite Consortium, 2024; von Frisch, 1967)"),
        "{flat}"
    );
    // The bibliography under the report's own heading, the journal's details in it.
    assert!(flat.contains("Sources"), "{flat}");
    assert!(
        flat.contains("Karl von Frisch. The {Dance} of the Bees: 50% of foragers. The Dance Language & Orientation of Bees"),
        "{flat}"
    );
    assert!(
        flat.contains("My notes. Local file: /home/me/notes_2024.md, n.d. Read 2026-11-18."),
        "{flat}"
    );
    assert!(
        flat.contains("12(3):101–119") || flat.contains("12(3):101-119"),
        "{flat}"
    );
    assert!(flat.contains("Method and verification"), "{flat}");
    // The Latin letters a report may quote, set rather than dropped.
    assert!(
        flat.contains("ÅÆÇÈÉÊËÌÍÎÏÐ") && flat.contains("ŹźŻżŽž"),
        "{flat}"
    );
    assert!(flat.contains("cited ✓ (My notes, n.d.) (!)"), "{flat}");
    // What pdfLaTeX cannot set is named, not lost.
    assert!(
        flat.contains("[U+2200]") && flat.contains("[U+1F642]") && flat.contains("[U+0126]"),
        "{flat}"
    );
    assert!(
        flat.contains("“quoted” – — . . . €") || flat.contains("“quoted” – — … €"),
        "{flat}"
    );
    // Code stays code: its \end{document} did not end the document.
    assert!(flat.contains("\\end{document}"), "{flat}");
}

#[test]
fn a_numbered_report_compiles_with_lualatex_and_numbers_its_citations() {
    let dir = tempfile::tempdir().unwrap();
    let ieee = CitationStyle::named("ieee").unwrap();
    assert_eq!(ieee, STYLES[3]);
    write(dir.path(), "numbered", ieee);
    let text = compile(dir.path(), "numbered", "lualatex");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("faster in most cases [1]"), "{flat}");
    assert!(flat.contains("do not block writers [1, 2]"), "{flat}");
    // LuaLaTeX sets what pdfLaTeX names by code point.
    assert!(
        flat.contains("∀ α ж") && !flat.contains("[U+0436]"),
        "{flat}"
    );
    assert!(
        flat.contains("[1] D. Richard Hipp and SQLite Consortium"),
        "{flat}"
    );
    assert!(
        flat.contains("[3] My notes. Local file: /home/me/notes_2024.md"),
        "{flat}"
    );
}
