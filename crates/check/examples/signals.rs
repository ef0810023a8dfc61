//! Prints the checker's signals for each row of an AttributionBench-style JSON-lines file
//! (`claim`, `references`, `attribution_label`, `src_dataset`), tab-separated: for developing
//! the signals quickly. The benchmark itself goes through `research check`.

use std::io::BufRead;

use research_check::{check, signals::NAMES, Passage, SourceTexts};

fn main() {
    println!("label\tsrc\tscore\t{}", NAMES.join("\t"));
    for line in std::io::stdin().lock().lines() {
        let row: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let refs: Vec<&str> = row["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let cited: Vec<Passage> = refs
            .iter()
            .enumerate()
            .map(|(i, t)| Passage {
                source: i + 1,
                text: t,
            })
            .collect();
        let v = check(row["claim"].as_str().unwrap(), &cited, &SourceTexts::new());
        let values: Vec<String> = v
            .signals
            .values()
            .iter()
            .map(|x| format!("{x:.4}"))
            .collect();
        println!(
            "{}\t{}\t{:.4}\t{}",
            u8::from(row["attribution_label"] == "attributable"),
            row["src_dataset"].as_str().unwrap(),
            v.score,
            values.join("\t")
        );
    }
}
