//! Starts the real desktop app under Xvfb, waits until the page has loaded and reached Rust
//! (its first command prints "ready"), takes a screenshot and checks that the window drew something.

use std::path::Path;
use std::process::Command;

const APP: &str = env!("CARGO_BIN_EXE_research-studio");

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn unique_colours(png: &Path) -> usize {
    let out = Command::new("convert")
        .arg(png)
        .args(["-format", "%k", "info:"])
        .output()
        .expect("ImageMagick runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(0)
}

#[test]
fn window_opens_reaches_rust_and_draws() {
    for tool in ["xvfb-run", "import", "convert"] {
        assert!(have(tool), "{tool} is missing: run scripts/install-deps.sh (Xvfb and ImageMagick are needed for this test)");
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let log = home.join("app.log");
    let shot = home.join("screen.png");
    // The app runs in its own HOME with its own database; the shell waits (at most 120 s) for the
    // line the app prints when the page has loaded and called its first command.
    let script = format!(
        r#""{APP}" > "{log}" 2>&1 &
        pid=$!
        for _ in $(seq 1 240); do
          grep -q "research-studio: ready" "{log}" && break
          kill -0 $pid 2>/dev/null || break
          sleep 0.5
        done
        # Under load WebKit may paint a while after the run ends: look again for up to 30 s.
        for _ in $(seq 1 60); do
          sleep 0.5
          import -window root "{shot}"
          [ "$(convert "{shot}" -format %k info: 2>/dev/null || echo 0)" -gt 50 ] && break
        done
        kill $pid 2>/dev/null
        wait $pid 2>/dev/null
        true"#,
        log = log.display(),
        shot = shot.display(),
    );
    let status = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24", "sh", "-c", &script])
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("NO_AT_BRIDGE", "1")
        .env("RESEARCH_STUDIO_DB", home.join("research.sqlite3"))
        .status()
        .expect("xvfb-run starts");
    assert!(status.success(), "xvfb-run failed");
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        output.contains("research-studio: ready"),
        "the page never reached Rust; app output:\n{output}"
    );
    let colours = unique_colours(&shot);
    assert!(
        colours > 50,
        "the screenshot looks blank ({colours} colours)"
    );
    if let Ok(dir) = std::env::var("SMOKE_SCREENSHOT_DIR") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::copy(&shot, Path::new(&dir).join("desktop-smoke.png"));
    }
}
