//! The near-miss sets through the checker alone (words, committed weights): one line per row,
//! `id<TAB>status<TAB>score`. For comparing builds side by side (`scripts/near-miss-bench.py`
//! goes through the command's own functions).
use std::io::BufRead;

use research_check::{check, Passage, SourceTexts};

fn main() {
    for line in std::io::stdin().lock().lines() {
        let row: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let passage = row["passage"].as_str().unwrap();
        let mut texts = SourceTexts::new();
        texts.insert(1, passage);
        let claim = format!("{} [1]", row["claim"].as_str().unwrap());
        let v = check(
            &claim,
            &[Passage {
                source: 1,
                text: passage,
            }],
            &texts,
        );
        println!(
            "{}\t{}\t{:.4}",
            row["id"].as_str().unwrap(),
            v.status,
            v.score
        );
    }
}
