//! The audit's deterministic check before the checker (`guard::supports(claim, joined
//! references)`: at least 60% of the claim's content words and two of them in the references,
//! and every number), per row of an AttributionBench-style JSON-lines file: the "before" column
//! of BENCHMARKS.md. (`guard::supports` also refuses degenerate claims — loops, runaways — which
//! no row of the dev split is.)

use std::io::BufRead;

use research_check::numbers::missing_numbers;
use research_check::words::word_terms;

fn main() {
    println!("label\tsrc\tsupported");
    for line in std::io::stdin().lock().lines() {
        let row: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let refs: Vec<&str> = row["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let quote = refs.join("\n");
        let claim = row["claim"].as_str().unwrap();
        let c = word_terms(claim);
        let shared = c.intersection(&word_terms(&quote)).count();
        let share = if c.is_empty() {
            0.0
        } else {
            shared as f64 / c.len() as f64
        };
        let supported = share >= 0.6 && shared >= 2 && missing_numbers(claim, &quote).is_empty();
        println!(
            "{}\t{}\t{}",
            u8::from(row["attribution_label"] == "attributable"),
            row["src_dataset"].as_str().unwrap(),
            u8::from(supported)
        );
    }
}
