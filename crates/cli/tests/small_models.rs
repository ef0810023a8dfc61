//! Honest reports from real small models on a real documentation set: the built-in model runs
//! SmolLM2-135M (single and multi agent) and Gemma 3 270M over the Valgrind user manual (HTML
//! from Debian's `valgrind` package, none of it written here), and each result must pass the
//! two independent checkers — `check_grounding.py --require-audit` (citations, quotes, the
//! sentence audit) and `check_usable.py` (no loops, facts that match their quotes, quotes on
//! topic, honest confidence) — plus this file's own reading of the same promises.
//!
//! The review and trust pipelines run SmolLM2 too: reviewed drafts, cross-validated claims with
//! their marks and a hallucination score that is the writer's, and the same two checkers pass —
//! the trust run also over three publishers' licence texts (plain text wrapped at 70 columns),
//! where the claims are cross-validated across independent origins.
//!
//! The models come from `scripts/fetch-model.sh` (`RS_TEST_MODEL`, `RS_TEST_MODEL_GEMMA`), the
//! manual from `scripts/install-deps.sh`; under CI a missing one is a failure, locally a skip.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::research;
use serde_json::Value;

/// The documentation set: the Valgrind manual as Debian installs it.
fn manual() -> Option<PathBuf> {
    let dir = std::env::var_os("RS_DOC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/doc/valgrind/html"));
    if dir.join("index.html").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} has no Valgrind manual; scripts/install-deps.sh installs it",
        dir.display()
    );
    eprintln!("skipped: no Valgrind manual at {}", dir.display());
    None
}

/// The model file named by `var`, or a skip (a failure under CI).
fn model(var: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    if path.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{var} does not name a model file; scripts/test.sh fetches it"
        );
        eprintln!("skipped: set {var} (scripts/fetch-model.sh prints the path)");
    }
    path
}

/// Runs `question` with the built-in model over the manual and returns the `--json` result.
fn run(model: &Path, manual: &Path, question: &str, mode: &str) -> (Value, tempfile::TempDir) {
    run_with(model, manual, question, &["--mode", mode])
}

/// [`run`] with other options.
fn run_with(
    model: &Path,
    manual: &Path,
    question: &str,
    options: &[&str],
) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    // By keywords: these tests are about the small models, and embedding the manual for every
    // run would cost minutes each (the library by meaning has its own tests).
    let added = research(
        &[
            "library",
            "add",
            manual.to_str().unwrap(),
            "--keywords-only",
        ],
        &db,
    );
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let spec = format!("local:{}", model.display());
    let out = research(
        &[
            "run",
            question,
            "--llm",
            &spec,
            "--search",
            "local",
            "--depth",
            "quick",
            "--no-input",
            "--json",
        ]
        .into_iter()
        .chain(options.iter().copied())
        .collect::<Vec<_>>(),
        &db,
    );
    assert!(
        out.status.success(),
        "the run failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    (result, dir)
}

