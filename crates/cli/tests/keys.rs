//! `research keys` against a real Secret Service: a private D-Bus session with a fresh,
//! unlocked gnome-keyring, in a throwaway HOME.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_research");

#[test]
fn keys_round_trip_through_the_os_keychain() {
    let have = |tool: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("dbus-run-session") && have("gnome-keyring-daemon")) {
        assert!(
            std::env::var_os("CI").is_none(),
            "dbus-run-session and gnome-keyring are needed (scripts/install-deps.sh)"
        );
        eprintln!("skipped: no dbus-run-session or gnome-keyring-daemon");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let script = format!(
        r#"set -e
        echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        printf 'sk-test-1234567890abcd\n' | "{BIN}" keys set openai
        "{BIN}" keys list --json
        echo ---
        OPENAI_API_KEY= "{BIN}" keys delete openai
        OPENAI_API_KEY= "{BIN}" keys list --json
        echo ---
        "{BIN}" keys set duckduckgo </dev/null || echo "exit $?"
        "#
    );
    let out = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &script])
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_RUNTIME_DIR", home.path())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let parts: Vec<&str> = stdout.split("---\n").collect();
    let listed: serde_json::Value = serde_json::from_str(parts[0].trim()).unwrap();
    let openai = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["provider"] == "openai")
        .unwrap();
    assert_eq!(openai["source"], "keychain", "{stderr}");
    assert_eq!(openai["masked"], "sk-…abcd");
    assert!(
        !stdout.contains("1234567890"),
        "the key itself is never printed"
    );
    let listed: serde_json::Value = serde_json::from_str(parts[1].trim()).unwrap();
    let openai = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["provider"] == "openai")
        .unwrap();
    assert_eq!(openai["source"], "missing");
    assert!(parts[2].contains("exit 2"), "{stdout}");
    assert!(stderr.contains("`duckduckgo` takes no key"), "{stderr}");
}
