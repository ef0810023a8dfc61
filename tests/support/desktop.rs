//! Driving the real app end to end: a private Xvfb display, `tauri-driver` (WebKitWebDriver)
//! for the page, and `xdotool` for the native GTK dialogs WebDriver cannot see.
//!
//! Every wait has a deadline and every failure names what was missing, so a broken app fails
//! the test instead of hanging CI.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

/// A private X display, closed on drop.
pub struct Display {
    proc: Child,
    /// `:N`.
    pub name: String,
}

fn need(tool: &str, script: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(found, "{tool} is missing: run {script}");
}

impl Display {
    /// Starts Xvfb on a display number it finds free itself (`-displayfd`), so that tests
    /// running side by side never share a screen.
    pub fn start() -> Self {
        use std::io::{BufRead, BufReader};
        need("Xvfb", "scripts/install-deps.sh");
        need("xdotool", "scripts/install-deps.sh");
        need("import", "scripts/install-deps.sh");
        let mut proc = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut line = String::new();
        let read = BufReader::new(proc.stdout.take().expect("piped"))
            .read_line(&mut line)
            .unwrap_or(0);
        let n: u32 = match line.trim().parse() {
            Ok(n) if read > 0 => n,
            _ => {
                let _ = proc.kill();
                let _ = proc.wait();
                panic!("Xvfb did not report a display number");
            }
        };
        Self {
            proc,
            name: format!(":{n}"),
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.proc.kill();
        let _ = self.proc.wait();
    }
}

/// Where an app instance keeps its files: HOME and XDG folders, the database, the log.
pub struct Profile {
    /// The folder holding everything.
    pub root: PathBuf,
}

impl Profile {
    /// A profile in `root`.
    pub fn new(root: &Path) -> Self {
        for d in ["home", "data", "config", "cache"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Self {
            root: root.to_path_buf(),
        }
    }

    /// A profile whose library holds the fixture corpus of the CLI tests, whose default model
    /// is `model` and whose searches stay in the library.
    pub fn with_library(root: &Path, model: &str) -> Self {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/cli/tests/fixtures/corpus");
        Self::with_library_from(root, model, &corpus)
    }

    /// [`Profile::with_library`] over the folder `corpus` (a copy a test may change).
    pub fn with_library_from(root: &Path, model: &str, corpus: &Path) -> Self {
        let profile = Self::new(root);
        let studio = research_api::Studio::open(Some(&profile.db())).unwrap();
        studio.library().unwrap().add(corpus, &|_| {}).unwrap();
        let mut settings = research_api::Settings::default();
        settings.set("default_model", model).unwrap();
        settings.set("search", "local").unwrap();
        settings.save(&studio.settings_path()).unwrap();
        profile
    }

    /// The app's database.
    pub fn db(&self) -> PathBuf {
        self.root.join("data/research.sqlite3")
    }

    /// The environment an app instance runs with.
    pub fn env(&self, display: &Display) -> Vec<(String, String)> {
        let p = |s: &str| self.root.join(s).display().to_string();
        vec![
            ("HOME".into(), p("home")),
            ("XDG_DATA_HOME".into(), p("data")),
            ("XDG_CONFIG_HOME".into(), p("config")),
            ("XDG_CACHE_HOME".into(), p("cache")),
            ("RESEARCH_STUDIO_DB".into(), self.db().display().to_string()),
            ("DISPLAY".into(), display.name.clone()),
            ("NO_AT_BRIDGE".into(), "1".into()),
            ("RESEARCH_LOG".into(), "info".into()),
            // No session bus: the app must say it has no keychain and keep keys in memory.
            (
                "DBUS_SESSION_BUS_ADDRESS".into(),
                "unix:path=/nonexistent".into(),
            ),
        ]
    }
}

fn tauri_driver() -> PathBuf {
    if let Some(p) = std::env::var_os("RS_TAURI_DRIVER") {
        return PathBuf::from(p);
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let p = PathBuf::from(home).join(".cache/research-studio/tools/bin/tauri-driver");
    assert!(
        p.exists(),
        "tauri-driver is missing: run scripts/fetch-tauri-driver.sh"
    );
    p
}

/// `N` distinct free ports: every listener is held until all are known, so two calls cannot
/// return the same port (tauri-driver once proxied to itself on `--port P --native-port P`
/// until it ran out of file descriptors).
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: Vec<std::net::TcpListener> = (0..N)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    std::array::from_fn(|i| listeners[i].local_addr().unwrap().port())
}

/// A tauri-driver and everything it started (its own process group), ended when dropped: also
/// when a test fails before its app is up, so no driver outlives the test that started it.
struct Driver(Child);

impl Driver {
    fn end(&mut self) {
        let pgid = self.0.id();
        let group = format!("-{pgid}");
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
        // The next app on this display must not meet this one's windows: wait until its
        // processes are gone (a killed process may take a moment on a busy machine).
        let deadline = Instant::now() + Duration::from_secs(10);
        while !group_members(pgid).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.end();
    }
}

/// How many times the driver is started afresh (new ports) when no session comes of it.
const DRIVER_ATTEMPTS: u32 = 3;

/// The running app, driven through WebDriver.
pub struct App {
    driver: Driver,
    /// The WebDriver session.
    pub client: Client,
    /// What the app and the driver printed.
    pub log: PathBuf,
    shots: PathBuf,
    display: String,
}

/// Where screenshots go: `$RS_E2E_ARTIFACTS/<test>`, else `$CARGO_TARGET_DIR/e2e-artifacts/<test>`.
pub fn artifacts(test: &str) -> PathBuf {
    let base = std::env::var_os("RS_E2E_ARTIFACTS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("e2e-artifacts"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("research-studio-e2e"));
    let dir = base.join(test);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl App {
    /// Starts the app on `display` with `profile`, and waits for its page. A driver that gives
    /// no session is ended and started again on new ports, up to [`DRIVER_ATTEMPTS`] times with
    /// a growing pause (a loaded machine can refuse the first).
    pub async fn start(display: &Display, profile: &Profile, shots: &Path) -> Self {
        Self::start_showing(display, profile, shots, "#new-research").await
    }

    /// [`App::start`], waiting for `css` instead of the sidebar (a window that shows something
    /// else first: the database it could not open).
    pub async fn start_showing(
        display: &Display,
        profile: &Profile,
        shots: &Path,
        css: &str,
    ) -> Self {
        need("WebKitWebDriver", "scripts/install-deps.sh");
        let mut failures = Vec::new();
        for attempt in 1..=DRIVER_ATTEMPTS {
            match Self::session(display, profile).await {
                Ok((driver, client, log)) => {
                    let app = Self {
                        driver,
                        client,
                        log,
                        shots: shots.to_path_buf(),
                        display: display.name.clone(),
                    };
                    app.wait(css, 60).await;
                    return app;
                }
                Err(why) => {
                    tracing_note(&format!("attempt {attempt}: {why}"));
                    failures.push(why);
                    tokio::time::sleep(Duration::from_secs(2 * u64::from(attempt))).await;
                }
            }
        }
        panic!(
            "no WebDriver session in {DRIVER_ATTEMPTS} attempts:\n{}",
            failures.join("\n")
        );
    }

    /// One driver on fresh ports and a WebDriver session with it; on failure, why, with the end
    /// of the driver's log (the driver is ended as it is dropped).
    async fn session(
        display: &Display,
        profile: &Profile,
    ) -> Result<(Driver, Client, PathBuf), String> {
        let [port, native] = free_ports::<2>();
        let log = profile.root.join(format!("app-{port}.log"));
        let mut cmd = Command::new(tauri_driver());
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native.to_string(),
        ])
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::options().append(true).open(&log).unwrap());
        for (k, v) in profile.env(display) {
            cmd.env(k, v);
        }
        // Its own process group, so that ending it also ends WebKitWebDriver and the app.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut driver = Driver(cmd.spawn().expect("tauri-driver starts"));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = driver.0.try_wait() {
                return Err(format!("tauri-driver exited ({status}); {}", tail(&log)));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "tauri-driver did not listen within 20 s; {}",
                    tail(&log)
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), "wry".into());
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({"application": std::env::var("RS_APP_BIN")
                .unwrap_or_else(|_| env!("CARGO_BIN_EXE_research-studio").to_string())}),
        );
        // tauri-driver listens before its WebKitWebDriver does, and a session request can hang
        // when the app cannot start: retry refused connections, bound the whole wait.
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let attempt = tokio::time::timeout(
                Duration::from_secs(60),
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                    .capabilities(caps.clone())
                    .connect(&format!("http://127.0.0.1:{port}")),
            )
            .await;
            match attempt {
                Ok(Ok(client)) => return Ok((driver, client, log)),
                Ok(Err(e)) if Instant::now() < deadline => {
                    if let Ok(Some(status)) = driver.0.try_wait() {
                        return Err(format!("tauri-driver exited ({status}); {}", tail(&log)));
                    }
                    tracing_note(&format!("no WebDriver session yet ({e}); retrying"));
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Ok(Err(e)) => {
                    return Err(format!("no WebDriver session: {e}; {}", tail(&log)));
                }
                Err(_) => {
                    return Err(format!("no WebDriver session within 60 s; {}", tail(&log)));
                }
            }
        }
    }

    /// Fails the test with a screenshot and the app's log.
    pub async fn fail(&self, what: &str) -> ! {
        self.shot("failure").await;
        // What the app told the person, if anything (an error shown in words).
        let toast = match self.client.find(Locator::Css("#toast:not([hidden])")).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        let toast = if toast.is_empty() {
            String::new()
        } else {
            format!("\nthe app said: {toast}")
        };
        panic!("{what}{toast}\n{}", tail(&self.log));
    }

    /// Waits until `css` matches a displayed element.
    pub async fn wait(&self, css: &str, secs: u64) -> fantoccini::elements::Element {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Ok(found) = self.client.find_all(Locator::Css(css)).await {
                for e in found {
                    if e.is_displayed().await.unwrap_or(false) {
                        return e;
                    }
                }
            }
            if Instant::now() > deadline {
                self.fail(&format!("`{css}` did not appear within {secs} s"))
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Waits until `css` is gone or hidden.
    pub async fn wait_gone(&self, css: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let mut shown = false;
            if let Ok(found) = self.client.find_all(Locator::Css(css)).await {
                for e in found {
                    shown |= e.is_displayed().await.unwrap_or(false);
                }
            }
            if !shown {
                return;
            }
            if Instant::now() > deadline {
                self.fail(&format!("`{css}` was still shown after {secs} s"))
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Clicks the element `css`, finding it again if the page redrew it under the pointer.
    pub async fn click(&self, css: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let e = self.wait(css, 30).await;
            match e.click().await {
                Ok(()) => return,
                Err(err) if Instant::now() < deadline && is_stale(&err) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(err) => self.fail(&format!("could not click `{css}`: {err}")).await,
            }
        }
    }

    /// Replaces the text of the field `css`.
    pub async fn fill(&self, css: &str, text: &str) {
        let e = self.wait(css, 30).await;
        e.clear().await.unwrap();
        e.send_keys(text).await.unwrap();
    }

    /// Waits until the page's `innerText` of `css` contains `text` (read by script: WebKit's
    /// WebDriver answers some list items' text as empty).
    pub async fn wait_inner_text(&self, css: &str, text: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let script =
            format!("const e = document.querySelector({css:?}); return e ? e.innerText : ''");
        let mut last = serde_json::Value::Null;
        while Instant::now() < deadline {
            last = self.js(&script).await;
            if last.as_str().is_some_and(|t| t.contains(text)) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        self.fail(&format!(
            "`{css}` did not come to contain {text:?} within {secs} s (last: {last})"
        ))
        .await
    }

    /// Types `keys` (WebDriver key codes such as `"\u{E007}"` for Enter) into the focused element.
    pub async fn press(&self, keys: &str) {
        let focused = self.client.active_element().await.unwrap();
        focused.send_keys(keys).await.unwrap();
    }

    /// The id (or, without one, the class) of the focused element.
    pub async fn focused(&self) -> String {
        let v = self
            .js("const e = document.activeElement; return e ? (e.id || e.className) : ''")
            .await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// The text of `css` (found again if the page re-rendered it meanwhile).
    pub async fn text(&self, css: &str) -> String {
        self.wait_text(css, 30, |_| true).await
    }

    /// Waits until the text of `css` satisfies `ok`; that text. Elements are looked up afresh on
    /// every try, so a list the page redraws cannot leave the test holding a stale element.
    pub async fn wait_text(&self, css: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut last = String::new();
        loop {
            if let Ok(found) = self.client.find_all(Locator::Css(css)).await {
                for e in found {
                    if !e.is_displayed().await.unwrap_or(false) {
                        continue;
                    }
                    if let Ok(t) = e.text().await {
                        if ok(&t) {
                            return t;
                        }
                        last = t;
                    }
                }
            }
            if Instant::now() > deadline {
                self.fail(&format!(
                    "`{css}` did not show the expected text within {secs} s (last: {last:?})"
                ))
                .await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Runs JavaScript in the page.
    pub async fn js(&self, script: &str) -> serde_json::Value {
        self.client.execute(script, vec![]).await.unwrap()
    }

    /// Saves a screenshot of the whole display (native dialogs included).
    pub async fn shot(&self, name: &str) -> PathBuf {
        // WebKit paints in its own process: let two frames pass so the picture shows the page
        // as it is now, not as it was (a busy machine can lag by a second).
        let _ = tokio::time::timeout(
            Duration::from_secs(3),
            self.client.execute_async(
                "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(null)));",
                vec![],
            ),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let path = self.shots.join(format!("{name}.png"));
        let _ = Command::new("import")
            .args(["-window", "root"])
            .arg(&path)
            .env("DISPLAY", &self.display)
            .status();
        path
    }

    /// Waits for a native dialog titled `title` of this app; its X window id.
    pub async fn dialog(&self, title: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            // The newest window last: an earlier dialog of the same title may linger unmapped.
            if let Some(id) = self.windows(title).pop() {
                // Let GTK finish laying it out before keys arrive.
                tokio::time::sleep(Duration::from_millis(400)).await;
                return id;
            }
            if Instant::now() > deadline {
                self.fail(&format!("no dialog “{title}” within {secs} s"))
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// How many native dialogs titled `title` this app has on screen.
    pub fn dialogs(&self, title: &str) -> usize {
        self.windows(title).len()
    }

    /// The visible windows titled `title` that belong to this app's process: a window of an
    /// app quit a moment ago may still be on the display while the X server closes it.
    fn windows(&self, title: &str) -> Vec<String> {
        let Some(pid) = self.app_pid() else {
            return Vec::new();
        };
        let xdotool = |args: &[&str]| {
            Command::new("xdotool")
                .args(args)
                .env("DISPLAY", &self.display)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        };
        let pattern = format!("^{title}$");
        xdotool(&["search", "--onlyvisible", "--name", &pattern])
            .lines()
            .filter(|id| xdotool(&["getwindowpid", id]).trim() == pid.to_string())
            .map(str::to_string)
            .collect()
    }

    /// The app's process: the one named `research-studio` in the driver's process group.
    fn app_pid(&self) -> Option<u32> {
        group_members(self.driver.0.id())
            .into_iter()
            .find(|(_, name)| name == "research-studio")
            .map(|(pid, _)| pid)
    }

    /// Sends keys (xdotool names: `Return`, `Tab`, `ctrl+a`) to dialog window `wid`.
    pub fn keys(&self, wid: &str, keys: &[&str]) {
        let mut args = vec!["windowfocus", "--sync", wid, "key", "--clearmodifiers"];
        args.extend_from_slice(keys);
        let ok = Command::new("xdotool")
            .args(&args)
            .env("DISPLAY", &self.display)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "xdotool could not send {keys:?}");
    }

    /// Types `text` into the focused field of dialog `wid`.
    pub fn type_text(&self, wid: &str, text: &str) {
        let ok = Command::new("xdotool")
            .args(["windowfocus", "--sync", wid, "type", "--delay", "2", text])
            .env("DISPLAY", &self.display)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "xdotool could not type");
    }

    /// Answers a GTK save dialog titled `title` with `path`.
    pub async fn save_as(&self, title: &str, path: &Path) {
        let wid = self.dialog(title, 30).await;
        self.type_path(&wid, path, &[]).await;
    }

    /// Answers a GTK folder or file chooser titled `title` with `path`: its location field opens
    /// with Ctrl+L (typing a leading `/` would open it too, but eats the first characters).
    pub async fn choose(&self, title: &str, path: &Path) {
        let wid = self.dialog(title, 30).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.type_path(&wid, path, &["ctrl+l"]).await;
    }

    /// Sends `first`, replaces the focused field with `path` and presses Return until the file
    /// dialog `wid` closes.
    async fn type_path(&self, wid: &str, path: &Path, first: &[&str]) {
        if !first.is_empty() {
            self.keys(wid, first);
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        self.keys(wid, &["ctrl+a"]);
        self.type_text(wid, &path.display().to_string());
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.keys(wid, &["Return"]);
        // A busy machine can drop the first Return while the dialog is still settling, and a
        // folder chooser takes one Return to enter the folder and one to choose it.
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_secs(2)).await;
            if !self.window_exists(wid) {
                return;
            }
            self.keys(wid, &["Return"]);
        }
    }

    fn window_exists(&self, wid: &str) -> bool {
        Command::new("xdotool")
            .args(["getwindowname", wid])
            .env("DISPLAY", &self.display)
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
            && Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "."])
                .env("DISPLAY", &self.display)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l == wid))
                .unwrap_or(false)
    }

    /// Waits for a file the app writes; fails with a screenshot and the log when it does not.
    pub async fn expect_file(&self, path: &Path, secs: u64) {
        if !file_appears(path, secs).await {
            self.fail(&format!(
                "{} was not written within {secs} s",
                path.display()
            ))
            .await;
        }
    }

    /// Ends the session and the app.
    pub async fn quit(mut self) {
        let _ = self.client.clone().close().await;
        self.end();
    }

    fn end(&mut self) {
        self.driver.end();
    }
}

/// The live processes (pid, name) of process group `pgid`; zombies have closed their windows.
fn group_members(pgid: u32) -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (name) state ppid pgrp …`: the name may hold spaces and parentheses.
        let (head, tail) = stat.rsplit_once(')')?;
        let name = head.split_once('(')?.1.to_string();
        let mut fields = tail.split_whitespace();
        let state = fields.next()?;
        let pgrp: u32 = fields.nth(1)?.parse().ok()?;
        (pgrp == pgid && state != "Z" && state != "X").then_some((pid, name))
    })
    .collect()
}

fn tracing_note(what: &str) {
    eprintln!("e2e: {what}");
}

fn is_stale(err: &fantoccini::error::CmdError) -> bool {
    matches!(err, fantoccini::error::CmdError::Standard(e)
        if e.error == fantoccini::error::ErrorStatus::StaleElementReference)
}

/// A file's text, or a note that it could not be read.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("({}: {e})", path.display()))
}

/// The log's last [`LOG_TAIL`] lines, said as such: a failing test prints these, not a whole
/// log (a driver spinning on a failed accept once wrote 317 MB into one panic).
pub fn tail(path: &Path) -> String {
    let text = read(path);
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(LOG_TAIL);
    format!(
        "the last {} of {} lines of {}:\n{}",
        lines.len() - from,
        lines.len(),
        path.display(),
        lines[from..].join("\n")
    )
}

/// How many lines of a log a failing test prints.
pub const LOG_TAIL: usize = 80;

/// Waits for a file to exist and be non-empty.
pub async fn file_appears(path: &Path, secs: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            // A moment more so an atomic rename has landed.
            tokio::time::sleep(Duration::from_millis(200)).await;
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}
