//! The HTTP rules every API client in Research Studio shares: one reading of the `Retry-After`
//! header, [`same_origin_redirects`], and [`cause`] — a transport error in words, never with
//! the URL it was sent to.
//!
//! The model providers (`research-llm`) and the search providers (`research-search`) both retry
//! rate limits and server errors and both honour `Retry-After`. They used to parse it twice, with
//! different rules (different bounds, neither reading the HTTP-date form). Neither crate depends
//! on the other and they share no workspace crate, so the one rule lives here, in a crate small
//! enough for both to depend on without a cycle.
//!
//! The rule: RFC 9110 §10.2.3 — `Retry-After = HTTP-date / delay-seconds`, where
//! `delay-seconds = 1*DIGIT` and an HTTP-date is any of the three forms of §5.6.7 (IMF-fixdate,
//! the obsolete RFC 850 form and asctime). A date in the past means "now". Whatever the server
//! asks for is bounded by [`MAX_RETRY_AFTER`].
#![deny(missing_docs)]

mod redirect;

pub use redirect::{same_origin_redirects, MAX_REDIRECTS};

use std::time::{Duration, SystemTime};

/// What went wrong with a request, without the URL: reqwest's own message names the URL it was
/// sending to, and an API's URL can carry a token or a key (a SearXNG instance behind a secret
/// path, a proxy with credentials), which must not reach a log, a report or the screen.
///
/// The innermost cause when there is one ("Connection refused (os error 111)", "end of file
/// before message length reached") says it most plainly; otherwise reqwest's message with its
/// URL cut out.
pub fn cause(e: &reqwest::Error) -> String {
    let mut innermost = None;
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        innermost = Some(s.to_string());
        source = s.source();
    }
    innermost.unwrap_or_else(|| {
        let text = e.to_string();
        match e.url() {
            Some(url) => text.replace(&format!(" for url ({url})"), ""),
            None => text,
        }
    })
}

/// The longest wait a `Retry-After` header can impose on one retry.
///
/// The two parsers this crate replaces bounded it differently: the search providers at 30 s,
/// the model providers at their `RetryConfig::max_delay` (60 s by default). The stricter of the
/// two is kept. The header is advice from the far side, and a wait longer than this stalls a
/// research run with nothing to show the user; a limit that lasts longer than a few such waits
/// is better reported (as a rate-limit error the user can act on: another key, another
/// provider, later) than slept through. It also keeps a broken or hostile server from parking a
/// request for hours with `Retry-After: 99999999` or a date years ahead.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// The wait a `Retry-After` header value asks for, at most [`MAX_RETRY_AFTER`].
///
/// `header` is the field value (surrounding whitespace is ignored); `now` is the current time,
/// against which an HTTP-date is measured. Delay-seconds are whole, non-negative seconds as the
/// RFC writes them (`120`, not `1.5` or `-1`); a number too large for any integer is simply
/// "very long" and clamped. A date already past gives [`Duration::ZERO`]. Anything else
/// (empty, garbage, fractions, signs) gives `None`, so the caller falls back to its own backoff.
pub fn parse_retry_after(header: &str, now: SystemTime) -> Option<Duration> {
    let value = header.trim();
    if value.is_empty() {
        return None;
    }
    let wait = if value.bytes().all(|b| b.is_ascii_digit()) {
        // Saturates: twenty digits of seconds mean "longer than the clamp", not "garbage".
        let secs = value.bytes().fold(0u64, |acc, b| {
            acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
        });
        Duration::from_secs(secs)
    } else {
        let at = httpdate::parse_http_date(value).ok()?;
        at.duration_since(now).unwrap_or(Duration::ZERO)
    };
    Some(clamp(wait))
}

/// `wait` bounded by [`MAX_RETRY_AFTER`].
pub fn clamp(wait: Duration) -> Duration {
    wait.min(MAX_RETRY_AFTER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
    fn rfc_example() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    fn parse(header: &str) -> Option<Duration> {
        parse_retry_after(header, rfc_example())
    }

    #[test]
    fn delay_seconds() {
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse("5"), Some(Duration::from_secs(5)));
        assert_eq!(parse(" 12 "), Some(Duration::from_secs(12)));
        assert_eq!(parse("30"), Some(Duration::from_secs(30)));
        assert_eq!(parse("007"), Some(Duration::from_secs(7)));
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        let ten_later = "Sun, 06 Nov 1994 08:49:47 GMT";
        assert_eq!(parse(ten_later), Some(Duration::from_secs(10)));
        assert_eq!(
            parse("Sunday, 06-Nov-94 08:49:47 GMT"),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse("Sun Nov  6 08:49:47 1994"),
            Some(Duration::from_secs(10))
        );
        // Sub-second `now`: the wait is measured from it exactly.
        let now = rfc_example() + Duration::from_millis(500);
        assert_eq!(
            parse_retry_after(ten_later, now),
            Some(Duration::from_millis(9_500))
        );
    }

    #[test]
    fn past_dates_mean_now() {
        assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT"), Some(Duration::ZERO));
        assert_eq!(parse("Thu, 01 Jan 1970 00:00:00 GMT"), Some(Duration::ZERO));
    }

    #[test]
    fn garbage_is_none() {
        for header in [
            "",
            "   ",
            "soon",
            "1.5",
            "-1",
            "+5",
            "1e3",
            "inf",
            "NaN",
            "5 seconds",
            "Sun, 06 Nov 1994 25:00:00 GMT",
            "Sun, 06 Nov 1994",
        ] {
            assert_eq!(parse(header), None, "{header:?}");
        }
    }

    #[test]
    fn huge_values_are_clamped() {
        assert_eq!(parse("31"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse("3600"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse(&u64::MAX.to_string()), Some(MAX_RETRY_AFTER));
        assert_eq!(
            parse("99999999999999999999999999999999"),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(
            parse("Fri, 31 Dec 9999 23:59:59 GMT"),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(clamp(Duration::MAX), MAX_RETRY_AFTER);
        assert_eq!(clamp(Duration::from_secs(3)), Duration::from_secs(3));
    }
}
