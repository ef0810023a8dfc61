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
 * Task index within its step, when a task said it (parallel workers are told apart by
 * it); `None` for events from outside a task.
 */
task: number | null, 
/**
 * What the node said.
 */
payload: JsonValue, } | { "type": "token", 
/**
 * Node name.
 */
node: string, 
/**
 * Task index within its step.
 */
task: number | null, 
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
message: string, 
/**
 * Where to fix it, when there is one place.
 */
fix: Fix | null, };

export type Fix = { "place": "api_keys", 
/**
 * The provider (`openai`, `tavily`, …).
 */
provider: string, } | { "place": "model" } | { "place": "searxng_url" } | { "place": "library" } | { "place": "resume_run", 
/**
 * The run's thread.
 */
thread: string, } | { "place": "ask_again", 
/**
 * The session.
 */
session: string, 
/**
 * The question its run asked.
 */
question: string, } | { "place": "restore_backup", 
/**
 * The newest backup beside the database.
 */
backup: string | null, } | { "place": "allow_host", 
/**
 * The host.
 */
host: string, } | { "place": "data_folder" } | { "place": "shared_database" };

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
 * Where sessions and runs are kept, as a person is told ([`Studio::storage`]).
 */
storage: string, 
/**
 * Why the shared database is not in use although one is set (this machine's file is).
 */
storage_problem: ApiError | null, 
/**
 * The app's version.
 */
version: string, 
/**
 * Where API keys are kept.
 */
keychain: KeychainStatus, 
/**
 * The folder of the app's log files.
 */
log_dir: string, 
/**
 * Nothing is set up yet (no default model and no session): show the onboarding.
 */
first_run: boolean, };

export type Preferences = { 
/**
 * Mode of the last research.
 */
mode: Mode | null, 
/**
 * Depth of the last research.
 */
depth: Depth | null, 
/**
 * Report structure of the last research.
 */
structure: Structure | null, 
/**
 * Report language of the last research (`None`: the question's).
 */
language: string | null, 
/**
 * Search providers of the last research, as typed.
 */
search: string | null, 
/**
 * Review points of the last research.
 */
review: ReviewPoints | null, 
/**
 * The onboarding was dismissed or completed.
 */
onboarding_done: boolean, };

export type KeySource = "keychain" | "session" | "environment" | "missing";

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

export type KeychainStatus = { 
/**
 * Keys are saved in the OS keychain.
 */
available: boolean, 
/**
 * Why not, when not (keys are then kept only until the app quits).
 */
detail: string, };

export type ProviderStatus = { 
/**
 * The provider's name.
 */
name: string, 
/**
 * `model` or `search`.
 */
kind: string, 
/**
 * Whether it can be used now.
 */
ready: boolean, 
/**
 * What was found.
 */
detail: string, 
/**
 * Where to make it usable, when it is not.
 */
fix: Fix | null, 
/**
 * The model strings it offers now, for a model picker: the models an Ollama server has,
 * the GGUF files downloaded, a keyed provider's small model, the configured server's.
 */
models: Array<string>, };

export type ConnectionTest = { 
/**
 * It answered usefully.
 */
ok: boolean, 
/**
 * What happened, in one sentence.
 */
detail: string, 
/**
 * How long it took.
 */
latency_ms: number, 
/**
 * Where to fix it, when it failed and there is one place.
 */
fix: Fix | null, };

export type Settings = { 
/**
 * The default model string (`ollama:qwen2.5:7b`, `local:/path/model.gguf`, …).
 */
default_model: string | null, 
/**
 * The default fast model.
 */
fast_model: string | null, 
/**
 * Default search providers.
 */
search: Array<string> | null, 
/**
 * The SearXNG instance.
 */
searxng_url: string | null, 
/**
 * Where Ollama listens (default `http://127.0.0.1:11434`).
 */
ollama_url: string | null, 
/**
 * Hosts the fetcher may reach although they are local or private.
 */
allowed_hosts: Array<string>, 
/**
 * Review points on by default (`clarify`, `plan`, `report`).
 */
review: Array<string> | null, 
/**
 * Words reports may not use (seed 000's list when unset; empty for none).
 */
banned_words: Array<string> | null, 
/**
 * Domains the trust pipeline trusts (its built-in list when unset).
 */
trusted_domains: Array<string> | null, 
/**
 * Domains the trust pipeline keeps under its credibility bar (its built-in list when unset).
 */
low_trust_domains: Array<string> | null, 
/**
 * A person's own MCP servers as search providers (`mcp:NAME`): by name, a command line or
 * an http(s) address, `#TOOL` at the end for another tool than `search`.
 */
mcp_sources?: { [key in string]: string }, 
/**
 * A PostgreSQL server a team shares, for sessions, runs and checkpoints (this machine's
 * SQLite file when unset; `DATABASE_URL` wins over it).
 */
database: string | null, 
/**
 * How many of its own backups the app keeps (`DAILY,WEEKLY`, or `off` for none taken);
 * the built-in rotation when unset ([`crate::backups::Rotation`]).
 */
backups?: string, 
/**
 * The citation style reports are exported in (the last one chosen; numbered when unset).
 */
citation_style?: string, };

export type StartedRun = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The run's thread.
 */
thread_id: ThreadId, };

export type GraphOutline = { 
/**
 * The pipeline.
 */
pipeline: PipelineInfo, 
/**
 * Node names in the order a run reaches them.
 */
nodes: Array<string>, 
/**
 * Each step with its model role and what the run does there.
 */
steps: Array<OutlineStep>, 
/**
 * The whole graph as a Mermaid diagram.
 */
mermaid: string, };

export type DialogAnswer = { "type": "answer", 
/**
 * The answer.
 */
answer: Answer, } | { "type": "needs_text", 
/**
 * What the text is.
 */
kind: TextAnswer, } | { "type": "dismissed" };

export type TextAnswer = "clarify" | "edit_plan" | "revise_report" | "reject_report" | "edit_report";

export type RunEstimate = { 
/**
 * Model calls.
 */
calls: number, 
/**
 * Prompt and completion tokens.
 */
tokens: number, 
/**
 * Estimated cost in US dollars; `None` when a model's price is unknown.
 */
cost_usd: number | null, };

export type ResearchRequest = { 
/**
 * The question.
 */
question: string, 
/**
 * The pipeline to run (its registered name; empty for the default).
 */
pipeline: string, 
/**
 * The review points chosen for this run; when absent, those in the settings (else the
 * configuration's).
 */
review: ReviewPoints | null, 
/**
 * The run configuration.
 */
config: RunConfig, 
/**
 * Hosts the fetcher may reach although they are local or private.
 */
allowed_hosts: Array<string>, 
/**
 * The SearXNG instance.
 */
searxng_url: string | null, 
/**
 * The person's MCP sources (`mcp:NAME` providers) by name: a command line or an address;
 * the settings' when empty.
 */
mcp_sources?: { [key in string]: string }, };

export type PendingQuestion = { 
/**
 * The engine's interrupt id.
 */
interrupt_id: string, 
/**
 * The question.
 */
question: Question, 
/**
 * When it was asked (ms since the epoch; 0 when not known).
 */
asked_at_ms: number, 
/**
 * When the run's review timeout answers it (ms since the epoch), if the run has one:
 * resuming the run without an answer after then takes the timeout's action.
 */
deadline_ms: number | null, };

export type ResearchStatus = "finished" | "waiting" | "interrupted";

export type ResearchOutcome = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The thread.
 */
thread_id: ThreadId, 
/**
 * Where it stands.
 */
status: ResearchStatus, 
/**
 * The question it waits on.
 */
