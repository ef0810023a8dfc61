//! The library index on PostgreSQL: full-text search with `tsvector` in place of FTS5, each
//! passage's words stemmed by the text search configuration of its file's language (English,
//! German, French, … ; `simple` for Chinese, Japanese and Korean, whose characters the library
//! spaces apart), a GIN index over them.
//!
//! A shared server holds the libraries of many machines, and a folder is a path on one of them:
//! every row is kept under its machine, and an index reads and writes its own machine's only.
//! So one machine's re-index never drops the files of another it cannot see, and a search
//! finds only files this machine can open to read and quote.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use research_library::{
    Counts, FileReference, FoundPassage, KnownFile, LibraryFolder, LibraryIndex, ReadFile,
};
use research_store::StoreError;

use crate::bridge::Bridge;
use crate::text_search::{config_for, configs, ts_query};
use crate::PgError;

/// One machine's library index on a PostgreSQL server.
#[derive(Clone)]
pub struct PgLibrary {
    bridge: Arc<Bridge>,
    machine: String,
    /// The configurations this machine's passages are stemmed with, as last read, and when.
    configs: Arc<Mutex<Option<KeptConfigs>>>,
}

impl std::fmt::Debug for PgLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLibrary")
            .field("machine", &self.machine)
            .finish_non_exhaustive()
    }
}

impl PgLibrary {
    /// `machine`'s index at `url` (a pool of its own); nothing is connected until the first
    /// call.
    pub fn connect_lazy(url: &str, machine: &str) -> Result<Self, PgError> {
        Ok(Self::on(Arc::new(Bridge::lazy(url)?), machine))
    }

    pub(crate) fn on(bridge: Arc<Bridge>, machine: &str) -> Self {
        Self {
            bridge,
            machine: machine.to_string(),
            configs: Arc::default(),
        }
    }
}

/// The commonest stems ANALYZE keeps of the passages' words, each with the passages the
/// server's statistics estimate it in (across every machine's: a word common on the server is
/// taken as common on each machine), and the rows the table holds; empty before the table was
/// ever analysed. Read once a statement (5 ms for 10,000 stems): joined with a word's stems
/// per word, the cast of the list was made again for each and took 100 ms a word.
const STATISTICS: &str = "SELECT m.e, m.f * c.reltuples AS est
     FROM pg_class c
     JOIN pg_stats s ON s.schemaname = c.relnamespace::regnamespace::text AND s.tablename = c.relname
     CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS m(e, f)
     WHERE c.oid = 'library_passages'::regclass AND s.attname = 'words'";

/// Rows from which a word the statistics list is taken at their estimate whatever it is, not
/// counted: at 660,000 passages counting a question's twelve words took 590 ms, and the
/// estimates were within 3% of the counts (BENCHMARKS). A smaller library is counted exactly.
const ESTIMATED_FROM: f64 = 100_000.0;

/// The statement a keyword search runs: passages matching `$1` (a `tsquery`'s text) on
/// machine `$2`, ranked by how well they match `$4`, at most `$3`; `excluding` adds `$5`, whose
/// matches are left out. The query is read by each configuration (stemmed as the passages of
/// that language were), and each passage is matched by its own: one branch per configuration,
/// each with the configuration written out, so that its query is made once and the GIN index
/// finds the matches. Ranked by `ts_rank` with the length normalised, as BM25 is.
fn ranked(excluding: bool, configs: &[String]) -> String {
    let branches: Vec<String> = configs
        .iter()
        .map(|config| {
            let (from, filter) = match excluding {
                true => (
                    format!(", to_tsquery('{config}', $5) AS x"),
                    " AND NOT p.words @@ x",
                ),
                false => (String::new(), ""),
            };
            format!(
                "SELECT p.id, ts_rank(p.words, r, 1) AS rank
                 FROM library_passages p, to_tsquery('{config}', $1) AS q,
                      to_tsquery('{config}', $4) AS r{from}
                 WHERE p.config = '{config}' AND p.machine = $2 AND p.words @@ q{filter}"
            )
        })
        .collect();
    format!(
        "SELECT id FROM ({}) AS found ORDER BY rank DESC, id LIMIT $3",
        branches.join(" UNION ALL ")
    )
}

/// Configurations read from the server, and when.
type KeptConfigs = (Instant, Vec<String>);

/// How long the configurations read are trusted. This process's own writes refresh them at
/// once; another process writing this machine's passages in a new language is seen this late.
const CONFIGS_KEPT: Duration = Duration::from_secs(10);

