//! The built-in model's batch loop: one llama.cpp context per model serves every request of the
//! process together, a sequence each (continuous batching, as llama.cpp's server does with
//! `--parallel`). On a CPU, decoding eight sequences in one batch reads the weights once for
//! eight tokens instead of eight times; a run's parallel extraction calls then cost little more
//! than one.
//!
//! - A request joins the running batch at the next step and leaves it when done; each has its
//!   own sampler chain (grammar, penalties, temperature) and its own stop strings.
//! - A request whose caller went away (a cancelled run) leaves at the next step; its slot is free.
//! - Prompt-prefix reuse: each slot keeps the tokens its last request left in the KV cache, and a
//!   new request goes to the slot sharing the longest prefix with its prompt, which is not
//!   evaluated again (the system prompt and instructions every extraction call shares). A model
//!   with sliding-window attention (Gemma 3) keeps only a window's worth of cache for those
//!   layers (a full-length one made Gemma's long prompts 1.5 times slower: its attention then
//!   spans every position), and overwrites the oldest positions of a long sequence: a slot
//!   whose cache no longer holds position 0 evaluates its next prompt in full.
//! - How many sequences at once: up to [`LocalConfig::max_sequences`] (1 unless set), fewer when their KV
//!   caches together would take more than a quarter of the memory free now; one for a model
//!   with sliding-window attention, measured slower batched (see `sequences_for`).
//! - The context lives while there is work, and a few seconds after (so a run's next call finds
//!   its prefix); then its memory goes back to the system.

use std::collections::{HashMap, VecDeque};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use super::sampling::{loops, Draw, StopScan};
use super::{backend, bad, LocalConfig};
use crate::{ChatRequest, LlmError, Usage};

/// What a request gets back: decoded text as it comes, then the outcome.
pub(super) enum Piece {
    Text(String),
    Done(Result<(String, Usage), LlmError>),
}

/// A request, its prompt already in tokens.
struct Job {
    request: ChatRequest,
    config: LocalConfig,
    prompt: Vec<LlamaToken>,
    max_tokens: usize,
    /// Closed when the caller went away: the sequence then stops.
    send: tokio::sync::mpsc::UnboundedSender<Piece>,
    /// Counts the request as pending until it is dropped, however it ends (a panic included).
    ticket: Ticket,
}

/// One pending request of an engine.
struct Ticket(Arc<AtomicUsize>);

impl Ticket {
    fn new(pending: &Arc<AtomicUsize>) -> Self {
        pending.fetch_add(1, Ordering::SeqCst);
        Self(pending.clone())
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A prefix shorter than this is not worth a slot's cache: every prompt of a chat template
/// shares its first few tokens with any other, and a slot kept for a long shared prefix (a
/// system prompt) should not go to a request that shares only those.
const MIN_REUSE: usize = 32;

/// Tokens evaluated at most per step: a long prompt is evaluated over several steps, while the
/// sequences already answering keep getting a token per step.
const STEP_TOKENS: usize = 1024;

/// How long an idle context is kept, so a run's next call reuses its prompt's prefix.
const KEEP_WARM: Duration = Duration::from_secs(10);

/// What a context is made for: one model file at one context size and thread count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape {
    path: PathBuf,
    context_tokens: u32,
    threads: i32,
    max_sequences: u32,
}

/// Where the requests to one model go.
pub(super) struct Engine {
    jobs: Sender<Job>,
    /// Requests submitted and not yet answered (waiting or running).
    pending: Arc<AtomicUsize>,
    /// Prompt tokens taken from the cache instead of evaluated, in all.
    reused: Arc<AtomicU64>,
    /// Requests decoded together at most.
    sequences: u32,
}

impl Engine {
    /// The engine of `model` for `config`'s shape, started on first use and shared by every
    /// client of the process.
    pub(super) fn of(model: &Arc<LlamaModel>, path: &Path, config: &LocalConfig) -> Arc<Engine> {
        static ENGINES: OnceLock<Mutex<HashMap<Shape, Arc<Engine>>>> = OnceLock::new();
        let shape = Shape {
            path: path.to_path_buf(),
            context_tokens: config.context_tokens,
            threads: config.threads,
            max_sequences: config.max_sequences.max(1),
        };
        ENGINES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(shape.clone())
            .or_insert_with(|| {
                let (jobs, queue) = std::sync::mpsc::channel();
                let pending = Arc::new(AtomicUsize::new(0));
                let reused = Arc::new(AtomicU64::new(0));
                let model = model.clone();
                let counts = reused.clone();
                let sequences = sequences_for(&model, &shape);
                stop_engines_at_exit();
                std::thread::Builder::new()
                    .name("research-llm-local".into())
                    .spawn(move || serve(&model, &shape, sequences, &queue, &counts))
                    .expect("a thread for the built-in model");
                Arc::new(Engine {
                    jobs,
                    pending,
                    reused,
                    sequences,
                })
            })
            .clone()
    }