/// Runs an independent checker on `result`; its summary line, or a failure with its findings.
fn checker(script: &str, result: &Value, dir: &Path, args: &[&str]) -> String {
    let file = dir.join(format!("{script}.json"));
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/tools")
        .join(script);
    let out = Command::new("python3")
        .arg(path)
        .arg(&file)
        .args(args)
        .output()
        .expect("python3 runs the checker");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{script} failed:\n{text}\n--- report ---\n{}\n--- evidence ---\n{:#}",
        result["report"].as_str().unwrap_or_default(),
        result["evidence"]
    );
    text
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Share of distinct word 4-grams: a loop repeats them.
fn distinct_4grams(text: &str) -> f64 {
    let w = words(text);
    let grams: Vec<_> = w.windows(4).collect();
    if grams.is_empty() {
        return 1.0;
    }
    grams.iter().collect::<BTreeSet<_>>().len() as f64 / grams.len() as f64
}

/// Everything the issue promises of a small model's report, checked here and by both checkers.
fn assert_honest(result: &Value, dir: &Path, manual: &Path) {
    assert_eq!(result["status"], "finished", "{result:#}");
    let report = result["report"].as_str().unwrap();
    let body = report.split("\n## Sources").next().unwrap();
    // Not degenerate: no loop, no sentence three times.
    assert!(distinct_4grams(body) >= 0.6, "a looping report:\n{body}");
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for sentence in body.split(['.', '\n']).filter(|s| words(s).len() >= 5) {
        *seen.entry(sentence.trim().to_lowercase()).or_default() += 1;
    }
    assert!(
        seen.values().all(|n| *n <= 2),
        "a sentence repeats:\n{body}"
    );
    // Every fact is its quote or shares its words; every quote is a sentence, not a heading.
    let evidence = result["evidence"].as_array().unwrap();
    assert!(!evidence.is_empty(), "no evidence read:\n{report}");
    for e in evidence {
        let (fact, quote) = (e["fact"].as_str().unwrap(), e["quote"].as_str().unwrap());
        assert!(distinct_4grams(fact) >= 0.5, "a looping fact: {fact}");
        assert!(
            words(quote).len() >= 6,
            "a quote that is no statement: {quote:?}"
        );
        for artefact in ["\\[", "\\_", "**", "](", "\n"] {
            assert!(!quote.contains(artefact), "markup in a quote: {quote:?}");
        }
    }
    // Confidence no higher than the claims the checks supported.
    let meta = &result["metadata"];
    let (total, supported) = (
        meta["claims_total"].as_u64().unwrap_or(0),
        meta["claims_supported"].as_u64().unwrap_or(0),
    );
    assert!(supported <= total);
    // Every kept cited sentence is audited; the audit's summary is in the report.
    let audit = result["audit"].as_array().expect("an audit list");
    assert!(!audit.is_empty());
    assert!(
        report.contains("Cited sentences checked against the evidence"),
        "{report}"
    );
    let corpus = manual.to_str().unwrap();
    let grounding = checker(
        "check_grounding.py",
        result,
        dir,
        &[corpus, "--require-audit"],
    );
    assert!(grounding.contains("grounding ok"), "{grounding}");
    let usable = checker("check_usable.py", result, dir, &[]);
    eprintln!("{}\n{}", grounding.trim(), usable.trim());
}

#[test]
fn smollm2_writes_an_honest_report_on_the_valgrind_manual() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL"), manual()) else {
        return;
    };
    let (result, dir) = run(
        &model,
        &manual,
        "How does Memcheck detect uninitialised values?",
        "single",
    );
    assert_honest(&result, dir.path(), &manual);
}

#[test]
fn smollm2_multi_agent_writes_an_honest_report_on_the_valgrind_manual() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL"), manual()) else {
        return;
    };
    let (result, dir) = run(
        &model,
        &manual,
        "How do I write a suppression file for Valgrind errors?",
        "multi",
    );
    assert_honest(&result, dir.path(), &manual);
}

#[test]
fn gemma3_writes_an_honest_report_on_the_valgrind_manual() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL_GEMMA"), manual()) else {
        return;
    };
    let (result, dir) = run(&model, &manual, "What does Cachegrind measure?", "single");
    assert_honest(&result, dir.path(), &manual);
}

#[test]
fn smollm2_completes_a_review_run_on_the_valgrind_manual() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL"), manual()) else {
        return;
    };
    let (result, dir) = run_with(
        &model,
        &manual,
        "What does the --track-origins option do?",
        &["--pipeline", "review", "--max-revisions", "1"],
    );
    // Every draft was reviewed (or the loop said why it stopped), and the report delivered is
    // as honest as the standard pipeline's.
    let review = &result["review"];
    let drafts = review["drafts"].as_array().expect("the review record");
    assert!(!drafts.is_empty() && drafts.len() <= 2, "{review:#}");
    assert!(
        drafts.iter().all(|d| d["critique"].is_object()) || review["failure"].is_string(),
        "{review:#}"
    );
    let report = result["report"].as_str().unwrap();
    assert!(
        report.contains("Reviewed: approved") || report.contains("## Review"),
        "{report}"
    );
    assert_honest(&result, dir.path(), &manual);
}