question: PendingQuestion | null, 
/**
 * The result so far (final when finished).
 */
result: RunResult, };

export type SessionDetail = { 
/**
 * The session.
 */
session: SessionRecord, 
/**
 * The run configuration it was started with (`session.config` read; none when that is
 * not one).
 */
config: RunConfig | null, 
/**
 * Its runs: (thread id, question).
 */
runs: Array<[string, string]>, 
/**
 * Report versions, oldest first.
 */
reports: Array<ReportRow>, 
/**
 * Sources of the run that wrote the latest report (of the latest run when none has).
 */
sources: Array<SourceRow>, 
/**
 * Evidence of that run.
 */
evidence: Array<EvidenceRow>, 
/**
 * Checked claims of that run.
 */
claims: Array<ClaimRow>, 
/**
 * The latest report as safe HTML (citations linked as `#cite-n`), empty when none.
 */
report_html: string, 
/**
 * How the latest report's run went (none for reports saved before it was recorded).
 */
method: RunMethod | null, 
/**
 * The conversation: each question with what it was taken to be (sessions from before
 * turns were kept have none).
 */
turns: Array<TurnView>, 
/**
 * The kept summary of a long conversation's earlier turns.
 */
summary: ConversationSummary, 
/**
 * Each report version as safe HTML, in the order of `reports` (its citations linked to
 * its own run's sources).
 */
reports_html: Array<string>, 
/**
 * Where each forked run started, by thread id.
 */
forks: { [key in string]: RunOrigin }, 
/**
 * The trust pipeline's record of the latest report (credibility, cross-validated claims,
 * hallucination score); none for other pipelines.
 */
trust: TrustRecord | null, 
/**
 * The review pipeline's record of the latest report (every draft with its review, and
 * what each revision fixed); none for other pipelines.
 */
review: ReviewView | null, 
/**
 * Why the session's latest run failed, while the session stands failed (none otherwise,
 * and for runs that failed before it was kept).
 */
failure: string | null, };

export type RunCalls = { 
/**
 * The run's thread id.
 */
thread: string, 
/**
 * The question it researched.
 */
question: string, 
/**
 * Its calls, in order.
 */
calls: Array<CallRecord>, };

export type Exchange = { 
/**
 * The messages sent, in order.
 */
messages: Array<ExchangeMessage>, 
/**
 * The JSON schema the answer had to follow, when one was asked for.
 */
schema?: string, 
/**
 * The model's answer (absent when the call failed).
 */
answer?: string, 
/**
 * Why the call failed.
 */
error?: string, };

export type ExchangeMessage = { 
/**
 * `system`, `user` or `assistant`.
 */
role: string, 
/**
 * What was said, redacted.
 */
content: string, };

export type ReviewView = { 
/**
 * Every draft with its review, the fallback's reason and the escalations.
 */
record: ReviewRecord, 
/**
 * The criteria's weights in the overall score.
 */
weights: Array<CriterionWeight>, 
/**
 * For each draft (in the order of `record.drafts`), the issues of it that the next draft
 * no longer has; empty for the last.
 */
fixed: Array<Array<Issue>>, 
/**
 * The version of the best-scored draft (the one delivered when none was approved).
 */
best: number | null, };

export type CriterionWeight = { 
/**
 * The criterion.
 */
criterion: Criterion, 
/**
 * Its share of the overall score (the six sum to 1).
 */
weight: number, };

export type DraftFinding = { 
/**
 * The sentence's number in the draft's prose, 1 for the first (headings, quotations and
 * code are not counted).
 */
number: number, 
/**
 * The sentence as the draft has it.
 */
sentence: string, 
/**
 * What is wrong.
 */
problem: DraftProblem, 
/**
 * The markers that name no source read (for [`DraftProblem::UnknownSource`]).
 */
unknown: Array<number>, 
/**
 * What is wrong and what the audit would do, in a sentence.
 */
message: string, };

export type DraftProblem = "unknown_source" | "unsupported" | "uncited";

export type Turn = { 
/**
 * The session.
 */
session_id: string, 
/**
 * What the question was taken to be, who decided and why.
 */
classification: Classification, 
/**
 * The run it started (none for a cancelled turn).
 */
thread_id: ThreadId | null, 
/**
 * The reply given without research (a cancelled turn's).
 */
reply: string | null, 
/**
 * What the session is about from this turn on.
 */
focus: Array<string>, 
/**
 * Sources carried over from earlier turns (a follow-up's), read again from the store.
 */
carried_sources: number, 
/**
 * Earlier sources left behind because their stored text no longer matches its hash.
 */
dropped_sources: Array<string>, };

export type RunOrigin = { 
/**
 * The run forked.
 */
from: string, 
/**
 * The stage (`reading`, `plan`, `round-N`, `draft`).
 */
stage: string, };

export type ForkRequest = { 
/**
 * The stage to fork from: `reading`, `plan`, `round-N` or `draft`.
 */
at: string, 
/**
 * A new reading of the question (at `reading`).
 */
reading: string | null, 
/**
 * A new plan (at `plan`).
 */
plan: Plan | null, 
/**
 * Other models.
 */
models: ModelRouting | null, 
/**
 * Another pipeline (it must go on with the same steps from the fork point).
 */
pipeline: string | null, 
/**
 * Another depth.
 */
depth: Depth | null, 
/**
 * Another number of research rounds.
 */
max_iterations: number | null, 
/**
 * Other search providers.
 */
search: Array<string> | null, };

export type CompareRequest = { 
/**
 * The question both answer.
 */
question: string, 
/**
 * The two sides.
 */
a: CompareSide, 
/**
 * The second side.
 */
b: CompareSide, };

export type Recheck = { 
/**
 * The session.
 */
session_id: string, 
/**
 * The run whose report was checked.
 */
thread_id: string, 
/**
 * When.
 */
checked_at_ms: number, 
/**
 * Every cited source.
 */
sources: Array<SourceCheck>, 
/**
 * Sentences that lost their support.
 */
lost: Array<LostSupport>, 
/**
 * The report version recorded with the findings (none when nothing changed).
 */
version: number | null, };

export type ScheduleView = { 
/**
 * The session.
 */
session_id: string, 
/**
 * Its title.
 */
title: string, 
/**
 * How often, as written (`1d`, `12h`, `1w`).
 */
every: string, 
/**
 * Whether a changed or vanished source sends the question to research again.
 */
research_again: boolean, 
/**
 * Whether it is paused.
 */
paused: boolean, 
/**
 * When it is due next (ms since the epoch).
 */
next_due_ms: number, 
/**
 * When it last ran.
 */
last_run_ms: number | null, 
/**
 * What its last run found.
 */
last_outcome: string | null, };

export type ScheduleRun = { 
/**
 * The session.
 */
session_id: string, 
/**
 * Its title.
 */
title: string, 
/**
 * What it found, in a sentence (what a desktop notification says).
 */
outcome: string, 
/**
 * Whether a cited source changed or is gone.
 */
changed: boolean, 
/**
 * The recheck, when it could be made.
 */
recheck: Recheck | null, 
/**
 * The follow-up run that researched the question again, if one did.
 */
researched: string | null, 
/**
 * Why it failed, if it did (it is due again at its next time).
 */
error: ApiError | null, };

export type CheckSource = { 
/**
 * The `N` of the document's `[N]` markers.
 */
id: number, 
/**
 * A file path, or an `http(s)://` URL.
 */
location: string, };

export type CheckStatus = "verified" | "partly" | "unsupported" | "contradicted" | "uncited";

