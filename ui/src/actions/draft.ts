// The person's edit of the report draft: checked by the api's audit before it is sent, sent at
// once when the audit finds nothing, else shown with its findings to fix or send anyway.
import { api, humanError } from "../api";
import { noDraftCheck, updateSession } from "../store";
import type { Answer } from "../types";
import type { Base } from "./base";

export function draftActions({ store }: Base, answer: (answer: Answer) => Promise<void>) {
  /** Checks `draft` (the edited text) against the run's sources; sends it when nothing is found. */
  async function checkEdit(draft: string) {
    const s = store.get().session;
    if (!s?.threadId || s.draftCheck.busy) return;
    const id = s.sessionId;
    updateSession(store, { draftCheck: { draft, findings: null, busy: true, error: "" } }, id);
    try {
      const findings = await api.checkDraft(s.threadId, draft);
      if (!findings.length) {
        await answer({ type: "edit_report", draft });
        return;
      }
      updateSession(store, { draftCheck: { draft, findings, busy: false, error: "" } }, id);
    } catch (e) {
      updateSession(store, { draftCheck: { draft, findings: null, busy: false, error: humanError(e) } }, id);
    }
  }

  return {
    checkEdit,
    /** Sends the edit as checked, findings and all: the run's audit deals with them. */
    sendEditAnyway: () => {
      const draft = store.get().session?.draftCheck.draft;
      if (draft) void answer({ type: "edit_report", draft });
    },
    /** The edit changed: its findings no longer hold. */
    clearDraftCheck: () => {
      const s = store.get().session;
      if (s && s.draftCheck !== noDraftCheck) updateSession(store, { draftCheck: noDraftCheck }, s.sessionId);
    },
  };
}
