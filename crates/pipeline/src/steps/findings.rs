//! Which findings a report lists under its body. Kept apart from the writer because it is a
//! rule about the finished report (body and list read together), not about writing.

use crate::guard;
use crate::records::Evidence;
use crate::report;

use super::audit::{AuditStatus, Audited};

/// When a body and its findings list would read as a loop, a finding whose quote the body says
/// this much of, word for word (as a share of the quote's four-word sequences), is not listed
/// again: a summary copying a long quote, then that quote listed, read as a loop to
/// `check_usable` (distinct 4-grams under 0.6).
pub const SAID_ALREADY: f64 = 0.5;

/// Below this share of distinct four-word sequences, a body and its findings list read as one
/// text said twice (the bar `check_usable` holds a report to; the prose guard's loop bar,
/// [`guard::MIN_DISTINCT_4GRAMS`], is lower because it judges the body alone).
pub const READS_TWICE: f64 = 0.6;

/// The findings to list under the audited body: all of them, unless body and list together
/// would read as a loop because the body says findings word for word (a small model's summary
/// copying long quotes). Then a finding is left out only where the body says its quote in
/// sentences the audit verified against the same source, so no passage loses its citation, no
/// source its place, and nothing verified gives way to a flagged copy.
pub(super) fn unrepeated(
    audited: &Audited,
    evidence: &[Evidence],
    language: &str,
) -> Vec<Evidence> {
    let listed = report::findings_section(language, evidence);
    if guard::distinct_4gram_ratio(&format!("{}\n\n{listed}", audited.body)) >= READS_TWICE {
        return evidence.to_vec();
    }
    evidence
        .iter()
        .filter(|e| {
            let verified: Vec<&str> = audited
                .entries
                .iter()
                .filter(|a| a.status == AuditStatus::Verified && a.sources.contains(&e.source_id))
                .map(|a| a.sentence.as_str())
                .collect();
            verified.is_empty()
                || guard::share_said_in(&e.quote, &verified.join(" ")) < SAID_ALREADY
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::audit::AuditEntry;

    const WARRANTY: &str = "The software is provided as is, without warranty of any kind, express or \
implied, including but not limited to the warranties of merchantability and fitness for a particular purpose.";
    const LIABILITY: &str = "In no event shall the authors or copyright holders be liable for any claim, \
damages or other liability, whether in an action of contract, tort or otherwise, arising from the software.";
    const COPYLEFT: &str =
        "Copyleft licences require that changed versions are shared under the same terms.";

    fn found(source_id: u32, quote: &str) -> Evidence {
        let mut e = Evidence::unnumbered(quote.to_string(), quote.to_string());
        e.source_id = source_id;
        e
    }

    fn said(sentence: &str, source: u32, status: AuditStatus) -> AuditEntry {
        AuditEntry {
            sentence: format!("{sentence} [{source}]"),
            sources: vec![source],
            status,
            evidence: Vec::new(),
            check: String::new(),
            written: None,
            passage: None,
            score: None,
        }
    }

    /// A summary made of two licence passages, each cited, the second with `second`'s verdict.
    fn copied(second: AuditStatus) -> Audited {
        Audited {
            body: format!("## Summary\n{WARRANTY} [1] {LIABILITY} [2]\n"),
            entries: vec![
                said(WARRANTY, 1, AuditStatus::Verified),
                said(LIABILITY, 2, second),
            ],
        }
    }

    fn evidence() -> Vec<Evidence> {
        vec![found(1, WARRANTY), found(2, LIABILITY), found(3, COPYLEFT)]
    }

    #[test]
    fn a_list_that_would_say_the_body_again_leaves_out_what_the_body_verified() {
        let audited = copied(AuditStatus::Verified);
        let listed = unrepeated(&audited, &evidence(), "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [3]);
        let report = format!(
            "{}\n{}",
            audited.body,
            report::findings_section("en", &listed)
        );
        assert!(
            guard::distinct_4gram_ratio(&report) >= READS_TWICE,
            "{report}"
        );
    }

    #[test]
    fn a_finding_the_body_says_only_in_a_flagged_sentence_stays_listed() {
        let listed = unrepeated(&copied(AuditStatus::Flagged), &evidence(), "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [2, 3]);
    }

    #[test]
    fn the_same_passage_from_another_source_stays_listed() {
        let mut evidence = evidence();
        evidence.push(found(4, WARRANTY));
        let listed = unrepeated(&copied(AuditStatus::Verified), &evidence, "en");
        let kept: Vec<u32> = listed.iter().map(|e| e.source_id).collect();
        assert_eq!(kept, [3, 4], "source 4 keeps its citation");
    }

    #[test]
    fn a_list_that_reads_well_after_the_body_is_left_whole() {
        // The body quoting one passage among its own words is how a report cites: kept whole.
        let body = format!(
            "## Summary\nMost open source licences disclaim every warranty, often in capitals, and \
             several add a limitation of liability for any damages arising from use. {WARRANTY} [1] \
             Copyleft licences add conditions on sharing changed versions, while permissive ones \
             ask only that the notice is kept with every copy of the code [3].\n"
        );
        let audited = Audited {
            body,
            entries: vec![said(WARRANTY, 1, AuditStatus::Verified)],
        };
        let evidence = vec![found(1, WARRANTY), found(3, COPYLEFT)];
        assert_eq!(unrepeated(&audited, &evidence, "en").len(), 2);
    }
}
