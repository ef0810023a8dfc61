// The first-run page: the ways to get a model, and the library for working offline.
import { inside } from "../dom";
import { formatBytes } from "../download";
import type { Ctx } from "./ctx";

export function mountOnboarding(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  // The sentence model is offered with its size while it is not installed.
  const model = $<HTMLButtonElement>("onboard-sentence-model");
  model.addEventListener("click", () => {
    void actions.installSentenceModel();
    void actions.openLibrary();
  });
  store.watch((s) => s.library.offer, (offer) => {
    $("onboard-meaning").hidden = !offer || offer.installed;
    if (offer) model.textContent = `download the sentence model (${formatBytes(offer.bytes)})`;
  });
  $("onboard-gguf").addEventListener("click", async () => {
    if (await actions.chooseGguf()) actions.show("new");
  });
  $("onboard-download").addEventListener("click", () => void actions.openSettings("download"));
  $("onboard-ollama").addEventListener("click", async () => {
    const model = $<HTMLInputElement>("onboard-ollama-model").value.trim();
    if (!model) return;
    await actions.useModel(`ollama:${model}`);
    actions.show("new");
  });
  $("onboard-cloud").addEventListener("click", () => void actions.openSettings());
  $("onboard-library").addEventListener("click", () => void actions.openLibrary());
  $("onboard-skip").addEventListener("click", () => actions.show("new"));
  // Any choice made on the onboarding page, or skipping it, means it has done its job.
  for (const b of root.querySelectorAll("button:not([data-keeps-onboarding])")) {
    b.addEventListener("click", () => void actions.savePreferences({ onboarding_done: true }));
  }
}
