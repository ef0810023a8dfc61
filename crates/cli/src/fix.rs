//! Where to fix an error, worded as the command to type.
//!
//! The API names the place ([`Fix`]); the desktop app words it as a place in its window, and the
//! CLI as the command or flag that fixes it.

use research_api::Fix;

/// The command that fixes it, as a clause to follow the message.
pub fn hint(fix: &Fix) -> String {
    match fix {
        Fix::ApiKeys { provider } => format!("set one with `research keys set {provider}`"),
        Fix::Model => {
            "pass --llm SPEC, or set a default with `research settings set default_model SPEC`"
                .into()
        }
        Fix::SearxngUrl => {
            "set one with --searxng-url URL or `research settings set searxng_url URL`".into()
        }
        Fix::Library => "add a folder with `research library add DIR`".into(),
        Fix::ResumeRun { thread } => format!("finish the run with `research resume {thread}`"),
        Fix::AskAgain { session, question } => format!(
            "ask its question again in the session with `research run {} --session {session}`",
            shell_word(question)
        ),
        Fix::RestoreBackup { backup } => match backup {
            Some(b) => format!(
                "save the sessions it still holds with `research sessions salvage --out DIR`, then restore the newest backup with `research restore {b}`"
            ),
            None => "save the sessions it still holds with `research sessions salvage --out DIR`; there is no backup beside it (restore one with `research restore FILE`)".into(),
        },
        Fix::AllowHost { host } => format!("add --allow-host {host} to reach it"),
        Fix::DataFolder => "pass --db PATH".into(),
        // The setting beside the database file (or DATABASE_URL) wins over --db: say how to
        // leave the server, not to pass a file that was passed.
        Fix::SharedDatabase => "check the address with `research settings list`, or use this \
            machine's file with `research settings set database local` (or DATABASE_URL=local \
            for one shell); the shared database wins over --db"
            .into(),
    }
}

/// `text` as one shell word: quoted when it holds anything a shell would read.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// `message`, followed by how to fix it when there is a fix.
pub fn with_hint(message: &str, fix: Option<&Fix>) -> String {
    match fix {
        Some(fix) => format!("{message}; {}", hint(fix)),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fix_follows_the_message() {
        let host = Fix::AllowHost {
            host: "127.0.0.1".into(),
        };
        assert_eq!(
            with_hint("127.0.0.1 is a loopback address", Some(&host)),
            "127.0.0.1 is a loopback address; add --allow-host 127.0.0.1 to reach it"
        );
        assert_eq!(with_hint("no key", None), "no key");
    }
}
