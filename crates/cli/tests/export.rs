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

#[test]
fn a_pipeline_report_exports_to_every_format() {
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
