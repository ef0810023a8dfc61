#!/usr/bin/env python3
"""The retrieval benchmark of issue 30: does a run read the page that answers the question?

Runs the real `research run --json` for each question of benches/retrieval/{sqlite,ja}.json over
its document set as a library (`research library add`, `--search local`), with the scripted
echoing model, SmolLM2-135M and/or Gemma 3 270M, and measures per run:

  read_answer  a page marked as answering the question was read (is among the sources);
  recall@5     the share of the answering pages among the first five of the merged, ranked hit
               list: the result's `ranked_hits` (or `hits`) when it carries one, else the sources
               in the order their hits were picked (what the JSON has before issue 30) —
               `rank_basis` says which;
  cited        evidence the report cites (the sentence audit's evidence of kept sentences), and
               of it: from an answering page (on_page), and sharing a content word with the
               question (on_words);
  refused      searches refused as echoes (warnings saying so, or a `refused` list);
  usable/grounded  tests/tools/check_usable.py and check_grounding.py --require-audit pass.

Usage:
  scripts/retrieval-bench.py [--model scripted,smollm2,gemma] [--set sqlite,ja] [--limit N]
                             [--only ID,...] [--bin PATH] [--out DIR] [--summary FILE] [--fresh]
Each run's full result is kept in --out (default ~/.cache/research-studio/retrieval-bench) and a
second invocation reuses it (so a long benchmark can be run in pieces); --fresh runs again. The
summary (per-run records and per set and model totals, no reports) goes to --summary. Run it
with `nice -n 10`: each real-model run takes about a minute on two cores.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benches" / "retrieval"
TOOLS = ROOT / "tests" / "tools"

# Words that every page of a set shares, or that only ask: sharing them says nothing.
STOP = set("""a an the and or of to in on for with by from as at is are was were be been being it its this that
these those what which who whom how why when where does do did can could should would will may might must
between than then there their they them we you your our not no yes if into about over under more most less
such so also only other some any each all both very much many use used using uses make makes made
sqlite gimp difference differ""".split())
JA_STOP = {"ツー", "ール", "画像", "違い", "方法"}
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f"
TOKEN = re.compile(f"[{CJK}]+|[^\\W\\d_{CJK}]+")
HIRAGANA = re.compile("[\u3040-\u309f]")
REFUSAL = re.compile(r"echo|refus", re.I)
KEPT = {"verified", "partly", "rewritten"}


def content_words(text):
    """Latin words off the stop list; CJK runs as character bigrams without hiragana (which
    carries the particles and endings: "の大", "加す" say nothing about the topic)."""
    out = set()
    for m in TOKEN.finditer(text.lower()):
        s = m.group()
        if s[0] >= "\u3040":
            for i in range(max(1, len(s) - 1)):
                b = s[i:i + 2]
                if not HIRAGANA.search(b) and b not in JA_STOP:
                    out.add(b)
        elif s not in STOP and len(s) > 2:
            out.add(s)
    return out


def page_of(url, folder):
    """The page's path relative to the set's folder, or None when it is not in it."""
    if not url:
        return None
    path = unquote(urlparse(url).path) if url.startswith("file:") else url
    try:
        return str(Path(path).resolve().relative_to(Path(folder).resolve()))
    except ValueError:
        return None


def model_spec(name):
    """`scripted`, `smollm2`, `gemma`, or a spec as `--llm` takes it."""
    if name == "scripted":
        return f"scripted:{BENCH / 'echo-model.json'}"
    if name in ("smollm2", "gemma"):
        var = "RS_TEST_MODEL" if name == "smollm2" else "RS_TEST_MODEL_GEMMA"
        path = os.environ.get(var)
        if not path or not Path(path).is_file():
            args = ["bash", str(ROOT / "scripts" / "fetch-model.sh")] + (["gemma3-270m"] if name == "gemma" else [])
            out = subprocess.run(args, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"retrieval-bench: fetch-model.sh failed for {name}:\n{out.stderr}")
            path = out.stdout.strip().splitlines()[-1]
        return f"local:{path}"
    return name


def research(bin_path, args, db):
    env = {k: v for k, v in os.environ.items()
           if k not in ("RESEARCH_LLM", "TAVILY_API_KEY", "BRAVE_API_KEY", "SERPER_API_KEY")}
    return subprocess.run([bin_path, *args, "--db", str(db)], capture_output=True, text=True, env=env)


def library_db(bin_path, qset, out_dir, meaning=False):
    """A database with the set's folder indexed once; each run gets a copy. By keywords alone
    (`--keywords-only`), or with `meaning` by meaning too, as `research library add` does where
    the sentence model is installed — the keyword database copied and embedded when there is one
    (an hour for the largest set on two cores: kept in OUT/db)."""
    keywords = out_dir / "db" / f"{qset['set']}.sqlite"
    db = out_dir / "db" / f"{qset['set']}-meaning.sqlite" if meaning else keywords
    if db.is_file():
        return db, None
    db.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    if meaning and keywords.is_file():
        part = db.with_suffix(".part")
        shutil.copyfile(keywords, part)
        done = research(bin_path, ["library", "embed"], part)
        if done.returncode != 0:
            sys.exit(f"retrieval-bench: library embed failed:\n{done.stderr[-2000:]}")
        part.rename(db)
        return db, round(time.monotonic() - start, 1)
    added = research(bin_path, ["library", "add", qset["folder"]] + ([] if meaning else ["--keywords-only"]), db)
    if added.returncode != 0:
        sys.exit(f"retrieval-bench: library add {qset['folder']} failed:\n{added.stderr}")
    return db, round(time.monotonic() - start, 1)


def ranked_list(result):
    """The merged, ranked hits when the result carries them, else the sources in reading order."""
    for holder in (result, result.get("metadata") or {}):
        for key in ("ranked_hits", "hits"):
            hits = holder.get(key)
            if isinstance(hits, list) and hits:
                urls = [h if isinstance(h, str) else (h.get("url") or h.get("source_url") or "") for h in hits]
                return urls, key
    # Source numbers follow the order the hits were picked (each search's top hits in turn), not
    # the order the concurrent reads finished.
    sources = sorted(result.get("sources") or [], key=lambda s: s.get("id", 0))
    return [s.get("url", "") for s in sources], "sources_in_pick_order"


def cited_evidence(result):
    """The evidence the report cites: the audit's deciding evidence of the sentences it kept
    (every report carries its audit), or all evidence of the cited sources without one."""
    by_id = {e.get("id"): e for e in result.get("evidence") or []}
    audit = result.get("audit") or []
    if audit:
        ids = {i for a in audit if a.get("status") in KEPT for i in a.get("evidence") or []}
        return [by_id[i] for i in sorted(ids) if i in by_id]
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.get("report") or "")}
    return [e for e in by_id.values() if e.get("source_id") in cited]


def refused_searches(result):
    meta = result.get("metadata") or {}
    listed = [q for key in ("refused", "queries_refused", "searches_refused")
              for holder in (result, meta) for q in (holder.get(key) or [])]
    warned = [w for w in meta.get("warnings") or [] if REFUSAL.search(w if isinstance(w, str) else json.dumps(w))]
    return max(len(listed), len(warned)), listed or warned


def checker(script, result_file, *args):
    out = subprocess.run(["python3", str(TOOLS / script), str(result_file), *args], capture_output=True, text=True)
    lines = [l for l in out.stdout.strip().splitlines() if l.strip()]
    return out.returncode == 0, (lines[-1] if lines else out.stderr.strip()[-200:])


def measure(result, question, qset, result_file):
    folder = qset["folder"]
    answers = set(question["answers"])
    read = [page_of(s.get("url"), folder) for s in result.get("sources") or []]
    ranked, basis = ranked_list(result)
    top5 = []
    for url in ranked:
        page = page_of(url, folder)
        if page and page not in top5:
            top5.append(page)
        if len(top5) == 5:
            break
    qwords = content_words(question["question"])
    cited = cited_evidence(result)
    on_page = [e for e in cited if page_of(e.get("source_url"), folder) in answers]
    on_words = [e for e in cited if content_words(e.get("quote", "")) & qwords]
    refused, refused_what = refused_searches(result)
    usable, usable_line = checker("check_usable.py", result_file)
    grounded, grounded_line = checker("check_grounding.py", result_file, folder, "--require-audit")
    meta = result.get("metadata") or {}
    return {
        "read_answer": bool(answers & set(read)),
        "read_all": answers <= set(read),
        "difference": question.get("kind") == "difference",
        "recall5": len(answers & set(top5)) / len(answers),
        "hit5": bool(answers & set(top5)),
        "rank_basis": basis,
        "top5": top5,
        "read": [p or "?" for p in read],
        "evidence": len(result.get("evidence") or []),
        "cited": len(cited),
        "cited_on_page": len(on_page),
        "cited_on_words": len(on_words),
        "refused": refused,
        "refused_what": refused_what[:6],
        "queries": meta.get("queries") or [],
        "research_questions": result.get("research_questions") or [],
        "usable": usable,
        "usable_line": usable_line,
        "grounded": grounded,
        "grounded_line": grounded_line,
        "wall_ms": meta.get("wall_ms"),
    }


def library_search(bin_path, db, question, folder):
    """The reference without a model: the library's own search for the whole question."""
    out = research(bin_path, ["library", "search", question["question"], "--json"], db)
    if out.returncode != 0:
        return {"error": f"exit {out.returncode}: {out.stderr.strip()[-300:]}", "seconds": 0}
    top5 = []
    for hit in json.loads(out.stdout or "[]"):
        page = page_of(hit.get("url"), folder)
        if page and page not in top5:
            top5.append(page)
    answers = set(question["answers"])
    first = next((i + 1 for i, p in enumerate(top5) if p in answers), None)
    top5 = top5[:5]
    return {"recall5": len(answers & set(top5)) / len(answers), "hit5": bool(answers & set(top5)),
            "first_answer_rank": first, "top5": top5, "seconds": 0}