export type CheckMeaning = { 
/**
 * The status.
 */
status: CheckStatus, 
/**
 * Its mark: ✓, ~, ✗ or ?.
 */
symbol: string, 
/**
 * What it means.
 */
meaning: string, };

export type CheckedSentence = { 
/**
 * The sentence as the document shows it, with its markers.
 */
sentence: string, 
/**
 * The sources its markers cite (empty: an uncited sentence).
 */
sources: number[], 
/**
 * What the checker says of it.
 */
status: CheckStatus, 
/**
 * The source whose passage bears it out best.
 */
source: number | null, 
/**
 * That passage: the best window of one to three sentences of the source.
 */
passage: string, 
/**
 * Why, in words.
 */
check: string, 
/**
 * The calibrated probability that a person calls it attributable to its sources.
 */
score: number, 
/**
 * The signals the score comes from.
 */
signals: { [key in string]: number }, 
/**
 * For an uncited sentence: the source that says it, to cite.
 */
suggested?: number, 
/**
 * The model's second opinion, when one was asked (`--llm`): whether it finds the sentence
 * in the passage. It can only lower `verified`; on `partly` it is recorded, not acted on,
 * until that path is measured to be right nine times in ten.
 */
model?: boolean, };

export type DocumentCheck = { 
/**
 * One entry per sentence.
 */
audit: Array<CheckedSentence>, 
/**
 * Where each source was read from, by its number.
 */
sources: Record<number, string>, 
/**
 * What each status means, with the measured precision of verified.
 */
legend: Array<CheckMeaning>, };

export type CheckRequest = { 
/**
 * The Markdown text whose `[N]` markers cite the sources.
 */
document: string, 
/**
 * Where each source is read from (ignored with `session`).
 */
sources: Array<CheckSource>, 
/**
 * Check against the sources of this session's latest run instead.
 */
session?: string, };

export type ChosenDocument = { 
/**
 * The file's path.
 */
path: string, 
/**
 * Its text.
 */
text: string, };

export type SourceCheck = { 
/**
 * Its citation number in the report.
 */
source_id: number, 
/**
 * Where it is.
 */
url: string, 
/**
 * What was found.
 */
state: SourceState, };

export type SourceState = { "state": "unchanged" } | { "state": "changed", 
/**
 * Quotes still there.
 */
kept: number, 
/**
 * Quotes no longer there.
 */
lost: number, } | { "state": "gone", 
/**
 * How it was found gone.
 */
why: string, } | { "state": "unchecked", 
/**
 * Why.
 */
why: string, };

export type LostSupport = { 
/**
 * The sentence.
 */
sentence: string, 
/**
 * Its citations.
 */
sources: Array<number>, 
/**
 * What the audit says of it now, in words.
 */
why: string, };

export type CompareSide = { 
/**
 * Its name in the table (`A`, `B`, or the person's).
 */
label: string, 
/**
 * The run (its question is the comparison's).
 */
request: ResearchRequest, };

export type CompareColumn = { 
/**
 * Its label.
 */
label: string, 
/**
 * Its run.
 */
thread_id: string, 
/**
 * The pipeline it ran.
 */
pipeline: string, 
/**
 * Whether it finished (none when it failed).
 */
status: ResearchStatus | null, 
/**
 * Why it failed.
 */
error: string | null, 
/**
 * Sources read.
 */
sources: number, 
/**
 * Evidence taken.
 */
evidence: number, 
/**
 * Research rounds.
 */
iterations: number, 
/**
 * Coverage of its research questions, 0–1.
 */
coverage: number, 
/**
 * Cited sentences the audit verified.
 */
verified_sentences: number, 
/**
 * Cited sentences audited.
 */
audited_sentences: number, 
/**
 * Supported claims / all claims.
 */
confidence: number, 
/**
 * Model calls.
 */
calls: number, 
/**
 * Tokens, prompt and completion.
 */
tokens: number, 
/**
 * Cost in US dollars (0 for local models).
 */
cost_usd: number, 
/**
 * Wall time.
 */
wall_ms: number, 
/**
 * Sources only this side read (URLs).
 */
only_here: Array<string>, };

export type CompareOutcome = { 
/**
 * The session holding both runs.
 */
session_id: string, 
/**
 * Whether the sides ran at the same time.
 */
concurrent: boolean, 
/**
 * The two columns.
 */
columns: Array<CompareColumn>, 
/**
 * Sources both read (URLs).
 */
shared_sources: Array<string>, };

export type ForkedRun = { 
/**
 * The session (the original's).
 */
session_id: string, 
/**
 * The fork's run.
 */
thread_id: ThreadId, 
/**
 * The run it was forked from.
 */
from: ThreadId, 
/**
 * The stage it starts from, and what that holds.
 */
point: ForkPoint, };

export type ForkPoint = { 
/**
 * Its name for `--at` (`reading`, `plan`, `round-1`, …, `draft`).
 */
stage: string, 
/**
 * The checkpoint it is.
 */
checkpoint: number, 
/**
 * What the run holds there, in words.
 */
holds: string, 
/**
 * The plan there (at `plan`), to edit for a fork.
 */
plan: Plan | null, 
/**
 * The reading of the question there (at `reading`), to edit for a fork.
 */
reading: string | null, };

export type TurnView = { 
/**
 * What was asked.
 */
question: string, 
/**
 * What it was taken to be (none for turns recorded before classifications were kept).
 */
classification: Classification | null, 
/**
 * The run it started.
 */
thread_id: string | null, 
/**
 * The reply given without research.
 */
reply: string, 
/**
 * What the session was about at this turn.
 */
focus: Array<string>, 
/**
 * When, ms since the epoch.
 */
created_at_ms: number, };

export type TurnKind = "first" | "follow_up" | "topic_change" | "cancel";

export type Decider = "rules" | "model" | "person";

export type Classification = { 
/**
 * The kind.
 */
kind: TurnKind, 
/**
 * Who decided.
 */
by: Decider, 
/**
 * Why, in words for the person.
 */
why: string, };

export type ConversationSummary = { 
/**
 * The summary, empty when none was written.
 */
text: string, 
/**
 * How many of the session's first turns it covers.
 */
turns: number, };

export type RunMethod = { 
/**
 * The reading of the question the run took: the user's clarification or the model's
 * interpretation.
 */
interpretation: string, 
/**
 * The plan's research questions.
 */
research_questions: Array<string>, 
/**
 * Coverage of each research question, in plan order.
 */
question_coverage: Array<Coverage>, 
/**
 * The planner's approach and confidence in its words ([`crate::Plan::planner_line`]).
 */
planner: string | null, 
/**
 * The planner's concerns about the question's scope.
 */
concerns: Array<string>, 
/**
 * What the last round found still missing.
 */
gaps: Array<string>, 
/**
 * Workers run (multi mode), over all rounds.
 */
workers: number, 
/**
 * Pages the searches found that could not be read, with why.
 */
unread: Array<UnreadPage>, 
/**
 * Counts, searches, coverage per round and usage.
 */
metadata: Metadata, };

export type UnreadPage = { 
/**
 * Its address.
 */
url: string, 
/**
 * Why, in one sentence.
 */
reason: string, };

export type RecommendedModel = { 
/**
 * Stable id (`qwen2.5-3b`).
 */
id: string, 
/**
 * Display name.
 */
name: string, 
/**
 * Where it is downloaded from.
 */
url: string, 
/**
 * The file name it is saved as.
 */
file_name: string, 
/**
 * Approximate size in bytes, shown before downloading.
 */
approx_bytes: number, 
/**
 * One line on when to pick it.
 */
note: string, 
/**
 * Its licence.
 */
license: string, 
/**
 * The file's SHA-256 when the catalogue pins one. Without a pin the file is installed only
 * when the server states its hash (Hugging Face does, for every LFS file) and it matches.
 */
sha256: string | null, };

