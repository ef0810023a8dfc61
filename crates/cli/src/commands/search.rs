//! `research search`: the web, papers or news through one or more providers.

use std::process::ExitCode;

use super::DbArg;

#[derive(clap::Args)]
pub struct SearchArgs {
    /// The query
    query: String,
    /// Providers, comma-separated
    #[arg(
        long,
        value_name = "SPEC[,SPEC…]",
        value_delimiter = ',',
        default_value = "auto",
        help = format!("Providers, comma-separated: {}", research_api::search_names())
    )]
    search: Vec<String>,
    /// Results per provider at most
    #[arg(long, default_value_t = 5)]
    limit: usize,
    /// Your SearXNG instance
    #[arg(long, value_name = "URL")]
    searxng_url: Option<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    db: DbArg,
}

/// `research search`.
pub async fn search(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let store = research_api::OsKeychain;
    // The database is optional here: web searches work even if it does not open (then only
    // what is given counts, not its settings, library or MCP sources).
    let request = match args.db.open() {
        Ok(studio) => {
            studio.search_request(args.query, args.search, args.limit, args.searxng_url)?
        }
        Err(_) => research_api::SearchRequest {
            query: args.query,
            providers: args.search,
            limit: args.limit,
            searxng_url: args.searxng_url,
            ..Default::default()
        },
    };
    let settings = research_api::search_settings(&store, request.searxng_url.clone());
    let outcome = research_api::search(request, &settings, &store).await?;
    for failure in &outcome.failures {
        eprintln!(
            "warning: {}",
            crate::fix::with_hint(&failure.message, failure.fix.as_ref())
        );
    }
    if args.json {
        println!("{}", serde_json::to_string(&outcome)?);
    } else {
        for (i, hit) in outcome.hits.iter().enumerate() {
            let date = hit
                .published
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            println!(
                "{}. {}{date} [{}]\n   {}\n   {}\n",
                i + 1,
                hit.title,
                hit.provider,
                hit.url,
                hit.snippet
            );
        }
        if outcome.hits.is_empty() {
            eprintln!("no results");
        }
    }
    Ok(ExitCode::SUCCESS)
}
