//! The check of a reference manager's export added to the library: its files found by their
//! text, cited by their records, and imported again without doubles.

use super::{library, write, Database};

/// A reference manager's export (Zotero's BibTeX "with files"): its attached files are found by
/// their text and carry their reference's record (title, authors, year) into a search's hits and
/// a read of the file; a file the export names that is not there, and a reference with no file,
/// are reported; importing the export again, updated, updates the records and doubles nothing.
pub fn a_reference_managers_export_is_searched_cited_and_imported_again(db: &dyn Database) {
    let lib = library(db);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "files/12/Seeley - 2010 - Honeybee democracy.pdf",
        research_fetch::testing::minimal_pdf("Scout bees debate nest sites with waggle dances"),
    );
    write(
        d,
        "files/13/snapshot.html",
        "<html><head><title>Snapshot</title></head><body><article><p>Scout bees debate nest sites until a quorum of scouts agrees on one cavity, a process described at length here.</p></article></body></html>",
    );
    let export = |title: &str, year: u32| {
        format!(
            "@book{{seeley_2010,\n  title = {{{title}}},\n  author = {{Seeley, Thomas D.}},\n  publisher = {{Princeton University Press}},\n  year = {{{year}}},\n  file = {{Full Text PDF:files/12/Seeley - 2010 - Honeybee democracy.pdf:application/pdf;Snapshot:files/13/snapshot.html:text/html}},\n}}\n\n@article{{gone,\n  title = {{Gone}},\n  file = {{Full Text:files/99/gone.pdf:application/pdf}},\n}}\n\n@misc{{bare, title = {{No attachment}}}}\n"
        )
    };
    let bib = d.join("My Library.bib");
    std::fs::write(&bib, export("Honeybee Democracy", 2010)).unwrap();
    let report = lib.import(&bib, &|_| {}).unwrap();
    assert_eq!(
        (report.references, report.files, report.new),
        (3, 2, 2),
        "{report:?}"
    );
    assert_eq!(report.missing.len(), 1, "{report:?}");
    assert_eq!(report.missing[0].0, "gone");
    assert_eq!(report.without_files, ["bare"]);
    assert_eq!(report.folders.len(), 1, "{report:?}");
    assert_eq!(report.indexed.indexed, 2, "{report:?}");

    let hits = lib.search("scout bees nest sites", 5).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    for hit in &hits {
        assert_eq!(hit.title, "Honeybee Democracy", "{hit:?}");
        assert_eq!(hit.published.as_deref(), Some("2010"), "{hit:?}");
        assert_eq!(
            hit.citation.authors,
            [research_cite::Name::Person {
                family: "Seeley".into(),
                given: "Thomas D.".into()
            }]
        );
        assert_eq!(
            hit.citation.publisher.as_deref(),
            Some("Princeton University Press")
        );
    }
    let pdf = hits.iter().find(|h| h.url.ends_with(".pdf")).unwrap();
    let doc = lib.read(&pdf.url).unwrap();
    assert_eq!(doc.title.as_deref(), Some("Honeybee Democracy"));
    assert_eq!(doc.citation.issued.as_deref(), Some("2010"));
    let passages = lib.passage_count().unwrap();

    // The export again, its record corrected in the reference manager: updated, not doubled.
    std::fs::write(&bib, export("Honeybee Democracy (2nd printing)", 2011)).unwrap();
    let again = lib.import(&bib, &|_| {}).unwrap();
    assert_eq!((again.files, again.new), (2, 0), "{again:?}");
    assert_eq!(lib.passage_count().unwrap(), passages);
    assert_eq!(lib.folders().unwrap().len(), 1);
    let hits = lib.search("scout bees nest sites", 5).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits
        .iter()
        .all(|h| h.title == "Honeybee Democracy (2nd printing)"
            && h.published.as_deref() == Some("2011")));

    // What is not an export is refused with why, and changes nothing.
    std::fs::write(d.join("notes.json"), "[{\"id\": 1,").unwrap();
    let err = lib.import(&d.join("notes.json"), &|_| {}).unwrap_err();
    assert!(
        err.to_string().contains("CSL-JSON could not be read"),
        "{err}"
    );
    assert!(lib.import(&d.join("nothing.bib"), &|_| {}).is_err());
}