export type SentenceModelOffer = { 
/**
 * Display name.
 */
name: string, 
/**
 * Its size to download, in bytes, shown before asking.
 */
bytes: number, 
/**
 * Its licence.
 */
license: string, 
/**
 * What it gives, in one line.
 */
note: string, 
/**
 * Whether it is installed already (nothing to offer then).
 */
installed: boolean, };

export type DownloadProgress = { 
/**
 * Bytes on disk so far (including a resumed part).
 */
received: number, 
/**
 * The full size when the server said so.
 */
total: number | null, 
/**
 * Bytes per second over the last moments.
 */
bytes_per_sec: number, 
/**
 * `downloading`, `verifying` or `done`.
 */
phase: string, };

export type DownloadedModel = { 
/**
 * Where the file is.
 */
path: string, 
/**
 * The model string to use it (`local:PATH`).
 */
spec: string, 
/**
 * Its size.
 */
bytes: number, 
/**
 * Its SHA-256.
 */
sha256: string, 
/**
 * Whether the hash was checked against one the catalog or the server stated.
 */
hash_checked: boolean, };

export type SessionRecord = { 
/**
 * Its id.
 */
id: string, 
/**
 * A title (the question, until renamed).
 */
title: string, 
/**
 * The question.
 */
question: string, 
/**
 * The run configuration, as JSON.
 */
config: JsonValue, 
/**
 * Where its last run stands.
 */
status: SessionStatus, 
/**
 * Created, ms since the epoch.
 */
created_at_ms: number, 
/**
 * Last changed, ms since the epoch.
 */
updated_at_ms: number, 
/**
 * When its report's sources were last checked again (`research recheck`), if ever.
 */
checked_at_ms: number | null, };

export type SessionStatus = "running" | "waiting" | "interrupted" | "failed" | "finished" | "cancelled" | "rejected";

export type FormChoices = { 
/**
 * Single or multi agent.
 */
modes: Array<Choice>, 
/**
 * How much research to do.
 */
depths: Array<Choice>, 
/**
 * The report's shapes.
 */
structures: Array<Choice>, 
/**
 * The report's registers.
 */
styles: Array<Choice>, 
/**
 * The trust pipeline's engine variants.
 */
trust_variants: Array<Choice>, 
/**
 * What an unanswered review point does.
 */
timeout_actions: Array<Choice>, 
/**
 * The review points (the fields of a run's review points), each with when it asks.
 */
review_points: Array<Choice>, 
/**
 * The longest question accepted, in characters.
 */
question_max_chars: number, 
/**
 * The longest note of the planner's background (what you know, method), in characters.
 */
background_max_chars: number, 
/**
 * The most revisions a run may allow (the fewest is 0).
 */
max_revisions: number, 
/**
 * The longest a review point may wait, in minutes (the shortest is 1).
 */
review_timeout_max_minutes: number, 
/**
 * The session statuses whose last run can be resumed.
 */
resumable: Array<SessionStatus>, 
/**
 * The model each cloud provider is tested with.
 */
probe_models: Array<ProbeModel>, 
/**
 * The settings' keys.
 */
settings: Array<SettingKey>, 
/**
 * How often a session can be kept current (a schedule's intervals), the default marked.
 */
schedule_intervals: Array<Choice>, };

export type Choice = { 
/**
 * The value, as the run configuration spells it.
 */
value: string, 
/**
 * The words shown for it.
 */
label: string, 
/**
 * It is the run configuration's default.
 */
default: boolean, };

export type ProbeModel = { 
/**
 * The provider (`openai`, `anthropic`, `gemini`).
 */
provider: string, 
/**
 * A small model of it, as a model string.
 */
model: string, };

export type SettingKey = { 
/**
 * The key (`default_model`, `banned_words`, …).
 */
key: string, 
/**
 * What it holds.
 */
help: string, 
/**
 * A list whose absence means the built-in one, and whose emptiness is a choice ("none").
 */
builtin_default: boolean, };

export type Rotation = { 
/**
 * The newest this many daily backups.
 */
daily: number, 
/**
 * Then the newest of each of this many weeks before them.
 */
weekly: number, };

export type BackupStatus = { 
/**
 * The folder they are kept in.
 */
folder: string, 
/**
 * The newest backup, when there is one.
 */
newest: BackupFile | null, 
/**
 * How many backups the folder holds (the app's own, a person's, the copies before an
 * upgrade).
 */
count: number, 
/**
 * How many of its own the app keeps.
 */
rotation: Rotation, 
/**
 * A restore asked for that is applied when the app next starts.
 */
pending: PendingRestore | null, };

export type BackupFile = { 
/**
 * Its path.
 */
path: string, 
/**
 * When it was taken (ms since the epoch).
 */
taken_at_ms: number, 
/**
 * Its size.
 */
bytes: number, };

export type PendingRestore = { 
/**
 * The backup.
 */
from: string, 
/**
 * When it was asked for, ms since the epoch.
 */
asked_at_ms: number, };

export type Restored = { 
/**
 * The backup.
 */
from: string, 
/**
 * Where the file it replaced is kept, when it was put in place.
 */
kept: string | null, 
/**
 * Why it was not put in place, when it was not.
 */
problem: string | null, };

export type Imported = { 
/**
 * The session, by the id it had where it was exported.
 */
session_id: string, 
/**
 * Its title.
 */
title: string, 
/**
 * Its runs.
 */
runs: number, 
/**
 * Its report versions.
 */
reports: number, 
/**
 * Whether it was here already, so nothing was imported (an archive imported twice is
 * one session, not two).
 */
already_here: boolean, };

export type Salvage = { 
/**
 * The sessions saved, each to its file.
 */
saved: Array<Salvaged>, 
/**
 * The sessions that could not be read whole, with why.
 */
lost: Array<Unsalvaged>, };

export type Salvaged = { 
/**
 * Its id.
 */
id: string, 
/**
 * Its title.
 */
title: string, 
/**
 * The session file it was saved to.
 */
file: string, };

export type Unsalvaged = { 
/**
 * Its id.
 */
id: string, 
/**
 * Its title.
 */
title: string, 
/**
 * What could not be read.
 */
problem: string, };

export type ModelMeasurement = { 
/**
 * The model (a part of its name for a built-in one, else as the person's runs name it).
 */
model: string, 
/**
 * What the rules read: the built-in measurement, if any, with the person's runs added.
 */
measured: Measured, 
/**
 * Whether a built-in measurement is part of it.
 */
builtin: boolean, 
/**
 * The person's runs it took part in.
 */
your_runs: number, 
/**
 * Tokens it generated a second in the person's runs (calls' time, prompt reading included).
 */
tokens_per_second: number | null, 
/**
 * What the rules decide for it, in words (empty: asked for everything).
 */
decisions: Array<string>, };

export type Measured = { 
/**
 * The model: a part of its name that identifies it in a model string (matched as
 * [`research_check::opinion::names`] does), as [`key`] gives it for a person's model.
 */
model: string, 
/**
 * Runs the measurement is over.
 */
runs: number, 
/**
 * What it did in them.
 */
work: ModelWork, };

export type ModelWork = { 
/**
 * Facts it was asked to restate in its own words and that were kept.
 */
facts: number, 
/**
 * Of those, how many were its quote's own words.
 */
own_words: number, 
/**
 * First drafts of a report it wrote.
 */
drafts: number, 
/**
 * Of those, how many the checks refused (the report gave the passages instead).
 */
refused: number, 
/**
 * Claims it was asked to give a verdict on (its second opinion).
 */
verdicts_asked: number, 
/**
 * Of those, how many it gave a verdict on.
 */
verdicts_given: number, };

