//! A PostgreSQL server of the tests' own: `initdb` and `pg_ctl` in a temporary folder (the
//! `postgresql` package, installed by `scripts/install-deps.sh`), listening on a Unix socket in
//! that folder only, stopped when dropped. No container, nothing shared with a server the
//! machine runs. As root (CI), the server runs as the `postgres` user, which `initdb` requires.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A running throwaway server.
pub struct TempPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    /// Whether it also listens on 127.0.0.1 with TLS (a certificate from its own authority).
    tls: bool,
}

/// Where the server's programs (`initdb`, `pg_ctl`, `createdb`) are: Debian's
/// `/usr/lib/postgresql/N/bin` (the newest), else the `PATH`.
fn bin_dir() -> Option<PathBuf> {
    let has_all = |dir: &Path| {
        ["initdb", "pg_ctl", "createdb"]
            .iter()
            .all(|p| dir.join(p).is_file())
    };
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| has_all(b))
        .collect();
    versions.sort();
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    let path = std::env::var("PATH").ok()?;
    std::env::split_paths(&path).find(|d| has_all(d))
}

fn is_root() -> bool {
    // The effective user's id, from /proc (no libc dependency for one number).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

impl TempPostgres {
    /// Starts a server, or says why it cannot (no PostgreSQL installed).
    pub fn start() -> Result<Self, String> {
        Self::start_with(false)
    }

    /// Starts a server that also listens on 127.0.0.1 with TLS only there, its certificate
    /// signed by an authority of its own ([`TempPostgres::certificate_authority`]).
    pub fn start_tls() -> Result<Self, String> {
        Self::start_with(true)
    }

    /// The PEM file of the authority that signed a TLS server's certificate.
    pub fn certificate_authority(&self) -> PathBuf {
        self.dir.path().join("tls/ca.crt")
    }

    /// The connection string of database `name` over TCP and TLS (`sslmode=require`).
    pub fn tls_url(&self, name: &str) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname={name} sslmode=require",
            self.port
        )
    }

    fn start_with(tls: bool) -> Result<Self, String> {
        let bin = bin_dir().ok_or(
            "PostgreSQL is not installed (scripts/install-deps.sh installs the postgresql package)",
        )?;
        let dir = tempfile::Builder::new()
            .prefix("research-pg")
            .tempdir()
            .map_err(|e| e.to_string())?;
        if tls {
            certificates(&dir.path().join("tls"))?;
        }
        let as_postgres = is_root();
        if as_postgres {
            // The server refuses to run as root: its folder is the postgres user's.
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path()))?;
        }
        let data = dir.path().join("data");
        let port = 20_000 + (std::process::id() % 20_000) as u16;
        let server = Self {
            dir,
            bin,
            port,
            as_postgres,
            tls,
        };
        run(&mut server.command(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap_or_default(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        ))?;
        server.boot()?;
        Ok(server)
    }

    /// Starts the server in its folder (again, after [`TempPostgres::kill`]).
    pub fn restart(&self) -> Result<(), String> {
        self.boot()
    }

    fn boot(&self) -> Result<(), String> {
        let data = self.dir.path().join("data");
        let mut options = format!(
            "-k {} -p {} -c fsync=on",
            self.dir.path().display(),
            self.port
        );
        if self.tls {
            let tls = self.dir.path().join("tls");
            options.push_str(&format!(
                " -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                tls.join("server.crt").display(),
                tls.join("server.key").display()
            ));
        } else {
            options.push_str(" -c listen_addresses=''");
        }
        let log = self.dir.path().join("server.log");
        run(&mut self.command(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap_or_default(),
                "-l",
                log.to_str().unwrap_or_default(),
                "-o",
                &options,
                "-w",
                "start",
            ],
        ))
        .map_err(|e| format!("{e}\n{}", std::fs::read_to_string(&log).unwrap_or_default()))
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        let path = self.bin.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path).args(args);
            c
        } else {
            let mut c = Command::new(path);
            c.args(args);
            c
        }
    }

    /// Bytes its data folder takes on disk (tables, indexes and the write-ahead log).
    pub fn data_bytes(&self) -> u64 {
        fn walk(dir: &Path) -> u64 {
            std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
                    Err(_) => 0,
                })
                .sum()
        }
        walk(&self.dir.path().join("data"))
    }

    /// The folder its socket is in.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// A new empty database on the server, and its connection string.
    pub fn database(&self, name: &str) -> Result<String, String> {
        run(&mut self.command(
            "createdb",
            &[
                "-h",
                self.socket_dir().to_str().unwrap_or_default(),
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                name,
            ],
        ))?;
        Ok(self.url(name))
    }

    /// Database `name` as `pg_dump` writes it (its custom format), as a team's backup would be.
    pub fn dump(&self, name: &str) -> Result<Vec<u8>, String> {
        let port = self.port.to_string();
        let socket = self.socket_dir().to_str().unwrap_or_default().to_string();
        let out = self
            .command(
                "pg_dump",
                &["-h", &socket, "-p", &port, "-U", "postgres", "-Fc", name],
            )
            .output()
            .map_err(|e| format!("pg_dump could not start: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "pg_dump failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(out.stdout)
    }

    /// Restores `dump` ([`TempPostgres::dump`]) over database `name`, its tables made again
    /// (`pg_restore --clean`), as a team's administrator brings a backup back.
    pub fn restore(&self, name: &str, dump: &[u8]) -> Result<(), String> {
        use std::io::Write;
        let port = self.port.to_string();
        let socket = self.socket_dir().to_str().unwrap_or_default().to_string();
        let mut child = self
            .command(
                "pg_restore",
                &[
                    "-h",
                    &socket,
                    "-p",
                    &port,
                    "-U",
                    "postgres",
                    "--clean",
                    "--if-exists",
                    "-d",
                    name,
                ],
            )
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("pg_restore could not start: {e}"))?;
        // Written from a thread of its own: pg_restore may fill its output pipes before it
        // has read the whole dump.
        let mut stdin = child.stdin.take().expect("piped");
        let dump = dump.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&dump));
        let out = child
            .wait_with_output()
            .map_err(|e| format!("pg_restore: {e}"))?;
        writer
            .join()
            .map_err(|_| "pg_restore: the dump's writer panicked".to_string())?
            .map_err(|e| format!("pg_restore: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "pg_restore failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// The connection string of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!(
            "host={} port={} user=postgres dbname={name}",
            self.socket_dir().display(),
            self.port
        )
    }

    /// Stops the server at once (a crash, as far as its clients can tell).
    pub fn kill(&self) -> Result<(), String> {
        run(&mut self.command(
            "pg_ctl",
            &[
                "-D",
                self.dir.path().join("data").to_str().unwrap_or_default(),
                "-m",
                "immediate",
                "stop",
            ],
        ))
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// An authority and a server certificate for `localhost` and 127.0.0.1 signed by it, in `dir`.
fn certificates(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .map_err(|e| e.to_string())?;
    let openssl = |args: &[&str]| run(Command::new("openssl").args(args).current_dir(dir));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=research-test-authority",
    ])?;
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ])?;
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext",
    ])?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .map_err(|e| e.to_string())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{cmd:?} could not start: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// SQL that sets up a database as a build with only the first `applied` migrations left it (its
/// schema, its version table, its tables), for tests of the upgrade from each earlier schema.
pub fn earlier_schema(applied: usize) -> String {
    crate::db::earlier_schema(applied)
}

/// How many migrations today's build applies.
pub fn migrations() -> usize {
    crate::db::migration_count()
}
