//! The [`Extractor`] seam: where HTML and PDF parsing runs, and under which limits.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::child;
use crate::extract::{self, DocumentKind, Extracted};

/// Why a document's text could not be extracted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// The bytes are not a page, PDF or text (an image, an archive, …); says what they are.
    #[error("it is {0}")]
    Unsupported(String),
    /// The parser refused or failed on the document.
    #[error("could not extract: {0}")]
    Unreadable(String),
    /// The child took longer than its wall-time limit and was killed.
    #[error("could not extract: timed out after {seconds} s")]
    TimedOut {
        /// The limit.
        seconds: u64,
    },
    /// The child ran out of its address space.
    #[error("could not extract: ran out of memory (limit {limit_mib} MiB)")]
    OutOfMemory {
        /// The limit.
        limit_mib: u64,
    },
    /// The child died another way (a signal, an overflowed stack, an unexpected exit).
    #[error("could not extract: {0}")]
    Crashed(String),
    /// The child could not be started or answered something unreadable.
    #[error("could not extract: {0}")]
    Child(String),
    /// Nobody wanted the text any more (a cancelled run): the child was stopped.
    #[error("could not extract: stopped, the text is no longer wanted")]
    Stopped,
}

impl ExtractError {
    /// The reason alone, without "could not extract".
    pub fn reason(&self) -> String {
        match self {
            Self::Unsupported(what) => format!("it is {what}"),
            Self::Unreadable(why) | Self::Crashed(why) | Self::Child(why) => why.clone(),
            Self::TimedOut { seconds } => format!("timed out after {seconds} s"),
            Self::Stopped => "stopped, the text is no longer wanted".into(),
            Self::OutOfMemory { limit_mib } => {
                format!("ran out of memory (limit {limit_mib} MiB)")
            }
        }
    }
}

/// What an extraction child may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Wall time before the child is killed.
    pub wall_time: Duration,
    /// The child's address space (`RLIMIT_AS`, on Unix).
    pub memory_bytes: u64,
    /// Text kept; the rest is cut with a note.
    pub max_text_bytes: usize,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        Self {
            wall_time: Duration::from_secs(20),
            memory_bytes: 1024 * 1024 * 1024,
            max_text_bytes: 2 * 1024 * 1024,
        }
    }
}

impl ExtractLimits {
    /// The defaults, with the wall time and memory overridable by `RESEARCH_EXTRACT_TIMEOUT_SECS`
    /// and `RESEARCH_EXTRACT_MEMORY_MIB` (tests and benchmarks use shorter limits).
    pub fn from_env() -> Self {
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        let mut limits = Self::default();
        if let Some(s) = number("RESEARCH_EXTRACT_TIMEOUT_SECS") {
            limits.wall_time = Duration::from_secs(s);
        }
        if let Some(m) = number("RESEARCH_EXTRACT_MEMORY_MIB") {
            limits.memory_bytes = m * 1024 * 1024;
        }
        limits
    }
}

/// Where documents are parsed. Plain text is always decoded here (it runs no parser); HTML and
/// PDF go where the variant says. Text is cut to the limit either way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Extractor {
    /// In this process, with no time or memory limit: for tests, and where no binary answers
    /// the child argument.
    #[default]
    InProcess,
    /// In a child process started from `program` with [`child::CHILD_ARG`], under `limits`.
    ChildProcess {
        /// A binary whose `main` answers [`child::is_child_invocation`].
        program: PathBuf,
        /// Its limits.
        limits: ExtractLimits,
    },
}

/// Bytes of the child's stderr kept to tell why it died.
const STDERR_KEPT: u64 = 64 * 1024;

impl Extractor {
    /// The extractor production uses: this very binary as the child, with
    /// [`ExtractLimits::from_env`], when its `main` answers the child argument; otherwise (test
    /// binaries) [`Extractor::InProcess`].
    pub fn for_this_program() -> Self {
        match std::env::current_exe() {
            Ok(program) if child::answers() => Self::ChildProcess {
                program,
                limits: ExtractLimits::from_env(),
            },
            _ => Self::InProcess,
        }
    }

    fn max_text_bytes(&self) -> usize {
        match self {
            Self::InProcess => ExtractLimits::default().max_text_bytes,
            Self::ChildProcess { limits, .. } => limits.max_text_bytes,
        }
    }

    /// Readable text from `body`; `content_type` may be empty, `url` names the source. Blocks
    /// (at most the wall-time limit, for a child).
    pub fn extract(
        &self,
        content_type: &str,
        body: Vec<u8>,
        url: &str,
    ) -> Result<Extracted, ExtractError> {
        self.extract_while(content_type, body, url, &|| true)
    }