export type ExportFormat = "md" | "pdf" | "bib" | "ris" | "csl_json" | "docx" | "tex";

export type CitationStyleChoice = { 
/**
 * Its name for `--style` and the `citation_style` setting.
 */
id: string, 
/**
 * What a person calls it.
 */
name: string, 
/**
 * Whether in-text citations name author and year rather than a number.
 */
author_date: boolean, 
/**
 * Whether it is the style exports use now (the last one chosen).
 */
chosen: boolean, };

export type Citation = { 
/**
 * Its authors, in order.
 */
authors?: Array<Name>, 
/**
 * When it was published: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (see [`issued`]).
 */
issued?: string, 
/**
 * The journal, proceedings, book or web site it appeared in.
 */
container?: string, 
/**
 * Its publisher.
 */
publisher?: string, 
/**
 * Its DOI, bare (`10.1145/…`, no resolver address).
 */
doi?: string, 
/**
 * The volume of the journal or series.
 */
volume?: string, 
/**
 * The issue of the journal.
 */
issue?: string, 
/**
 * Its pages (`12-19`).
 */
pages?: string, 
/**
 * What it is, as a CSL item type (`article-journal`, `book`, `chapter`,
 * `paper-conference`, `thesis`, `report`…), when a record says so (a reference manager's).
 */
kind?: string, };

export type Name = { 
/**
 * The family name ("Hipp", "van Rossum").
 */
family: string, 
/**
 * The given names ("D. Richard"); empty when unknown.
 */
given: string, } | { 
/**
 * The name.
 */
literal: string, };

export type SourceRow = { 
/**
 * Citation number in its run.
 */
source_id: number, 
/**
 * URL (`file://` for library files).
 */
url: string, 
/**
 * Title.
 */
title: string, 
/**
 * Kind (web, academic, news, local).
 */
kind: string, 
/**
 * SHA-256 of the stored text.
 */
sha256: string, 
/**
 * When it was read.
 */
accessed_at_ms: number, 
/**
 * Who wrote it and where it appeared, for a citation style (stored as JSON).
 */
citation?: Citation, };

export type EvidenceRow = { 
/**
 * Number in its run.
 */
evidence_id: number, 
/**
 * The source's citation number.
 */
source_id: number, 
/**
 * The fact.
 */
fact: string, 
/**
 * The verbatim quote.
 */
quote: string, };

export type ClaimRow = { 
/**
 * The evidence it was taken from.
 */
evidence_id: number, 
/**
 * The claim.
 */
text: string, 
/**
 * Whether its quote supports it.
 */
supported: boolean, };

export type ReportRow = { 
/**
 * The run.
 */
thread_id: string, 
/**
 * 1, 2, … within the run.
 */
version: number, 
/**
 * Markdown.
 */
markdown: string, 
/**
 * Models, providers, configuration, app version, token counts.
 */
provenance: JsonValue, 
/**
 * When it was written.
 */
created_at_ms: number, };

export type LibraryFolder = { 
/**
 * Absolute path.
 */
path: string, 
/**
 * Files indexed.
 */
files: number, 
/**
 * Files that could not be read.
 */
failed: number, };

export type LibraryMeaning = { 
/**
 * Whether the sentence model is installed (`scripts/fetch-embedder.sh`).
 */
installed: boolean, 
/**
 * Passage vectors stored.
 */
vectors: number, 
/**
 * Passages in the library.
 */
passages: number, 
/**
 * Whether indexing by meaning is due: the model is installed and some passages have no
 * vector yet. The app then indexes in the background without being asked — after a
 * folder is added, and at start for what an earlier session left — and `research library
 * add` goes on to it; a new user never needs to know the step exists.
 */
due: boolean, };

export type EmbedProgress = { 
/**
 * Passages embedded so far.
 */
done: number, 
/**
 * Passages to embed in this pass.
 */
total: number, 
/**
 * Passages a second so far in this pass.
 */
per_second: number, 
/**
 * The time left at that rate, in words ("about 12 min").
 */
left: string, 
/**
 * What is being made ready before the first batch, in words, when that takes a while (the
 * distilled model's table: once on this machine, about a minute); empty while passages are
 * being embedded.
 */
preparing: string, };

export type IndexReport = { 
/**
 * Files this pass looks at (all of them, known before the first is read, so that progress
 * can be shown as a fraction).
 */
total: number, 
/**
 * Files looked at.
 */
scanned: number, 
/**
 * Files read and indexed (new or changed).
 */
indexed: number, 
/**
 * Files unchanged since the last pass.
 */
unchanged: number, 
/**
 * Files that could not be read, with why.
 */
failed: Array<[string, string]>, 
/**
 * Files dropped because they are gone.
 */
removed: number, };

export type ImportReport = { 
/**
 * References in the export.
 */
references: number, 
/**
 * Attached files found and added to the library with their reference's record.
 */
files: number, 
/**
 * Of those, the files whose record is new; the others' records were updated (the same
 * export imported again).
 */
new: number, 
/**
 * Attached files that could not be added: (reference key, path, why).
 */
missing: Array<[string, string, string]>, 
/**
 * Keys of the references with no file attached: their text cannot be searched.
 */
without_files: Array<string>, 
/**
 * The folders the files are in, added to the library and indexed.
 */
folders: Array<string>, 
/**
 * What indexing those folders did, summed.
 */
indexed: IndexReport, };

export type RunConfig = { 
/**
 * Single or multi agent.
 */
mode: Mode, 
/**
 * How much research to do.
 */
depth: Depth, 
/**
 * The report's shape.
 */
structure: Structure, 
/**
 * Which model answers which role.
 */
models: ModelRouting, 
/**
 * Extra instructions for the writer (audience, tone).
 */
system_prompt: string | null, 
/**
 * Overrides the depth's number of rounds.
 */
max_iterations: number | null, 
/**
 * Coverage at which the gap loop stops.
 */
min_coverage: number, 
/**
 * Share of the checked claims the verification must find supported before the report is
 * written: under it, research goes back for what the unsupported claims are about (seed
 * 001's verification loop), at most [`RunConfig::verification_loops`] times.
 */
min_supported: number, 
/**
 * Times a failed verification may send the run back to research.
 */
verification_loops: number, 
/**
 * Search providers (`auto`, `local`, `tavily`, …).
 */
search: Array<string>, 
/**
 * Limits on model use.
 */
budget: Budget, 
/**
 * Which review points stop the run.
 */
review: ReviewPoints, 
/**
 * Never wait for a person: take the best interpretation and approve review points.
 */
no_input: boolean, 
/**
 * The report's language (`en`, `ja`, …); the question's language when absent.
 */
language: string | null, 
/**
 * The report's register.
 */
style: Style, 
/**
 * The length the report body should have, in words (the structure's own when absent).
 */
target_words: number | null, 
/**
 * Words the report may not use ([`DEFAULT_BANNED_WORDS`] when not chosen; see
 * [`RunConfig::banned`]).
 */
banned_words: Array<string> | null, 
/**
 * Revisions the review pipeline's reviewer may ask for before the best draft is taken.
 */
max_revisions: number, 
/**
 * How long review points wait before the run goes on without an answer (never when
 * absent).
 */
review_timeout: ReviewTimeout | null, 
/**
 * The trust pipeline's engine variant.
 */
trust: TrustVariant, 
/**
 * Trusted domains (`None`: [`DEFAULT_TRUSTED_DOMAINS`]).
 */
trusted_domains: Array<string> | null, 
/**
 * Low-trust domains (`None`: [`DEFAULT_LOW_TRUST_DOMAINS`]).
 */
low_trust_domains: Array<string> | null, 
/**
 * What the person tells the planner besides the question.
 */
background: Background, 
/**
 * Keep each model call's prompt and answer with the session, keys and secrets redacted,
 * for a person to inspect (seed 003); off by default, since they are large and may quote
 * what the person typed.
 */
record_calls: boolean, };