#[test]
fn smollm2_completes_a_trust_run_on_the_valgrind_manual() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL"), manual()) else {
        return;
    };
    let (result, dir) = run_with(
        &model,
        &manual,
        "How does Memcheck detect memory leaks?",
        &["--pipeline", "trust"],
    );
    let report = result["report"].as_str().unwrap();
    let trust = &result["trust"];
    // Every source scored (the library's own folder is one origin: no ✓✓ from one manual).
    let sources = result["sources"].as_array().unwrap();
    let scored = trust["credibility"]
        .as_array()
        .expect("credibility per source");
    assert_eq!(scored.len(), sources.len(), "{trust:#}");
    assert!(scored
        .iter()
        .all(|c| c["why"].as_array().is_some_and(|w| !w.is_empty())));
    // Every cross-validated claim is in the report with its mark.
    let claims = trust["claims"].as_array().expect("cross-validated claims");
    assert!(!claims.is_empty(), "{report}");
    for c in claims {
        let sentence = c["sentence"].as_str().unwrap();
        let symbol = match c["mark"].as_str().unwrap() {
            "corroborated" => "✓✓",
            "verified" => "✓",
            _ => "⚠",
        };
        assert!(sentence.contains(symbol), "{c:#}");
        assert!(report.contains(sentence), "{sentence}\n{report}");
    }
    // The score is the writer's: no lower than its share of the audit's failures.
    let (written, unsupported) = (
        trust["writer_claims"].as_u64().unwrap(),
        trust["unsupported"].as_u64().unwrap(),
    );
    assert!(unsupported <= written);
    let score = trust["hallucination"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    assert!(report.contains("hallucination score"), "{report}");
    if score > 0.3 {
        assert!(report.contains("## Caveats"), "{report}");
    }
    assert_honest(&result, dir.path(), &manual);
}

/// Three publishers' licences as Debian ships them (`/usr/share/common-licenses`, from
/// `base-files`): the FSF's GPL-3 and LGPL-3 in one folder (one publisher, one origin), the
/// Apache and Mozilla licences each in its own. Independent texts that say some things alike
/// (no warranty, "as is") and wrapped at 70 columns, as plain-text documents are.
fn licences() -> Option<tempfile::TempDir> {
    let from = Path::new("/usr/share/common-licenses");
    let files = [
        ("fsf", "GPL-3"),
        ("fsf", "LGPL-3"),
        ("apache", "Apache-2.0"),
        ("mozilla", "MPL-2.0"),
    ];
    if files.iter().any(|(_, f)| !from.join(f).is_file()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} lacks a licence text (Debian's base-files installs them)",
            from.display()
        );
        eprintln!("skipped: no licence texts in {}", from.display());
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    for (folder, file) in files {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::copy(
            from.join(file),
            dir.path().join(folder).join(format!("{file}.txt")),
        )
        .unwrap();
    }
    Some(dir)
}

#[test]
fn smollm2_cross_validates_a_trust_run_over_three_publishers_licences() {
    cross_validates_licences("batched");
}

/// The full engine asks the model once per claim (all its spans at once) where the batched one
/// asks once for the whole report: the same guarantees must hold with a small model either way.
#[test]
fn smollm2_runs_the_full_trust_engine_over_three_publishers_licences() {
    cross_validates_licences("full");
}

fn cross_validates_licences(variant: &str) {
    let (Some(model), Some(corpus)) = (model("RS_TEST_MODEL"), licences()) else {
        return;
    };
    let (result, dir) = run_with(
        &model,
        corpus.path(),
        "What do open source licences say about warranty?",
        &["--pipeline", "trust", "--trust", variant],
    );
    let report = result["report"].as_str().unwrap();
    let trust = &result["trust"];
    assert_eq!(trust["variant"], variant, "{trust:#}");
    let sources = result["sources"].as_array().unwrap();
    assert!(sources.len() >= 2, "{report}");
    // The two FSF licences are one origin; texts of other publishers are not.
    let folder = |id: u64| {
        let url = sources.iter().find(|s| s["id"] == id).unwrap()["url"]
            .as_str()
            .unwrap()
            .to_string();
        url.rsplit_once('/').unwrap().0.to_string()
    };
    for same in trust["same_origin"].as_array().unwrap() {
        let (a, b) = (
            same["source_id"].as_u64().unwrap(),
            same["of"].as_u64().unwrap(),
        );
        assert_eq!(folder(a), folder(b), "{same:#}");
    }
    // Every cross-validated claim is in the report with its mark, and counts no more origins
    // than the publishers it cites or that say it.
    for c in trust["claims"].as_array().expect("cross-validated claims") {
        let sentence = c["sentence"].as_str().unwrap();
        assert!(report.contains(sentence), "{sentence}\n{report}");
        assert!(c["origins"].as_u64().unwrap() <= 3, "{c:#}");
        if c["mark"] == "corroborated" {
            assert!(sentence.contains("✓✓"), "{c:#}");
        }
    }
    assert_honest(&result, dir.path(), corpus.path());
}

