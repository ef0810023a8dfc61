// What every view is mounted with.
import type { Actions } from "../actions/index";
import type { Toast } from "../dom";
import type { Popover } from "../popover";
import type { AppStore } from "../store";

export interface Ctx {
  store: AppStore;
  actions: Actions;
  toast: Toast;
  popover: Popover;
}
