//! `research watch`: schedules that keep a session current — its cited sources checked again
//! every so often, its question researched again when one changed — and the command cron or a
//! systemd timer runs to carry out the due ones.

use std::process::ExitCode;

use clap::Args;
use research_api::{ApiError, ErrorCode, OsKeychain, ScheduleRun, ScheduleView};

use super::DbArg;

/// `research watch`'s arguments.
#[derive(Args)]
pub struct WatchArgs {
    /// The session to keep current (with --every), or to pause, resume or stop watching
    session: Option<String>,
    /// How often: 12h, 1d, 1w (at most once an hour)
    #[arg(long, value_name = "INTERVAL")]
    every: Option<String>,
    /// Research the question again (a follow-up in the session) when a cited source changed or
    /// is gone
    #[arg(long)]
    research_again: bool,
    /// When it first runs, with --every: `now`, or a TIME as for --now (default: one interval
    /// from now)
    #[arg(long, value_name = "TIME")]
    first: Option<String>,
    /// List the schedules
    #[arg(long)]
    list: bool,
    /// Pause the session's schedule
    #[arg(long)]
    pause: bool,
    /// Resume the session's paused schedule
    #[arg(long)]
    resume: bool,
    /// Stop watching the session
    #[arg(long)]
    remove: bool,
    /// Run the schedules that are due (from cron or a systemd timer); a schedule another
    /// process is running is left to it
    #[arg(long)]
    run_due: bool,
    /// What time it is for --run-due: RFC 3339 (2026-12-01T09:00:00Z), a date (2026-12-01), or
    /// ms since the epoch; now when absent
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    #[command(flatten)]
    db: DbArg,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, message)
}

use research_api::days_from_civil;

/// `TIME` as ms since the epoch: digits, `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM[:SS]Z` (UTC).
fn parse_time(text: &str) -> Result<i64, ApiError> {
    let t = text.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    let bad = || {
        invalid(format!(
            "`{text}` is not a time: use 2026-12-01T09:00:00Z, 2026-12-01 or ms since the epoch"
        ))
    };
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, Some(tm.trim_end_matches('Z'))),
        None => (t, None),
    };
    let parts: Vec<i64> = date
        .split('-')
        .map(|p| p.parse::<i64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let [y, m, d] = parts[..] else {
        return Err(bad());
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    let mut secs = days_from_civil(y, m, d) * 86_400;
    if let Some(time) = time {
        let hms: Vec<i64> = time
            .split(':')
            .map(|p| {
                p.split('.')
                    .next()
                    .unwrap_or("")
                    .parse::<i64>()
                    .map_err(|_| bad())
            })
            .collect::<Result<_, _>>()?;
        match hms[..] {
            [h, mi] | [h, mi, _] if h < 24 && mi < 60 => {
                secs += h * 3600 + mi * 60 + hms.get(2).copied().unwrap_or(0)
            }
            _ => return Err(bad()),
        }
    }
    Ok(secs * 1000)
}

fn print_view(v: &ScheduleView) {
    println!(
        "{}  every {}{}{}  next due {}  {}",
        v.session_id,
        v.every,
        if v.research_again {
            ", research again on a change"
        } else {
            ""
        },
        if v.paused { " (paused)" } else { "" },
        research_api::report_date(v.next_due_ms),
        v.title
    );
    if let Some(outcome) = &v.last_outcome {
        println!("    last run: {outcome}");
    }
}

fn print_run(r: &ScheduleRun) {
    println!("{}  {}: {}", r.session_id, r.title, r.outcome);
    if let Some(thread) = &r.researched {
        println!("    new run: {thread}");
    }
}

/// `research watch`.
pub async fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let studio = args.db.open()?;
    let named = match args.session.as_deref() {
        Some(id) => Some(studio.session_named(id)?),
        None => None,
    };
    let session = named.as_deref();
    let chosen = [
        args.list,
        args.pause,
        args.resume,
        args.remove,
        args.run_due,
        args.every.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if chosen != 1 {
        return Err(invalid(
            "say one thing: SESSION --every INTERVAL, --list, SESSION --pause, SESSION --resume, SESSION --remove, or --run-due",
        )
        .into());
    }
    let need_session =
        || session.ok_or_else(|| invalid("name the session (research sessions lists them)"));
    if args.run_due {
        let runs = match &args.now {
            Some(t) => studio.run_due(parse_time(t)?, &OsKeychain).await?,
            None => studio.run_due_now(&OsKeychain).await?,
        };
        if args.json {
            println!("{}", serde_json::to_string_pretty(&runs)?);
        } else if runs.is_empty() {
            println!("nothing is due");
        } else {
            runs.iter().for_each(print_run);
        }
        // A failed schedule is due again at its next time; the exit status tells cron.
        return Ok(if runs.iter().any(|r| r.error.is_some()) {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    if args.list {
        let list = studio.schedules()?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&list)?);
        } else if list.is_empty() {
            println!("no session is watched (research watch SESSION --every 1d)");
        } else {
            list.iter().for_each(print_view);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let session = need_session()?;
    if let Some(every) = &args.every {
        let first = match args.first.as_deref() {
            None => None,
            Some("now") => Some(studio.now_ms()),
            Some(t) => Some(parse_time(t)?),
        };
        let view = studio.watch(session, every, args.research_again, first)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&view)?);
        } else {
            print_view(&view);
        }
    } else if args.pause || args.resume {
        studio.pause_schedule(session, args.pause)?;
        eprintln!(
            "{} {session}",
            if args.pause { "paused" } else { "resumed" }
        );
    } else {
        studio.unwatch(session)?;
        eprintln!("no longer watching {session}");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_as_utc() {
        assert_eq!(parse_time("0").unwrap(), 0);
        assert_eq!(parse_time("1970-01-02").unwrap(), 86_400_000);
        assert_eq!(
            parse_time("2026-12-01T09:30:00Z").unwrap(),
            parse_time("2026-12-01").unwrap() + (9 * 3600 + 30 * 60) * 1000
        );
        assert_eq!(parse_time("2000-03-01").unwrap(), 951_868_800_000);
        assert!(parse_time("yesterday").is_err());
        assert!(parse_time("2026-13-01").is_err());
    }
}
