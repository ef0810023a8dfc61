import { describe, expect, it } from "vitest";
import { modelOptions, providerList, searchPicks, toggleProvider } from "./pickers";
import type { ProviderStatus } from "./types";

const status = (name: string, kind: string, ready: boolean, models: string[] = []): ProviderStatus =>
  ({ name, kind, ready, detail: ready ? "ok" : "no key", fix: null, models });

describe("the form's pickers", () => {
  const list = [
    status("tavily", "search", false),
    status("duckduckgo", "search", true),
    status("local", "search", true),
    status("ollama", "model", true, ["ollama:qwen2.5:7b", "ollama:llama3.2:3b"]),
    status("openai", "model", false),
    status("local", "model", true, ["local:/m/qwen.gguf"]),
  ];

  it("ticks the providers the field names and says which are not ready", () => {
    const picks = searchPicks(list, "local, mcp:wiki");
    expect(picks.map((p) => [p.name, p.checked, p.ready])).toEqual([
      ["auto", false, true], ["tavily", false, false], ["duckduckgo", false, true], ["local", true, true],
    ]);
  });

  it("toggles a provider in the field, keeping what was typed", () => {
    expect(toggleProvider("local, mcp:wiki", "duckduckgo", true)).toBe("local, mcp:wiki, duckduckgo");
    expect(toggleProvider("local, mcp:wiki, local", "local", false)).toBe("mcp:wiki");
    expect(providerList(" a, ,b , a")).toEqual(["a", "b"]);
  });

  it("offers the models that are ready, the settings' first, each once", () => {
    expect(modelOptions(list, ["local:/m/qwen.gguf", null])).toEqual([
      "local:/m/qwen.gguf", "ollama:qwen2.5:7b", "ollama:llama3.2:3b",
    ]);
  });
});
