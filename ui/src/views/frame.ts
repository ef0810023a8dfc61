// The window's frame: which view is shown, and the no-keychain banner above them all.
import { $ } from "../dom";
import type { ViewName } from "../store";
import type { Ctx } from "./ctx";

const SECTIONS: Record<ViewName, string> = {
  onboarding: "view-onboarding", new: "view-new", session: "view-session", library: "view-library", settings: "view-settings",
  compare: "view-compare", check: "view-check", damaged: "view-damaged",
};

export function mountFrame({ store, popover }: Ctx) {
  store.watch((s) => s.view, (view) => {
    for (const [name, id] of Object.entries(SECTIONS)) $(id).hidden = name !== view;
    // With no database open, the sidebar's sessions and places would lead nowhere.
    document.body.classList.toggle("unopened", view === "damaged");
    popover.close();
  });
  store.watch((s) => s.info, (info) => {
    if (!info || info.keychain.available) return;
    const banner = $("keychain-banner");
    banner.textContent = "No system keychain was found, so API keys you enter are kept only until you quit. Keys in environment variables (e.g. OPENAI_API_KEY) still work.";
    banner.title = info.keychain.detail;
    banner.hidden = false;
  });
}
