//! `research ask`: one question to one model.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args)]
pub struct AskArgs {
    /// The prompt ("-" reads it from standard input)
    prompt: String,
    /// The model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b, openai-compat:http://127.0.0.1:8080/v1#model
    #[arg(long, value_name = "SPEC")]
    llm: String,
    /// A JSON schema file the answer must follow
    #[arg(long, value_name = "FILE.json")]
    schema: Option<PathBuf>,
    /// A system prompt
    #[arg(long)]
    system: Option<String>,
    /// Print one JSON document with the answer, model, usage and calls
    #[arg(long)]
    json: bool,
}

/// `research ask`: streams the answer, or prints JSON valid for `--schema`.
pub async fn ask(args: AskArgs) -> anyhow::Result<ExitCode> {
    let AskArgs {
        prompt,
        llm,
        schema,
        system,
        json,
    } = args;
    let prompt = super::arg_or_stdin(prompt, "the prompt")?;
    let schema = match schema {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("could not read the schema {}", path.display()))?;
            Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("the schema {} is not JSON", path.display()))?,
            )
        }
        None => None,
    };
    let structured = schema.is_some();
    let request = research_api::AskRequest {
        prompt,
        llm,
        system,
        schema,
    };
    let settings = research_api::connect_settings(&research_api::OsKeychain);
    let print = |t: &str| {
        print!("{t}");
        std::io::stdout().flush().ok();
        research_api::Flow::Continue
    };
    let stream = !json && !structured;
    let answer =
        research_api::ask(request, &settings, if stream { Some(&print) } else { None }).await?;
    if json {
        println!("{}", serde_json::to_string(&answer)?);
    } else if let Some(value) = &answer.json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        println!();
    }
    Ok(ExitCode::SUCCESS)
}
