// What the views ask for: each action calls the api and writes what it learns to the store.
import { api } from "../api";
import type { Toast } from "../dom";
import { restoredWords } from "../format";
import type { AppStore } from "../store";
import { createBase } from "./base";
import { checkActions } from "./check";
import { compareActions } from "./compare";
import { draftActions } from "./draft";
import { libraryActions } from "./library";
import { sessionActions } from "./sessions";
import { settingsActions } from "./settings";

export type Actions = ReturnType<typeof createActions>;

export function createActions(store: AppStore, toast: Toast) {
  const base = createBase(store, toast);
  const { show, fail } = base;
  const settings = settingsActions(base);
  const library = libraryActions(base);
  const sessions = sessionActions(base, settings.savePreferences);
  const { exportReport, refreshSessions, openSession } = sessions;
  const compare = compareActions(base, refreshSessions);
  const draft = draftActions(base, sessions.answer);
  const check = checkActions(base);
  const { openSettings, fillSettings } = settings;
  const { refreshLibrary } = library;

  return {
    show,
    ...settings,
    ...library,
    ...sessions,
    ...compare,
    ...draft,
    ...check,

    async menu(id: string) {
      const s = store.get().session;
      switch (id) {
        case "new-research": show("new", "question"); break;
        case "export-md": if (s?.detail?.reports.length) await exportReport("md"); break;
        case "export-pdf": if (s?.detail?.reports.length) await exportReport("pdf"); break;
        case "export-docx": if (s?.detail?.reports.length) await exportReport("docx"); break;
        case "settings": await openSettings(); break;
        case "library": show("library"); await refreshLibrary(); break;
      }
    },

    /** Puts the newest backup in place of the database that could not be opened (after a
     * native confirmation), then loads the window afresh over it. */
    async restoreNewestBackup() {
      try {
        if (await api.restoreNewestBackup()) location.reload();
      } catch (e) {
        fail(e);
      }
    },

    /** Saves the sessions the damaged database still holds to a folder the person picks. */
    async salvageSessions() {
      try {
        const salvage = await api.salvageSessions();
        if (salvage) store.set({ salvage });
      } catch (e) {
        fail(e);
      }
    },

    /** Loads what the window shows first, then asks again any question left waiting. */
    async start() {
      // A database that could not be opened: the window shows that, and nothing reads it.
      const unopened = await api.databaseProblem().catch(() => null);
      if (unopened) {
        store.set({ databaseProblem: unopened });
        show("damaged");
        return;
      }
      void sessions.loadRoles();
      void sessions.loadPipelines();
      void sessions.loadCitationStyles();
      try {
        store.set({ info: await api.appInfo(), defaults: await api.defaultConfig(), choices: await api.formChoices() });
        // The shared database set in Settings could not be opened: this computer's file is in use.
        const problem = store.get().info?.storage_problem;
        if (problem) fail({ ...problem, message: `${problem.message} — working on this computer's own file until it can be opened.` });
        fillSettings(await api.getSettings());
      } catch (e) {
        fail(e);
      }
      // A restore asked for in Settings was applied (or not) as the app started again.
      const restored = await api.restored().catch(() => null);
      if (restored) toast(restoredWords(restored), restored.problem ? "error" : "info");
      const prefs = await api.preferences().catch(() => store.get().prefs);
      store.set({ prefs, prefsLoaded: true });
      const info = store.get().info;
      // The first view, unless the person already went elsewhere while the app was loading (the
      // Library clicked at once stayed on the form: the start-up showed it over the click).
      if (store.get().view === "new") show(info?.first_run && !prefs.onboarding_done ? "onboarding" : "new");
      // What the form's pickers offer: each provider's readiness and the models it has.
      void settings.refreshProviders();
      await refreshSessions();
      // The library's indexing by meaning an earlier session left unfinished goes on.
      void library.indexByMeaningIfDue();
      // A run left waiting for an answer (even before a restart) is asked again.
      const waiting = (await api.listSessions(null).catch(() => [])).find((s) => s.status === "waiting");
      if (waiting) await openSession(waiting.id);
    },
  };
}