def run_one(bin_path, spec, db_template, question, run_dir):
    """Runs the question on a copy of the indexed database; the result, or an error."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db.sqlite"
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(db_template) + suffix)
            if src.exists():
                shutil.copy(src, str(db) + suffix)
        start = time.monotonic()
        out = research(bin_path, ["run", question["question"], "--llm", spec, "--search", "local",
                                  "--depth", "quick", "--no-input", "--json"], db)
        seconds = round(time.monotonic() - start, 1)
    (run_dir / f"{question['id']}.stderr").write_text(out.stderr)
    if out.returncode != 0:
        return None, f"exit {out.returncode}: {out.stderr.strip()[-300:]}", seconds
    try:
        return json.loads(out.stdout), None, seconds
    except json.JSONDecodeError as e:
        return None, f"stdout is not JSON ({e})", seconds


def result_of(bin_path, spec, db, question, run_dir, fresh=False, cached=False):
    """A question's result, run now (unless `cached`) or kept from an earlier invocation (unless
    `fresh`), and the seconds the run took; (None, error, seconds) when there is none."""
    result_file = run_dir / f"{question['id']}.json"
    error_file = run_dir / f"{question['id']}.error"
    seconds = None
    if not cached and (fresh or not result_file.is_file()):
        result, error, seconds = run_one(bin_path, spec, db, question, run_dir)
        if result is None:
            result_file.unlink(missing_ok=True)
            error_file.write_text(error)
        else:
            result["bench_seconds"] = seconds
            result_file.write_text(json.dumps(result, ensure_ascii=False))
            error_file.unlink(missing_ok=True)
    if result_file.is_file():
        result = json.loads(result_file.read_text())
        return result, None, result.get("bench_seconds", seconds)
    return None, (error_file.read_text() if error_file.is_file() else "not run"), seconds or 0


def totals(records):
    ok = [r for r in records if not r.get("error")]
    cited = sum(r["cited"] for r in ok)
    n = len(records)
    share = lambda k: round(sum(1 for r in ok if r[k]) / n, 3) if n else None
    return {
        "runs": n,
        "failed": n - len(ok),
        "read_answer": share("read_answer"),
        "recall5": round(sum(r["recall5"] for r in ok) / n, 3) if n else None,
        "hit5": share("hit5"),
        # A question about two things is answered from both pages: were they all read?
        "difference_read_all": f"{sum(1 for r in ok if r['difference'] and r['read_all'])}/"
                               f"{sum(1 for r in records if r.get('difference', True))}",
        "rank_basis": sorted({r["rank_basis"] for r in ok}),
        "cited": cited,
        "cited_on_page": round(sum(r["cited_on_page"] for r in ok) / cited, 3) if cited else None,
        "cited_on_words": round(sum(r["cited_on_words"] for r in ok) / cited, 3) if cited else None,
        "runs_citing_nothing": sum(1 for r in ok if r["cited"] == 0),
        "refused": sum(r["refused"] for r in ok),
        "usable_pass": sum(1 for r in ok if r["usable"]),
        "grounded_pass": sum(1 for r in ok if r["grounded"]),
        "mean_run_s": round(sum(r["seconds"] for r in records) / n, 1) if n else None,
    }


def table(summary):
    rows = ["| set | model | runs | read an answering page | recall@5 | cited evidence from an answering page "
            "| cited evidence sharing a question word | echo searches refused | check_usable pass "
            "| check_grounding pass | mean run |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    pct = lambda v: "—" if v is None else f"{round(100 * v)}%"
    for key, t in summary["totals"].items():
        s, m = key.split("/", 1)
        if m == "library":
            rows.append(f"| {s} | library search of the question (no model) | {t['runs']} | — | {t['recall5']:.2f} "
                        f"| — | — | — | — | — | {t['no_hits']} questions with no hit |")
            continue
        rows.append(f"| {s} | {m} | {t['runs']}{' (' + str(t['failed']) + ' failed)' if t['failed'] else ''} "
                    f"| {pct(t['read_answer'])} | {t['recall5']:.2f} | {pct(t['cited_on_page'])} of {t['cited']} "
                    f"| {pct(t['cited_on_words'])} | {t['refused']} | {t['usable_pass']}/{t['runs']} "
                    f"| {t['grounded_pass']}/{t['runs']} | {t['mean_run_s']} s |")
    return "\n".join(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="scripted",
                   help="comma list: scripted, smollm2, gemma, an --llm spec, or library (no run: the library's "
                        "own search for the whole question, as a reference)")
    p.add_argument("--set", default="sqlite,ja", help="comma list of question sets (benches/retrieval/NAME.json)")
    p.add_argument("--limit", type=int, help="the first N questions of each set")
    p.add_argument("--only", help="comma list of question ids")
    p.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target")), "debug", "research"))
    p.add_argument("--out", default=os.path.expanduser("~/.cache/research-studio/retrieval-bench"))
    p.add_argument("--summary", help="write the summary JSON here (default OUT/summary.json)")
    p.add_argument("--fresh", action="store_true", help="run again even when OUT has a result")
    p.add_argument("--cached", action="store_true",
                   help="run nothing: measure the results OUT already has (questions without one are left out)")
    a = p.parse_args()
    if (not a.cached or "library" in a.model) and not Path(a.bin).is_file():
        sys.exit(f"retrieval-bench: no research binary at {a.bin} (cargo build -p research-cli, or --bin)")
    out_dir = Path(a.out)
    only = set(a.only.split(",")) if a.only else None
    summary = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "bin": a.bin,
               "indexing_s": {}, "totals": {}, "runs": []}
    for set_name in a.set.split(","):
        qset = json.loads((BENCH / f"{set_name}.json").read_text())
        if not Path(qset["folder"]).is_dir():
            sys.exit(f"retrieval-bench: {qset['folder']} is missing; scripts/fetch-corpora.sh installs it")
        questions = [q for q in qset["questions"] if not only or q["id"] in only][: a.limit]
        db, indexing_s = (None, None) if a.cached and "library" not in a.model else library_db(a.bin, qset, out_dir)
        if indexing_s is not None:
            summary["indexing_s"][set_name] = indexing_s
        for model in a.model.split(","):
            spec = None if a.cached or model == "library" else model_spec(model)
            run_dir = out_dir / set_name / re.sub(r"[^\w.-]+", "_", model)
            run_dir.mkdir(parents=True, exist_ok=True)
            records = []
            if model == "library":
                # No run: what searching the question's own words finds (issue 30's premise).
                for q in questions:
                    record = library_search(a.bin, db, q, qset["folder"])
                    record.update({"set": set_name, "model": model, "id": q["id"]})
                    records.append(record)
                ok = [r for r in records if "error" not in r]
                summary["totals"][f"{set_name}/library"] = {
                    "runs": len(records), "failed": len(records) - len(ok),
                    "recall5": round(sum(r["recall5"] for r in ok) / len(records), 3) if records else None,
                    "hit5": round(sum(1 for r in ok if r["hit5"]) / len(records), 3) if records else None,
                    "no_hits": sum(1 for r in ok if not r["top5"])}
                summary["runs"] += records
                continue
            for q in questions:
                result_file = run_dir / f"{q['id']}.json"
                if a.cached and not result_file.is_file():
                    continue
                result, error, seconds = result_of(a.bin, spec, db, q, run_dir, a.fresh, a.cached)
                if result is not None:
                    record = measure(result, q, qset, result_file)
                    record["seconds"] = seconds
                else:
                    record = {"error": error, "seconds": seconds}
                record.update({"set": set_name, "model": model, "id": q["id"],
                               "difference": q.get("kind") == "difference"})
                records.append(record)
                print(f"{set_name}/{model}/{q['id']}: " + (
                    f"read_answer={record['read_answer']} recall5={record['recall5']:.2f} cited={record['cited']} "
                    f"on_page={record['cited_on_page']} on_words={record['cited_on_words']} refused={record['refused']} "
                    f"usable={record['usable']} grounded={record['grounded']} {record['seconds']}s"
                    if "error" not in record else f"FAILED {record['error'][:200]}"), file=sys.stderr, flush=True)
            if records:
                summary["totals"][f"{set_name}/{model}"] = totals(records)
            summary["runs"] += records
    target = Path(a.summary) if a.summary else out_dir / "summary.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    print(table(summary))
    print(f"summary written to {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
