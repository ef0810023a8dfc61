// What every group of actions shares: the store, the toast, moving between views.
import { humanError } from "../api";
import type { Toast } from "../dom";
import type { AppStore, FocusTarget, ViewName } from "../store";

export interface Base {
  store: AppStore;
  toast: Toast;
  /** A failure said in a toast. */
  fail(e: unknown): void;
  /** Shows `view`, with focus moved to `focus` there when given. */
  show(view: ViewName, focus?: FocusTarget): void;
}

export function createBase(store: AppStore, toast: Toast): Base {
  let focusCount = 0;
  return {
    store,
    toast,
    fail: (e) => toast(humanError(e)),
    show(view, focus) {
      store.set({ view, ...(focus ? { focus: { target: focus, n: ++focusCount } } : {}) });
    },
  };
}
