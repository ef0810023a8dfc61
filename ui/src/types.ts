// Generated from the Rust types by research-api's bindings test. Do not edit.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type ThreadId = string;

export type InterruptKind = "dynamic" | "before" | "after";

export type Interrupt = { 
/**
 * Stable id: `checkpoint:task:index`; pass it back to answer this interrupt among several.
 */
id: string, 
/**
 * The node that asked, or the node paused at.
 */
node: string, 
/**
 * Dynamic or static.
 */
kind: InterruptKind, 
/**
 * The node's payload (the question); `null` for static pauses.
 */
payload: JsonValue, };

export type Event = { "type": "run_started", 
/**
 * The thread.
 */
thread_id: ThreadId, 
/**
 * True when continuing a saved thread.
 */
resumed: boolean, } | { "type": "node_started", 
/**
 * Superstep number within the thread.
 */
step: number, 
/**
 * Task index within the step.
 */
task: number, 
/**
 * Node name.
 */
node: string, } | { "type": "node_finished", 
/**
 * Superstep number.
 */
step: number, 
/**
 * Task index.
 */
task: number, 
/**
 * Node name.
 */
node: string, 
/**
 * The update it wrote (`null` when the sink does not want updates).
 */
update: JsonValue, } | { "type": "node_retrying", 
/**
 * Node name.
 */
node: string, 
/**
 * The attempt that failed (1-based).
 */
attempt: number, 
/**
 * Why it failed.
 */
error: string, 
/**
 * Wait before the next attempt.
 */
delay_ms: number, } | { "type": "custom", 
/**
 * Node name.
 */
node: string, 
/**
 * What the node said.
 */
payload: JsonValue, } | { "type": "token", 
/**
 * Node name.
 */
node: string, 
/**
 * The text.
 */
text: string, } | { "type": "interrupted", 
/**
 * What it asks.
 */
interrupts: Array<Interrupt>, } | { "type": "checkpoint_saved", 
/**
 * Its sequence number in the thread.
 */
checkpoint: number, } | { "type": "run_finished", 
/**
 * Supersteps taken by this invocation.
 */
steps: number, } | { "type": "run_failed", 
/**
 * One sentence.
 */
error: string, } | { "type": "run_cancelled" };

export type CheckpointInfo = { 
/**
 * Sequence number.
 */
checkpoint: number, 
/**
 * Supersteps taken before it.
 */
step: number, 
/**
 * When it was saved.
 */
created_at_ms: number, 
/**
 * Nodes scheduled at it.
 */
next: Array<string>, 
/**
 * Serialised size of the checkpoint record (body, without any snapshot).
 */
body_bytes: number, };

export type ErrorCode = "invalid_input" | "not_found" | "conflict" | "needs_input" | "storage" | "run_failed" | "provider_auth" | "provider_unavailable" | "provider_failed";

export type ApiError = { 
/**
 * What kind of failure.
 */
code: ErrorCode, 
/**
 * One sentence for the user.
 */
message: string, };

export type RunStatus = "finished" | "interrupted" | "cancelled";

export type RunReport = { 
/**
 * The thread.
 */
thread_id: ThreadId, 
/**
 * How it ended.
 */
status: RunStatus, 
/**
 * The final state, as JSON.
 */
state: JsonValue, 
/**
 * Pending questions when interrupted.
 */
interrupts: Array<Interrupt>, };

export type ThreadSummary = { 
/**
 * The thread.
 */
thread_id: ThreadId, 
/**
 * Which graph it runs.
 */
graph: string, 
/**
 * When it was created (ms since the epoch).
 */
created_at_ms: number, };

export type AppInfo = { 
/**
 * The database file in use.
 */
db_path: string, 
/**
 * Run the demo as soon as the window opens (set by the smoke test).
 */
autorun_demo: boolean, };

export type KeySource = "keychain" | "environment" | "missing";

export type KeyStatus = { 
/**
 * Provider name.
 */
provider: string, 
/**
 * The environment variable that can carry it.
 */
env: string, 
/**
 * Where the key in use comes from.
 */
source: KeySource, 
/**
 * The key's first and last characters, e.g. `sk-…3f9a`.
 */
masked: string | null, };
