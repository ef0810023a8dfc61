import { describe, expect, it } from "vitest";
import { downloadPercent, downloadText, formatBytes } from "./download";

describe("model download progress", () => {
  it("formats sizes in decimal units", () => {
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1_120_000_000)).toBe("1.1 GB");
  });

  it("says how far, how fast and how long is left", () => {
    const p = { received: 500_000_000, total: 2_000_000_000, bytes_per_sec: 10_000_000, phase: "downloading" };
    expect(downloadPercent(p)).toBe(25);
    expect(downloadText(p)).toBe("Downloading… 500.0 MB of 2.0 GB (25%) · 10.0 MB/s · about 3 min left");
  });

  it("copes with an unknown size and the last phases", () => {
    const p = { received: 2048, total: null, bytes_per_sec: 0, phase: "downloading" };
    expect(downloadPercent(p)).toBeNull();
    expect(downloadText(p)).toBe("Downloading… 2.0 KB");
    expect(downloadText({ ...p, phase: "verifying" })).toBe("Checking the file…");
    expect(downloadText({ ...p, phase: "done" })).toBe("Downloaded 2.0 KB.");
  });
});
