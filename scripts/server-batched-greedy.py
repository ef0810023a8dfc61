#!/usr/bin/env python3
"""Whether llama.cpp's own server answers greedy requests decoded together as it answers them
one at a time: the same check `crates/llm/tests/local_model.rs` makes of the built-in engine
(`batched_requests_answer_as_they_do_one_at_a_time`), made of the server, so a difference can
be told apart as the engine's or llama.cpp's.

Usage: server-batched-greedy.py MODEL.gguf [LLAMA_SERVER]   (the server: scripts/fetch-llama-server.sh;
default $LLAMA_SERVER)

Starts `llama-server --parallel 4 -c 16384 -t 2`, asks the four questions of that test one at a
time (greedy, 48 tokens, no prompt cache), then three rounds of all four at once, and prints one
JSON line per question: the answer alone, the three answers together, and whether each is the same.
"""
import concurrent.futures as cf
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

QUESTIONS = [
    "How do honey bees tell each other where flowers are?",
    "Why does a write-ahead log make a database crash-safe?",
    "What is the capital of Japan, and what is it known for?",
    "Name three uses of copper.",
]
SYSTEM = "You are a careful research assistant. Answer briefly and plainly."


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    model = sys.argv[1]
    server = sys.argv[2] if len(sys.argv) > 2 else os.environ["LLAMA_SERVER"]
    port = free_port()
    proc = subprocess.Popen(
        [server, "-m", model, "--parallel", "4", "-c", str(4096 * 4), "-t", "2",
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{base}/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.5)

        def ask(question):
            body = {"messages": [{"role": "system", "content": SYSTEM},
                                 {"role": "user", "content": question}],
                    "max_tokens": 48, "temperature": 0.0, "cache_prompt": False}
            request = urllib.request.Request(f"{base}/v1/chat/completions",
                                             data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
            answer = json.loads(urllib.request.urlopen(request, timeout=300).read())
            return answer["choices"][0]["message"]["content"]

        alone = [ask(q) for q in QUESTIONS]
        rounds = []
        for _ in range(3):
            with cf.ThreadPoolExecutor(len(QUESTIONS)) as pool:
                rounds.append(list(pool.map(ask, QUESTIONS)))
        for i, q in enumerate(QUESTIONS):
            together = [r[i] for r in rounds]
            print(json.dumps({"q": q, "alone": alone[i], "together": together,
                              "same": [t == alone[i] for t in together]}, ensure_ascii=False))
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
