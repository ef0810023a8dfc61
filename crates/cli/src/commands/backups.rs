//! `research backup` and `research restore`: this machine's database copied while runs write,
//! and a copy put back after a check, the file it replaces kept beside it.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use super::DbArg;

#[derive(clap::Args)]
pub struct BackupArgs {
    /// The folder to write the backup in (default: `backups/` beside the database)
    #[arg(long, value_name = "DIR")]
    to: Option<PathBuf>,
    /// Check the whole database first (SQLite's integrity check, read only; every start runs
    /// the quick one): a damaged file is not backed up, and what is wrong is said
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    db: DbArg,
}

#[derive(clap::Args)]
pub struct RestoreArgs {
    /// The backup to put in the database's place (`research backup` wrote it)
    file: PathBuf,
    /// Restore without asking (a script; with no terminal, restoring needs it)
    #[arg(long)]
    yes: bool,
    #[command(flatten)]
    db: DbArg,
}

/// `research backup`.
pub fn backup(args: BackupArgs) -> anyhow::Result<ExitCode> {
    if args.check {
        let db = args.db.path()?;
        let problems = research_api::backups::check_whole(&db)?;
        if !problems.is_empty() {
            anyhow::bail!(
                "the whole check of {} found it damaged ({}); it was not backed up. Save the sessions it still holds with `research sessions salvage --out DIR`, then restore a backup with `research restore FILE`",
                db.display(),
                problems.join("; ")
            );
        }
        eprintln!("checked the whole of {}: sound", db.display());
    }
    let studio = args.db.open()?;
    let (path, bytes) = studio.backup(args.to.as_deref())?;
    println!("{}", path.display());
    eprintln!(
        "backed up {} ({:.1} MB) to {}; API keys stay in the keychain and are not in it",
        studio.db_path().display(),
        bytes as f64 / 1e6,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `research restore`.
pub fn restore(args: RestoreArgs) -> anyhow::Result<ExitCode> {
    let db = match &args.db.db {
        Some(db) => db.clone(),
        None => research_api::default_db_path()?,
    };
    if !args.yes {
        let says = format!(
            "this replaces {} (every session, report and setting in it) with {}; the file it \
             replaces is kept beside it. Close the app first.",
            db.display(),
            args.file.display()
        );
        if !std::io::stdin().is_terminal() {
            anyhow::bail!("{says} Pass --yes to restore without a terminal to ask");
        }
        eprint!("{says} Restore? [y/N] ");
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .context("could not read the answer")?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing was changed");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    let kept = research_api::backups::restore(&db, &args.file, now)?;
    eprintln!(
        "restored {} from {}{}",
        db.display(),
        args.file.display(),
        kept.map(|k| format!("; the file it replaced is kept as {}", k.display()))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}
