#!/usr/bin/env python3
"""Report quality with a small local model: ten ordinary questions about the Valgrind manual.

Usage: quality.py BINARY MODEL.gguf OUT.jsonl [--label L] [--questions N] [--from K] [--corpus DIR] [--keep DIR]

(--questions N: the first N questions; --from K: starting at the K-th, counted from 1.)

Adds the manual (Debian's HTML, /usr/share/doc/valgrind/html) to a fresh library, runs each
question with the built-in model (`research run Q --llm local:MODEL --search local --depth quick
--no-input --json`), and scores every result with the two independent checkers in tests/tools
(check_usable.py and check_grounding.py, run as programs, plus their rules re-applied here for
the per-run shares). Over the Valgrind manual it also counts, per run, the passages that answer
the question (benches/quality/valgrind-answers.json: 3 to 8 phrases per question, marked by
reading the manual, none chosen after seeing a run): how many the evidence read says
(`answer_read`) and how many the report's body says (`answer_given`), a phrase counting when at
least half of its four-word sequences are there. Writes one JSON line per run to OUT.jsonl and
prints a Markdown table row (usable, grounded, answer read, answer given, …).
A run that fails or crashes counts as unusable; the batch always goes on.
"""
import json, os, re, subprocess, sys, tempfile, time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "tests", "tools")
sys.path.insert(0, TOOLS)
import check_usable  # noqa: E402  (the same word rules as the checker)

QUESTIONS = [
    "How does Memcheck detect uninitialised values?",
    "What does Cachegrind measure?",
    "How do I write a suppression file for Valgrind errors?",
    "What is the difference between definitely lost and possibly lost memory leaks?",
    "How does Helgrind detect data races?",
    "What does Massif report about heap memory?",
    "How can I attach GDB to a program running under Valgrind?",
    "What does the --track-origins option do?",
    "How does Callgrind build a call graph?",
    "Why does Valgrind make programs run slower?",
]


ANSWERS = os.path.join(HERE, "..", "benches", "quality", "valgrind-answers.json")


def grams(text):
    """Lower-cased four-word sequences of letters and digits (spacing and punctuation aside)."""
    w = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(w[i:i + 4]) for i in range(len(w) - 3)}


def says(text_grams, phrase):
    """Whether a text says a gold phrase: at least half of the phrase's four-word sequences."""
    g = grams(phrase)
    return bool(g) and len(g & text_grams) >= 0.5 * len(g)


def answered(result, phrases):
    """How many of the question's gold phrases (benches/quality/valgrind-answers.json, marked
    by reading the manual) the evidence read says, and how many the report's body says."""
    body = re.split(r"(?im)^#+\s*(sources|references)\b", result.get("report") or "")[0]
    read = grams(" ".join(e.get("quote") or "" for e in result.get("evidence") or []))
    given = grams(body)
    return sum(says(read, p) for p in phrases), sum(says(given, p) for p in phrases)


def score(result, phrases=()):
    """The shares check_usable.py judges, per run (its rules, imported), and how far the run
    read and gave the passages that answer the question."""
    report = result.get("report") or ""
    body = re.split(r"(?im)^#+\s*(sources|references)\b", report)[0]
    body = re.sub(r"^#.*$", "", body, flags=re.M)
    distinct, most = check_usable.degenerate(body)
    ev = result.get("evidence") or []
    qwords = set(check_usable.content(result.get("question") or ""))
    consistent = relevant = 0
    for e in ev:
        fact, quote = e.get("fact") or "", e.get("quote") or ""
        fw, qw = set(check_usable.content(fact)), set(check_usable.content(quote))
        fd, _ = check_usable.degenerate(fact)
        if fw and len(fw & qw) / len(fw) >= 0.3 and fd >= 0.5 and len(check_usable.words(quote)) >= 6:
            consistent += 1
        if qw & qwords:
            relevant += 1
    audit = result.get("audit")
    cited = verified = None
    if isinstance(audit, list):
        cited = len(audit)
        verified = sum(1 for a in audit if a.get("status") == "verified")
    answer_read, answer_given = answered(result, phrases)
    return {
        "answer_read": answer_read,
        "answer_given": answer_given,
        "words": len(check_usable.words(body)),
        "distinct_4grams": round(distinct, 3),
        "most_repeated_sentence": most,
        "evidence": len(ev),
        "facts_consistent": consistent,
        "quotes_on_topic": relevant,
        "audited": cited,
        "audit_verified": verified,
        "calls": (result.get("metadata") or {}).get("llm_calls"),
        "claims_supported": (result.get("metadata") or {}).get("claims_supported"),
        "claims_total": (result.get("metadata") or {}).get("claims_total"),
    }