    /// [`Extractor::extract`], stopping the child as soon as `wanted` says no (a cancelled run
    /// drops the fetch that waits for the text; the child must not run on to its limit).
    pub fn extract_while(
        &self,
        content_type: &str,
        body: Vec<u8>,
        url: &str,
        wanted: &dyn Fn() -> bool,
    ) -> Result<Extracted, ExtractError> {
        let kind = extract::sniff(content_type, &body).map_err(ExtractError::Unsupported)?;
        let extracted = match self {
            Self::ChildProcess { program, limits } if kind != DocumentKind::Text => {
                in_child(program, limits, content_type, body, url, wanted)?
            }
            _ => child::extract_here(content_type, body, url)?,
        };
        Ok(Extracted {
            text: extract::truncate_text(extracted.text, self.max_text_bytes()),
            ..extracted
        })
    }
}

fn in_child(
    program: &std::path::Path,
    limits: &ExtractLimits,
    content_type: &str,
    body: Vec<u8>,
    url: &str,
    wanted: &dyn Fn() -> bool,
) -> Result<Extracted, ExtractError> {
    let mut command = Command::new(program);
    command
        .arg(child::CHILD_ARG)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let memory = limits.memory_bytes;
        // SAFETY: between fork and exec only async-signal-safe calls are made: setrlimit.
        unsafe {
            command.pre_exec(move || {
                let limit = |resource, value: u64| {
                    let rlim = libc::rlimit {
                        rlim_cur: value as libc::rlim_t,
                        rlim_max: value as libc::rlim_t,
                    };
                    if libc::setrlimit(resource, &rlim) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                };
                limit(libc::RLIMIT_AS, memory)?;
                // A crashing parser must not leave a core file of the document behind.
                limit(libc::RLIMIT_CORE, 0)
            });
        }
    }
    let mut process = command
        .spawn()
        .map_err(|e| ExtractError::Child(format!("could not start {}: {e}", program.display())))?;
    let head = child::encode_request_head(content_type, url, limits.max_text_bytes);
    let mut stdin = process.stdin.take().expect("stdin is piped");
    // The child may die before reading everything: writing must never hold up the wait.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&head).and_then(|_| stdin.write_all(&body));
    });
    let stdout = process.stdout.take().expect("stdout is piped");
    // Room for the text, its note and the frame; a child sending more is misbehaving.
    let stdout_cap = limits.max_text_bytes as u64 + 64 * 1024;
    let reader = std::thread::spawn(move || read_capped(stdout, stdout_cap));
    let stderr = process.stderr.take().expect("stderr is piped");
    let errors = std::thread::spawn(move || read_capped(stderr, STDERR_KEPT));

    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match process.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= limits.wall_time => {
                let _ = process.kill();
                let _ = process.wait();
                let _ = (writer.join(), reader.join(), errors.join());
                return Err(ExtractError::TimedOut {
                    seconds: limits.wall_time.as_secs().max(1),
                });
            }
            Ok(None) if !wanted() => {
                let _ = process.kill();
                let _ = process.wait();
                let _ = (writer.join(), reader.join(), errors.join());
                return Err(ExtractError::Stopped);
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => {
                let _ = process.kill();
                let _ = process.wait();
                return Err(ExtractError::Child(format!(
                    "could not wait for the child: {e}"
                )));
            }
        }
    };
    let _ = writer.join();
    let (out, overflowed) = reader.join().unwrap_or_default();
    let (err, _) = errors.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err);
    if status.success() {
        if overflowed {
            return Err(ExtractError::Child(
                "the child sent more text than the limit".into(),
            ));
        }
        return child::decode_answer(&out).unwrap_or_else(|| {
            Err(ExtractError::Child(
                "the child answered something unreadable".into(),
            ))
        });
    }
    Err(died(status, &stderr, limits))
}

/// Why the child died, from its status and what it printed last.
fn died(status: std::process::ExitStatus, stderr: &str, limits: &ExtractLimits) -> ExtractError {
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return ExtractError::OutOfMemory {
            limit_mib: limits.memory_bytes / (1024 * 1024),
        };
    }
    let signal = {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            status.signal()
        }
        #[cfg(not(unix))]
        {
            None::<i32>
        }
    };
    if stderr.contains("overflowed its stack") {
        return ExtractError::Crashed(match signal {
            Some(s) => format!("the parser overflowed its stack (signal {s})"),
            None => "the parser overflowed its stack".into(),
        });
    }
    if let Some(s) = signal {
        let name = match s {
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            _ => "",
        };
        return ExtractError::Crashed(format!("the parser crashed with signal {s}{name}"));
    }
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    ExtractError::Crashed(match (status.code(), last) {
        (Some(code), Some(line)) => format!("the child exited with status {code}: {line}"),
        (Some(code), None) => format!("the child exited with status {code}"),
        (None, _) => "the child ended abnormally".into(),
    })
}

