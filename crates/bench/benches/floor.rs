//! How close in meaning a library's nearest passage is to a question it answers, and to one it
//! has nothing on: the data a similarity floor for vector-only hits (`MIN_SIMILARITY`) is chosen
//! from, for whichever model made the library's vectors.
//!
//! `FLOOR_BENCH_DB` is a library's database indexed by meaning; `FLOOR_BENCH_QUESTIONS` the gold
//! question sets of its folder (`:`-separated, `benches/answers/` or `benches/retrieval/`);
//! `FLOOR_BENCH_OFF` a file of questions the library has nothing on, one a line
//! (`benches/off-topic/questions.txt`). The question is embedded by the model its vectors name
//! (the sentence model, or the same distilled: `…+distilled…`). Prints, per question, the
//! similarity of the nearest passage of all and of the nearest passage of an answering page, then
//! the quantiles of each group, as JSON lines.
//!
//! `FLOOR_BENCH_DB=… FLOOR_BENCH_QUESTIONS=… FLOOR_BENCH_OFF=benches/off-topic/questions.txt cargo
//! bench -p research-bench --bench floor`

use std::collections::HashSet;

use research_embed::Embedder;

fn main() {
    let db = std::env::var("FLOOR_BENCH_DB").expect("FLOOR_BENCH_DB: a library indexed by meaning");
    let conn = rusqlite::Connection::open(&db).expect("the library's database");
    let model: String = conn
        .query_row(
            "SELECT model FROM library_vectors GROUP BY model ORDER BY count(*) DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("a library indexed by meaning");
    let dir =
        research_embed::locate_model().expect("the sentence model (scripts/fetch-embedder.sh)");
    let bert = research_embed::BertEmbedder::load(&dir).expect("the sentence model loads");
    let embedder: Box<dyn Embedder> = if model.contains("+distilled") {
        let table = research_embed::distilled_table(&dir).expect("a cache folder");
        Box::new(bert.distilled(&table).expect("the distilled model"))
    } else {
        Box::new(bert)
    };
    assert_eq!(
        embedder.model_id(),
        model,
        "the question is read as the vectors were made"
    );
    // Every vector with its file's path.
    let mut stmt = conn
        .prepare(
            "SELECT v.vector, f.path FROM library_vectors v \
             JOIN library_file_passages p ON v.passage BETWEEN p.first AND p.first + p.count - 1 \
             JOIN library_files f ON f.id = p.file_id WHERE v.model = ?1",
        )
        .unwrap();
    let vectors: Vec<(Vec<f32>, String)> = stmt
        .query_map([&model], |r| {
            let bytes: Vec<u8> = r.get(0)?;
            Ok((research_library::vector_from_bytes(&bytes), r.get(1)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let nearest = |q: &[f32], on: Option<&HashSet<String>>| -> f32 {
        vectors
            .iter()
            .filter(|(_, path)| on.is_none_or(|pages| pages.contains(path)))
            .map(|(v, _)| research_embed::similarity(q, v))
            .fold(f32::MIN, f32::max)
    };
    let (mut on, mut on_answering, mut off) = (Vec::new(), Vec::new(), Vec::new());
    let files = std::env::var("FLOOR_BENCH_QUESTIONS").unwrap_or_default();
    for q in research_bench::questions::read(&files) {
        let pages: HashSet<String> = q
            .answers
            .iter()
            .map(|a| q.folder.join(a).to_string_lossy().to_string())
            .collect();
        let v = &embedder.embed(&[q.text.as_str()]).unwrap()[0];
        let (all, answering) = (nearest(v, None), nearest(v, Some(&pages)));
        println!(
            "{}",
            serde_json::json!({"question": q.text, "nearest": all, "nearest_answering": answering})
        );
        on.push(all);
        if answering > f32::MIN {
            on_answering.push(answering);
        }
    }
    let off_file = std::env::var("FLOOR_BENCH_OFF").unwrap_or_default();
    for line in std::fs::read_to_string(&off_file)
        .unwrap_or_default()
        .lines()
    {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v = &embedder.embed(&[line]).unwrap()[0];
        let all = nearest(v, None);
        println!("{}", serde_json::json!({"off_topic": line, "nearest": all}));
        off.push(all);
    }
    let groups = [
        ("on: nearest", on),
        ("on: nearest answering", on_answering),
        ("off: nearest", off),
    ];
    for (name, mut xs) in groups {
        xs.sort_by(|a, b| a.total_cmp(b));
        let q = |p: usize| xs.get((xs.len().saturating_sub(1)) * p / 100).copied();
        println!(
            "{}",
            serde_json::json!({"model": model, "group": name, "n": xs.len(), "min": q(0), "p10": q(10), "median": q(50), "p90": q(90), "max": q(100)})
        );
    }
}