/// The configurations `machine`'s passages are stemmed with (from the tally the server keeps):
/// a search has a branch for each, and a configuration no passage is in costs a branch per
/// statement and a count per stop word for nothing. Kept for [`CONFIGS_KEPT`] in `kept`, as a
/// search asks about ten times; an empty answer is never kept (a library being filled).
async fn configs_in(
    c: &deadpool_postgres::Object,
    machine: &str,
    kept: &Mutex<Option<KeptConfigs>>,
) -> Result<Vec<String>, tokio_postgres::Error> {
    if let Some((at, configs)) = &*kept.lock().unwrap_or_else(|p| p.into_inner()) {
        if at.elapsed() < CONFIGS_KEPT {
            return Ok(configs.clone());
        }
    }
    let statement = c
        .prepare_cached(
            "SELECT config FROM library_passage_tally WHERE machine = $1 AND passages > 0
             ORDER BY config",
        )
        .await?;
    let rows = c.query(&statement, &[&machine]).await?;
    let configs: Vec<String> = rows
        .iter()
        .map(|r| r.get::<_, String>(0))
        .filter(|config| configs().any(|known| known == config))
        .collect();
    *kept.lock().unwrap_or_else(|p| p.into_inner()) =
        (!configs.is_empty()).then(|| (Instant::now(), configs.clone()));
    Ok(configs)
}

