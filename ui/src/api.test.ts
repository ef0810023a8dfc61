import { describe, expect, it, vi } from "vitest";

vi.mock("@tauri-apps/api/core", () => ({ invoke: vi.fn(), Channel: class {} }));
const { humanError, isApiError } = await import("./api");

describe("errors shown to the user", () => {
  it("turn {code, message} into one sentence with advice", () => {
    expect(humanError({ code: "provider_auth", message: "the key for OpenAI was refused" }))
      .toBe("The key for OpenAI was refused. Check the key in Settings.");
    expect(humanError({ code: "invalid_input", message: "the question is empty; type what you want to find out" }))
      .toBe("The question is empty; type what you want to find out.");
    expect(humanError({ code: "run_failed", message: "The model timed out." }))
      .toBe("The model timed out. Nothing is lost: resume the run when the cause is fixed.");
  });

  it("never shows a debug dump", () => {
    expect(humanError(new Error("boom"))).toBe("boom");
    expect(humanError(42)).toBe("Something went wrong.");
    expect(isApiError({ code: "storage" })).toBe(false);
  });
});
