//! `research fetch`: one page or PDF as readable text.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct FetchArgs {
    /// The URL
    url: String,
    /// Allow this private or local origin (repeatable): HOST (default ports), HOST:PORT or HOST:*
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_host: Vec<String>,
    /// Print one JSON document with the text and its metadata
    #[arg(long)]
    json: bool,
}

/// `research fetch`.
pub async fn fetch(args: FetchArgs) -> anyhow::Result<ExitCode> {
    let doc = research_api::fetch(&args.url, &args.allow_host).await?;
    if args.json {
        println!("{}", serde_json::to_string(&doc)?);
    } else {
        eprintln!(
            "{} ({:?}, {} bytes, sha256 {})",
            doc.final_url,
            doc.kind,
            doc.bytes,
            &doc.text_sha256[..12]
        );
        if let Some(title) = &doc.title {
            println!("# {title}\n");
        }
        println!("{}", doc.text);
    }
    Ok(ExitCode::SUCCESS)
}