export type Background = { 
/**
 * What they already know, which the research need not establish again.
 */
known: string, 
/**
 * Domains or kinds of source to focus on ("academic", "industry", "SQLite internals").
 */
domains: Array<string>, 
/**
 * How to go about it ("primary sources only", "compare benchmarks from 2023 on").
 */
method: string, };

export type Mode = "single" | "multi";

export type Depth = "quick" | "standard" | "comprehensive";

export type Structure = "detailed" | "concise" | "bullet_points";

export type Style = "academic" | "technical" | "executive";

export type ReviewPoints = { 
/**
 * Ask the clarification question when the question is ambiguous.
 */
clarify: boolean, 
/**
 * Show the plan for approval before searching.
 */
plan: boolean, 
/**
 * Show the report for approval before it is final.
 */
report: boolean, };

export type ReviewTimeout = { 
/**
 * Minutes a question waits, from when it was asked.
 */
minutes: number, 
/**
 * What the run does then.
 */
then: TimeoutAction, };

export type TimeoutAction = "approve" | "stop";

export type Question = { "type": "clarify", 
/**
 * The question to show.
 */
question: string, 
/**
 * Choices.
 */
options: Array<string>, 
/**
 * Kinds of ambiguity found.
 */
ambiguities: Array<string>, } | { "type": "plan_review", 
/**
 * The plan.
 */
plan: Plan, } | { "type": "report_review", 
/**
 * The draft report (Markdown).
 */
report: string, 
/**
 * The writer's part of it (without findings, sources and method): what a person
 * edits; the rest is rebuilt around the edit.
 */
draft: string, } | { "type": "escalation", 
/**
 * Why the run asks, in one sentence.
 */
reason: string, 
/**
 * The open critical issues.
 */
issues: Array<Issue>, 
/**
 * The best draft's overall score, 0–10.
 */
score: number, 
/**
 * The check that asks (escalations saved before it was recorded are the reviewer's).
 */
by: EscalatedBy, };

export type EscalatedBy = "review" | "trust";

export type Answer = { "type": "clarify", 
/**
 * The answer.
 */
text: string, } | { "type": "approve_plan" } | { "type": "edit_plan", 
/**
 * The edited plan.
 */
plan: Plan, } | { "type": "cancel_plan" } | { "type": "approve_report" } | { "type": "revise_report", 
/**
 * What to change.
 */
feedback: string, } | { "type": "reject_report", 
/**
 * Why.
 */
reason: string, } | { "type": "edit_report", 
/**
 * The edited draft.
 */
draft: string, } | { "type": "accept_with_caveats" } | { "type": "research_more" } | { "type": "stop_run" } | { "type": "timed_out" };

export type Plan = { 
/**
 * 3–5 research questions.
 */
questions: Array<string>, 
/**
 * Aspects the report should cover.
 */
aspects: Array<string>, 
/**
 * Initial web searches.
 */
searches: Array<string>, 
/**
 * How the planner means to answer the question (seed 000's methodology), when it said so
 * in words a person can read.
 */
methodology?: string, 
/**
 * How sure the planner is that the plan answers the question, 0–1: the model's own
 * estimate, shown as such.
 */
confidence?: number, 
/**
 * What the planner is concerned about in the question's scope (too broad, ambiguous,
 * outside what can be found).
 */
concerns?: Array<string>, };

export type Outcome = "running" | "finished" | "cancelled" | "rejected";

export type Progress = { "type": "assigned", 
/**
 * The sub-question.
 */
question: string, } | { "type": "searching", 
/**
 * The query.
 */
query: string, } | { "type": "skipped", 
/**
 * The query.
 */
query: string, 
/**
 * The earlier query it resembles.
 */
similar_to: string, } | { "type": "reading", 
/**
 * Its URL.
 */
url: string, } | { "type": "read", 
/**
 * Its URL.
 */
url: string, 
/**
 * Facts taken from it.
 */
facts: number, } | { "type": "warning", 
/**
 * What.
 */
message: string, } | { "type": "coverage", 
/**
 * The round.
 */
iteration: number, 
/**
 * Coverage so far.
 */
coverage: number, 
/**
 * Gaps named.
 */
gaps: number, } | { "type": "writing" } | { "type": "llm_call", 
/**
 * The call.
 */
call: CallRecord, } | { "type": "banned_words_removed", 
/**
 * The words, as found.
 */
words: Array<string>, } | { "type": "quotes_unquoted", 
/**
 * How many quoted spans.
 */
count: number, } | { "type": "model_work", 
/**
 * The model string.
 */
model: string, 
/**
 * What it did.
 */
work: ModelWork, } | { "type": "citations_repaired", 
/**
 * Markers pointed at the right source.
 */
repaired: number, 
/**
 * Markers dropped.
 */
removed: number, };

export type Source = { 
/**
 * The citation number, stable for the run (`[n]` in the report).
 */
id: number, 
/**
 * Where it came from: an http(s) URL or a `file://` URL of a library file.
 */
url: string, 
/**
 * Its title (the URL when it had none).
 */
title: string, 
/**
 * `web`, `academic`, `news` or `local`.
 */
kind: string, 
/**
 * The search provider that found it.
 */
provider: string, 
/**
 * When it was published, as its search provider gave it (`None` when unknown): the trust
 * pipeline's freshness signal.
 */
published?: string, 
/**
 * SHA-256 of the stored extracted text: quotes are checked against that text.
 */
sha256: string, 
/**
 * When it was read (ms since the epoch).
 */
accessed_at_ms: number, 
/**
 * Who wrote it and where it appeared, for a citation style: the search provider's record
 * first, then what the document says of itself. `None` when neither says anything.
 */
citation?: Citation, };

export type Evidence = { 
/**
 * Number within the run.
 */
id: number, 
/**
 * The source's citation number.
 */
source_id: number, 
/**
 * The source's URL (workers know URLs before sources are numbered).
 */
source_url: string, 
/**
 * The fact in the model's words.
 */
fact: string, 
/**
 * The exact text of the source that supports it.
 */
quote: string, 
/**
 * The research question (index into the plan) it answers, when known.
 */
question: number | null, 
/**
 * The search that led to it.
 */
query: string, };

export type Claim = { 
/**
 * The evidence item the claim comes from.
 */
evidence_id: number, 
/**
 * The claim.
 */
text: string, 
/**
 * Whether the quote supports it.
 */
supported: boolean, };

export type RankedHit = { 
/**
 * The round of searches (from 1).
 */
round: number, 
/**
 * Its rank within the round (from 1).
 */
rank: number, 
/**
 * Its address.
 */
url: string, 
/**
 * Its title.
 */
title: string, 
/**
 * The first search that found it.
 */
query: string, 
/**
 * Its BM25 score against the question and the research questions (title, snippet and
 * address words).
 */
score: number, 
/**
 * Whether it was picked to read.
 */
picked: boolean, };

