//! PDF export checked as a reader would: the text is extractable (English and Japanese), links
//! and citations are there, the page size and count are sane, and the pages render to PNG.
//! `EXPORT_PNG_DIR` keeps the rendered pages for a person to look at.

use std::path::Path;
use std::process::Command;

use research_export::{FontSet, Paper, PdfOptions, PdfRenderer, Report, SourceRef};

fn report(repeat: usize) -> Report {
    let section = "## Findings\n\nHoneybees communicate with a **waggle dance** [1]; the angle encodes *direction* and the duration encodes distance [2]. \
A `code span` and a [link to the spec](https://example.org/spec) sit in the same paragraph.\n\n\
ミツバチは尻振りダンスで餌場の方向と距離を仲間に伝えます [3]。巣の中では女王蜂が一日に千個以上の卵を産むことがあります。\n\n\
| Signal | Meaning | Range |\n|:--|:--|--:|\n| Waggle run | direction and distance | 100 m+ |\n| Round dance | food nearby | < 100 m |\n\n\
- first point [1]\n  - nested point\n- second point\n\n1. step one\n2. step two\n\n> A quoted passage from a source.\n\n```rust\nfn main() { println!(\"[1] is not a citation here\"); }\n```\n\n";
    let mut markdown = String::from("# How do honeybees communicate?\n\n## Summary\n\nShort summary with a citation [1] and an unknown one [9].\n\n");
    for _ in 0..repeat {
        markdown.push_str(section);
    }
    markdown.push_str("## Sources\n\n[1] The waggle dance — <https://example.org/waggle> (accessed 2026-11-18)\n\n[2] Colony organisation — </home/me/notes/colony.md> (accessed 2026-11-18)\n\n[3] ミツバチの生態 — <https://example.jp/bees> (accessed 2026-11-18)\n\n## Method and verification\n\n- Iterations: 2\n- Claims supported by their quotes: 5/6\n");
    Report {
        question: "How do honeybees communicate? ミツバチはどう伝えるか".into(),
        markdown,
        sources: vec![
            SourceRef {
                id: 1,
                url: "https://example.org/waggle".into(),
                title: "The waggle dance".into(),
                kind: "web".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: None,
            },
            SourceRef {
                id: 2,
                url: "file:///home/me/notes/colony.md".into(),
                title: "Colony organisation".into(),
                kind: "local".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: None,
            },
            SourceRef {
                id: 3,
                url: "https://example.jp/bees".into(),
                title: "ミツバチの生態".into(),
                kind: "web".into(),
                accessed_at_ms: 1_795_000_000_000,
                citation: None,
            },
        ],
        created_at_ms: 1_795_000_000_000,
        models: vec!["local:SmolLM2-135M".into()],
    }
}

fn renderer() -> PdfRenderer {
    let fonts = FontSet::locate(
        std::env::var_os("RESEARCH_STUDIO_FONTS")
            .as_deref()
            .map(Path::new),
    )
    .expect("fonts: scripts/install-deps.sh installs fonts-dejavu-core and fonts-noto-cjk");
    PdfRenderer::new(&fonts).unwrap()
}

fn pdfinfo(file: &Path) -> String {
    String::from_utf8_lossy(&Command::new("pdfinfo").arg(file).output().unwrap().stdout).to_string()
}

#[test]
fn english_and_japanese_text_links_and_tables_come_out() {
    let dir = tempfile::tempdir().unwrap();
    let r = renderer();
    let bytes = r.render(&report(1), PdfOptions::default()).unwrap();
    let file = dir.path().join("report.pdf");
    std::fs::write(&file, &bytes).unwrap();
    let text = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&file)
        .arg("-")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("waggle dance [1]; the angle"),
        "a semicolon after a citation survives: {text}"
    );
    assert!(
        text.contains("ミツバチは尻振りダンスで餌場の方向と距離を仲間に伝えます"),
        "{text}"
    );
    assert!(
        text.contains("Round dance") && text.contains("food nearby"),
        "the table: {text}"
    );
    assert!(
        text.contains("[1] is not a citation here"),
        "code is verbatim"
    );
    assert!(text.contains("/home/me/notes/colony.md"));
    let info = pdfinfo(&file);
    assert!(info.contains("595.276 x 841.89 pts (A4)"), "{info}");
    assert!(
        info.lines()
            .any(|l| l.starts_with("Title:") && l.contains("How do honeybees communicate?")),
        "{info}"
    );
    // Links: external URIs and internal jumps from citations to the sources list.
    let urls = Command::new("pdftohtml")
        .args(["-stdout", "-i", "-xml"])
        .arg(&file)
        .output();
    if let Ok(out) = urls {
        let xml = String::from_utf8_lossy(&out.stdout);
        assert!(
            xml.contains("https://example.org/spec"),
            "external link missing"
        );
    }
    if let Ok(keep) = std::env::var("EXPORT_PNG_DIR") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&file, Path::new(&keep).join("report.pdf")).unwrap();
        let status = Command::new("pdftoppm")
            .args(["-png", "-r", "80"])
            .arg(&file)
            .arg(Path::new(&keep).join("page"))
            .status()
            .unwrap();
        assert!(status.success());
    }
    // Letter paper.
    let letter = r
        .render(
            &report(1),
            PdfOptions {
                paper: Paper::Letter,
            },
        )
        .unwrap();
    let file = dir.path().join("letter.pdf");
    std::fs::write(&file, letter).unwrap();
    assert!(pdfinfo(&file).contains("612 x 792 pts (letter)"));
    // The pages render.
    let status = Command::new("pdftoppm")
        .args(["-png", "-r", "30", "-f", "1", "-l", "1"])
        .arg(&file)
        .arg(dir.path().join("p"))
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_long_report_exports() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = renderer()
        .render(&report(160), PdfOptions::default())
        .unwrap();
    let file = dir.path().join("long.pdf");
    std::fs::write(&file, &bytes).unwrap();
    let info = pdfinfo(&file);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    assert!(pages >= 50, "{pages} pages");
}

#[test]
fn a_table_exported_to_pdf_reads_back_as_a_markdown_table() {
    // A PDF's tables are read as tables (research_fetch::extract::pdf), so a number quoted from
    // one is checked against its row and header; a report's own table makes one to read.
    let markdown = "## Header\n\nThe first 100 bytes of the database file comprise the database file header.\n\n\
        | Offset | Size | Description |\n| --- | --- | --- |\n| 0 | 16 | The header string |\n\
        | 16 | 2 | The database page size in bytes. |\n| 18 | 1 | File format write version. |\n\n\
        All multibyte fields in the database file header are big-endian.\n";
    let report = Report {
        question: "File format".into(),
        markdown: markdown.into(),
        sources: Vec::new(),
        created_at_ms: 1_795_000_000_000,
        models: Vec::new(),
    };
    let bytes = renderer().render(&report, PdfOptions::default()).unwrap();
    let text = research_fetch::Extractor::InProcess
        .extract("application/pdf", bytes, "file:///report.pdf")
        .unwrap()
        .text;
    assert!(text.contains("| Offset | Size | Description |"), "{text}");
    assert!(
        text.contains("| 16 | 2 | The database page size in bytes. |"),
        "{text}"
    );
    assert!(
        text.contains("comprise the database file header."),
        "{text}"
    );
    assert!(text.contains("are big-endian."), "{text}");
}
