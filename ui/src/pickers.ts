// What the New research form's pickers offer, from the providers' readiness (the api's
// `provider_status`, the same data as `research providers`): search providers to tick, each ready
// or with why not, and the model strings that are ready now. The typed fields stay the truth —
// a provider or model not listed ("Other…", an `mcp:NAME` source) is typed there.
import type { ProviderStatus } from "./types";

/** One search provider as a checkbox. */
export interface SearchPick {
  name: string;
  ready: boolean;
  detail: string;
  checked: boolean;
}

/** The comma-separated providers in `value`, trimmed, without empties or repeats. */
export function providerList(value: string): string[] {
  const out: string[] = [];
  for (const p of value.split(",").map((s) => s.trim()).filter(Boolean)) if (!out.includes(p)) out.push(p);
  return out;
}

/** The checkboxes: `auto` first, then every search provider the api knows, ticked as `value` says. */
export function searchPicks(list: readonly ProviderStatus[], value: string): SearchPick[] {
  const chosen = providerList(value);
  const picks: SearchPick[] = [{ name: "auto", ready: true, detail: "the keyed providers, else DuckDuckGo and Wikipedia, and your library", checked: chosen.includes("auto") }];
  for (const p of list.filter((p) => p.kind === "search")) {
    picks.push({ name: p.name, ready: p.ready, detail: p.detail, checked: chosen.includes(p.name) });
  }
  return picks;
}

/** `value` with `name` ticked or unticked, the order of the others kept. */
export function toggleProvider(value: string, name: string, on: boolean): string {
  const chosen = providerList(value).filter((p) => p !== name);
  if (on) chosen.push(name);
  return chosen.join(", ");
}

/** The model strings that are ready now, each once, the settings' own first. */
export function modelOptions(list: readonly ProviderStatus[], preferred: readonly (string | null | undefined)[] = []): string[] {
  const out: string[] = [];
  const add = (m: string | null | undefined) => {
    if (m && !out.includes(m)) out.push(m);
  };
  preferred.forEach(add);
  list.filter((p) => p.kind === "model" && p.ready).forEach((p) => p.models.forEach(add));
  return out;
}
