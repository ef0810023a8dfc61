//! The command line as its docs show it: every `research …` line of README.md and docs/ parses,
//! so a renamed flag or command cannot leave the docs behind.

use clap::{CommandFactory, Parser};

use super::Cli;

#[test]
fn the_command_line_is_well_formed() {
    Cli::command().debug_assert();
}

/// Every `research …` command in a code block of the README and the docs: (file, line).
fn documented() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut fenced = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            // Indented four spaces (a Markdown code block) or inside a fence; prose that starts
            // a line with the word "research" is neither.
            let code = fenced || line.starts_with("    ") || line.starts_with('\t');
            let command = line.trim().trim_start_matches("$ ");
            if code && command.starts_with("research ") {
                let name = file.file_name().unwrap().to_string_lossy().to_string();
                out.push((name, command.to_string()));
            }
        }
    }
    out
}

/// `line` without a trailing `# comment` (outside quotes).
fn without_comment(line: &str) -> &str {
    let mut quote = None;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if i > 0 && bytes[i - 1] == b' ' => return line[..i].trim_end(),
            _ => {}
        }
    }
    line
}

/// Every command a synopsis stands for: `[A]` with and without A, `[A | B]` with each.
fn expanded(line: &str) -> Vec<String> {
    let Some(open) = line.find('[') else {
        return vec![line.split_whitespace().collect::<Vec<_>>().join(" ")];
    };
    let mut depth = 0;
    let mut close = None;
    let mut bars = Vec::new();
    for (i, c) in line[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            '|' if depth == 1 => bars.push(open + i),
            _ => {}
        }
    }
    let close = close.unwrap_or_else(|| panic!("an unclosed [ in {line}"));
    let mut cuts = vec![open + 1];
    cuts.extend(bars.iter().map(|b| b + 1));
    let mut ends = bars.clone();
    ends.push(close);
    let (before, after) = (&line[..open], &line[close + 1..]);
    let mut out = expanded(&format!("{before}{after}"));
    for (from, to) in cuts.into_iter().zip(ends) {
        out.extend(expanded(&format!(
            "{before}{}{after}",
            line[from..to].trim()
        )));
    }
    out
}

/// Shell words (double and single quotes), placeholders filled: a NAME in capitals is any
/// value (a number where a count is meant), `…` any text.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out.into_iter()
        .map(|w| match w.as_str() {
            "N" | "C" | "MS" => "2".to_string(),
            "…" => "a question".to_string(),
            _ if w.chars().all(|c| c.is_ascii_uppercase()) && w.len() > 1 => "x".to_string(),
            _ => w,
        })
        .collect()
}

#[test]
fn every_command_the_docs_show_parses() {
    let documented = documented();
    assert!(
        documented.len() >= 40,
        "the docs show {} commands: is the scan still finding them?",
        documented.len()
    );
    let mut failures = Vec::new();
    let mut parsed = 0;
    for (file, line) in &documented {
        for command in expanded(without_comment(line)) {
            match Cli::try_parse_from(words(&command)) {
                Ok(_) => parsed += 1,
                Err(e) => failures.push(format!("{file}: {command}\n{}", e.render())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(parsed >= documented.len());
}

#[test]
fn a_synopsis_stands_for_each_of_its_forms() {
    assert_eq!(
        expanded("research sessions [list | show ID] [--json]"),
        [
            "research sessions",
            "research sessions --json",
            "research sessions list",
            "research sessions list --json",
            "research sessions show ID",
            "research sessions show ID --json",
        ]
    );
    assert_eq!(
        without_comment("research run \"a # b\" # note"),
        "research run \"a # b\""
    );
    assert_eq!(
        words("research run \"What now?\" --workers N --db PATH"),
        [
            "research",
            "run",
            "What now?",
            "--workers",
            "2",
            "--db",
            "x"
        ]
    );
}
