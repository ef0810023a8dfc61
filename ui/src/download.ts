// Words for a model download's progress: pure, so it is unit-tested.
import type { DownloadProgress } from "./types";

/** `2.1 GB`, in decimal units like the rest of the desktop. */
export function formatBytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}

function duration(secs: number): string {
  if (secs < 60) return `${Math.max(1, Math.round(secs))} s`;
  if (secs < 3600) return `${Math.round(secs / 60)} min`;
  const h = Math.floor(secs / 3600);
  return `${h} h ${Math.round((secs - h * 3600) / 60)} min`;
}

/** The bar's fill, 0–100, or null when the size is unknown. */
export function downloadPercent(p: DownloadProgress): number | null {
  if (!p.total) return null;
  return Math.min(100, Math.floor((p.received / p.total) * 100));
}

/** One status line: what is happening, how far, how fast, how long is left. */
export function downloadText(p: DownloadProgress): string {
  if (p.phase === "verifying") return "Checking the file…";
  if (p.phase === "done") return `Downloaded ${formatBytes(p.received)}.`;
  const pct = downloadPercent(p);
  const parts = [p.total ? `${formatBytes(p.received)} of ${formatBytes(p.total)} (${pct}%)` : formatBytes(p.received)];
  if (p.bytes_per_sec > 0) {
    parts.push(`${formatBytes(p.bytes_per_sec)}/s`);
    if (p.total) parts.push(`about ${duration((p.total - p.received) / p.bytes_per_sec)} left`);
  }
  return `Downloading… ${parts.join(" · ")}`;
}