/// A conversation with a small model: a first question, then a follow-up that leans on it
/// ("they") and names something new. The follow-up carries the session's sources over, reads
/// their stored texts again for its own question (nothing fetched), carries only the earlier
/// evidence about what it asks, and its report passes both checkers like any other.
#[test]
fn smollm2_follows_up_from_the_sessions_stored_sources() {
    let (Some(model), Some(corpus)) = (model("RS_TEST_MODEL"), licences()) else {
        return;
    };
    let (first, dir) = run_with(
        &model,
        corpus.path(),
        "What do open source licenses say about warranty?",
        &[],
    );
    assert_honest(&first, dir.path(), corpus.path());
    let db = dir.path().join("db.sqlite");
    let session = first["session_id"].as_str().unwrap();
    let out = research(
        &[
            "run",
            "What do they say about liability for damages?",
            "--session",
            session,
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "the follow-up failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let next: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(next["turn"]["classification"]["kind"], "follow_up");
    let carried = next["turn"]["carried_sources"].as_u64().unwrap() as usize;
    assert_eq!(carried, first["sources"].as_array().unwrap().len());
    // The earlier sources keep their numbers.
    for (a, b) in first["sources"]
        .as_array()
        .unwrap()
        .iter()
        .zip(next["sources"].as_array().unwrap())
    {
        assert_eq!(a["url"], b["url"]);
    }
    assert_honest(&next, dir.path(), corpus.path());
}

/// A fork with a small model: the licences run forked after planning with a plan of the
/// person's own; it redoes neither the reading nor the planning, and its report passes both
/// checkers like any other.
#[test]
fn smollm2_forks_a_licences_run_with_a_new_plan() {
    let (Some(model), Some(corpus)) = (model("RS_TEST_MODEL"), licences()) else {
        return;
    };
    let (first, dir) = run_with(
        &model,
        corpus.path(),
        "What do open source licences say about warranty?",
        &[],
    );
    let db = dir.path().join("db.sqlite");
    let plan = dir.path().join("plan.json");
    std::fs::write(
        &plan,
        serde_json::json!({
            "questions": ["How do the licences disclaim warranty?"],
            "aspects": ["disclaimer of warranty"],
            "searches": ["disclaimer of warranty"]
        })
        .to_string(),
    )
    .unwrap();
    let out = research(
        &[
            "fork",
            first["thread_id"].as_str().unwrap(),
            "--at",
            "plan",
            "--plan",
            plan.to_str().unwrap(),
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert!(
        out.status.success(),
        "the fork failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fork: Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = fork["metadata"]["usage_by_node"].as_object().unwrap();
    assert!(
        !nodes.contains_key("understand") && !nodes.contains_key("plan"),
        "{nodes:?}"
    );
    // The plan's search first; what the verification loop adds is about the question (no
    // address, no echo: a tiny model's "fact" was once a JSON-schema URL, searched).
    let queries = fork["metadata"]["queries"].as_array().unwrap();
    assert_eq!(queries[0], "disclaimer of warranty", "{queries:?}");
    assert!(
        queries.iter().all(|q| !q.as_str().unwrap().contains("://")),
        "{queries:?}"
    );
    assert_honest(&fork, dir.path(), corpus.path());
}

/// The SQLite documentation as Debian's `sqlite3-doc` installs it: a documentation set no one
/// here wrote, where the question of issue 30 has one page that answers it.
fn sqlite_docs() -> Option<PathBuf> {
    let dir = std::env::var_os("RS_SQLITE_DOCS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/doc/sqlite3"));
    if dir.join("atomiccommit.html").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} has no SQLite documentation; install sqlite3-doc",
        dir.display()
    );
    eprintln!("skipped: no SQLite documentation at {}", dir.display());
    None
}

/// The sources of `result` whose address ends with `page`.
fn read_page(result: &Value, page: &str) -> Option<u64> {
    result["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["url"].as_str().unwrap_or_default().ends_with(page))
        .map(|s| s["id"].as_u64().unwrap())
}

#[test]
fn smollm2_reads_the_page_that_answers_whatever_its_plan() {
    let (Some(model), Some(docs)) = (model("RS_TEST_MODEL"), sqlite_docs()) else {
        return;
    };
    let question = "How does SQLite make sure a transaction is atomic when the power fails in the middle of a commit?";
    let (result, dir) = run(&model, &docs, question, "single");
    // The question's own terms were searched first, whatever SmolLM2 planned.
    let queries = result["metadata"]["queries"].as_array().unwrap();
    let first = queries[0].as_str().unwrap();
    assert!(
        first.contains("atomic") && first.contains("power"),
        "{queries:?}"
    );
    // The merged hits were ranked against the question: the answering page among the first
    // five, and read.
    let ranked = result["ranked_hits"].as_array().expect("ranked hits");
    let top5: Vec<&str> = ranked
        .iter()
        .take(5)
        .map(|h| h["url"].as_str().unwrap())
        .collect();
    assert!(
        top5.iter().any(|u| u.ends_with("atomiccommit.html")),
        "{top5:?}"
    );
    let id = read_page(&result, "atomiccommit.html").expect("the answering page was read");
    // The report is about it: it cites it, and everything it cites is on the question.
    let report = result["report"].as_str().unwrap();
    assert!(report.contains(&format!("[{id}]")), "{report}");
    assert!(
        report.contains("Passages that answer the question:"),
        "{report}"
    );
    let on = result["metadata"]["evidence_on_question"].as_u64().unwrap();
    assert!(on >= 1, "{report}");
    eprintln!(
        "refused: {:#}\nsearches: {queries:?}",
        result["metadata"]["refused"]
    );
    assert_honest(&result, dir.path(), &docs);
}

#[test]
fn smollm2_says_plainly_when_nothing_read_answers() {
    let (Some(model), Some(docs)) = (model("RS_TEST_MODEL"), sqlite_docs()) else {
        return;
    };
    // The SQLite documentation says nothing of tomatoes; its "hot journal" shares one word.
    let question = "How do tomato plants survive a hot and dry summer?";
    let (result, dir) = run(&model, &docs, question, "single");
    assert_eq!(result["status"], "finished", "{result:#}");
    let report = result["report"].as_str().unwrap();
    assert!(
        report.contains(&format!("Nothing found that answers \"{question}\"")),
        "{report}"
    );
    assert_eq!(result["metadata"]["evidence_on_question"], 0, "{report}");
    let grounding = checker(
        "check_grounding.py",
        &result,
        dir.path(),
        &[docs.to_str().unwrap(), "--require-audit"],
    );
    assert!(grounding.contains("grounding ok"), "{grounding}");
}

/// A model of the person's own — here SmolLM2 under another file name, so no built-in
/// measurement applies — is asked for everything, and what it did is recorded and shown:
/// facts it restated, the draft it wrote, the verdicts it gave, its speed. One run is not
/// enough to decide anything (the api's tests hold the rules to the person's data).
#[test]
fn a_persons_own_model_is_measured_by_what_it_did_in_their_runs() {
    let (Some(model), Some(manual)) = (model("RS_TEST_MODEL"), manual()) else {
        return;
    };
    let models = tempfile::tempdir().unwrap();
    let mine = models.path().join("my-tiny-chat.gguf");
    if std::fs::hard_link(&model, &mine).is_err() {
        std::fs::copy(&model, &mine).unwrap();
    }
    // One round, no verification loop: what is measured is what the model was asked for, and a
    // model asked for everything is slow.
    let (result, dir) = run_with(
        &mine,
        &manual,
        "What does Cachegrind measure?",
        &["--mode", "single", "--verification-loops", "0"],
    );
    assert_honest(&result, dir.path(), &manual);
    let out = research(
        &["models", "measured", "--json"],
        &dir.path().join("db.sqlite"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let measured: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = measured.as_array().unwrap();
    // The built-in models keep their measurements; the person's model stands on its own.
    assert!(all.iter().any(|m| m["builtin"] == true), "{measured:#}");
    let theirs = all
        .iter()
        .find(|m| m["model"] == "my-tiny-chat.gguf")
        .unwrap_or_else(|| panic!("the run's model is measured: {measured:#}"));
    assert_eq!(theirs["builtin"], false);
    assert_eq!(theirs["your_runs"], 1);
    let work = &theirs["measured"]["work"];
    assert!(work["facts"].as_u64().unwrap() > 0, "{theirs:#}");
    assert_eq!(work["drafts"], 1, "asked for a draft: {theirs:#}");
    assert!(
        theirs["tokens_per_second"].as_f64().unwrap() > 0.0,
        "{theirs:#}"
    );
    assert_eq!(
        theirs["decisions"],
        serde_json::json!([]),
        "one run decides nothing"
    );
    let text = research(&["models", "measured"], &dir.path().join("db.sqlite"));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("my-tiny-chat.gguf (1 of your runs)")
            && text.contains("asked for everything"),
        "{text}"
    );
}