impl PgLibrary {
    /// Forgets the configurations read: this process changed which passages there are.
    fn configs_changed(&self) {
        *self.configs.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// How a snippet is cut: about as long as SQLite's (40 tokens), no markup.
const HEADLINE: &str =
    "StartSel=\"\", StopSel=\"\", MaxWords=40, MinWords=20, ShortWord=0, MaxFragments=1, FragmentDelimiter=\" … \"";

impl LibraryIndex for PgLibrary {
    fn add_root(&self, root: &str, at_ms: i64) -> Result<(), StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            c.execute(
                "INSERT INTO library_roots (machine, path, added_at_ms) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[machine, &root, &at_ms],
            )
            .await?;
            Ok(())
        })
    }

    fn remove_root(&self, root: &str) -> Result<bool, StoreError> {
        let machine = &self.machine;
        // Files, passages and vectors go with it (ON DELETE CASCADE).
        self.bridge.run(|c| async move {
            Ok(c.execute(
                "DELETE FROM library_roots WHERE machine = $1 AND path = $2",
                &[machine, &root],
            )
            .await?
                > 0)
        })
    }

    fn roots(&self) -> Result<Vec<String>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let rows = c
                .query(
                    "SELECT path FROM library_roots WHERE machine = $1 ORDER BY path COLLATE \"C\"",
                    &[machine],
                )
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn folders(&self) -> Result<Vec<LibraryFolder>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let rows = c
                .query(
                    // Counted by the server's triggers as files come and go (migration 10).
                    "SELECT r.path, coalesce(t.files, 0), coalesce(t.failed, 0)
                     FROM library_roots r
                     LEFT JOIN library_file_tally t ON t.machine = r.machine AND t.root = r.path
                     WHERE r.machine = $1 ORDER BY r.path COLLATE \"C\"",
                    &[machine],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| LibraryFolder {
                    path: r.get(0),
                    files: r.get::<_, i64>(1) as usize,
                    failed: r.get::<_, i64>(2) as usize,
                })
                .collect())
        })
    }

    fn file(&self, path: &str) -> Result<Option<KnownFile>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let row = c
                .query_opt(
                    "SELECT id, mtime_ns, size, sha256 FROM library_files
                     WHERE machine = $1 AND path = $2",
                    &[machine, &path],
                )
                .await?;
            Ok(row.map(|r| KnownFile {
                id: r.get(0),
                mtime_ns: r.get(1),
                size: r.get(2),
                sha256: r.get(3),
            }))
        })
    }

    fn files_of(&self, root: &str) -> Result<Vec<(i64, String)>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let rows = c
                .query(
                    "SELECT id, path FROM library_files WHERE machine = $1 AND root = $2",
                    &[machine, &root],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn drop_files(&self, ids: &[i64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            c.execute(
                "DELETE FROM library_files WHERE machine = $1 AND id = ANY($2)",
                &[machine, &ids],
            )
            .await?;
            Ok(())
        })
    }

    fn touch_file(&self, id: i64, mtime_ns: i64, size: i64) -> Result<(), StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            c.execute(
                "UPDATE library_files SET mtime_ns = $3, size = $4 WHERE machine = $1 AND id = $2",
                &[machine, &id, &mtime_ns, &size],
            )
            .await?;
            Ok(())
        })
    }

    fn put_file(&self, file: &ReadFile<'_>) -> Result<i64, StoreError> {
        let machine = &self.machine;
        let config = config_for(file.passages);
        let ords: Vec<i32> = (0..file.passages.len() as i32).collect();
        let id = self.bridge.run(|mut c| async move {
            let tx = c.transaction().await?;
            // The file's row first, locked for this transaction (inserted, or updated in place):
            // a second writer of the same file waits here instead of racing on its passages.
            let id: i64 = tx
                .query_one(
                    "INSERT INTO library_files
                         (machine, root, path, mtime_ns, size, sha256, kind, title, error, indexed_at_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9)
                     ON CONFLICT (machine, path) DO UPDATE SET root = excluded.root,
                         mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = excluded.sha256,
                         kind = excluded.kind, title = excluded.title, error = NULL,
                         indexed_at_ms = excluded.indexed_at_ms
                     RETURNING id",
                    &[
                        machine,
                        &file.root,
                        &file.path,
                        &file.mtime_ns,
                        &file.size,
                        &file.sha256,
                        &file.kind,
                        &file.title,
                        &file.at_ms,
                    ],
                )
                .await?
                .get(0);
            // The passage tallies this file moves — its earlier languages' and its new one's —
            // locked in key order before any moves: two writers whose files' languages flip
            // the opposite ways would otherwise each hold the row the other waits for.
            tx.execute(
                "SELECT 1 FROM library_passage_tally WHERE machine = $1 AND config = ANY(
                     array(SELECT DISTINCT config FROM library_passages WHERE file_id = $2) || $3::text)
                 ORDER BY config FOR UPDATE",
                &[machine, &id, &config],
            )
            .await?;
            // What was indexed of it before goes, its vectors with it (ON DELETE CASCADE).
            tx.execute("DELETE FROM library_passages WHERE file_id = $1", &[&id])
                .await?;
            // One statement for every passage: a file of a thousand passages is one round trip.
            tx.execute(
                "INSERT INTO library_passages (file_id, machine, ord, config, text, words)
                 SELECT $1, $2, p.ord, $3::text, p.text, to_tsvector($3::text::regconfig, p.text)
                 FROM unnest($4::int4[], $5::text[]) AS p(ord, text)",
                &[&id, machine, &config, &ords, &file.passages],
            )
            .await?;
            tx.commit().await?;
            Ok(id)
        })?;
        // Its language may be one this machine had no passages in.
        self.configs_changed();
        Ok(id)
    }

    fn put_failure(
        &self,
        root: &str,
        path: &str,
        mtime_ns: i64,
        size: i64,
        why: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        let machine = &self.machine;
        self.bridge.run(|mut c| async move {
            let tx = c.transaction().await?;
            let id: i64 = tx
                .query_one(
                    "INSERT INTO library_files
                         (machine, root, path, mtime_ns, size, sha256, kind, title, error, indexed_at_ms)
                     VALUES ($1, $2, $3, $4, $5, '', 'unreadable', NULL, $6, $7)
                     ON CONFLICT (machine, path) DO UPDATE SET mtime_ns = excluded.mtime_ns,
                         size = excluded.size, sha256 = '', kind = 'unreadable', title = NULL,
                         error = excluded.error
                     RETURNING id",
                    &[machine, &root, &path, &mtime_ns, &size, &why, &at_ms],
                )
                .await?
                .get(0);
            tx.execute("DELETE FROM library_passages WHERE file_id = $1", &[&id])
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn readable(&self, path: &str) -> Result<Option<String>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let row = c
                .query_opt(
                    "SELECT kind FROM library_files WHERE machine = $1 AND path = $2 AND error IS NULL",
                    &[machine, &path],
                )
                .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn put_reference(
        &self,
        path: &str,
        reference: &FileReference,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let machine = &self.machine;
        let json = serde_json::to_string(reference).expect("a reference serializes");
        self.bridge.run(|c| async move {
            // `xmax = 0` is a row inserted, not updated, by this statement.
            let row = c
                .query_one(
                    "INSERT INTO library_references (machine, path, reference, updated_at_ms)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (machine, path) DO UPDATE
                         SET reference = excluded.reference, updated_at_ms = excluded.updated_at_ms
                     RETURNING (xmax <> 0)",
                    &[machine, &path, &json, &at_ms],
                )
                .await?;
            Ok(row.get(0))
        })
    }

    fn reference(&self, path: &str) -> Result<Option<FileReference>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let row = c
                .query_opt(
                    "SELECT reference FROM library_references WHERE machine = $1 AND path = $2",
                    &[machine, &path],
                )
                .await?;
            Ok(row.and_then(|r| serde_json::from_str(&r.get::<_, String>(0)).ok()))
        })
    }

    fn keyword(&self, words: &[String], all: bool, depth: usize) -> Result<Vec<i64>, StoreError> {
        let Some(query) = ts_query(words, all) else {
            return Ok(Vec::new());
        };
        let machine = &self.machine;
        let kept = &self.configs;
        if all {
            let depth = depth as i64;
            return self.bridge.run(|c| async move {
                let configs = configs_in(&c, machine, kept).await?;
                if configs.is_empty() {
                    return Ok(Vec::new());
                }
                // Prepared once per connection: a search is several statements, each a round trip.
                let statement = c.prepare_cached(&ranked(false, &configs)).await?;
                let rows = c
                    .query(&statement, &[&query, machine, &depth, &query])
                    .await?;
                Ok(rows.iter().map(|r| r.get(0)).collect())
            });
        }
        // Any word: the passages with the rarest word first, then those with the next and none
        // before it, and so on until `depth` are found, each group ranked by all the words.
        // `ts_rank` does not weigh a rare word above a common one as BM25 does; taking the
        // rarest first does, and it ranks only the passages it returns: ranking every passage
        // with any of eight words (up to 10,000 each, `COMMON_WORD_PASSAGES`) took most of a
        // second at a million passages.
        let steps: Vec<(String, Option<String>)> = words
            .iter()
            .enumerate()
            .filter_map(|(i, word)| {
                let with = ts_query(std::slice::from_ref(word), true)?;
                Some((with, ts_query(&words[..i], false)))
            })
            .collect();
        self.bridge.run(|c| async move {
            let configs = configs_in(&c, machine, kept).await?;
            if configs.is_empty() {
                return Ok(Vec::new());
            }
            let first = c.prepare_cached(&ranked(false, &configs)).await?;
            let rest = c.prepare_cached(&ranked(true, &configs)).await?;
            let mut found: Vec<i64> = Vec::new();
            for (with, without) in &steps {
                let left = depth.saturating_sub(found.len()) as i64;
                if left == 0 {
                    break;
                }
                let rows = match without {
                    None => c.query(&first, &[with, machine, &left, &query]).await?,
                    Some(without) => {
                        c.query(&rest, &[with, machine, &left, &query, without])
                            .await?
                    }
                };
                found.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
            }
            Ok(found)
        })
    }

    fn passages_with(&self, words: &[String], at_most: usize) -> Result<Vec<usize>, StoreError> {
        // A word with nothing to search for is in no passage; the rest are counted in one
        // statement, a row each in the order asked.
        let queries: Vec<Option<String>> = words
            .iter()
            .map(|w| ts_query(std::slice::from_ref(w), true))
            .collect();
        let asked: Vec<&str> = queries.iter().flatten().map(String::as_str).collect();
        if asked.is_empty() {
            return Ok(vec![0; words.len()]);
        }
        let machine = &self.machine;
        let kept = &self.configs;
        let at_most = at_most as i64;
        // One branch per configuration, as `keyword` does (so the GIN index finds the
        // matches), each stopping at the limit.
        let count = |configs: &[String]| {
            let branches: Vec<String> = configs
                .iter()
                .map(|config| {
                    format!(
                        "(SELECT count(*) FROM (SELECT 1 FROM library_passages p, to_tsquery('{config}', $1) AS q
                          WHERE p.config = '{config}' AND p.machine = $2 AND p.words @@ q LIMIT $3) AS m)"
                    )
                })
                .collect();
            format!("SELECT LEAST({}, $3)", branches.join(" + "))
        };
        // Counting visits every matching row: 30–290 ms for a common word at 60,000 passages,
        // several words a search. The server's statistics of the column (its 10,000 commonest
        // stems and their shares, kept by ANALYZE) say in a few milliseconds that a word is at
        // least that common — or, in a large library, about how common it is — and a word is
        // counted only when they do not: one statement for what they say of every word, one a
        // word for the rest (counts of several words in one statement took 60 ms a word even
        // when none was made). Not for a word read as a phrase ("e-mail", a CJK word): each of
        // its parts may be common where the phrase is not.
        let estimate = |configs: &[String]| {
            let stems: Vec<String> = configs
                .iter()
                .map(|config| format!("tsvector_to_array(to_tsvector('{config}', u.q))"))
                .collect();
            let stems = stems.join(" || ");
            format!(
            "WITH listed AS MATERIALIZED ({STATISTICS}),
                  asked AS (
                      SELECT u.i, unnest({stems}) AS e
                      FROM unnest($1::text[]) WITH ORDINALITY AS u(q, i)),
                  known AS (
                      SELECT a.i, max(l.est) AS est FROM asked a JOIN listed l ON l.e = a.e
                      GROUP BY a.i)
             SELECT k.est::float8, (SELECT reltuples FROM pg_class WHERE oid = 'library_passages'::regclass)::float8,
                    cardinality({stems})
             FROM unnest($1::text[]) WITH ORDINALITY AS u(q, i)
             LEFT JOIN known k ON k.i = u.i ORDER BY u.i"
            )
        };
        let counted: Vec<usize> = self.bridge.run(|c| async move {
            let configs = configs_in(&c, machine, kept).await?;
            if configs.is_empty() {
                return Ok(vec![0; asked.len()]);
            }
            let estimate = c.prepare_cached(&estimate(&configs)).await?;
            let count = c.prepare_cached(&count(&configs)).await?;
            let rows = c.query(&estimate, &[&asked]).await?;
            let mut counts = Vec::with_capacity(asked.len());
            for (query, row) in asked.iter().zip(&rows) {
                let (est, table): (Option<f64>, f64) = (row.get(0), row.get(1));
                let listed = est.filter(|est| {
                    !query.contains("<->") && (*est >= at_most as f64 || table >= ESTIMATED_FROM)
                });
                // A word every configuration here drops ("the" in English) is in no passage.
                let stemmed = row.get::<_, Option<i32>>(2).unwrap_or(0) > 0;
                let n = match listed {
                    Some(est) => (est.round() as i64).min(at_most),
                    None if !stemmed => 0,
                    None => c
                        .query_one(&count, &[query, machine, &at_most])
                        .await?
                        .get::<_, i64>(0),
                };
                counts.push(n.max(0) as usize);
            }
            Ok(counts)
        })?;
        let mut counted = counted.into_iter();
        Ok(queries
            .iter()
            .map(|q| match q {
                Some(_) => counted.next().unwrap_or(0),
                None => 0,
            })
            .collect())
    }

    fn snippets(&self, ids: &[i64], words: &[String]) -> Result<Vec<(i64, String)>, StoreError> {
        let Some(query) = ts_query(words, false) else {
            return Ok(Vec::new());
        };
        let machine = &self.machine;
        let ids = ids.to_vec();
        self.bridge.run(|c| async move {
            let statement = c
                .prepare_cached(&format!(
                    "SELECT p.id, ts_headline(p.config::regconfig, p.text, q, '{HEADLINE}')
                     FROM library_passages p, to_tsquery(p.config::regconfig, $1) AS q
                     WHERE p.id = ANY($2::int8[]) AND p.machine = $3 AND p.words @@ q"
                ))
                .await?;
            let rows = c.query(&statement, &[&query, &ids, machine]).await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn passages(&self, ids: &[i64]) -> Result<Vec<(i64, FoundPassage)>, StoreError> {
        let machine = &self.machine;
        let ids = ids.to_vec();
        self.bridge.run(|c| async move {
            let statement = c
                .prepare_cached(
                    "SELECT p.id, f.path, f.title, p.text, r.reference FROM library_passages p
                     JOIN library_files f ON f.id = p.file_id
                     LEFT JOIN library_references r ON r.machine = f.machine AND r.path = f.path
                     WHERE p.id = ANY($1::int8[]) AND p.machine = $2",
                )
                .await?;
            let rows = c.query(&statement, &[&ids, machine]).await?;
            Ok(rows
                .iter()
                .map(|r| {
                    let found = FoundPassage {
                        path: r.get(1),
                        title: r.get(2),
                        text: r.get(3),
                        // A record that no longer reads (a later version's) is as none.
                        reference: r
                            .get::<_, Option<String>>(4)
                            .and_then(|j| serde_json::from_str(&j).ok()),
                    };
                    (r.get(0), found)
                })
                .collect())
        })
    }

    fn pending_vectors(
        &self,
        model: &str,
        file: Option<i64>,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let machine = &self.machine;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.bridge.run(|c| async move {
            let rows = c
                .query(
                    "SELECT p.id, p.text FROM library_passages p
                     WHERE p.machine = $1 AND ($3::int8 IS NULL OR p.file_id = $3) AND p.id > $4
                       AND NOT EXISTS (SELECT 1 FROM library_vectors v
                                       WHERE v.passage = p.id AND v.model = $2)
                     ORDER BY p.id LIMIT $5",
                    &[machine, &model, &file, &after, &limit],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn store_vectors(&self, model: &str, vectors: &[(i64, Vec<u8>)]) -> Result<(), StoreError> {
        // One vector per passage (the last given), as one statement may write a row once.
        let mut unique: std::collections::BTreeMap<i64, &[u8]> = Default::default();
        for (id, bytes) in vectors {
            unique.insert(*id, bytes.as_slice());
        }
        let ids: Vec<i64> = unique.keys().copied().collect();
        let bytes: Vec<&[u8]> = unique.values().copied().collect();
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            // A passage deleted since it was read is skipped (the join), not an error; another
            // machine's passage is never written.
            c.execute(
                "INSERT INTO library_vectors (passage, model, vector, machine)
                 SELECT v.passage, $1, v.vector, p.machine
                 FROM unnest($2::int8[], $3::bytea[]) AS v(passage, vector)
                 JOIN library_passages p ON p.id = v.passage AND p.machine = $4
                 ON CONFLICT (passage) DO UPDATE SET model = excluded.model, vector = excluded.vector",
                &[&model, &ids, &bytes, machine],
            )
            .await?;
            Ok(())
        })
    }

    fn incarnation(&self) -> Result<String, StoreError> {
        // A restored dump is a database made again (`createdb`, then `pg_restore`) or tables
        // made again in it (`pg_restore --clean`): either gives the passages' table another oid.
        self.bridge.run(|c| async move {
            let row = c
                .query_one(
                    "SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::int8,
                            'library_passages'::regclass::oid::int8",
                    &[],
                )
                .await?;
            Ok(format!("{}-{}", row.get::<_, i64>(0), row.get::<_, i64>(1)))
        })
    }

    fn vector_tally(&self, model: &str) -> Result<research_library::VectorTally, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let row = c
                .query_one(
                    "SELECT coalesce(sum(vectors), 0)::int8, coalesce(sum(id_sum), 0)::int8
                     FROM library_vector_tally WHERE machine = $1 AND model = $2",
                    &[machine, &model],
                )
                .await?;
            Ok(research_library::VectorTally {
                count: row.get::<_, i64>(0) as u64,
                id_sum: row.get(1),
            })
        })
    }

    fn vector_ids(&self, model: &str) -> Result<Vec<i64>, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            // One array, not a row each: a million rows took a second to send and read, the
            // scan behind them 0.15 s.
            let row = c
                .query_one(
                    "SELECT coalesce(array_agg(passage ORDER BY passage), '{}')
                     FROM library_vectors WHERE machine = $1 AND model = $2",
                    &[machine, &model],
                )
                .await?;
            Ok(row.get(0))
        })
    }

    fn vectors_of(&self, model: &str, ids: &[i64]) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        let machine = &self.machine;
        let ids = ids.to_vec();
        self.bridge.run(|c| async move {
            let rows = c
                .query(
                    "SELECT passage, vector FROM library_vectors
                     WHERE machine = $1 AND model = $2 AND passage = ANY($3::int8[])
                     ORDER BY passage",
                    &[machine, &model, &ids],
                )
                .await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn counts(&self, model: Option<&str>) -> Result<Counts, StoreError> {
        let machine = &self.machine;
        self.bridge.run(|c| async move {
            let row = c
                .query_one(
                    // Kept by the server's triggers as rows come and go (migration 9):
                    // counting a million rows took seconds.
                    "SELECT (SELECT coalesce(sum(passages), 0) FROM library_passage_tally
                             WHERE machine = $1)::int8,
                            coalesce(sum(vectors), 0)::int8,
                            coalesce(sum(vectors) FILTER (WHERE model = $2), 0)::int8
                     FROM library_vector_tally WHERE machine = $1",
                    &[machine, &model],
                )
                .await?;
            Ok(Counts {
                passages: row.get::<_, i64>(0) as usize,
                vectors: row.get::<_, i64>(1) as usize,
                vectors_of_model: row.get::<_, i64>(2) as usize,
            })
        })
    }
}
