import { Channel, invoke } from "@tauri-apps/api/core";
import type { ApiError, AppInfo, Event, JsonValue, RunReport } from "./types";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>("demo-form");
const runButton = $<HTMLButtonElement>("run");
const statusLine = $<HTMLParagraphElement>("status");
const timeline = $<HTMLOListElement>("timeline");
const bar = $<HTMLDivElement>("bar");

function setStatus(text: string, kind: "" | "error" | "done" = "") {
  statusLine.textContent = text;
  statusLine.className = `status ${kind}`;
}

function addRow(step: string, node: string, text: string) {
  const li = document.createElement("li");
  for (const [cls, value] of [["step", step], ["node", node], ["text", text]]) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = value;
    li.appendChild(span);
  }
  timeline.appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

function field(value: JsonValue, key: string): string | undefined {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const v = value[key];
    return typeof v === "string" ? v : undefined;
  }
  return undefined;
}

function isApiError(e: unknown): e is ApiError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

async function runDemo() {
  const workers = Number($<HTMLInputElement>("workers").value);
  const concurrency = Number($<HTMLInputElement>("concurrency").value);
  const taskMs = Number($<HTMLInputElement>("task-ms").value);
  timeline.replaceChildren();
  bar.style.width = "0";
  runButton.disabled = true;
  setStatus("Running…");
  let finished = 0;
  const onEvent = new Channel<Event>();
  onEvent.onmessage = (event) => {
    if (event.type === "node_finished") {
      if (event.node === "worker") {
        finished += 1;
        bar.style.width = `${Math.min(100, (100 * finished) / workers)}%`;
      }
      addRow(`step ${event.step}`, event.node, event.node === "worker" ? `task ${event.task} finished` : "finished");
    } else if (event.type === "node_retrying") {
      addRow("", event.node, `retrying: ${event.error}`);
    } else if (event.type === "run_failed") {
      setStatus(event.error, "error");
    }
  };
  try {
    const report = await invoke<RunReport>("run_demo", { workers, concurrency, taskMs, onEvent });
    const summary = field(report.state, "summary") ?? report.status;
    setStatus(`Done: ${summary}.`, "done");
  } catch (e) {
    setStatus(isApiError(e) ? e.message : String(e), "error");
  } finally {
    runButton.disabled = false;
  }
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  void runDemo();
});

async function start() {
  try {
    const info = await invoke<AppInfo>("app_info");
    $<HTMLDivElement>("db-path").textContent = info.db_path;
    if (info.autorun_demo) await runDemo();
  } catch (e) {
    setStatus(isApiError(e) ? e.message : String(e), "error");
  }
}

void start();
