//! The real app under Xvfb, driven as a person would: through its page (WebDriver via
//! `tauri-driver`) and its native dialogs (xdotool), with the scripted model over a local library.
//! Screenshots of every step land in `$CARGO_TARGET_DIR/e2e-artifacts/<test>/`.

#[path = "support/desktop.rs"]
mod desktop;

use std::path::{Path, PathBuf};
use std::time::Duration;

use desktop::{artifacts, read, App, Display, Profile};
use serde_json::{json, Value};

const QUESTION: &str = "How do honeybees communicate and organise their colonies?";
const SENTINEL: &str = "sk-SENTINEL-e2e-4242424242-KEY";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/cli/tests/fixtures")
}

/// A copy of the fixture script, changed by `edit`.
fn script(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut s: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("script.json")).unwrap())
            .unwrap();
    edit(&mut s);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
    format!("scripted:{}", path.display())
}

/// Asks `QUESTION` with no review point and waits until the run has finished with a cited report.
async fn research_to_the_end(app: &App) {
    app.fill("#question", QUESTION).await;
    set_review(app, false, false).await;
    app.click("#start").await;
    app.wait("#report a.cite", 90).await;
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;
}

/// Selects tab `tab` of the session view and waits until it is the selected one. A click that
/// lands while the layout still moves (the live panel closing as a run ends, under load) misses
/// the tab, so the click is made again until the state it asks for is there.
async fn select_tab(app: &App, tab: &str) {
    let selected =
        format!("return document.getElementById('tab-{tab}').getAttribute('aria-selected')");
    for _ in 0..40 {
        app.click(&format!("#tab-{tab}")).await;
        if app.js(&selected).await == json!("true") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the {tab} tab was never selected");
}

async fn set_review(app: &App, plan: bool, report: bool) {
    for (id, on) in [("review-plan", plan), ("review-report", report)] {
        let checked = app
            .js(&format!("return document.getElementById('{id}').checked"))
            .await;
        if checked != json!(on) {
            app.click(&format!("#{id}")).await;
        }
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn research_with_review_dialogs_citations_export_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("research_with_review_dialogs_citations_export_and_restart");
    let model = script(dir.path(), "script.json", |_| {});
    // The same answers under another name, set for the writing step only.
    let writer = script(dir.path(), "writer.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    // Six earlier runs of a model of the person's own whose every draft the checks refused.
    {
        use research_store::ModelStore;
        let store = research_store::SqliteSessions::open(&profile.db()).unwrap();
        for i in 0..6 {
            let counts = research_store::ModelCounts {
                facts: 9,
                own_words: 3,
                drafts: 1,
                refused: 1,
                verdicts_asked: 8,
                verdicts_given: 7,
                completion_tokens: 900,
                call_ms: 30_000,
            };
            let row = research_store::ModelRunRow {
                model: "qwen2.5-0.5b-instruct-q4_k_m.gguf".into(),
                counts,
            };
            store
                .record_models(&format!("earlier-{i}"), i, &[row])
                .unwrap();
        }
    }
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;
    app.shot("01-start").await;

    // A key typed in Settings is shown masked only (no keychain here: kept for the session).
    app.click("#open-settings").await;
    app.wait("#keys-body tr", 20).await;
    app.fill("input[aria-label='New key for openai']", SENTINEL)
        .await;
    app.click("#keys-body tr:first-child button").await;
    let masked = app
        .wait_text("#keys-body tr:first-child .masked", 20, |t| t.contains('…'))
        .await;
    assert!(!masked.contains(SENTINEL), "{masked}");
    assert!(app
        .wait("#keychain-banner", 5)
        .await
        .is_displayed()
        .await
        .unwrap());
    // Testing the key sends it to a provider that cannot be reached here: the answer is a
    // sentence, and the key shows up nowhere (the whole-profile search below covers the logs).
    // The provider list now knows the key.
    app.wait_text("#providers li:first-child .detail", 10, |t| {
        !t.contains("no key")
    })
    .await;
    app.js("document.querySelector(\"button[aria-label='Test openai']\").scrollIntoView({block: 'center'})")
        .await;
    app.click("button[aria-label='Test openai']").await;
    let tested = app
        .wait_text("button[aria-label='Test openai'] + .result", 60, |t| {
            !t.is_empty()
        })
        .await;
    assert!(!tested.contains(SENTINEL), "{tested}");
    app.shot("02-settings").await;
    // Backups (issue 56): one more taken from Settings, the newest named with its size.
    app.js("document.getElementById('back-up-now').scrollIntoView({block: 'center'})")
        .await;
    let count = |t: &str| -> Option<usize> {
        let (_, after) = t.split_once(" — ")?;
        after.split_whitespace().next()?.parse().ok()
    };
    let before = app.wait_text("#backup-status", 30, |t| !t.is_empty()).await;
    let had = count(&before).unwrap_or(0);
    app.click("#back-up-now").await;
    let backups = app
        .wait_text("#backup-status", 30, |t| count(t) == Some(had + 1))
        .await;
    assert!(backups.starts_with("Last backup:"), "{backups}");
    app.shot("02a-backups").await;
    // What the models did (issue 52): the built-in two with their measurements, and the
    // person's own model with what its runs decided.
    app.js("document.getElementById('measured-title').scrollIntoView({block: 'start'})")
        .await;
    let measured = app
        .wait_text("#measured-body", 30, |t| t.contains("qwen2.5-0.5b"))
        .await;
    assert!(
        measured.contains("not asked to write reports: the checks refused 6 of its 6 drafts")
            && measured.contains("6 of your runs")
            && measured.contains("30.0 tokens/s")
            && measured.contains("SmolLM2-135M")
            && measured.contains("built-in measurement"),
        "{measured}"
    );
    app.shot("02b-models-measured").await;

    // New research with both review points: each is a native dialog.
    app.click("#new-research").await;
    app.fill("#question", QUESTION).await;
    set_review(&app, true, true).await;
    app.click("#more-settings summary").await;
    app.fill("#role-write", &writer).await;
    app.fill("#budget-calls", "200").await;
    app.click("#record-calls").await;
    app.shot("02b-models-per-step").await;
    assert!(app.text("#estimate").await.contains("model calls"));
    app.click("#start").await;
    let plan = app.dialog("Review the plan", 60).await;
    app.shot("03-plan-dialog").await;
    app.keys(&plan, &["Return"]); // Approve (the first button has the focus)
    let report = app.dialog("Review the report", 60).await;
    app.shot("04-report-dialog").await;
    app.keys(&report, &["Return"]); // Approve

    // The report with working citation popovers.
    app.wait("#report a.cite", 60).await;
    app.wait_text("#session-meta", 30, |t| t.contains("claims supported"))
        .await;
    app.shot("05-report").await;
    app.click("#report a.cite").await;
    let pop = app.wait("#cite-popover .quote", 10).await;
    let quote = pop.text().await.unwrap();
    assert!(quote.len() > 20, "{quote}");
    let state = app.text("#cite-popover .verify-state").await;
    assert!(state.starts_with("Verified"), "{state}");
    app.shot("06-citation").await;
    app.click("#cite-popover .open-source").await;
    let mark = app
        .wait("#source-text mark", 10)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        quote.contains(mark.split_whitespace().next().unwrap()),
        "{mark} / {quote}"
    );
    app.shot("07-source").await;
    app.click("#source-viewer-close").await;

    // The same by keyboard: Enter on a citation moves focus into its popover, Enter there opens
    // the source, Escape closes it and focus goes back to the citation; arrows move between tabs.
    const ENTER: &str = "\u{E007}";
    const ESCAPE: &str = "\u{E00C}";
    app.js("document.querySelector('#report a.cite').focus()")
        .await;
    app.press(ENTER).await;
    app.wait("#cite-popover .quote", 10).await;
    assert_eq!(app.focused().await, "open-source");
    app.press(ENTER).await;
    app.wait("#source-text mark", 10).await;
    assert_eq!(app.focused().await, "source-viewer-close");
    app.press(ESCAPE).await;
    app.wait_gone("#source-viewer:not([hidden])", 10).await;
    assert_eq!(app.focused().await, "cite");
    app.js("document.getElementById('tab-report').focus()")
        .await;
    app.press("\u{E014}").await; // ArrowRight
    assert_eq!(app.focused().await, "tab-sources");
    assert!(app.text("#sources-body").await.contains("The waggle dance"));

    select_tab(&app, "sources").await;
    assert!(app.text("#sources-body").await.contains("The waggle dance"));
    select_tab(&app, "method").await;
    let method = app.text("#method").await;
    for part in [
        "Claims supported",
        "Plan",
        "Searches run",
        "Rounds of searching",
        "Coverage",
    ] {
        assert!(
            method.contains(part),
            "{part} missing from the Method panel: {method}"
        );
    }
    assert!(
        method.contains("writer.json") && method.contains("script.json"),
        "the writing step's own model is not listed: {method}"
    );
    app.shot("07b-method").await;
    // The planner's own view (seed 000, row 000-03), under the plan.
    assert!(
        method.contains("Approach: Read descriptions of the waggle dance")
            && method.contains("The planner's concerns about the scope"),
        "{method}"
    );
    app.js("document.querySelector('.method-plan').scrollIntoView({block: 'start'})")
        .await;
    app.shot("07b2-method-planner").await;
    // The kept prompts and answers of the run, on the same tab (the box was ticked above).
    let calls = app
        .wait_text("#model-calls", 30, |t| {
            t.contains("Model calls") && t.contains("plan")
        })
        .await;
    assert!(!calls.contains(SENTINEL), "{calls}");
    app.js("document.querySelector('#model-calls li.call details summary').scrollIntoView({block: 'center'})")
        .await;
    app.click("#model-calls li.call details summary").await;
    let opened = app
        .wait_text("#model-calls li.call details[open]", 10, |t| {
            t.to_lowercase().contains("answer")
        })
        .await;
    assert!(
        opened.contains(QUESTION),
        "the prompt is the run's own: {opened}"
    );
    app.shot("07c-model-calls").await;
    select_tab(&app, "report").await;

    // Export through the native save dialog.
    let md = dir.path().join("out/bees.md");
    let pdf = dir.path().join("out/bees.pdf");
    std::fs::create_dir_all(md.parent().unwrap()).unwrap();
    app.click("#export-md").await;
    app.save_as("Export report", &md).await;
    app.expect_file(&md, 60).await;
    let text = read(&md);
    assert!(
        text.contains("## Sources") && text.contains("](#source-1)"),
        "{text}"
    );
    app.click("#export-pdf").await;
    app.save_as("Export report", &pdf).await;
    app.expect_file(&pdf, 120).await;
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    let out = std::process::Command::new("pdftotext")
        .arg(&pdf)
        .arg("-")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("honeybees"));
    app.shot("08-exported").await;

    // Issue 55: a citation style picked beside the export buttons is the next export's, and
    // the picker still shows it when asked again.
    app.js("document.querySelector('.session-head').scrollIntoView()")
        .await;
    app.wait("#export-style option[value='apa']", 10).await;
    app.js("const s = document.getElementById('export-style'); s.value = 'apa'; s.dispatchEvent(new Event('change'))")
        .await;
    // Saved, and the api's list says so (the picker re-renders from it).
    app.wait("#export-style option[value='apa'][selected]", 10)
        .await;
    let apa = dir.path().join("out/bees-apa.md");
    app.click("#export-md").await;
    app.save_as("Export report", &apa).await;
    app.expect_file(&apa, 60).await;
    let text = read(&apa);
    let body = text.split("## Sources").next().unwrap();
    assert!(
        body.contains("n.d.)") && !body.contains("](#source-"),
        "APA in-text citations: {text}"
    );
    app.shot("08a-citation-style").await;
    // LaTeX from the "Export as…" menu beside them: the .tex cites by author and year (APA,
    // still chosen) and its .bib is written beside it; the menu shows its prompt again.
    let tex = dir.path().join("out/bees.tex");
    app.js("const s = document.getElementById('export-as'); s.value = 'tex'; s.dispatchEvent(new Event('change'))")
        .await;
    app.save_as("Export report", &tex).await;
    app.expect_file(&tex, 60).await;
    let text = read(&tex);
    assert!(
        text.contains("\\citep{source") && text.contains("\\usepackage[round]{natbib}"),
        "{text}"
    );
    app.expect_file(&tex.with_extension("bib"), 10).await;
    assert_eq!(
        app.js("return document.getElementById('export-as').value")
            .await,
        ""
    );
    app.quit().await;

    // After a restart the session is still there and opens with its report.
    let app = App::start(&display, &profile, &shots).await;
    let finished = "#sessions li[data-status='finished'] button[title*='honeybees']";
    app.click(finished).await;
    app.wait("#report a.cite", 20).await;
    app.shot("09-after-restart").await;

    // The session as one file (issue 56), imported into another profile where it reads the same.
    let moved = dir.path().join("out/bees.research-session");
    app.click("#export-session").await;
    app.save_as("Export session", &moved).await;
    app.expect_file(&moved, 60).await;
    app.quit().await;
    let other = Profile::new(&dir.path().join("other"));
    let app = App::start(&display, &other, &shots).await;
    app.click("#import-session").await;
    app.choose("Import session", &moved).await;
    app.click(finished).await;
    let imported = app
        .wait_text("#report", 30, |t| {
            t.contains("Sources") && t.contains("honeybees")
        })
        .await;
    assert!(imported.contains("Sources"), "{imported}");
    app.wait("#report a.cite", 20).await;
    app.shot("10-imported-elsewhere").await;
    app.quit().await;

    // The key typed in Settings is nowhere in what the app wrote.
    let mut written = files_under(&profile.root);
    written.extend([md, pdf]);
    for f in written {
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(
            !bytes
                .windows(SENTINEL.len())
                .any(|w| w == SENTINEL.as_bytes()),
            "{} holds the API key",
            f.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clarification_dialog_then_cancel_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("clarification_dialog_then_cancel_and_resume");
    // The question is found ambiguous; extraction is slow enough to cancel mid-run.
    let model = script(dir.path(), "ambiguous.json", |s| {
        s["answers"][0] = json!({"purpose": "understand", "json": {
            "is_clear": false, "ambiguities": ["scope"], "question": "Which aspect of honeybees?",
            "options": ["Communication", "Colony organisation", "Pollination"],
            "interpretation": "Honeybee communication and colony life"}});
        // An answer in the person's own words is read with the question again: now clear.
        s["answers"].as_array_mut().unwrap().insert(
            0,
            json!({"purpose": "understand", "contains": "How foragers tell nestmates",
                "json": {"is_clear": true, "ambiguities": [], "question": "", "options": [],
                "interpretation": "How honeybee foragers tell nestmates where flowers are"}}),
        );
        for a in s["answers"].as_array_mut().unwrap() {
            if a["purpose"] == "extract" {
                a["delay_ms"] = json!(4000);
            }
        }
    });
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    app.fill("#question", "Tell me about honeybees").await;
    set_review(&app, false, false).await;
    // Multi-agent mode, so the live view shows parallel workers.
    app.js("const m = document.getElementById('mode'); m.value = 'multi'; m.dispatchEvent(new Event('change'));")
        .await;
    app.click("#start").await;
    app.dialog("Clarify the question", 60).await;
    app.shot("01-clarify-dialog").await;

    // Quit with the question unanswered: after a restart the app asks it again by itself, and
    // opening the session meanwhile does not ask twice.
    app.quit().await;
    let app = App::start(&display, &profile, &shots).await;
    app.dialog("Clarify the question", 30).await;
    // The New research form remembers the last research's choices (tauri-plugin-store).
    assert_eq!(
        app.js("return document.getElementById('mode').value").await,
        json!("multi")
    );
    app.click("#sessions li[data-status='waiting'] button")
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        app.dialogs("Clarify the question"),
        1,
        "the question is asked twice"
    );
    let clarify = app.dialog("Clarify the question", 30).await;
    app.shot("01b-asked-again-after-restart").await;
    // "Other…" (the third button) opens the page's own field for a reading in the user's words.
    app.keys(&clarify, &["Tab", "Tab", "space"]);
    app.wait("#answer-panel:not([hidden]) #free-answer", 30)
        .await;
    assert_eq!(app.dialogs("Clarify the question"), 0);
    let options = app.text("#answer-options").await;
    assert!(options.contains("Pollination"), "{options}");
    app.fill(
        "#free-answer",
        "How foragers tell nestmates where flowers are",
    )
    .await;
    app.shot("01c-other-answer").await;
    app.click("#free-answer-submit").await;

    // The run goes on with parallel workers; cancel it while they read.
    app.wait("#graph li.active", 30).await;
    app.wait("#cancel", 10).await;
    app.wait("#workers .worker", 30).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    app.shot("02-running").await;
    app.click("#cancel").await;
    app.wait("#resume", 60).await;
    let status = app.text("#run-status").await;
    assert!(status.contains("Cancelled"), "{status}");
    app.shot("03-cancelled").await;

    // The sidebar marks it unfinished; Resume finishes it without asking again.
    let badge = app.text("#sessions li.current .badge").await;
    assert_eq!(badge, "paused");
    app.click("#resume").await;
    app.wait("#report a.cite", 120).await;
    app.shot("04-resumed-report").await;
    let meta = app.text("#session-meta").await;
    assert!(meta.starts_with("Finished"), "{meta}");
    select_tab(&app, "method").await;
    let method = app.text("#method").await;
    assert!(
        method.contains("How foragers tell nestmates where flowers are")
            && method.contains("multi"),
        "{method}"
    );
    app.shot("05-method").await;
    let log = read(&app.log);
    assert!(
        log.contains("Interrupted") && log.contains("Finished"),
        "{log}"
    );
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn library_follow_up_rename_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("library_follow_up_rename_and_delete");
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    // A folder of the user's own notes, added through the native folder picker.
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("wasps.md"),
        "# Wasps\n\nPaper wasps build their nests from chewed wood fibre mixed with saliva. \
         A queen starts the nest alone in spring.\n",
    )
    .unwrap();
    let notes = notes.canonicalize().unwrap();
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    // Library: the fixture folder is listed with its documents; another is added and indexed.
    app.click("#open-library").await;
    app.wait_text("#library-folders", 20, |t| t.contains("documents"))
        .await;
    app.click("#library-add").await;
    app.choose("Add a folder to the library", &notes).await;
    let status = app
        .wait_text("#library-status", 60, |t| t.starts_with("Done"))
        .await;
    // Where the sentence model is installed (the test suite installs it), adding goes on to
    // index the new passages by meaning on its own, and the status ends with that.
    assert!(
        status.contains("1 of 1 files") || status.contains("indexed by meaning"),
        "{status}"
    );
    let folders = app
        .wait_text("#library-folders", 20, |t| t.contains("notes"))
        .await;
    assert!(
        folders.contains("1 document") && !folders.contains("1 documents"),
        "{folders}"
    );
    let meaning = app
        .wait_text("#library-meaning", 20, |t| !t.is_empty())
        .await;
    let installed = !meaning.contains("no sentence model is installed");
    if installed {
        // Nobody asked: the whole library ends indexed by meaning, and the button has nothing
        // left to do.
        let meaning = app
            .wait_text("#library-meaning", 120, |t| {
                t.contains("keywords and meaning") && t.contains("all ")
            })
            .await;
        assert!(meaning.contains("indexed by meaning"), "{meaning}");
        app.wait_text("#library-status", 60, |t| t.starts_with("Done"))
            .await;
        assert_eq!(
            app.js("return document.getElementById('library-embed').disabled")
                .await,
            json!(true)
        );
    } else {
        assert_eq!(
            app.js("return document.getElementById('library-embed').disabled")
                .await,
            json!(true)
        );
    }
    // Re-indexing counts against the whole library and ends full.
    app.click("#library-reindex").await;
    let status = app
        .wait_text("#library-status", 60, |t| {
            t.starts_with("Done") && t.contains(" files")
        })
        .await;
    let (done, total) = status
        .trim_start_matches("Done. ")
        .split_once(" files")
        .and_then(|(n, _)| n.split_once(" of "))
        .unwrap_or_else(|| panic!("{status}"));
    assert_eq!(done, total, "{status}");
    assert_eq!(
        app.js("return document.querySelector('#view-library .progress').getAttribute('aria-valuenow')")
            .await,
        json!("100")
    );
    app.shot("01-library").await;
    // Removing a folder is confirmed in a native dialog.
    app.click(&format!("button[aria-label='Remove {}']", notes.display()))
        .await;
    let confirm = app.dialog("Remove folder", 30).await;
    app.shot("02-remove-folder-dialog").await;
    app.keys(&confirm, &["Return"]);
    app.wait_text("#library-folders", 20, |t| !t.contains("notes"))
        .await;

    // Issue 55: a reference manager's export, as Zotero writes it with its files, imported
    // through the file picker: the attached file's folder is listed, the status says what came in.
    let zotero = dir.path().join("Exported Items");
    std::fs::create_dir_all(zotero.join("files/7")).unwrap();
    std::fs::write(
        zotero.join("files/7/hornets.md"),
        "# Hornets\n\nHornets chew bark into a paper pulp and build nests of it in hollow trees.\n",
    )
    .unwrap();
    let bib = zotero.join("Exported Items.bib");
    std::fs::write(
        &bib,
        "@article{smith_hornets_2019,\n\ttitle = {Hornet nests},\n\tauthor = {Smith, Ann},\n\tyear = {2019},\n\tfile = {Full Text:files/7/hornets.md:text/markdown},\n}\n",
    )
    .unwrap();
    app.click("#library-import").await;
    app.choose(
        "Import a reference manager's export",
        &bib.canonicalize().unwrap(),
    )
    .await;
    let status = app
        .wait_text("#library-status", 60, |t| t.starts_with("Done"))
        .await;
    // Indexing by meaning may follow on its own and say so last.
    assert!(
        status.contains(
            "1 reference: 1 attached file in the library with their records (1 new, 0 updated)"
        ) || status.contains("indexed by meaning"),
        "{status}"
    );
    app.wait_text("#library-folders", 20, |t| t.contains("Exported Items"))
        .await;
    app.shot("02a-reference-manager-import").await;

    // A research, then a follow-up in the same session.
    app.click("#new-research").await;
    app.fill("#question", QUESTION).await;
    set_review(&app, false, false).await;
    app.click("#start").await;
    app.wait("#report a.cite", 60).await;
    app.fill("#follow-up", "And how do they find water?").await;
    app.click("#follow-up-submit").await;
    // The first run's "Finished" stands until the follow-up starts, and a run that starts
    // opens the Report tab: wait for the follow-up's own turn to end.
    wait_entry(&app, 2, 60, |t| t.contains("Its report is below")).await;
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;
    select_tab(&app, "method").await;
    let method = app
        .wait_text("#method", 30, |t| t.contains("Questions asked"))
        .await;
    assert!(method.contains("And how do they find water?"), "{method}");
    app.shot("03-follow-up").await;
    assert_eq!(
        app.js("return document.querySelectorAll('#sessions li').length")
            .await,
        json!(1),
        "the follow-up continues the session"
    );

    // Rename in place; Enter keeps the new title.
    // The field opens focused with the old title selected, so typing replaces it.
    app.click("#rename-session").await;
    app.wait("#session-title input", 10).await;
    app.press("Bees, and water\u{E007}").await;
    app.wait_inner_text("#sessions", "Bees, and water", 20)
        .await;
    app.shot("04-renamed").await;

    // Delete, confirmed in a native dialog.
    app.click("#delete-session").await;
    let confirm = app.dialog("Delete session", 30).await;
    app.shot("05-delete-dialog").await;
    app.keys(&confirm, &["Return"]);
    app.wait_inner_text("#sessions", "No sessions yet", 20)
        .await;
    app.quit().await;
}

/// Waits until the session's conversation has `n` entries and entry `n` (1-based) satisfies `ok`.
async fn wait_entry(app: &App, n: usize, secs: u64, ok: impl Fn(&str) -> bool) -> String {
    let css = format!("#conversation li.turn:nth-child({n})");
    let text = app.wait_text(&css, secs, ok).await;
    app.js(&format!(
        "document.querySelector('{css}').scrollIntoView({{block: 'center'}})"
    ))
    .await;
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversation_follow_up_topic_change_cancel_and_fork() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("conversation_follow_up_topic_change_cancel_and_fork");
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;
    let report_below = |t: &str| t.contains("Its report is below");

    // A research.
    research_to_the_end(&app).await;
    app.shot("01-research").await;

    // A follow-up, taken as one by its words: the chip says so, its why on focus.
    app.fill("#follow-up", "What about their waggle dance?")
        .await;
    app.click("#follow-up-submit").await;
    let entry = wait_entry(&app, 2, 120, report_below).await;
    assert!(entry.contains("What about their waggle dance?"), "{entry}");
    let chip = app
        .js("const c = document.querySelector('#conversation li.turn:nth-child(2) .chip'); c.focus(); return [c.textContent, c.dataset.why]")
        .await;
    assert_eq!(chip[0], json!("follow-up"), "{chip}");
    assert!(
        chip[1]
            .as_str()
            .unwrap()
            .starts_with("follow-up · by its words"),
        "{chip}"
    );
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;
    app.shot("02-follow-up").await;

    // A topic change, in the same session.
    app.fill("#follow-up", "Now tell me about crop pollination")
        .await;
    app.click("#follow-up-submit").await;
    wait_entry(&app, 3, 120, report_below).await;
    assert_eq!(
        app.js(
            "return document.querySelector('#conversation li.turn:nth-child(3) .chip').textContent"
        )
        .await,
        json!("topic change")
    );
    // It can be asked again as a follow-up (a new turn), as the control says.
    let change = app
        .js("return document.querySelector('#conversation li.turn:nth-child(3) .change-kind').textContent")
        .await;
    assert!(
        change.as_str().unwrap().contains("follow-up (a new turn)"),
        "{change}"
    );
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;
    app.js("document.querySelector('#conversation li.turn:nth-child(3) .chip').focus()")
        .await;
    app.shot("03-topic-change").await;

    // A cancel: a polite reply and no run.
    let runs_before = app
        .js("return document.querySelectorAll('#conversation li.turn[data-thread]').length")
        .await;
    app.fill("#follow-up", "nevermind").await;
    app.click("#follow-up-submit").await;
    let reply = wait_entry(&app, 4, 60, |t| t.contains("nevermind")).await;
    assert_eq!(
        app.js("return document.querySelector('#conversation li.turn:nth-child(4)').dataset.kind")
            .await,
        json!("cancel"),
        "{reply}"
    );
    let reply = app
        .text("#conversation li.turn:nth-child(4) .turn-reply")
        .await;
    assert!(!reply.is_empty());
    assert_eq!(
        app.js("return document.querySelectorAll('#conversation li.turn[data-thread]').length")
            .await,
        runs_before,
        "a cancel starts no run"
    );
    assert_eq!(
        app.js("return document.getElementById('live').hidden")
            .await,
        json!(true)
    );
    app.shot("04-cancel").await;

    // A fork of the first run from its plan, with an edited plan: a new run with its own report.
    select_tab(&app, "method").await;
    app.wait("#timeline-run", 30).await;
    app.js("const s = document.getElementById('timeline-run'); s.value = s.options[0].value; s.dispatchEvent(new Event('change'))")
        .await;
    app.wait("#timeline li[data-stage='plan'] button.rerun", 30)
        .await;
    let holds = app.text("#timeline li[data-stage='plan'] .holds").await;
    assert!(holds.contains("plan"), "{holds}");
    app.js("document.querySelector('#timeline').scrollIntoView({block: 'start'})")
        .await;
    app.shot("05-timeline").await;
    app.click("#timeline li[data-stage='plan'] button.rerun")
        .await;
    // The form holds the plan the run had there: its questions, aspects and searches.
    let prefilled = app
        .js("return ['fork-questions', 'fork-aspects', 'fork-searches'].map(id => document.getElementById(id).value)")
        .await;
    assert!(
        prefilled[0]
            .as_str()
            .unwrap()
            .contains("How do honeybees tell each other where food is?"),
        "{prefilled}"
    );
    assert!(
        prefilled[1].as_str().unwrap().contains("colony roles"),
        "{prefilled}"
    );
    assert!(
        prefilled[2]
            .as_str()
            .unwrap()
            .contains("honeybee waggle dance direction"),
        "{prefilled}"
    );
    app.fill(
        "#fork-questions",
        "How do honeybees use the waggle dance to share food sources?",
    )
    .await;
    app.fill("#fork-searches", "honeybee waggle dance").await;
    app.js("document.querySelector('#fork-form').scrollIntoView({block: 'center'})")
        .await;
    app.shot("06-fork-form").await;
    app.click("#fork-submit").await;
    let fork = wait_entry(&app, 5, 120, report_below).await;
    assert!(fork.contains("forked from the plan of run 1"), "{fork}");
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;
    app.wait("#report a.cite", 60).await;
    // The original and its report stay.
    let first = app.text("#conversation li.turn:nth-child(1)").await;
    assert!(first.contains("Its report"), "{first}");
    wait_entry(&app, 5, 10, |_| true).await;
    app.shot("07-fork-finished").await;
    // An earlier turn's report opens in place.
    app.click("#conversation li.turn:nth-child(1) summary")
        .await;
    let earlier = app
        .wait_text("#conversation li.turn:nth-child(1) .report-text", 10, |t| {
            !t.is_empty()
        })
        .await;
    assert!(earlier.contains("waggle"), "{earlier}");
    app.js("document.querySelector('#conversation li.turn:nth-child(1)').scrollIntoView({block: 'start'})")
        .await;
    app.shot("07b-earlier-report").await;
    select_tab(&app, "method").await;
    let method = app
        .wait_text("#method", 30, |t| t.contains("waggle dance to share"))
        .await;
    assert!(method.contains("honeybee waggle dance"), "{method}");
    app.shot("08-fork-method").await;

    // After a restart the branch still says where it started.
    app.quit().await;
    let app = App::start(&display, &profile, &shots).await;
    app.click("#sessions li:first-child .session-link").await;
    let fork = wait_entry(&app, 5, 30, |t| t.contains("forked from")).await;
    assert!(fork.contains("forked from the plan of run 1"), "{fork}");
    app.shot("09-fork-after-restart").await;
    app.quit().await;
}

/// The fixture script for the trust pipeline: a sure reading (no clarification), its research
/// tree, and a writer who cites only what the run read (no escalation).
fn trust_script(dir: &Path) -> String {
    script(dir, "trust.json", |s| {
        let answers = s["answers"].as_array_mut().unwrap();
        answers.retain(|a| a["purpose"] != "understand" && a["purpose"] != "plan");
        answers.insert(
            0,
            json!({"purpose": "understand", "json": {"intent": "how honeybees communicate",
                "class": "exploratory", "entities": ["honeybees"], "temporal": "", "complexity": "simple",
                "confidence": 0.95, "question": "", "options": [], "interpretation": "Honeybee communication"}}),
        );
        answers.insert(
            1,
            json!({"purpose": "plan", "json": {
                "questions": [
                    {"question": "How do honeybees tell each other where food is?", "level": "primary"},
                    {"question": "How is a honeybee colony organised?", "level": "secondary"}],
                "outline": ["communication", "colony roles"],
                "searches": [
                    {"query": "honeybee waggle dance direction", "kind": "web", "from_year": 0, "to_year": 0},
                    {"query": "honeybee colony worker queen", "kind": "web", "from_year": 0, "to_year": 0}]}}),
        );
        for a in answers.iter_mut() {
            if a["purpose"] == "write" {
                let text = a["text"].as_str().unwrap();
                let kept = text
                    .split("\n## Pollination")
                    .next()
                    .unwrap()
                    .replace(" They are important pollinators of many crops [2].", "");
                // This plan's research questions rank the waggle-dance page second (the colony
                // page first, pollination last), and nothing left cites pollination.
                assert!(!kept.contains("[2]"), "{kept}");
                a["text"] = json!(kept.replace("[3]", "[2]"));
            }
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trust_run_shows_marks_claim_popover_and_credibility() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("trust_run_shows_marks_claim_popover_and_credibility");
    let model = trust_script(dir.path());
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    app.fill("#question", QUESTION).await;
    set_review(&app, false, false).await;
    app.wait("#pipeline option[value='trust']", 30).await;
    app.js("const s = document.getElementById('pipeline'); s.value = 'trust'; s.dispatchEvent(new Event('change'))")
        .await;
    app.click("#start").await;
    app.wait("#report a.cite", 120).await;
    app.wait_text("#session-meta", 60, |t| t.starts_with("Finished"))
        .await;

    // The hallucination score and the legend above the report.
    let bar = app
        .wait_text("#trust-bar", 30, |t| t.contains("Hallucination score"))
        .await;
    for words in [
        "Corroborated",
        "Verified",
        "Weak",
        "two or more independent sources",
        // The legend says what a ✓ is worth, measured against people.
        "times in 100 against people's judgements",
    ] {
        assert!(bar.contains(words), "{bar}");
    }
    // The marks in the text are indicators.
    app.wait("#report .trust-mark", 10).await;
    let marks = app
        .js("return [...document.querySelectorAll('#report .trust-mark')].map(m => [m.textContent, m.className, m.dataset.claim ?? null])")
        .await;
    let marks = marks.as_array().unwrap().clone();
    assert!(!marks.is_empty());
    assert!(
        marks.iter().any(|m| !m[2].is_null()),
        "no mark matched a claim of the record: {marks:?}"
    );
    app.shot("01-report-with-marks").await;

    // Focusing a marked sentence's mark shows its claim: the mark, the check, sources and quotes.
    app.js("const m = [...document.querySelectorAll('#report .trust-mark')].find(m => m.dataset.claim && !m.classList.contains('mark-weak')); m.scrollIntoView({block: 'center'}); m.focus()")
        .await;
    let pop = app
        .wait_text("#cite-popover", 10, |t| t.contains("Supported by"))
        .await;
    assert!(pop.contains("independent origin"), "{pop}");
    assert!(pop.contains('“'), "{pop}");
    app.shot("02-claim-popover").await;
    app.press("\u{E00C}").await; // Escape

    // Each source shows its credibility and why.
    select_tab(&app, "sources").await;
    let cred = app
        .wait_text("#sources-body .credibility", 10, |t| {
            t.contains("credibility 0.") || t.contains("credibility 1.")
        })
        .await;
    assert!(cred.contains(" — "), "a credibility says why: {cred}");
    app.shot("03-sources-credibility").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recheck_after_a_source_changed() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("recheck_after_a_source_changed");
    // The library is a copy of the corpus, so that the test can change it after the run.
    let corpus = dir.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for f in std::fs::read_dir(fixtures().join("corpus"))
        .unwrap()
        .flatten()
    {
        std::fs::copy(f.path(), corpus.join(f.file_name())).unwrap();
    }
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library_from(&dir.path().join("profile"), &model, &corpus);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    // The form's search picker: the providers as checkboxes, the library's ticked from the
    // settings, a keyed one not ready and saying why.
    let picks = app
        .wait_text("#search-choices", 20, |t| t.contains("duckduckgo"))
        .await;
    assert!(picks.contains("tavily (no key)"), "{picks}");
    let ticked = app
        .js("return [...document.querySelectorAll('#search-choices input:checked')].map(i => i.value)")
        .await;
    assert_eq!(ticked, serde_json::json!(["local"]), "{ticked}");
    app.js("document.getElementById('search-choices').scrollIntoView({block: 'center'})")
        .await;
    app.shot("00-form-pickers").await;
    research_to_the_end(&app).await;
    assert!(!app
        .text("#sessions li:first-child")
        .await
        .contains("checked"));
    app.shot("01-report").await;

    // One cited source loses its words, another is deleted.
    let waggle = corpus.join("waggle-dance.md");
    let text = std::fs::read_to_string(&waggle).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(
        &waggle,
        format!("{}\n\nThis page was rewritten.\n", kept.join("\n")),
    )
    .unwrap();
    std::fs::remove_file(corpus.join("colony.html")).unwrap();

    app.click("#recheck").await;
    let summary = app
        .wait_text("#recheck-summary", 60, |t| t.contains("version"))
        .await;
    assert!(
        summary.contains("changed") || summary.contains("gone"),
        "{summary}"
    );
    assert!(summary.contains("the report is now version 2"), "{summary}");
    let states = app
        .js("return [...document.querySelectorAll('.recheck-sources tr[data-state]')].map(r => r.dataset.state + ': ' + r.innerText)")
        .await;
    let states = states.to_string();
    assert!(
        states.contains("gone: ") && states.contains("no longer exists"),
        "{states}"
    );
    assert!(
        states.contains("changed: ") || states.contains("gone"),
        "{states}"
    );
    let lost = app.text("#recheck-box .lost").await;
    assert!(
        !lost.is_empty(),
        "the sentences that lost their support are listed"
    );
    app.js("document.getElementById('recheck-box').scrollIntoView({block: 'start'})")
        .await;
    app.shot("02-recheck-findings").await;

    // The new version is the report on screen; the session list says when it was checked.
    app.wait_text("#sessions li:first-child", 10, |t| t.contains("checked"))
        .await;
    let conversation = app
        .js("return document.getElementById('report').innerText")
        .await;
    assert!(!conversation.as_str().unwrap_or_default().is_empty());
    app.js("document.getElementById('report').scrollIntoView({block: 'end'})")
        .await;
    app.shot("03-new-version").await;

    // Keep current: a weekly schedule that researches again on a change, paused, then removed.
    app.click("#keep-current").await;
    app.wait_text("#schedule-box", 10, |t| {
        t.contains("Keep this session current")
    })
    .await;
    app.js("const f = document.getElementById('schedule-form'); f.elements.every.value = '1w'; f.elements.again.checked = true")
        .await;
    app.click("#schedule-form button[type=submit]").await;
    app.wait_text("#keep-current", 10, |t| t == "Kept current")
        .await;
    app.click("#keep-current").await;
    let summary = app
        .wait_text("#schedule-summary", 10, |t| t.contains("every week"))
        .await;
    assert!(summary.contains("researched again"), "{summary}");
    app.js("document.getElementById('schedule-box').scrollIntoView({block: 'start'})")
        .await;
    app.shot("04-kept-current").await;
    app.click("#schedule-pause").await;
    app.wait_text("#keep-current", 10, |t| t.contains("paused"))
        .await;
    app.click("#keep-current").await;
    app.wait_text("#schedule-summary", 10, |t| t.contains("Paused"))
        .await;
    app.click("#schedule-remove").await;
    app.wait_text("#keep-current", 10, |t| t == "Keep current")
        .await;
    app.quit().await;

    // A schedule due while the app was closed (first due at once, research again on a change),
    // and one more source changed: the app, opened again, runs it by itself and the session
    // shows what it did — the question researched again as a new run.
    let studio = research_api::Studio::open(Some(&profile.db())).unwrap();
    let session = studio.list_sessions(None).unwrap()[0].id.clone();
    studio.watch(&session, "1d", true, Some(0)).unwrap();
    drop(studio);
    std::fs::write(
        corpus.join("pollination.txt"),
        "This page was rewritten and no longer speaks of bees.\n",
    )
    .unwrap();
    let app = App::start(&display, &profile, &shots).await;
    app.wait("#sessions li:first-child .session-link", 30).await;
    app.click("#sessions li:first-child .session-link").await;
    app.wait_text("#keep-current", 30, |t| t == "Kept current")
        .await;
    app.click("#keep-current").await;
    let last = app
        .wait_text("#schedule-box", 120, |t| {
            t.contains("researched again: a new report")
        })
        .await;
    assert!(last.contains("changed"), "{last}");
    let studio = research_api::Studio::open(Some(&profile.db())).unwrap();
    assert_eq!(studio.session(&session).unwrap().runs.len(), 2, "a new run");
    app.js("document.getElementById('schedule-box').scrollIntoView({block: 'start'})")
        .await;
    app.shot("05-ran-while-open").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_a_document_against_a_sessions_sources() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("check_a_document_against_a_sessions_sources");
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    research_to_the_end(&app).await;

    // Nothing to check against yet: the checker says what to add, and nothing is lost.
    app.click("#open-check").await;
    app.fill(
        "#check-text",
        "A honeybee colony contains a single queen, a few hundred drones in summer, and tens of \
         thousands of female worker bees [1]. A colony has three queens [1]. Honeybees were \
         first kept on the moon [2]. Worker bees change tasks as they age.",
    )
    .await;
    app.click("#check-run").await;
    let status = app
        .wait_text("#check-status", 30, |t| t.contains("Add the sources"))
        .await;
    assert!(status.contains("session"), "{status}");

    // Against the session's sources (the colony page is its source 1).
    app.wait("#check-session option[value]:not([value=''])", 30)
        .await;
    app.js("const s = document.getElementById('check-session'); s.value = s.options[1].value; s.dispatchEvent(new Event('change'))")
        .await;
    app.click("#check-run").await;
    let summary = app
        .wait_text("#check-result .check-summary", 60, |t| {
            t.contains("sentences:")
        })
        .await;
    assert!(summary.starts_with("4 sentences:"), "{summary}");
    assert!(!summary.contains(" 0 verified"), "{summary}");
    assert!(!summary.contains(" 0 unsupported"), "{summary}");
    assert!(summary.contains("1 uncited"), "{summary}");
    let legend = app.text("#check-result .trust-legend").await;
    assert!(
        legend.contains("times in 100 against people's judgements"),
        "{legend}"
    );
    let marks = app
        .js("return [...document.querySelectorAll('#check-result .checked')].map(li => li.className + ' ' + li.innerText)")
        .await
        .to_string();
    assert!(
        marks.contains("check-verified") && marks.contains("single queen"),
        "{marks}"
    );
    assert!(
        marks.contains("check-unsupported") && marks.contains("three queens"),
        "{marks}"
    );

    // A mark's popover says why and shows the passage it was checked against.
    app.js("document.querySelector('#check-result .checked.check-verified .check-mark').focus()")
        .await;
    let pop = app
        .wait_text("#cite-popover", 10, |t| t.contains("Verified"))
        .await;
    assert!(pop.contains("content words"), "{pop}");
    assert!(
        pop.contains("tens of thousands of female worker bees"),
        "{pop}"
    );
    app.shot("01-checked-document").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_two_pipelines() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("compare_two_pipelines");
    // A: the standard pipeline with one search; B: the review pipeline, multi-agent, with all of
    // them and a reviewer that approves at once.
    let narrow = script(dir.path(), "narrow.json", |s| {
        for a in s["answers"].as_array_mut().unwrap() {
            if a["purpose"] == "plan" {
                a["json"]["searches"] = json!(["honeybee waggle dance direction"]);
            }
        }
    });
    let reviewed = script(dir.path(), "reviewed.json", |s| {
        let score = 9.0;
        let answers = s["answers"].as_array_mut().unwrap();
        answers.push(json!({"purpose": "review", "json": {"scores": {"accuracy": score, "completeness": score,
            "coherence": score, "citation": score, "methodology": score, "style": score},
            "issues": [], "summary": "Good.", "improvement_potential": 0.1}}));
        answers.push(
            json!({"purpose": "analyze", "json": {"themes": ["waggle dance"],
            "contradictions": [], "gaps": [], "confidence": 0.9}}),
        );
    });
    let profile = Profile::with_library(&dir.path().join("profile"), &narrow);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    app.fill("#question", QUESTION).await;
    app.wait("#pipeline option[value='review']", 30).await;
    app.click("#compare-settings summary").await;
    app.js("const s = document.getElementById('b-pipeline'); s.value = 'review'; const m = document.getElementById('b-mode'); m.value = 'multi';")
        .await;
    app.fill("#b-llm", &reviewed).await;
    app.js("document.getElementById('compare-settings').scrollIntoView({block: 'center'})")
        .await;
    app.shot("01-compare-form").await;
    app.click("#compare-start").await;

    // Both sides run side by side, each with its own progress.
    app.wait("#view-compare .compare-side[data-side='A']", 20)
        .await;
    app.wait("#view-compare .compare-side[data-side='B']", 20)
        .await;
    app.shot("02-running").await;

    // Then the table and the sources only one side read.
    let table = app
        .wait_text("#compare-table", 180, |t| t.contains("Model calls"))
        .await;
    for row in [
        "Sources read",
        "Coverage",
        "Cited sentences verified",
        "Tokens",
        "Time",
    ] {
        assert!(table.contains(row), "{table}");
    }
    assert!(table.contains("finished"), "{table}");
    let head = app.text("#compare-table thead").await;
    assert!(head.contains("Review") || head.contains("review"), "{head}");
    // The question's own search reads every bee page whatever a side plans, so neither side
    // read a page alone, and the view says so for each.
    let only = app.text("#view-compare .compare-only").await;
    assert!(
        only.contains("Only A read") && only.contains("Only B read"),
        "{only}"
    );
    assert_eq!(
        only.matches("Nothing the other side did not read too")
            .count(),
        2,
        "{only}"
    );
    let sources_b = app
        .js("return document.querySelectorAll(\"#view-compare .compare-side[data-side='B'] .live-sources li\").length")
        .await;
    assert!(
        sources_b.as_u64().unwrap_or(0) > 0,
        "B's live view listed what it read"
    );
    app.js("document.getElementById('compare-table').scrollIntoView({block: 'start'})")
        .await;
    app.shot("03-table").await;

    // The comparison is one session with both runs.
    app.click("#compare-open").await;
    app.wait("#report a.cite", 30).await;
    let second = wait_entry(&app, 2, 10, |t| t.contains("Run 2")).await;
    assert!(
        !second.contains("forked"),
        "a comparison's side is no fork: {second}"
    );
    app.shot("04-session").await;
    app.quit().await;
}

/// A reviewer's answer: every criterion at `score` (accuracy at `accuracy`), with `issues`.
fn critique(score: f64, accuracy: f64, issues: Value) -> Value {
    json!({"purpose": "review", "json": {"scores": {"accuracy": accuracy, "completeness": score,
        "coherence": score, "citation": score, "methodology": score, "style": score},
        "issues": issues, "summary": format!("Reviewed at {score}."), "improvement_potential": 0.6}})
}

/// The fixture script on the review pipeline: the reviewer asks for two revisions (the first
/// fixes the Summary's issue, the second leaves the colony's open) and the writer's drafts
/// differ in the sections named.
fn review_script(dir: &Path) -> String {
    script(dir, "review.json", |s| {
        let answers = s["answers"].as_array_mut().unwrap();
        let write = answers
            .iter_mut()
            .find(|a| a["purpose"] == "write")
            .unwrap();
        // Sentences the audit keeps as written (`research check` against the page: partly at
        // 0.83, verified at 0.91), so that the drafts differ where the revision changed them.
        let first = write["text"].as_str().unwrap().replace(
            "They are important pollinators of many crops [2].",
            "Honeybees pollinate many crops that humans eat [2].",
        );
        write["text"] = json!(first);
        let second = first.replace(
            "Honeybees pollinate many crops that humans eat [2].",
            "Honeybees pollinate crops that humans eat, including almonds and apples [2].",
        );
        let third = second.replace(
            "Communication also relies on pheromones [1].",
            "Communication in the colony also relies on pheromones [1].",
        );
        assert!(second != first && third != second);
        answers.push(json!({"purpose": "write", "text": second}));
        answers.push(json!({"purpose": "write", "text": third}));
        let summary = json!({"category": "completeness", "severity": "critical", "location": "Summary",
            "description": "The Summary does not name the crops.", "fix": "Name the crops."});
        let colony = json!({"category": "accuracy", "severity": "critical", "location": "The colony",
            "description": "The pheromone sentence overstates its source.", "fix": "Say only what the source says."});
        answers.push(critique(6.0, 5.0, json!([summary, colony])));
        answers.push(critique(6.5, 5.5, json!([colony])));
        answers.push(critique(6.8, 5.5, json!([colony])));
        answers.push(
            json!({"purpose": "analyze", "json": {"themes": ["waggle dance"],
            "contradictions": [], "gaps": [], "confidence": 0.9}}),
        );
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_run_shows_scores_and_diffs_after_an_escalation_answered_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let shots =
        artifacts("review_run_shows_scores_and_diffs_after_an_escalation_answered_after_restart");
    let model = review_script(dir.path());
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    app.fill("#question", QUESTION).await;
    set_review(&app, false, false).await;
    app.wait("#pipeline option[value='review']", 30).await;
    app.js("const s = document.getElementById('pipeline'); s.value = 'review'; s.dispatchEvent(new Event('change'))")
        .await;
    app.click("#more-settings summary").await;
    app.fill("#max-revisions", "2").await;
    app.click("#start").await;

    // Two revisions leave a critical issue open: the run asks in a native dialog. The app is
    // quit with it unanswered; after a restart it is asked again, once, and answered there.
    app.dialog("Open issues in the report", 180).await;
    app.shot("01-escalation-dialog").await;
    app.quit().await;
    let app = App::start(&display, &profile, &shots).await;
    let asked = app.dialog("Open issues in the report", 30).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(app.dialogs("Open issues in the report"), 1, "asked twice");
    app.shot("02-escalation-after-restart").await;
    app.keys(&asked, &["Return"]); // Accept with caveats (the first button has the focus)

    // The report, then the Review tab: three drafts scored per criterion, with weights. (The
    // drafts' review is there while the run waits too; the finished run adds the escalation.)
    app.wait("#sessions li[data-status='finished']", 120).await;
    app.wait("#report a.cite", 30).await;
    app.wait("#tab-review", 20).await;
    select_tab(&app, "review").await;
    let table = app
        .wait_text("#panel-review .scores", 20, |t| t.contains("Draft 3"))
        .await;
    for part in [
        "Accuracy", "25%", "Citation", "15%", "Overall", "Draft 1", "Draft 2", "5.0", "5.5",
    ] {
        assert!(
            table.contains(part),
            "{part} missing from the scores: {table}"
        );
    }
    let panel = app
        .wait_text("#panel-review", 30, |t| t.contains("you chose to"))
        .await;
    assert!(
        panel.contains("The Summary does not name the crops."),
        "{panel}"
    );
    assert!(
        panel.contains("you chose to accept the best draft"),
        "{panel}"
    );
    // What the first revision fixed, and the words it changed.
    let fixed = app
        .text("#panel-review .draft-card[data-version='1'] .issues.fixed")
        .await;
    assert!(fixed.contains("does not name the crops"), "{fixed}");
    assert!(!fixed.contains("pheromone"), "{fixed}");
    let added = app
        .text("#panel-review .draft-card[data-version='2'] .diff ins")
        .await;
    assert!(added.contains("almonds"), "{added}");
    let removed = app
        .text("#panel-review .draft-card[data-version='2'] .diff del")
        .await;
    assert!(removed.contains("many"), "{removed}");
    app.shot("03-review-tab").await;
    app.js("document.querySelector(\"#panel-review .draft-card[data-version='2']\").scrollIntoView({block: 'start'})")
        .await;
    app.shot("04-review-diff").await;
    app.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_draft_that_breaks_a_citation_is_caught_before_it_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("an_edited_draft_that_breaks_a_citation_is_caught_before_it_is_sent");
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let display = Display::start();
    let app = App::start(&display, &profile, &shots).await;

    app.fill("#question", QUESTION).await;
    set_review(&app, false, true).await;
    app.click("#start").await;
    // "Request changes…" (the second button), then the page's "Edit the text myself instead".
    let report = app.dialog("Review the report", 120).await;
    app.keys(&report, &["Tab", "space"]);
    app.wait("#answer-panel:not([hidden]) #answer-options button", 30)
        .await;
    app.click("#answer-options button").await;
    app.wait("#free-answer.editor", 10).await;
    let draft = app
        .js("return document.getElementById('free-answer').value")
        .await;
    assert!(draft.as_str().unwrap().contains("[1]"), "{draft}");
    // The edit cites a source the run never read.
    app.js("const t = document.getElementById('free-answer'); t.value = t.value.trimEnd() + ' Honeybees also talk by radio waves [7].\\n'; t.dispatchEvent(new Event('input'));")
        .await;
    app.click("#free-answer-submit").await;
    let found = app
        .wait_text("#draft-findings", 20, |t| t.contains("which no source has"))
        .await;
    assert!(found.contains("cites [7]"), "{found}");
    assert!(found.contains("radio waves"), "{found}");
    assert_eq!(
        app.js("return document.querySelectorAll('#draft-findings li').length")
            .await,
        json!(1),
        "only the broken citation: {found}"
    );
    app.js("document.getElementById('answer-panel').scrollIntoView({block: 'start'})")
        .await;
    app.shot("01-finding-in-editor").await;
    // Fix: the sentence is selected in the editor; taking it out and checking again sends it.
    app.click("#fix-draft").await;
    let selected = app
        .js("const t = document.getElementById('free-answer'); return t.value.slice(t.selectionStart, t.selectionEnd)")
        .await;
    assert!(
        selected.as_str().unwrap().contains("radio waves"),
        "{selected}"
    );
    app.js("const t = document.getElementById('free-answer'); t.value = t.value.replace(' Honeybees also talk by radio waves [7].', ''); t.dispatchEvent(new Event('input'));")
        .await;
    // A change makes the findings stale: they go.
    assert_eq!(
        app.js("return document.getElementById('draft-findings').hidden")
            .await,
        json!(true)
    );
    app.click("#free-answer-submit").await;
    // The fixed edit is audited by the run and shown for review again.
    let again = app.dialog("Review the report", 60).await;
    app.shot("02-fixed-edit-reviewed-again").await;
    app.keys(&again, &["Return"]);
    app.wait("#report a.cite", 60).await;
    assert!(!app.text("#report").await.contains("radio waves"));
    app.shot("03-report").await;
    app.quit().await;
}

/// A team on one PostgreSQL server: a run started on a server box (the API with its own data
/// folder, as the CLI or the MCP server there) stops at its plan review; the desktop app, set to
/// the same server in its Settings, opens it at start, the person approves the plan in the app,
/// and the report is written — read back on the server box.
#[tokio::test]
async fn a_run_started_on_a_server_box_is_answered_in_the_app() {
    use research_api::{CancellationToken, MemoryKeys, ResearchRequest, Settings, Studio};
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("a_run_started_on_a_server_box_is_answered_in_the_app");
    let server = research_postgres::testing::TempPostgres::start().expect("PostgreSQL");
    let url = server.database("team").unwrap();
    let model = script(dir.path(), "script.json", |_| {});
    // Pointed at the server, a profile's library is indexed there again (under this machine:
    // the library moves with the rest, each machine's folders apart).
    let on_the_server = |profile: &Profile| {
        let path = Settings::path_for(&profile.db());
        let mut settings = Settings::load(&path).unwrap();
        settings.set("database", &url).unwrap();
        settings.save(&path).unwrap();
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/cli/tests/fixtures/corpus");
        let studio = Studio::open(Some(&profile.db())).unwrap();
        studio.library().unwrap().add(&corpus, &|_| {}).unwrap();
    };
    // The server box.
    let server_box = Profile::with_library(&dir.path().join("server-box"), &model);
    on_the_server(&server_box);
    let studio = Studio::open(Some(&server_box.db())).unwrap();
    assert!(
        studio.storage().starts_with("PostgreSQL"),
        "{}",
        studio.storage()
    );
    let mut review = research_pipeline::ReviewPoints::none();
    review.plan = true;
    let mut request = ResearchRequest {
        question: QUESTION.into(),
        review: Some(review),
        ..Default::default()
    };
    request.config.search = vec!["local".into()];
    let (session, thread) = studio.start_research(&request).unwrap();
    let waiting = studio
        .run_research(
            &thread,
            None,
            &MemoryKeys::default(),
            None,
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(waiting.status, research_api::ResearchStatus::Waiting);

    // The desktop, on the same server: the run waiting for an answer is asked at start.
    let desktop = Profile::with_library(&dir.path().join("desktop"), &model);
    on_the_server(&desktop);
    let display = Display::start();
    let app = App::start(&display, &desktop, &shots).await;
    let plan = app.dialog("Review the plan", 60).await;
    app.shot("01-plan-from-the-server-box").await;
    app.keys(&plan, &["Return"]); // Approve
    app.wait("#report a.cite", 90).await;
    app.shot("02-report-written-on-the-desktop").await;
    let listed = app
        .js("return document.getElementById('sessions').textContent")
        .await;
    assert!(listed.to_string().contains("honeybees"), "{listed}");
    // Settings says where sessions and runs are kept.
    app.click("#open-settings").await;
    let said = app
        .wait_text("#log-dir", 20, |t| t.contains("Sessions and runs"))
        .await;
    assert!(said.contains("PostgreSQL"), "{said}");
    app.js("document.getElementById('set-database').scrollIntoView({block: 'center'})")
        .await;
    app.shot("03-settings-shared-database").await;

    // Back on the server box: the report the desktop finished.
    let reports = studio.session(&session).unwrap().reports;
    assert_eq!(reports.len(), 1, "the desktop's report is on the server");
}

/// Issue 56: a damaged database does not stop the app. The window says what is wrong and that
/// nothing was written, offers the newest backup, and restores it after a native confirmation
/// that says what it replaces; the damaged file is kept beside it, and the session is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_database_is_shown_and_its_newest_backup_restored() {
    let dir = tempfile::tempdir().unwrap();
    let shots = artifacts("a_damaged_database_is_shown_and_its_newest_backup_restored");
    let model = script(dir.path(), "script.json", |_| {});
    let profile = Profile::with_library(&dir.path().join("profile"), &model);
    let db = profile.db();
    {
        let studio = research_api::Studio::open(Some(&db)).unwrap();
        studio
            .start_research(&research_api::ResearchRequest {
                question: QUESTION.into(),
                ..Default::default()
            })
            .unwrap();
        studio.backup(None).unwrap();
    }
    // A page of the library's passages overwritten, as a failing disk leaves it: SQLite finds
    // the file damaged, and the sessions in it still read.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        let (page, size): (i64, i64) = conn
            .query_row(
                "SELECT rootpage, (SELECT page_size FROM pragma_page_size()) FROM sqlite_master
                 WHERE name = 'library_passages_content'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        drop(conn);
        let mut bytes = std::fs::read(&db).unwrap();
        let at = ((page - 1) * size) as usize;
        bytes[at..at + size as usize].fill(0xa5);
        std::fs::write(&db, &bytes).unwrap();
    }
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", db.display()));
    }
    let damaged = std::fs::read(&db).unwrap();

    let display = Display::start();
    let app = App::start_showing(&display, &profile, &shots, "#damaged-title").await;
    app.wait_inner_text("#view-damaged", "could not be opened", 30)
        .await;
    let said = app.text("#view-damaged").await;
    assert!(said.contains("nothing was written to it"), "{said}");
    assert!(said.contains("research-"), "the backup is named: {said}");
    app.shot("01-damaged").await;
    assert_eq!(std::fs::read(&db).unwrap(), damaged, "not a byte written");

    // Its sessions saved first, to a folder picked in the native chooser.
    let saved = dir.path().join("saved");
    std::fs::create_dir_all(&saved).unwrap();
    app.click("#damaged-salvage").await;
    app.choose("Choose a folder to save the sessions in", &saved)
        .await;
    let said = app
        .wait_text("#damaged-salvaged", 60, |t| !t.is_empty())
        .await;
    assert!(said.starts_with("Saved 1 session to"), "{said}");
    assert_eq!(files_under(&saved).len(), 1, "one session file");
    app.shot("01a-salvaged").await;
    assert_eq!(std::fs::read(&db).unwrap(), damaged, "only read");

    app.click("#damaged-restore").await;
    let confirm = app.dialog("Restore the backup", 30).await;
    app.shot("02-confirm").await;
    app.keys(&confirm, &["Return"]);
    app.wait_inner_text("#sessions", "honeybees", 30).await;
    app.shot("03-restored").await;
    let kept: Vec<String> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("replaced"))
        .collect();
    assert_eq!(
        kept.len(),
        1,
        "the damaged file is kept beside the database"
    );
    app.quit().await;
}