def checker(name, path, *args):
    out = subprocess.run([sys.executable, os.path.join(TOOLS, name), path, *args],
                         capture_output=True, text=True)
    return out.returncode == 0, out.stdout.strip().splitlines()[-1:] or [""]


def main():
    args = sys.argv[1:]
    opts = {}
    for flag in ("--label", "--questions", "--from", "--corpus", "--keep"):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    binary, model, out_path = args
    label = opts.get("--label", os.path.basename(binary))
    corpus = opts.get("--corpus", "/usr/share/doc/valgrind/html")
    questions = QUESTIONS[: int(opts.get("--questions", len(QUESTIONS)))][int(opts.get("--from", 1)) - 1:]
    gold = {}
    if corpus == "/usr/share/doc/valgrind/html" and os.path.exists(ANSWERS):
        gold = {g["question"]: [p["phrase"] for p in g["phrases"]] for g in json.load(open(ANSWERS))}
    work = tempfile.mkdtemp(prefix="rs-quality-")
    db = os.path.join(work, "db.sqlite")
    added = subprocess.run([binary, "library", "add", corpus, "--db", db], capture_output=True, text=True)
    if added.returncode != 0:
        sys.exit(f"library add failed: {added.stderr}")
    rows = []
    with open(out_path, "a") as out:
        for q in questions:
            start = time.time()
            run = subprocess.run(
                [binary, "run", q, "--llm", f"local:{model}", "--search", "local", "--depth", "quick",
                 "--no-input", "--json", "--db", db],
                capture_output=True, text=True, env={**os.environ, "RESEARCH_LLM": ""})
            wall = round(time.time() - start, 1)
            row = {"label": label, "model": os.path.basename(model), "question": q, "wall_s": wall}
            try:
                result = json.loads(run.stdout)
            except ValueError:
                row.update(ok=False, error=(run.stderr or "no output")[-400:])
            else:
                path = os.path.join(work, "result.json")
                json.dump(result, open(path, "w"))
                if "--keep" in opts:
                    os.makedirs(opts["--keep"], exist_ok=True)
                    keep = os.path.join(opts["--keep"], f"{label}-{QUESTIONS.index(q) + 1:02}.json")
                    json.dump(result, open(keep, "w"), indent=1)
                usable, usable_line = checker("check_usable.py", path)
                audit_args = ["--require-audit"] if result.get("audit") is not None else []
                grounded, grounding_line = checker("check_grounding.py", path, corpus, *audit_args)
                row.update(ok=True, status=result.get("status"), usable=usable, grounded=grounded,
                           usable_line=usable_line[0], grounding_line=grounding_line[0], **score(result, gold.get(q, ())))
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"{label} {q[:50]!r}: {'usable' if row.get('usable') else 'NOT usable'}"
                  f" ({row.get('usable_line', row.get('error', ''))[:120]}) {wall}s", file=sys.stderr)
    print(table_row(label, os.path.basename(model), rows))


def pct(num, den):
    return f"{100 * num / den:.0f}%" if den else "n/a"


def table_row(label, model, rows):
    done = [r for r in rows if r.get("ok")]
    n = len(rows)
    usable = sum(1 for r in done if r.get("usable"))
    grounded = sum(1 for r in done if r.get("grounded"))
    mean = lambda k: sum(r[k] for r in done) / len(done) if done else 0  # noqa: E731
    ev = sum(r["evidence"] for r in done)
    audited = [r for r in done if r.get("audited")]
    verified = pct(sum(r["audit_verified"] for r in audited), sum(r["audited"] for r in audited)) if audited else "no audit"
    read = sum(1 for r in done if r.get("answer_read"))
    given = sum(1 for r in done if r.get("answer_given"))
    return (f"| {model} | {label} | {usable}/{n} | {grounded}/{n} | {read}/{n} | {given}/{n} | {mean('distinct_4grams'):.2f} | "
            f"{pct(sum(r['facts_consistent'] for r in done), ev)} | {pct(sum(r['quotes_on_topic'] for r in done), ev)} | "
            f"{verified} | {mean('calls'):.1f} | {sum(r['wall_s'] for r in rows) / max(n, 1):.0f} s |")


if __name__ == "__main__":
    main()
