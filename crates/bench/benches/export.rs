//! Time and memory to export a long report (≥ 50 pages) to PDF, and the Markdown, BibTeX and
//! RIS exports of the same report. Prints one JSON line.

use std::time::Instant;

use research_export::{FontSet, PdfOptions, PdfRenderer, Report, SourceRef};

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let section = "## Findings\n\nHoneybees communicate with a **waggle dance** [1]; the angle encodes *direction* and the duration encodes distance [2]. \
A `code span` and a [link](https://example.org/spec) sit here.\n\n\
ミツバチは尻振りダンスで餌場の方向と距離を仲間に伝えます [3]。巣の中では女王蜂が一日に千個以上の卵を産むことがあります。\n\n\
| Signal | Meaning | Range |\n|:--|:--|--:|\n| Waggle run | direction and distance | 100 m+ |\n| Round dance | food nearby | < 100 m |\n\n\
- first point [1]\n- second point [2]\n\n> A quoted passage from a source.\n\n";
    let mut markdown = String::from("# Long report\n\n");
    for _ in 0..180 {
        markdown.push_str(section);
    }
    markdown.push_str("## Sources\n\n[1] One — <https://example.org/1> (accessed 2026-11-18)\n\n[2] Two — <https://example.org/2> (accessed 2026-11-18)\n\n[3] 三 — <https://example.jp/3> (accessed 2026-11-18)\n");
    let report = Report {
        question: "Long report".into(),
        markdown,
        sources: (1..=3)
            .map(|id| SourceRef {
                id,
                url: format!("https://example.org/{id}"),
                title: format!("Source {id}"),
                kind: "web".into(),
                accessed_at_ms: 0,
                citation: None,
            })
            .collect(),
        created_at_ms: 0,
        models: vec![],
    };
    let t = Instant::now();
    let fonts = FontSet::locate(research_api_fonts().as_deref()).expect("fonts installed");
    let renderer = PdfRenderer::new(&fonts).unwrap();
    let fonts_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let pdf = renderer.render(&report, PdfOptions::default()).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes = pdf.len();
        std::fs::write("/tmp/research-bench-long.pdf", &pdf).unwrap();
    }
    let pages = std::process::Command::new("pdfinfo")
        .arg("/tmp/research-bench-long.pdf")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.strip_prefix("Pages:").map(|p| p.trim().to_string()))
        })
        .unwrap_or_default();
    let t = Instant::now();
    let md = research_export::markdown(&report);
    let bib = research_export::bibtex(&report);
    let ris = research_export::ris(&report);
    let text_ms = t.elapsed().as_secs_f64() * 1000.0;
    println!(
        "{}",
        serde_json::json!({
            "scenario": "export",
            "pages": pages,
            "pdf_bytes": bytes,
            "fonts_load_ms": fonts_ms.round(),
            "pdf_ms_first": times[0].round(),
            "pdf_ms_warm": times[1..].iter().sum::<f64>() / (times.len() - 1) as f64,
            "peak_rss_mib": peak_rss_mib(),
            "md_bib_ris_ms": text_ms,
            "md_bytes": md.len() + bib.len() + ris.len(),
        })
    );
}

fn research_api_fonts() -> Option<std::path::PathBuf> {
    std::env::var_os("RESEARCH_STUDIO_FONTS").map(Into::into)
}