export type Metadata = { 
/**
 * `single` or `multi`.
 */
mode: string, 
/**
 * Rounds of the gap or synthesis loop.
 */
iterations: number, 
/**
 * Searches run.
 */
queries: Array<string>, 
/**
 * Searches skipped as near-duplicates.
 */
queries_skipped: Array<string>, 
/**
 * Sources read.
 */
sources_count: number, 
/**
 * Evidence items.
 */
evidence_count: number, 
/**
 * Model calls.
 */
llm_calls: number, 
/**
 * Prompt tokens.
 */
prompt_tokens: number, 
/**
 * Completion tokens.
 */
completion_tokens: number, 
/**
 * Estimated cost in US dollars (a lower bound when some prices are unknown).
 */
cost_usd: number, 
/**
 * Wall time from start to the report, ms.
 */
wall_ms: number, 
/**
 * Claims supported by their quotes.
 */
claims_supported: number, 
/**
 * Claims checked.
 */
claims_total: number, 
/**
 * Supported / total.
 */
confidence: number, 
/**
 * Coverage of the research questions.
 */
coverage: number, 
/**
 * Coverage after each round.
 */
coverage_history: Array<number>, 
/**
 * The report's language.
 */
language: string, 
/**
 * How the run ended.
 */
outcome: Outcome, 
/**
 * Models per role.
 */
models: { [key in string]: string }, 
/**
 * Model use per graph node.
 */
usage_by_node: { [key in string]: UsageTotals }, 
/**
 * Warnings.
 */
warnings: Array<string>, 
/**
 * The model's searches and research questions the run refused, each with why.
 */
refused: Array<string>, 
/**
 * Evidence items on the question or an accepted research question: the only ones the
 * report may cite and the confidence and coverage count.
 */
evidence_on_question: number, };

export type RunResult = { 
/**
 * The thread of the run.
 */
thread_id: string, 
/**
 * The question.
 */
question: string, 
/**
 * The report (Markdown).
 */
report: string, 
/**
 * Sources read.
 */
sources: Array<Source>, 
/**
 * Evidence with verbatim quotes.
 */
evidence: Array<Evidence>, 
/**
 * Checked claims.
 */
claims: Array<Claim>, 
/**
 * The plan's research questions.
 */
research_questions: Array<string>, 
/**
 * The audit of the report's cited sentences.
 */
audit: Array<AuditEntry>, 
/**
 * The review pipeline's drafts with their reviews (absent in other pipelines).
 */
review: ReviewRecord | null, 
/**
 * The trust pipeline's reading of the question (absent in other pipelines).
 */
profile?: Profile, 
/**
 * The trust pipeline's research tree: question levels, typed searches, outline (absent in
 * other pipelines).
 */
tree?: ResearchTree, 
/**
 * The trust engine's record: credibility, cross-validated claims, hallucination score
 * (absent in other pipelines).
 */
trust?: TrustRecord, 
/**
 * Every round's search hits, merged and ranked against the question before the source
 * cap chose what to read (best first within a round; `picked` marks those read).
 */
ranked_hits: Array<RankedHit>, 
/**
 * Counts and settings.
 */
metadata: Metadata, };

export type Coverage = "missing" | "partial" | "well_covered";

export type AuditEntry = { 
/**
 * The sentence as the report has it (as the writer had it, for a removed one).
 */
sentence: string, 
/**
 * The sources it cites.
 */
sources: Array<number>, 
/**
 * What the audit decided.
 */
status: AuditStatus, 
/**
 * The evidence items that decided it.
 */
evidence: Array<number>, 
/**
 * Which check decided, in words.
 */
check: string, 
/**
 * The writer's own sentence, when the audit rewrote it.
 */
written?: string, 
/**
 * The words of the source that bear it out: the best window of one to three sentences
 * of the source the checker aligned it to (the quote, for a sentence rewritten from it).
 */
passage?: string, 
/**
 * The checker's calibrated probability that a person finds it in its sources, 0 to 1
 * (`None` where the checker did not judge it: a fragment, a rewrite, a quote).
 */
score?: number, };

export type AuditStatus = "verified" | "partly" | "rewritten" | "flagged" | "removed";

export type Analysis = { 
/**
 * Themes that run across the evidence.
 */
themes: Array<string>, 
/**
 * Sources that disagree.
 */
contradictions: Array<Contradiction>, 
/**
 * What the evidence does not answer.
 */
gaps: Array<string>, 
/**
 * How far the evidence can be trusted, 0–1 (never above the supported share of claims).
 */
confidence: number, };

export type Contradiction = { 
/**
 * What they disagree about, in a few words.
 */
about: string, 
/**
 * One side: an evidence item.
 */
first: number, 
/**
 * The other side: an evidence item of another source.
 */
second: number, };

export type ReviewRecord = { 
/**
 * Every draft, oldest first.
 */
drafts: Array<ReviewedDraft>, 
/**
 * Why the run ended with the best draft instead of an approved one, when it did.
 */
fallback: string | null, 
/**
 * A model failure that ended the loop (the fallback's reason then says so).
 */
failure: string | null, 
/**
 * Escalations to the person, in order.
 */
escalations: Array<Escalated>, };

export type ReviewedDraft = { 
/**
 * 1 for the first draft, then each revision.
 */
version: number, 
/**
 * The writer's part, as audited.
 */
body: string, 
/**
 * The whole report of this draft.
 */
report: string, 
/**
 * The audit of its cited sentences.
 */
audit: Array<AuditEntry>, 
/**
 * Why the writer's prose was replaced by the passages, when it was.
 */
rejected: string | null, 
/**
 * The review (none until reviewed).
 */
critique: Critique | null, 
/**
 * What asked for this draft: the reviewer's issues or a person's feedback (none for the
 * first).
 */
asked: string, };

export type Critique = { 
/**
 * Each criterion's score, 0–10.
 */
scores: Array<CriterionScore>, 
/**
 * The weighted overall score, 0–10.
 */
overall: number, 
/**
 * Itemised issues, the checks' first.
 */
issues: Array<Issue>, 
/**
 * The decision.
 */
verdict: Verdict, 
/**
 * The reviewer's summary in a sentence or two.
 */
summary: string, 
/**
 * How much a revision could still improve, 0–1 (the model's estimate).
 */
improvement_potential: number, };

export type CriterionScore = { 
/**
 * The criterion.
 */
criterion: Criterion, 
/**
 * 0–10.
 */
score: number, };

export type Criterion = "accuracy" | "completeness" | "coherence" | "citation" | "methodology" | "style";

export type Issue = { 
/**
 * The criterion it falls under.
 */
category: Criterion, 
/**
 * How much it matters.
 */
severity: Severity, 
/**
 * Where: a section, a sentence, or "general".
 */
location: string, 
/**
 * What is wrong.
 */
description: string, 
/**
 * What would fix it.
 */
fix: string, 
/**
 * Who found it.
 */
found_by: FoundBy, };

export type Severity = "critical" | "major" | "minor" | "suggestion";

export type FoundBy = "check" | "model";

export type Verdict = "approve" | "revise" | "reject";

export type Escalated = { 
/**
 * The last draft when the run asked.
 */
after_draft: number, 
/**
 * What was chosen.
 */
choice: EscalationChoice, 
/**
 * Whether `--no-input` chose (accept), not a person.
 */
automatic: boolean, };

export type EscalationChoice = "accept" | "research_more" | "stop";

export type TrustVariant = "batched" | "full";

export type Profile = { 
/**
 * What the person wants to know, in one sentence.
 */
intent: string, 
/**
 * Factual, comparative or exploratory.
 */
class: QueryClass, 
/**
 * The things the question is about.
 */
entities: Array<string>, 
/**
 * The time the question is about, when it names one.
 */
temporal: string | null, 
/**
 * Simple (fast path) or complex (orchestrator).
 */
complexity: Complexity, 
/**
 * How sure the run is of its reading, 0 to 1 (the model's, capped by the discovery search).
 */
confidence: number, 
/**
 * Why that confidence, in words.
 */
why: string, 
/**
 * Clarifications asked so far.
 */
clarifications: number, };