/// Reads up to `cap` bytes and drains the rest, so the writer never blocks on a full pipe;
/// says whether there was more.
fn read_capped(from: impl Read, cap: u64) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut from = from;
    let _ = (&mut from).take(cap).read_to_end(&mut kept);
    let more = std::io::copy(&mut from, &mut std::io::sink()).unwrap_or(0);
    (kept, more > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_at_a_char_boundary_with_a_note() {
        let text = "é".repeat(10); // 20 bytes
        let cut = extract::truncate_text(text.clone(), 5);
        assert!(cut.starts_with("éé") && !cut.starts_with("ééé"), "{cut}");
        assert!(cut.contains("The text was cut here"), "{cut}");
        assert_eq!(extract::truncate_text(text.clone(), 20), text);
    }

    #[test]
    fn in_process_extraction_caps_text_and_names_what_it_cannot_read() {
        let long = "word ".repeat(1024 * 1024); // 5 MiB
        let out = Extractor::InProcess
            .extract("text/plain", long.into_bytes(), "file:///long.txt")
            .unwrap();
        assert!(out.text.len() < ExtractLimits::default().max_text_bytes + 200);
        assert!(out.text.ends_with("are kept.]"));
        let err = Extractor::InProcess
            .extract("image/png", vec![0x89, b'P', b'N', b'G', 0], "u")
            .unwrap_err();
        assert_eq!(err, ExtractError::Unsupported("image/png".into()));
    }

    #[test]
    fn pages_too_large_or_too_deep_are_refused_before_parsing() {
        let deep = format!("<html><body>{}</body></html>", "<div>".repeat(20_000));
        let started = Instant::now();
        let err = Extractor::InProcess
            .extract("text/html", deep.into_bytes(), "https://x.example/")
            .unwrap_err();
        assert!(
            err.to_string().contains("nests elements more than"),
            "{err}"
        );
        let wide = format!("<html><body>{}</body></html>", "<p>a".repeat(150_000));
        let err = Extractor::InProcess
            .extract("text/html", wide.into_bytes(), "https://x.example/")
            .unwrap_err();
        assert!(
            err.to_string().contains("more than 100000 elements"),
            "{err}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_hangs_crashes_or_runs_out_of_memory_is_named() {
        // Scripts stand in for a parser that never returns, crashes or runs out of memory.
        let dir = std::env::temp_dir().join(format!("rs-extract-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let hang = dir.join("hang.sh");
        std::fs::write(&hang, "#!/bin/sh\nexec sleep 30\n").unwrap();
        let crash = dir.join("crash.sh");
        std::fs::write(&crash, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
        let oom = dir.join("oom.sh");
        std::fs::write(
            &oom,
            "#!/bin/sh\necho 'memory allocation of 1048576 bytes failed' >&2\nkill -ABRT $$\n",
        )
        .unwrap();
        for script in [&hang, &crash, &oom] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let with = |program: &PathBuf| Extractor::ChildProcess {
            program: program.clone(),
            limits: ExtractLimits {
                wall_time: Duration::from_millis(500),
                ..Default::default()
            },
        };
        let started = Instant::now();
        let err = with(&hang)
            .extract("text/html", b"<p>x</p>".to_vec(), "u")
            .unwrap_err();
        assert_eq!(err, ExtractError::TimedOut { seconds: 1 });
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(err.to_string(), "could not extract: timed out after 1 s");
        let err = with(&crash)
            .extract("application/pdf", b"%PDF-1.4".to_vec(), "u")
            .unwrap_err();
        assert!(
            err.to_string().contains("crashed with signal 11 (SIGSEGV)"),
            "{err}"
        );
        let err = with(&oom)
            .extract("application/pdf", b"%PDF-1.4".to_vec(), "u")
            .unwrap_err();
        assert_eq!(err, ExtractError::OutOfMemory { limit_mib: 1024 });
        // Plain text never leaves the process.
        let ok = with(&hang)
            .extract("text/plain", b"just text".to_vec(), "u")
            .unwrap();
        assert_eq!(ok.text, "just text");
        // Nobody wants the text any more: the hanging child is stopped, not waited out.
        let slow = Extractor::ChildProcess {
            program: hang.clone(),
            limits: ExtractLimits {
                wall_time: Duration::from_secs(60),
                ..Default::default()
            },
        };
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let f = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            f.store(false, std::sync::atomic::Ordering::SeqCst);
        });
        let err = slow
            .extract_while("text/html", b"<p>x</p>".to_vec(), "u", &|| {
                flag.load(std::sync::atomic::Ordering::SeqCst)
            })
            .unwrap_err();
        assert_eq!(err, ExtractError::Stopped);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
