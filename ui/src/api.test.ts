import { describe, expect, it, vi } from "vitest";

vi.mock("@tauri-apps/api/core", () => ({ invoke: vi.fn(), Channel: class {} }));
const { guiWords, humanError, isApiError } = await import("./api");

describe("errors shown to the user", () => {
  it("turn {code, message} into one sentence with advice", () => {
    expect(humanError({ code: "provider_auth", message: "the key for OpenAI was refused" }))
      .toBe("The key for OpenAI was refused. Check the key in Settings.");
    expect(humanError({ code: "invalid_input", message: "the question is empty; type what you want to find out" }))
      .toBe("The question is empty; type what you want to find out.");
    expect(humanError({ code: "run_failed", message: "The model timed out." }))
      .toBe("The model timed out. Nothing is lost: resume the run when the cause is fixed.");
  });

  it("point to the app's own settings instead of CLI commands", () => {
    expect(humanError({ code: "provider_auth", message: "no API key is set for openai; set it with `research keys set openai` or the OPENAI_API_KEY environment variable" }))
      .toBe("No API key is set for openai; set it in Settings → API keys or the OPENAI_API_KEY environment variable. Check the key in Settings.");
    expect(guiWords("the library is empty; add a folder with `research library add DIR`")).toBe("the library is empty; add a folder in the Library");
    expect(guiWords("no model is chosen; pass --llm (e.g. ollama:qwen2.5:7b or local:/path/model.gguf)"))
      .toBe("no model is chosen; choose one in New research or set a default in Settings (e.g. ollama:qwen2.5:7b or local:/path/model.gguf)");
    expect(guiWords("built in: --llm local:/path/model.gguf")).toBe("built in: local:/path/model.gguf");
    expect(guiWords("intranet.local is this machine; add --allow-host intranet.local to reach it")).toBe("intranet.local is this machine");
    expect(guiWords("searxng needs the address of your instance: --searxng-url URL")).toBe("searxng needs the address of your instance; set it in Settings");
    expect(guiWords("s1 has no finished report yet; finish the run with `research resume`")).toBe("s1 has no finished report yet; resume the run first");
  });

  it("never shows a debug dump", () => {
    expect(humanError(new Error("boom"))).toBe("boom");
    expect(humanError(42)).toBe("Something went wrong.");
    expect(isApiError({ code: "storage" })).toBe(false);
  });
});
