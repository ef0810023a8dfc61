//! A page's `<meta>` tags about itself, read into a [`Citation`].

use crate::{date, doi, Citation, Name};

/// Which field a tag fills, and how trusted it is: lower is better. The Highwire tags
/// (`citation_*`) are written for Google Scholar and are the most exact; Dublin Core next;
/// Open Graph and the plain tags last.
fn field(name: &str) -> Option<(Field, u8)> {
    Some(match name {
        "citation_author" => (Field::Author, 0),
        "dc.creator" | "dcterms.creator" => (Field::Author, 1),
        "author" | "article:author" | "parsely-author" | "sailthru.author" => (Field::Authors, 2),
        "citation_publication_date" | "citation_date" => (Field::Issued, 0),
        "citation_online_date" => (Field::Issued, 1),
        "dc.date" | "dcterms.date" | "dcterms.issued" | "dc.date.issued" => (Field::Issued, 2),
        "article:published_time" | "date" | "pubdate" | "publish-date" | "datepublished" => {
            (Field::Issued, 3)
        }
        "citation_journal_title" | "citation_conference_title" | "citation_book_title" => {
            (Field::Container, 0)
        }
        "citation_inbook_title" => (Field::Container, 1),
        "og:site_name" | "application-name" => (Field::Container, 3),
        "citation_publisher" => (Field::Publisher, 0),
        "dc.publisher" | "dcterms.publisher" => (Field::Publisher, 1),
        "citation_doi" => (Field::Doi, 0),
        "dc.identifier" | "dcterms.identifier" | "prism.doi" => (Field::Doi, 1),
        "citation_volume" | "prism.volume" => (Field::Volume, 0),
        "citation_issue" | "prism.number" => (Field::Issue, 0),
        "citation_firstpage" => (Field::FirstPage, 0),
        "citation_lastpage" => (Field::LastPage, 0),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    /// One author a tag (`citation_author` is repeated per author).
    Author,
    /// Possibly several in one tag.
    Authors,
    Issued,
    Container,
    Publisher,
    Doi,
    Volume,
    Issue,
    FirstPage,
    LastPage,
}

pub(crate) fn read<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Citation {
    // The best rank seen per field, and its values.
    let mut authors: Option<(u8, Vec<Name>)> = None;
    let mut single: Vec<(Field, u8, String)> = Vec::new();
    for (name, content) in pairs {
        let content = content.trim();
        if content.is_empty() || content.len() > 1_000 {
            continue;
        }
        let Some((f, rank)) = field(&name.trim().to_lowercase()) else {
            continue;
        };
        match f {
            Field::Author | Field::Authors => {
                let names = if f == Field::Author {
                    Name::parse(content).into_iter().collect()
                } else {
                    Name::parse_list(content)
                };
                if names.is_empty() {
                    continue;
                }
                match &mut authors {
                    Some((r, list)) if *r == rank => list.extend(names),
                    Some((r, _)) if *r < rank => {}
                    _ => authors = Some((rank, names)),
                }
            }
            _ => {
                let value = match f {
                    Field::Issued => date::issued(content),
                    Field::Doi => doi(content),
                    _ => Some(content.split_whitespace().collect::<Vec<_>>().join(" ")),
                };
                let Some(value) = value else { continue };
                match single.iter_mut().find(|(g, _, _)| *g == f) {
                    Some(kept) if kept.1 > rank => *kept = (f, rank, value),
                    Some(_) => {}
                    None => single.push((f, rank, value)),
                }
            }
        }
    }
    let get = |f: Field| {
        single
            .iter()
            .find(|(g, _, _)| *g == f)
            .map(|(_, _, v)| v.clone())
    };
    let pages = match (get(Field::FirstPage), get(Field::LastPage)) {
        (Some(a), Some(b)) if a != b => Some(format!("{a}-{b}")),
        (Some(a), _) => Some(a),
        _ => None,
    };
    let mut authors = authors.map(|(_, a)| a).unwrap_or_default();
    authors.dedup();
    Citation {
        authors,
        issued: get(Field::Issued),
        container: get(Field::Container),
        publisher: get(Field::Publisher),
        doi: get(Field::Doi),
        volume: get(Field::Volume),
        issue: get(Field::Issue),
        pages,
        // A page's tags do not say what it is in CSL's terms; the kind of source found does.
        kind: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_papers_highwire_tags_win_over_the_plain_ones() {
        let tags = [
            ("author", "Site Editor"),
            ("citation_author", "Hipp, D. Richard"),
            ("citation_author", "Kennedy, Dan"),
            ("og:site_name", "Proceedings Online"),
            (
                "citation_journal_title",
                "Proceedings of the VLDB Endowment",
            ),
            ("article:published_time", "2021-01-02T00:00:00Z"),
            ("citation_publication_date", "2022/08/01"),
            ("citation_doi", "doi:10.14778/3554821.3554842"),
            ("citation_volume", "15"),
            ("citation_issue", "12"),
            ("citation_firstpage", "3535"),
            ("citation_lastpage", "3547"),
            ("citation_publisher", "VLDB Endowment"),
        ];
        let c = read(tags);
        assert_eq!(
            c.authors,
            vec![
                Name::parse("Hipp, D. Richard").unwrap(),
                Name::parse("Kennedy, Dan").unwrap()
            ]
        );
        assert_eq!(c.issued.as_deref(), Some("2022-08-01"));
        assert_eq!(
            c.container.as_deref(),
            Some("Proceedings of the VLDB Endowment")
        );
        assert_eq!(c.doi.as_deref(), Some("10.14778/3554821.3554842"));
        assert_eq!(c.pages.as_deref(), Some("3535-3547"));
        assert_eq!(c.publisher.as_deref(), Some("VLDB Endowment"));
    }

    #[test]
    fn a_blog_posts_open_graph_and_author_tags() {
        let c = read([
            ("og:site_name", "The Morning Paper"),
            ("Author", "Adrian Colyer"),
            ("article:author", "https://blog.example/about"),
            ("article:published_time", "2019-11-04T08:00:00+00:00"),
            ("description", "A post"),
        ]);
        assert_eq!(c.authors, vec![Name::parse("Colyer, Adrian").unwrap()]);
        assert_eq!(c.issued.as_deref(), Some("2019-11-04"));
        assert_eq!(c.container.as_deref(), Some("The Morning Paper"));
        assert!(read([("viewport", "width=device-width")]).is_empty());
    }
}
