//! `research export` of a report the pipeline produced: all four formats, and the mistakes a
//! user can make (unknown id, unfinished run, unwritable path) leave no file behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_research");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn research(args: &[&str], db: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("RESEARCH_LLM")
        .output()
        .unwrap()
}

/// A run of the scripted model over the test library, finished: its folder, database and
/// `--json` result.
fn a_finished_run() -> (tempfile::TempDir, PathBuf, Value) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let corpus = fixtures().join("corpus");
    assert!(research(&["library", "add", corpus.to_str().unwrap()], &db)
        .status
        .success());
    let spec = format!("scripted:{}", fixtures().join("script.json").display());
    let out = research(
        &[
            "run",
            "How do honeybees communicate?",
            "--llm",
            &spec,
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    (dir, db, result)
}

#[test]
fn a_pipeline_report_exports_to_every_format() {
    let (dir, db, result) = a_finished_run();
    let session = result["session_id"].as_str().unwrap().to_string();
    let thread = result["thread_id"].as_str().unwrap().to_string();

    for (format, id) in [
        ("md", &session),
        ("pdf", &thread),
        ("bib", &session),
        ("ris", &thread),
        ("csl-json", &session),
        ("docx", &thread),
    ] {
        let file = dir.path().join(format!("report.{format}"));
        let out = research(
            &[
                "export",
                id,
                "--format",
                format,
                "--out",
                file.to_str().unwrap(),
            ],
            &db,
        );
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&file).unwrap();
        match format {
            "md" => {
                let text = String::from_utf8(bytes).unwrap();
                assert!(
                    text.contains("](#source-1)") && text.contains("<a id=\"source-1\"></a>"),
                    "{text}"
                );
                assert!(text.contains("## Method and verification"));
            }
            "pdf" => {
                assert!(bytes.starts_with(b"%PDF"));
                let text = Command::new("pdftotext")
                    .arg(&file)
                    .arg("-")
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&text.stdout);
                assert!(text.contains("waggle"), "{text}");
                assert!(text.contains("Sources"));
            }
            "bib" => assert!(String::from_utf8(bytes).unwrap().contains("@misc{source1,")),
            "docx" => {
                // Read back independently (Python's zip and XML parsers): every part is
                // well-formed XML, the parts Word needs are there, and the text is the report's.
                let script = "import sys, zipfile, xml.etree.ElementTree as ET\n\
                    z = zipfile.ZipFile(sys.argv[1])\n\
                    names = set(z.namelist())\n\
                    need = {'[Content_Types].xml', '_rels/.rels', 'word/document.xml', 'word/styles.xml'}\n\
                    assert need <= names, names\n\
                    for n in names:\n    ET.fromstring(z.read(n))\n\
                    w = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}'\n\
                    doc = ET.fromstring(z.read('word/document.xml'))\n\
                    styles = [p.get(w + 'val') for p in doc.iter(w + 'pStyle')]\n\
                    print('STYLES', ' '.join(sorted(set(styles))))\n\
                    print(''.join(t.text or '' for t in doc.iter(w + 't')))\n";
                let out = Command::new("python3")
                    .arg("-c")
                    .arg(script)
                    .arg(&file)
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success(),
                    "{text}{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(
                    text.contains("Heading2") && text.contains("Title"),
                    "{text}"
                );
                assert!(
                    text.contains("waggle") && text.contains("Sources"),
                    "{text}"
                );
                assert!(text.contains("[1]"), "citations stay: {text}");
            }
            "csl-json" => {
                let items: Vec<Value> = serde_json::from_slice(&bytes).unwrap();
                assert!(!items.is_empty());
                assert_eq!(items[0]["id"], "source1");
                assert_eq!(items[0]["type"], "document", "a library file");
            }
            _ => assert!(String::from_utf8(bytes).unwrap().contains("TY  - GEN")),
        }
    }
    // No temporary files are left beside the exports.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".part-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn export_mistakes_are_one_sentence_and_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let target = dir.path().join("x.md");
    let out = research(
        &[
            "export",
            "nope",
            "--format",
            "md",
            "--out",
            target.to_str().unwrap(),
        ],
        &db,
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session or run"));
    assert!(!target.exists());

    // A run waiting at its plan review has no report yet.
    let corpus = fixtures().join("corpus");
    assert!(research(&["library", "add", corpus.to_str().unwrap()], &db)
        .status
        .success());
    let spec = format!("scripted:{}", fixtures().join("script.json").display());
    let out = research(
        &[
            "run",
            "How do honeybees communicate?",
            "--llm",
            &spec,
            "--search",
            "local",
            "--review",
            "plan",
            "--json",
        ],
        &db,
    );
    let waiting: Value = serde_json::from_slice(&out.stdout).unwrap();
    let thread = waiting["thread_id"].as_str().unwrap();
    let out = research(
        &[
            "export",
            thread,
            "--format",
            "pdf",
            "--out",
            target.to_str().unwrap(),
        ],
        &db,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no finished report"));
    assert!(!target.exists());

    let nowhere = dir.path().join("missing-folder/x.md");
    let done = research(&["resume", thread, "--approve", "--json"], &db);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let out = research(
        &[
            "export",
            thread,
            "--format",
            "md",
            "--out",
            nowhere.to_str().unwrap(),
        ],
        &db,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not write"));
    assert!(!nowhere.exists());
}

/// Issue 55, items 1, 2 and 5: a report exported in APA is cited by author and year in Word,
/// as Pandoc reads the document back and LibreOffice lays it out; the style is remembered for
/// the next export, and `--style numbered` gives the numbers back.
#[test]
fn a_report_exports_in_a_citation_style_read_back_by_pandoc_and_libreoffice() {
    let (dir, db, result) = a_finished_run();
    let session = result["session_id"].as_str().unwrap().to_string();
    // The page's own meta tags travelled with its source.
    let colony = result["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["url"].as_str().unwrap().ends_with("colony.html"))
        .cloned();
    if let Some(colony) = &colony {
        assert_eq!(colony["citation"]["issued"], "2010-05-01", "{colony}");
    }
    let export = |format: &str, style: Option<&str>| {
        let file = dir
            .path()
            .join(format!("report-{}.{format}", style.unwrap_or("same")));
        let mut args = vec![
            "export",
            &session,
            "--format",
            format,
            "--out",
            file.to_str().unwrap(),
        ];
        if let Some(style) = style {
            args.extend(["--style", style]);
        }
        let out = research(&args, &db);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        file
    };

    let md = std::fs::read_to_string(export("md", Some("apa"))).unwrap();
    let body = md.split("## Sources").next().unwrap();
    assert!(!body.contains("[1]") && !body.contains("(#source-"), "{md}");
    assert!(
        body.contains("n.d.)") || body.contains("2010)"),
        "APA in-text citations: {md}"
    );
    if colony.is_some() && body.contains("Seeley") {
        assert!(md.contains("Seeley, T. D. (2010, May 1)."), "{md}");
    }
    let list = md.split("## Sources").nth(1).unwrap();
    assert!(
        list.contains("*The waggle dance*. (n.d.)."),
        "APA's list: {md}"
    );

    // Remembered: the next export without --style is APA again, in Word.
    let docx = export("docx", None);
    let plain = Command::new("pandoc")
        .args(["-f", "docx", "-t", "plain", "--wrap=none"])
        .arg(&docx)
        .output()
        .expect("pandoc is installed by scripts/install-deps.sh");
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(text.contains("n.d.)") || text.contains("2010)"), "{text}");
    assert!(
        !text.split("Sources").next().unwrap().contains("[1]"),
        "{text}"
    );
    assert!(text.contains("The waggle dance. (n.d.)."), "{text}");
    let headings = Command::new("pandoc")
        .args(["-f", "docx", "-t", "markdown", "--wrap=none"])
        .arg(&docx)
        .output()
        .unwrap();
    let markdown = String::from_utf8_lossy(&headings.stdout);
    assert!(
        markdown.contains("## Sources") || markdown.contains("Sources\n---"),
        "{markdown}"
    );

    // LibreOffice lays the Word document out: a PDF with its words.
    let pdf_dir = dir.path().join("pdf");
    let converted = Command::new("soffice")
        .args([
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
        ])
        .arg(&pdf_dir)
        .arg(&docx)
        .env("HOME", dir.path())
        .output()
        .expect("LibreOffice is installed by scripts/install-deps.sh");
    assert!(
        converted.status.success(),
        "{}",
        String::from_utf8_lossy(&converted.stderr)
    );
    let pdf = pdf_dir.join(docx.with_extension("pdf").file_name().unwrap());
    let laid_out = Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    let laid_out = String::from_utf8_lossy(&laid_out.stdout);
    let laid_out = laid_out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        laid_out.contains("The waggle dance. (n.d.).") && laid_out.contains("(Seeley, 2010"),
        "{laid_out}"
    );
    if let Some(keep) = std::env::var_os("RS_EXPORT_ARTIFACTS") {
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::copy(&pdf, Path::new(&keep).join("report-apa-libreoffice.pdf"));
        let _ = std::fs::copy(&docx, Path::new(&keep).join("report-apa.docx"));
    }

    // Numbered again when asked, and an unknown style is refused with the list.
    let md = std::fs::read_to_string(export("md", Some("numbered"))).unwrap();
    assert!(md.contains("](#source-1)"), "{md}");
    let file = dir.path().join("never.md");
    let out = research(
        &[
            "export",
            &session,
            "--format",
            "md",
            "--out",
            file.to_str().unwrap(),
            "--style",
            "harvardish",
        ],
        &db,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown citation style `harvardish`") && err.contains("apa"),
        "{err}"
    );
    assert!(!file.exists());
}

/// Issue 55, item 3: a pipeline's report as LaTeX compiles with Debian's TeX Live (pdfLaTeX,
/// BibTeX through natbib) into a PDF cited by author and year in APA and by number in IEEE;
/// its `.bib` is written beside it, and a name that would be both files is refused.
#[test]
fn a_report_exports_to_latex_that_compiles_with_its_bibliography() {
    let (dir, db, result) = a_finished_run();
    let session = result["session_id"].as_str().unwrap().to_string();
    let compile = |style: &str| {
        let folder = dir.path().join(style);
        std::fs::create_dir_all(&folder).unwrap();
        let tex = folder.join("bees.tex");
        let out = research(
            &[
                "export",
                &session,
                "--format",
                "tex",
                "--out",
                tex.to_str().unwrap(),
                "--style",
                style,
            ],
            &db,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(folder.join("bees.bib").is_file());
        let run = |program: &str, args: &[&str]| {
            let out = Command::new(program)
                .args(args)
                .current_dir(&folder)
                .output()
                .expect("TeX Live is installed by scripts/install-deps.sh");
            let log = String::from_utf8_lossy(&out.stdout).to_string();
            assert!(out.status.success(), "{program} failed:\n{log}");
            log
        };
        let pdflatex = ["-interaction=nonstopmode", "-halt-on-error", "bees"];
        run("pdflatex", &pdflatex);
        let bibtex = run("bibtex", &["bees"]);
        assert!(!bibtex.contains("Warning--"), "{bibtex}");
        run("pdflatex", &pdflatex);
        let log = run("pdflatex", &pdflatex);
        assert!(!log.contains("undefined"), "{log}");
        let text = Command::new("pdftotext")
            .arg(folder.join("bees.pdf"))
            .arg("-")
            .output()
            .unwrap();
        if let Some(keep) = std::env::var_os("RS_EXPORT_ARTIFACTS") {
            let _ = std::fs::create_dir_all(&keep);
            let _ = std::fs::copy(
                folder.join("bees.pdf"),
                Path::new(&keep).join(format!("report-{style}-latex.pdf")),
            );
        }
        let text = String::from_utf8_lossy(&text.stdout);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let apa = compile("apa");
    let body = apa.split("Sources").next().unwrap();
    assert!(
        body.contains("(Seeley, 2010)") || body.contains("n.d.)"),
        "{apa}"
    );
    assert!(!body.contains("[1]"), "{apa}");
    assert!(apa.contains("The waggle dance"), "{apa}");
    let ieee = compile("ieee");
    assert!(
        ieee.split("Sources").next().unwrap().contains("[1"),
        "{ieee}"
    );

    let clash = dir.path().join("bees.bib");
    let out = research(
        &[
            "export",
            &session,
            "--format",
            "tex",
            "--out",
            clash.to_str().unwrap(),
        ],
        &db,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name it .tex"));
    assert!(!clash.exists());
}

/// Issue 55, item 4 (its import half): a reference manager's BibTeX export "with files", as
/// Zotero writes it, goes into the library; a run finds the attached files by their text and
/// the report cites them by the export's authors and year (APA), not by file name; the export
/// imported again after an edit in the reference manager updates the records, adding nothing.
#[test]
fn a_zotero_export_with_files_is_searched_and_cited_by_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let zotero = dir.path().join("Exported Items");
    let corpus = fixtures().join("corpus");
    for (n, file) in [(3, "waggle-dance.md"), (4, "pollination.txt")] {
        let to = zotero.join(format!("files/{n}"));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(corpus.join(file), to.join(file)).unwrap();
    }
    let bib = zotero.join("Exported Items.bib");
    let export = |year: u32| {
        format!(
            "\n@book{{von_frisch_dance_{year},\n\ttitle = {{The {{Dance}} Language and Orientation of Bees}},\n\tpublisher = {{Harvard University Press}},\n\tauthor = {{von Frisch, Karl}},\n\tyear = {{{year}}},\n\tfile = {{Full Text:files/3/waggle-dance.md:text/markdown}},\n}}\n\n@article{{free_pollination_1970,\n\ttitle = {{The flower constancy of bumblebees}},\n\tvolume = {{39}},\n\tdoi = {{10.2307/2978}},\n\tjournal = {{Journal of Animal Ecology}},\n\tauthor = {{Free, J. B.}},\n\tyear = {{1970}},\n\tpages = {{395--402}},\n\tfile = {{Full Text:files/4/pollination.txt:text/plain}},\n}}\n"
        )
    };
    std::fs::write(&bib, export(1967)).unwrap();
    let out = research(
        &[
            "library",
            "import",
            bib.to_str().unwrap(),
            "--keywords-only",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            report["references"].as_u64(),
            report["files"].as_u64(),
            report["new"].as_u64()
        ),
        (Some(2), Some(2), Some(2)),
        "{report}"
    );

    let spec = format!("scripted:{}", fixtures().join("script.json").display());
    let out = research(
        &[
            "run",
            "How do honeybees communicate?",
            "--llm",
            &spec,
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sources = result["sources"].as_array().unwrap();
    let dance = sources
        .iter()
        .find(|s| s["url"].as_str().unwrap().ends_with("waggle-dance.md"))
        .unwrap_or_else(|| panic!("the run read the attached file: {result}"));
    assert_eq!(
        dance["title"], "The Dance Language and Orientation of Bees",
        "{dance}"
    );
    assert_eq!(
        dance["citation"]["authors"][0]["family"], "von Frisch",
        "{dance}"
    );
    assert_eq!(dance["citation"]["issued"], "1967", "{dance}");

    let session = result["session_id"].as_str().unwrap().to_string();
    let md = dir.path().join("apa.md");
    let out = research(
        &[
            "export",
            &session,
            "--format",
            "md",
            "--out",
            md.to_str().unwrap(),
            "--style",
            "apa",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("(von Frisch, 1967)"), "{text}");
    assert!(
        text.contains("von Frisch, K. (1967). *The Dance Language and Orientation of Bees*"),
        "{text}"
    );
    // Cited by its record, not by the file: neither its name nor its own heading.
    assert!(
        !text.contains("waggle-dance.md") && !text.contains("*The waggle dance*"),
        "{text}"
    );
    assert!(
        text.contains("Free, J. B. (1970). The flower constancy of bumblebees. *Journal of Animal Ecology*, *39*, 395–402. <https://doi.org/10.2307/2978>"),
        "{text}"
    );

    // Issue 55, item 5: the sources as CSL-JSON, read by Pandoc (its CSL-JSON reader and
    // citeproc, an independent CSL processor): every record's fields survive its round trip,
    // and its citeproc cites the sources by the records' authors and years.
    let csl = dir.path().join("sources.json");
    let out = research(
        &[
            "export",
            &session,
            "--format",
            "csl-json",
            "--out",
            csl.to_str().unwrap(),
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&csl).unwrap()).unwrap();
    let back = Command::new("pandoc")
        .args(["-f", "csljson", "-t", "csljson"])
        .arg(&csl)
        .output()
        .expect("pandoc is installed by scripts/install-deps.sh");
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let back: Value = serde_json::from_slice(&back.stdout).unwrap();
    let by_id = |items: &Value, id: &str| {
        items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} in {items}"))
    };
    for item in ours.as_array().unwrap() {
        let id = item["id"].as_str().unwrap();
        let read = by_id(&back, id);
        for field in [
            "type",
            "title",
            "author",
            "issued",
            "container-title",
            "publisher",
            "DOI",
            "volume",
            "page",
            "URL",
        ] {
            assert_eq!(
                item.get(field),
                read.get(field),
                "{field} of {id}: {item} vs {read}"
            );
        }
    }
    let keys: Vec<String> = ours
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("@{}", i["id"].as_str().unwrap()))
        .collect();
    let mut cite = Command::new("pandoc")
        .args(["--citeproc", "-t", "plain", "--wrap=none", "--bibliography"])
        .arg(&csl)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        cite.stdin.as_mut().unwrap(),
        format!("Bees dance [{}].\n", keys.join("; ")).as_bytes(),
    )
    .unwrap();
    let cited = cite.wait_with_output().unwrap();
    let cited = String::from_utf8_lossy(&cited.stdout);
    assert!(
        cited.contains("von Frisch 1967") && cited.contains("Free 1970"),
        "{cited}"
    );
    assert!(cited.contains("Journal of Animal Ecology 39"), "{cited}");

    // Edited in the reference manager and exported again: updated, not doubled.
    std::fs::write(&bib, export(1965)).unwrap();
    let out = research(
        &[
            "library",
            "import",
            bib.to_str().unwrap(),
            "--keywords-only",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(
            "2 references: 2 attached files in the library with their records (0 new, 2 updated)"
        ),
        "{said}"
    );
    let out = research(&["library", "list", "--json"], &db);
    let folders: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(folders.as_array().unwrap().len(), 1, "{folders}");
    assert_eq!(folders[0]["files"], 2, "{folders}");
    let out = research(&["library", "search", "waggle dance", "--json"], &db);
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits[0]["citation"]["issued"], "1965", "{hits}");

    // Not an export: refused, saying why.
    let notes = dir.path().join("notes.bib");
    std::fs::write(&notes, "@article{x, title = {unclosed").unwrap();
    let out = research(&["library", "import", notes.to_str().unwrap()], &db);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("could not be added as a reference manager's export")
            && err.contains("BibTeX"),
        "{err}"
    );
}