    /// Queues a request; its text and then its outcome come on the receiver. Dropping the
    /// receiver (a cancelled run) stops the request at the next step.
    pub(super) fn submit(
        &self,
        request: ChatRequest,
        config: LocalConfig,
        prompt: Vec<LlamaToken>,
        max_tokens: usize,
    ) -> Result<tokio::sync::mpsc::UnboundedReceiver<Piece>, LlmError> {
        let (send, answer) = tokio::sync::mpsc::unbounded_channel();
        let job = Job {
            request,
            config,
            prompt,
            max_tokens,
            send,
            ticket: Ticket::new(&self.pending),
        };
        self.jobs.send(job).map_err(|e| {
            bad(
                Path::new("the built-in model"),
                format!("its thread has stopped: {e}"),
            )
        })?;
        Ok(answer)
    }

    /// Whether a request is waiting or running.
    pub(super) fn busy(&self) -> bool {
        self.pending.load(Ordering::SeqCst) > 0
    }

    /// Prompt tokens taken from the cache instead of evaluated, since the engine started.
    pub(super) fn reused(&self) -> u64 {
        self.reused.load(Ordering::SeqCst)
    }

    /// Requests decoded together at most.
    pub(super) fn sequences(&self) -> u32 {
        self.sequences
    }
}

/// Set when the process begins to exit: engines let their contexts go at the next step.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Engine threads holding a context now.
static SERVING: AtomicUsize = AtomicUsize::new(0);

/// The longest the process's exit waits for engines to let their contexts go.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// How often an idle engine looks whether the process is exiting.
const IDLE_POLL: Duration = Duration::from_millis(50);

/// At exit, before llama.cpp's own statics are torn down (registered after them, so run before
/// them), stops every engine at its next step and waits for it to free its context: a thread
/// still decoding while they go crashes the process on its way out (seen as a SIGSEGV after a
/// test had passed). A step still running after EXIT_WAIT (a long prompt on a large model) is
/// not waited for: llama.cpp's abort callback, which would cut it short, is not in the safe
/// bindings.
extern "C" fn on_exit() {
    EXITING.store(true, Ordering::SeqCst);
    let until = std::time::Instant::now() + EXIT_WAIT;
    while SERVING.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Registered again with every engine started (one per model shape, so a handful): each
/// registration runs before whatever llama.cpp built while loading that model, and `on_exit`
/// may run more than once.
fn stop_engines_at_exit() {
    unsafe extern "C" {
        fn atexit(callback: extern "C" fn()) -> std::os::raw::c_int;
    }
    // SAFETY: `on_exit` is a plain function that only touches atomics and sleeps.
    if unsafe { atexit(on_exit) } != 0 {
        tracing::warn!("could not ask to stop the built-in model at exit");
    }
}

/// Counts an engine thread as serving while it holds a context.
struct Serving;

impl Serving {
    fn start() -> Self {
        SERVING.fetch_add(1, Ordering::SeqCst);
        Self
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        SERVING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// llama.cpp contexts must not be created concurrently from one model.
fn context_lock() -> &'static Mutex<()> {
    static LOCK: OnceLock<Mutex<()>> = OnceLock::new();
    LOCK.get_or_init(Default::default)
}

/// How many sequences one context serves: the configured most, fewer when their KV caches
/// together (f16 keys and values of every layer for the whole context, each) would take more
/// than a quarter of the memory available now.
fn sequences_for(model: &LlamaModel, shape: &Shape) -> u32 {
    let arch = model
        .meta_val_str("general.architecture")
        .unwrap_or_default();
    let meta = |key: &str| -> Option<u64> {
        model
            .meta_val_str(&format!("{arch}.attention.{key}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    // A head's width as the file says (Gemma 3: 256, not n_embd / n_head = 160).
    let guess = model.n_embd() as u64 / u64::from(model.n_head().max(1));
    let widths = meta("key_length").unwrap_or(guess) + meta("value_length").unwrap_or(guess);
    let per_token = u64::from(model.n_layer()) * widths * u64::from(model.n_head_kv()) * 2;
    let per_sequence = (per_token * u64::from(shape.context_tokens)).max(1);
    let budget = available_memory().unwrap_or(2 << 30) / 4;
    // Measured (BENCHMARKS.md): a research run with Gemma 3, whose layers mostly attend over a
    // sliding window, takes longer with its calls decoded together than one at a time (131 s
    // against 123 s with a window's worth of cache, 125 s against 86 s before that), and its
    // greedy answers together differ from those alone as llama.cpp's own server's do (numbers
    // summed in another order flip its near-tied tokens); SmolLM2's are the same and its run
    // 0.82 times as long. So a model with a sliding window is served one request at a time
    // (prefix reuse still works).
    if meta("sliding_window").is_some_and(|w| w > 0) {
        return 1;
    }
    ((budget / per_sequence) as u32).clamp(1, shape.max_sequences)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The engine's thread: waits for work, makes a context, serves until idle, lets it go. A panic
/// while serving fails the requests in hand (their callers are told the answer ended without a
/// result) and the thread goes on serving the next ones.
fn serve(
    model: &LlamaModel,
    shape: &Shape,
    sequences: u32,
    queue: &Receiver<Job>,
    reused: &AtomicU64,
) {
    tracing::debug!(sequences, path = %shape.path.display(), "the built-in model serves requests together");
    while let Ok(first) = queue.recv() {
        let session = std::panic::AssertUnwindSafe(|| {
            serve_while_busy(model, shape, sequences, queue, reused, first)
        });
        match std::panic::catch_unwind(session) {
            Ok(Some(Stop)) => return,
            Ok(None) => {}
            Err(_) => {
                tracing::error!("the built-in model's batch loop panicked; its requests failed")
            }
        }
    }
}

/// The queue was closed: the engine is gone.
struct Stop;

/// Serves `first` and what comes after it on one context, until nothing has come for
/// [`KEEP_WARM`].
fn serve_while_busy(
    model: &LlamaModel,
    shape: &Shape,
    sequences: u32,
    queue: &Receiver<Job>,
    reused: &AtomicU64,
    first: Job,
) -> Option<Stop> {
    let mut waiting = VecDeque::from([first]);
    // Counted before the context exists and after it is freed (declared first, dropped last).
    let _serving = Serving::start();
    if EXITING.load(Ordering::SeqCst) {
        return Some(Stop);
    }
    let context = {
        let _one_at_a_time = context_lock().lock().unwrap_or_else(|p| p.into_inner());
        new_context(model, shape, sequences)
    };
    let mut batch = match context {
        Ok(ctx) => Batcher::new(model, &shape.path, ctx, sequences as usize, reused),
        Err(e) => {
            let why = e.to_string();
            for job in waiting.drain(..).chain(queue.try_iter()) {
                Finished::of(job, Err(bad(&shape.path, &why))).finish();
            }
            return None;
        }
    };
    let mut idle_since: Option<std::time::Instant> = None;
    loop {
        if EXITING.load(Ordering::SeqCst) {
            return Some(Stop);
        }
        waiting.extend(queue.try_iter());
        while batch.free_slot().is_some() {
            let Some(job) = waiting.pop_front() else {
                break;
            };
            // Its caller left while it waited: nothing to answer, no slot's cache to spend.
            if job.send.is_closed() {
                continue;
            }
            if let Some(done) = batch.admit(job) {
                done.finish();
            }
        }
        if batch.is_idle() {
            // Warm for KEEP_WARM, looking now and then whether the process is exiting.
            let since = *idle_since.get_or_insert_with(std::time::Instant::now);
            match queue.recv_timeout(IDLE_POLL) {
                Ok(job) => {
                    idle_since = None;
                    waiting.push_back(job);
                    continue;
                }
                Err(RecvTimeoutError::Timeout) if since.elapsed() >= KEEP_WARM => return None,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Some(Stop),
            }
        }
        idle_since = None;
        for done in batch.step() {
            done.finish();
        }
    }
}

fn new_context<'m>(
    model: &'m LlamaModel,
    shape: &Shape,
    sequences: u32,
) -> Result<LlamaContext<'m>, LlmError> {
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(shape.context_tokens * sequences))
        .with_n_batch(STEP_TOKENS as u32)
        .with_n_seq_max(sequences)
        // Each sequence its own part of the cache, the whole context long.
        .with_kv_unified(false)
        // A window's worth of cache for sliding-window layers (Gemma 3), as llama.cpp's server
        // keeps: the library's own default is the whole context, over which those layers then
        // attend (a Gemma run took 1.11 times as long with it, BENCHMARKS.md).
        .with_swa_full(false)
        .with_n_threads(shape.threads)
        .with_n_threads_batch(shape.threads);
    model
        .new_context(backend()?, params)
        .map_err(|e| bad(&shape.path, e))
}

/// A request that left the batch, with what its caller is told.
struct Finished {
    send: tokio::sync::mpsc::UnboundedSender<Piece>,
    outcome: Result<(String, Usage), LlmError>,
    ticket: Ticket,
}

impl Finished {
    fn of(job: Job, outcome: Result<(String, Usage), LlmError>) -> Self {
        Self {
            send: job.send,
            outcome,
            ticket: job.ticket,
        }
    }

    /// Tells the caller; the engine is no longer busy with it by the time the caller hears.
    fn finish(self) {
        drop(self.ticket);
        let _ = self.send.send(Piece::Done(self.outcome));
    }
}

/// One request in the batch.
struct Sequence {
    slot: usize,
    job: Job,
    draw: Draw,
    stops: StopScan,
    decoder: encoding_rs::Decoder,
    text: String,
    generated: Vec<LlamaToken>,
    /// Prompt tokens in the cache so far.
    fed: usize,
    /// The token sampled last, to be evaluated at the next step.
    next: Option<LlamaToken>,
}

/// The context and the sequences it serves.
struct Batcher<'m> {
    model: &'m LlamaModel,
    path: &'m Path,
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    /// What each slot's part of the cache holds, token by token from position 0.
    cached: Vec<Vec<LlamaToken>>,
    busy: Vec<bool>,
    running: Vec<Sequence>,
    reused: &'m AtomicU64,
}

impl<'m> Batcher<'m> {
    fn new(
        model: &'m LlamaModel,
        path: &'m Path,
        ctx: LlamaContext<'m>,
        slots: usize,
        reused: &'m AtomicU64,
    ) -> Self {
        Self {
            model,
            path,
            ctx,
            // A step never holds more than STEP_TOKENS tokens, each of one sequence.
            batch: LlamaBatch::new(STEP_TOKENS, 1),
            cached: vec![Vec::new(); slots],
            busy: vec![false; slots],
            running: Vec::new(),
            reused,
        }
    }

    fn free_slot(&self) -> Option<usize> {
        self.busy.iter().position(|b| !b)
    }

    fn is_idle(&self) -> bool {
        self.running.is_empty()
    }

    /// Puts a request in the free slot whose cache shares the longest prefix with its prompt,
    /// and drops the rest of that slot's cache. `Some` when it ends at once (a bad schema).
    fn admit(&mut self, job: Job) -> Option<Finished> {
        if job.max_tokens == 0 {
            let usage = Usage {
                prompt_tokens: job.prompt.len() as u64,
                completion_tokens: 0,
            };
            return Some(Finished::of(job, Ok((String::new(), usage))));
        }
        let draw = match Draw::new(self.model, self.path, &job.config, &job.request) {
            Ok(s) => s,
            Err(e) => return Some(Finished::of(job, Err(e))),
        };
        // The free slot sharing the longest prefix, when that is worth keeping; else the lowest
        // free one, with what little it shares (sequences on neighbouring slots are decoded in
        // one pass: llama.cpp batches per-sequence caches only in rising, consecutive order).
        let lowest = self.free_slot().expect("admitted only when a slot is free");
        let (slot, shared) = (0..self.busy.len())
            .filter(|s| !self.busy[*s])
            .map(|s| (s, common_prefix(&self.cached[s], &job.prompt)))
            .filter(|(_, n)| *n >= MIN_REUSE)
            .max_by_key(|(s, n)| (*n, std::cmp::Reverse(*s)))
            .unwrap_or_else(|| (lowest, common_prefix(&self.cached[lowest], &job.prompt)));
        // At least the prompt's last token is evaluated: its logits give the first answer token.
        let mut keep = shared.min(job.prompt.len().saturating_sub(1));
        let slot_id = slot as u32;
        let kept = keep > 0
            && self
                .ctx
                .clear_kv_cache_seq(Some(slot_id), Some(keep as u32), None)
                .unwrap_or(false)
            // Position 0 must still be there: a sliding window (Gemma 3) forgets early
            // positions, and a prefix it no longer holds in full cannot be resumed from.
            && self.ctx.kv_cache_seq_pos_min(slot as i32) == 0;
        if !kept {
            keep = 0;
            let _ = self.ctx.clear_kv_cache_seq(Some(slot_id), None, None);
        }
        self.cached[slot].truncate(keep);
        self.reused.fetch_add(keep as u64, Ordering::Relaxed);
        self.busy[slot] = true;
        tracing::trace!(
            slot,
            reused = keep,
            prompt = job.prompt.len(),
            "a request joins the batch"
        );
        self.running.push(Sequence {
            slot,
            stops: StopScan::new(&job.request.stop),
            job,
            draw,
            decoder: encoding_rs::UTF_8.new_decoder(),
            text: String::new(),
            generated: Vec::new(),
            fed: keep,
            next: None,
        });
        None
    }

    /// One decode of every running sequence: a token each for those answering, a chunk of
    /// prompt for those still reading theirs; then a token sampled for each that has logits.
    /// Returns the sequences that ended.
    fn step(&mut self) -> Vec<Finished> {
        let mut ended = Vec::new();
        // Callers that went away: their slots are free now (what they cached stays reusable).
        let mut i = 0;
        while i < self.running.len() {
            if self.running[i].job.send.is_closed() {
                let gone = self.running.remove(i);
                tracing::debug!(
                    tokens = gone.generated.len(),
                    "the answer is no longer wanted"
                );
                self.busy[gone.slot] = false;
                ended.push(Finished::of(
                    gone.job,
                    Err(bad(self.path, "the request was cancelled")),
                ));
            } else {
                i += 1;
            }
        }
        // In slot order, each sequence's tokens together: llama.cpp decodes a run of
        // consecutive slots in one pass. Sequences answering take a token each; those still
        // reading their prompt share the rest of the step.
        self.running.sort_by_key(|s| s.slot);
        self.batch.clear();
        let answering = self.running.iter().filter(|s| s.next.is_some()).count();
        let mut room = STEP_TOKENS.saturating_sub(answering);
        let mut sampled_at: Vec<(usize, i32)> = Vec::new();
        let mut failed: Option<String> = None;
        for (index, seq) in self.running.iter_mut().enumerate() {
            let slot = [seq.slot as i32];
            if let Some(token) = seq.next.take() {
                let pos = self.cached[seq.slot].len() as i32;
                if let Err(e) = self.batch.add(token, pos, &slot, true) {
                    failed = Some(e.to_string());
                    break;
                }
                self.cached[seq.slot].push(token);
                sampled_at.push((index, self.batch.n_tokens() - 1));
                continue;
            }
            let take = (seq.job.prompt.len() - seq.fed).min(room);
            for k in seq.fed..seq.fed + take {
                let last = k + 1 == seq.job.prompt.len();
                if let Err(e) = self.batch.add(seq.job.prompt[k], k as i32, &slot, last) {
                    failed = Some(e.to_string());
                    break;
                }
                self.cached[seq.slot].push(seq.job.prompt[k]);
                if last {
                    sampled_at.push((index, self.batch.n_tokens() - 1));
                }
            }
            seq.fed += take;
            room -= take;
            if failed.is_some() {
                break;
            }
        }
        let decoded = match failed {
            Some(e) => Err(e),
            None if self.batch.n_tokens() == 0 => return ended,
            None => self.ctx.decode(&mut self.batch).map_err(|e| e.to_string()),
        };
        if let Err(e) = decoded {
            // What the cache holds of these sequences is unknown now: drop it, fail them all.
            for seq in self.running.drain(..) {
                let _ = self
                    .ctx
                    .clear_kv_cache_seq(Some(seq.slot as u32), None, None);
                self.cached[seq.slot].clear();
                self.busy[seq.slot] = false;
                ended.push(Finished::of(seq.job, Err(bad(self.path, &e))));
            }
            return ended;
        }
        let mut done: Vec<usize> = Vec::new();
        for (index, at) in sampled_at {
            let seq = &mut self.running[index];
            let token = seq.draw.next(self.ctx.get_logits_ith(at));
            if take_token(self.model, seq, token) {
                done.push(index);
            } else {
                seq.next = Some(token);
            }
        }
        done.sort_unstable_by(|a, b| b.cmp(a));
        for index in done {
            let mut seq = self.running.remove(index);
            self.busy[seq.slot] = false;
            tracing::trace!(
                tokens = seq.generated.len(),
                redrawn = seq.draw.redrawn,
                whole_vocabulary = seq.draw.full,
                "a request leaves the batch"
            );
            let answer = seq.answer();
            ended.push(Finished::of(seq.job, Ok(answer)));
        }
        ended
    }
}

impl Sequence {
    fn answer(&mut self) -> (String, Usage) {
        (
            std::mem::take(&mut self.text),
            Usage {
                prompt_tokens: self.job.prompt.len() as u64,
                completion_tokens: self.generated.len() as u64,
            },
        )
    }

    fn emit(&mut self, piece: String) {
        if !piece.is_empty() {
            self.text.push_str(&piece);
            let _ = self.job.send.send(Piece::Text(piece));
        }
    }
}

/// Takes a sampled token into its sequence's answer; whether the answer is complete (the model
/// ended it, a stop string, a loop, or the length asked for).
fn take_token(model: &LlamaModel, seq: &mut Sequence, token: LlamaToken) -> bool {
    let vocab = model.vocab();
    if vocab.is_eog(token) {
        let rest = seq.stops.finish();
        seq.emit(rest);
        return true;
    }
    seq.generated.push(token);
    let bytes = vocab.token_to_piece(token, false, None);
    let mut piece = String::with_capacity(bytes.len() + 4);
    let _ = seq.decoder.decode_to_string(&bytes, &mut piece, false);
    let (ready, hit) = seq.stops.push(&piece);
    seq.emit(ready);
    if hit {
        return true;
    }
    let looping = loops(&seq.generated, seq.job.config.loop_repeats as usize);
    if looping {
        tracing::debug!(
            tokens = seq.generated.len(),
            "the built-in model repeats itself; generation stopped"
        );
    }
    if looping || seq.generated.len() >= seq.job.max_tokens {
        let rest = seq.stops.finish();
        seq.emit(rest);
        return true;
    }
    false
}

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