export type ResearchTree = { 
/**
 * The research questions, primary first.
 */
questions: Array<TreeQuestion>, 
/**
 * The searches that run, typed.
 */
searches: Array<TypedSearch>, 
/**
 * The report's sections, in order.
 */
outline: Array<string>, };

export type TreeQuestion = { 
/**
 * The question.
 */
question: string, 
/**
 * How directly it answers the question.
 */
level: Level, };

export type TypedSearch = { 
/**
 * The keyword query.
 */
query: string, 
/**
 * Where to look.
 */
kind: SearchKind, 
/**
 * The first publication year wanted.
 */
from_year: number | null, 
/**
 * The last publication year wanted.
 */
to_year: number | null, };

export type Level = "primary" | "secondary" | "tertiary";

export type SearchKind = "web" | "academic" | "news";

export type QueryClass = "factual" | "comparative" | "exploratory";

export type Complexity = "simple" | "complex";

export type TrustRecord = { 
/**
 * The variant that ran.
 */
variant: TrustVariant, 
/**
 * Each source's credibility, in source order.
 */
credibility: Array<Credibility>, 
/**
 * Sources that speak with an earlier one's voice (mirrors, copies, the same site).
 */
same_origin: Array<SameOrigin>, 
/**
 * Every claim of the report, cross-validated.
 */
claims: Array<ClaimTrust>, 
/**
 * Claims the writer made (the body's cited sentences, before the audit).
 */
writer_claims: number, 
/**
 * Of those, how many are not supported as written: rewritten, removed or flagged, or
 * only partly supported and more likely than not unattributable
 * ([`AuditEntry::unsupported_as_written`]).
 */
unsupported: number, 
/**
 * `unsupported / writer_claims` (0 with no claims).
 */
hallucination: number, 
/**
 * What each mark of the report means (a record from before the legend was kept gets
 * today's).
 */
legend: Array<MarkMeaning>, };

export type Credibility = { 
/**
 * The source.
 */
source_id: number, 
/**
 * 0 to 1.
 */
score: number, 
/**
 * Whether it is kept out of the writer's evidence (under [`MIN_CREDIBILITY`]).
 */
excluded: boolean, 
/**
 * Why, one reason per signal, in words.
 */
why: Array<string>, };

export type SameOrigin = { 
/**
 * The later source.
 */
source_id: number, 
/**
 * The earlier source it speaks with.
 */
of: number, 
/**
 * Why, in words ("the same site, example.org", "a copy of its text").
 */
why: string, };

export type ClaimTrust = { 
/**
 * The sentence as the report has it (marked).
 */
sentence: string, 
/**
 * What the audit decided about it.
 */
status: AuditStatus, 
/**
 * The sources that say it.
 */
supported_by: Array<Corroboration>, 
/**
 * How many independent origins those are.
 */
origins: number, 
/**
 * Sources that state other numbers about the same thing.
 */
contradicted_by: Array<Conflict>, 
/**
 * ✓✓, ✓ or ⚠.
 */
mark: TrustMark, 
/**
 * 0 to 1: the audit's verdict, independent support, credibility and contradiction.
 */
confidence: number, 
/**
 * How it was checked, in words.
 */
check: string, };

export type Corroboration = { 
/**
 * The source.
 */
source_id: number, 
/**
 * Its words that say it.
 */
quote: string, 
/**
 * The evidence item those words are (`None` for a passage found by cross-validation that
 * is not cited; a cited one becomes evidence).
 */
evidence_id: number | null, 
/**
 * Whether the report cites it for the claim.
 */
cited: boolean, };

export type Conflict = { 
/**
 * The source.
 */
source_id: number, 
/**
 * Its words.
 */
quote: string, 
/**
 * The numbers it states that the claim does not.
 */
numbers: Array<string>, 
/**
 * The evidence item those words are, once cited.
 */
evidence_id: number | null, };

export type TrustMark = "corroborated" | "verified" | "weak";

export type MarkMeaning = { 
/**
 * The mark.
 */
mark: TrustMark, 
/**
 * ✓✓, ✓ or ⚠.
 */
symbol: string, 
/**
 * Its name: "Corroborated", "Verified", "Weak".
 */
label: string, 
/**
 * What it means, in words.
 */
meaning: string, };

export type Role = "understand" | "plan" | "extract" | "gaps" | "orchestrate" | "summarize" | "synthesize" | "verify" | "analyze" | "write" | "review";

export type RoleInfo = { 
/**
 * The role.
 */
role: Role, 
/**
 * What it does, in words for the app.
 */
words: string, 
/**
 * Whether the fast model answers it unless a per-role model is set.
 */
fast: boolean, 
/**
 * Typical prompt tokens of one call (for estimates).
 */
prompt_tokens: number, 
/**
 * Typical completion tokens of one call (for estimates).
 */
completion_tokens: number, };

export type PipelineInfo = { 
/**
 * The name it is registered (and saved with each thread) under.
 */
name: string, 
/**
 * A short title.
 */
title: string, 
/**
 * One sentence on when to use it.
 */
summary: string, };

export type OutlineStep = { 
/**
 * The graph node.
 */
node: string, 
/**
 * The model role its calls use (none for steps without model calls).
 */
role: Role | null, 
/**
 * What the run is doing while at this step, in words.
 */
doing: string, };

export type WarningKind = "other" | "search_failed" | "unreadable" | "blocked" | "not_stored" | "not_extracted" | "model_failed" | "context_overflow" | "parse_failed" | "timed_out" | "refused" | "switched" | "repeated";

export type CallRecord = { 
/**
 * The graph node that made the call.
 */
node: string, 
/**
 * The request's purpose (`plan`, `extract`, …).
 */
purpose: string, 
/**
 * The model string.
 */
model: string, 
/**
 * Prompt tokens.
 */
prompt_tokens: number, 
/**
 * Completion tokens.
 */
completion_tokens: number, 
/**
 * Wall time in milliseconds.
 */
latency_ms: number, 
/**
 * When it started, ms since the epoch (absent in calls recorded before it was kept): with
 * the latency, which calls overlapped and how much of a run's wall time waited on a model.
 */
started_at_ms?: number, 
/**
 * Estimated cost, when the price is known.
 */
cost_usd: number | null, 
/**
 * Whether the call failed.
 */
failed: boolean, 
/**
 * What was sent and answered, redacted: kept only when the run asked for it
 * ([`Meter::keeping_exchanges`]).
 */
exchange?: Exchange, };

export type ModelRouting = { 
/**
 * The default model string.
 */
model: string, 
/**
 * The model for fast roles (defaults to `model`).
 */
fast_model: string | null, 
/**
 * Role name → model string, overriding both.
 */
roles: { [key in string]: string }, };

export type Budget = { 
/**
 * Model calls.
 */
max_calls: number | null, 
/**
 * Prompt and completion tokens together.
 */
max_tokens: number | null, 
/**
 * Estimated cost in US dollars.
 */
max_cost_usd: number | null, };

export type UsageTotals = { 
/**
 * Calls made.
 */
calls: number, 
/**
 * Prompt tokens.
 */
prompt_tokens: number, 
/**
 * Completion tokens.
 */
completion_tokens: number, 
/**
 * Estimated cost of the calls whose price is known.
 */
cost_usd: number, 
/**
 * Calls whose price is unknown (so `cost_usd` is a lower bound).
 */
unpriced_calls: number, };
