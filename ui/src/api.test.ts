import { describe, expect, it, vi } from "vitest";

vi.mock("@tauri-apps/api/core", () => ({ invoke: vi.fn(), Channel: class {} }));
const { fixWords, humanError, isApiError } = await import("./api");

describe("errors shown to the user", () => {
  it("turn {code, message} into one sentence with advice", () => {
    expect(humanError({ code: "provider_auth", message: "the key for OpenAI was refused" }))
      .toBe("The key for OpenAI was refused. Check the key in Settings.");
    expect(humanError({ code: "invalid_input", message: "the question is empty; type what you want to find out" }))
      .toBe("The question is empty; type what you want to find out.");
    expect(humanError({ code: "run_failed", message: "The model timed out." }))
      .toBe("The model timed out. Nothing is lost: resume the run when the cause is fixed.");
  });

  it("point to the app's own places where the api names a fix", () => {
    expect(humanError({ code: "provider_auth", message: "no API key is set for openai (nor the OPENAI_API_KEY environment variable)", fix: { place: "api_keys", provider: "openai" } }))
      .toBe("No API key is set for openai (nor the OPENAI_API_KEY environment variable). Set or check the openai key in Settings → API keys.");
    expect(humanError({ code: "invalid_input", message: "the library is empty", fix: { place: "library" } }))
      .toBe("The library is empty. Add a folder in the Library.");
    expect(humanError({ code: "invalid_input", message: "no model is chosen (e.g. ollama:qwen2.5:7b or local:/path/model.gguf)", fix: { place: "model" } }))
      .toBe("No model is chosen (e.g. ollama:qwen2.5:7b or local:/path/model.gguf). Choose a model in New research, or a default model in Settings.");
    expect(fixWords({ place: "allow_host", host: "intranet.local" })).toBe("Add intranet.local to the allowed hosts in Settings to reach it.");
    expect(fixWords({ place: "searxng_url" })).toBe("Set the SearXNG address in Settings.");
    expect(humanError({ code: "conflict", message: "s1 has no finished report yet; its run must finish first", fix: { place: "resume_run", thread: "t1" } }))
      .toBe("S1 has no finished report yet; its run must finish first. Resume the run first.");
    expect(fixWords(null)).toBe("");
  });

  it("never shows a debug dump", () => {
    expect(humanError(new Error("boom"))).toBe("boom");
    expect(humanError(42)).toBe("Something went wrong.");
    expect(isApiError({ code: "storage" })).toBe(false);
    expect(humanError({ code: "provider_auth", message: "the key for OpenAI was refused", fix: null })).toContain("Check the key in Settings.");
  });
});
