// The library's folders and their indexing.
import { Channel } from "@tauri-apps/api/core";
import { api, humanError } from "../api";
import { importText, progressText } from "../format";
import type { AppState, Progress } from "../store";
import type { DownloadProgress, EmbedProgress, ImportReport, IndexReport } from "../types";
import { downloadPercent, downloadText } from "../download";
import type { Base } from "./base";

export function libraryActions({ store, fail, show }: Base) {
  const setLibrary = (change: Partial<AppState["library"]>) => store.update((s) => ({ library: { ...s.library, ...change } }));
  const setLibraryProgress = (progress: Partial<Progress>) => store.update((s) => ({ library: { ...s.library, progress: { ...s.library.progress, ...progress } } }));

  /**
   * Runs one of the library's long commands with its progress channel: `busy` while it runs, each
   * message drawn by `step`, the result by `done`, an error in words.
   */
  async function withProgress<P, R>(
    busy: NonNullable<AppState["library"]["busy"]>,
    starting: string,
    step: (p: P) => Partial<Progress>,
    run: (channel: Channel<P>) => Promise<R>,
    done: (result: R) => Partial<Progress>,
  ) {
    const channel = new Channel<P>();
    // A channel's last messages can arrive after the command has returned: they must not write
    // "Indexing…" over the result.
    let finished = false;
    channel.onmessage = (p) => {
      if (!finished) setLibraryProgress(step(p));
    };
    setLibrary({ busy });
    setLibraryProgress({ percent: 0, shown: 3, status: starting });
    try {
      const result = await run(channel);
      finished = true;
      setLibraryProgress({ shown: undefined, ...done(result) });
      await refreshLibrary();
    } catch (e) {
      finished = true;
      setLibraryProgress({ status: humanError(e), percent: 0, shown: undefined });
    } finally {
      setLibrary({ busy: null });
    }
  }

  // Each part is shown as soon as it is read, and one that fails (said in a toast) does not hide
  // the others: the folders never wait on the count of vectors.
  async function refreshLibrary() {
    await Promise.all([
      api.libraryFolders().then((folders) => setLibrary({ folders }), fail),
      api.libraryMeaning().then((meaning) => setLibrary({ meaning }), fail),
      api.sentenceModelOffer().then((offer) => setLibrary({ offer }), fail),
    ]);
  }

  // The indexing by meaning going on, if any: adding or re-indexing stops it first (one long
  // command at a time) and it starts again after, for the new passages too.
  let embedding: Promise<void> | null = null;
  let stopped = false;

  /** Indexes the library by meaning (the sentence model), with progress; stopping keeps what was done. */
  function embedLibrary(): Promise<void> {
    if (embedding) return embedding;
    stopped = false;
    embedding = withProgress<EmbedProgress, number>(
      "embed",
      "Indexing by meaning…",
      (p) => ({ status: p.preparing ? `Indexing by meaning: ${p.preparing}… (searches use keywords until it is done)` : `Indexing by meaning… ${p.done} of ${p.total} passages${p.left ? `, ${p.per_second} a second, ${p.left} left` : ""} (searches use keywords until it is done)`, percent: p.total && !p.preparing ? (100 * p.done) / p.total : null }),
      (channel) => api.libraryEmbed(channel),
      (done) => stopped
        ? { percent: null, status: `Stopped after ${done} passage${done === 1 ? "" : "s"}; what was indexed is kept, and indexing goes on when the app next starts.` }
        : { percent: 100, status: `Done. ${done} passage${done === 1 ? "" : "s"} indexed by meaning.` },
    ).finally(() => {
      embedding = null;
    });
    return embedding;
  }

  /** Indexes by meaning when it is due (the model is installed, some passages have no vector): after a folder is added, and at start for what an earlier session left. */
  async function indexByMeaningIfDue() {
    await refreshLibrary();
    if (store.get().library.meaning?.due) void embedLibrary();
  }

  async function stopEmbedding() {
    if (!embedding) return;
    stopped = true;
    await api.libraryEmbedStop().catch(fail);
    await embedding;
  }

  /** Downloads and installs the sentence model (its size shown before), then indexes the library by meaning. */
  async function installSentenceModel() {
    await withProgress<DownloadProgress, string>(
      "model",
      "Downloading the sentence model…",
      (p) => ({ status: `Sentence model: ${downloadText(p)}`, percent: downloadPercent(p) }),
      (channel) => api.downloadSentenceModel(channel),
      () => ({ percent: 100, status: "The sentence model is installed; the library is indexed by meaning next." }),
    );
    await indexByMeaningIfDue();
  }

  return {
    embedLibrary,
    installSentenceModel,
    stopDownload: () => api.cancelDownload().catch(fail),
    indexByMeaningIfDue,
    stopEmbedding,
    async openLibrary() {
      show("library");
      await refreshLibrary();
    },
    refreshLibrary,
    async removeFolder(path: string) {
      try {
        if (await api.libraryRemove(path)) await refreshLibrary();
      } catch (e) {
        fail(e);
      }
    },
    async indexLibrary(which: "add" | "reindex" | "import") {
      const wasEmbedding = embedding !== null;
      await stopEmbedding();
      const step = (r: IndexReport): Partial<Progress> => ({ status: `Indexing… ${progressText(r)}`, percent: r.total ? (100 * r.scanned) / r.total : null, shown: r.total ? undefined : 3 });
      if (which === "import") {
        // The file picker first: nothing is read until an export is chosen.
        await withProgress<IndexReport, ImportReport | null>("import", "", step, (channel) => api.libraryImport(channel),
          (report) => ({ percent: report ? 100 : 0, status: report ? `Done. ${importText(report)}` : "" }));
      } else {
        await withProgress<IndexReport, IndexReport | null>(
          which,
          // Adding opens the folder picker first: nothing is indexed until a folder is chosen.
          which === "add" ? "" : "Indexing…",
          step,
          (channel) => (which === "add" ? api.libraryAdd(channel) : api.libraryReindex(channel)),
          (report) => ({ percent: report ? 100 : 0, status: report ? `Done. ${progressText(report)}` : "" }),
        );
      }
      // By meaning too, in the background, where the model is installed (or on again, when
      // adding stopped it).
      if (store.get().library.meaning?.due || wasEmbedding) await indexByMeaningIfDue();
    },
  };
}
