// Element helpers and the toast: the only code that looks elements up by id.

/** The element with `id` (every id the UI uses is in index.html). */
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** A new element with `props` and `children`. */
export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};

export function setBusy(button: HTMLButtonElement, busy: boolean) {
  button.disabled = busy;
  button.setAttribute("aria-busy", String(busy));
}

/** Fills a bar to `percent` (or leaves its value unknown to assistive tech when `null`). */
export function setBar(bar: HTMLElement, percent: number | null, shown = percent ?? 50) {
  bar.style.width = `${shown}%`;
  const box = bar.parentElement;
  if (!box) return;
  if (percent === null) box.removeAttribute("aria-valuenow");
  else box.setAttribute("aria-valuenow", String(Math.round(percent)));
}

/** A `file://` address as the path it names; any other address as it is. */
export function displayUrl(url: string): string {
  return url.startsWith("file://") ? decodeURIComponent(url.slice(7)) : url;
}

export type ToastKind = "error" | "info";
export type Toast = (text: string, kind?: ToastKind) => void;

/** The toast shown in `node`: errors stay 9 s, news 4 s; a new one replaces the last. */
export function createToaster(node: HTMLElement): Toast {
  let timer = 0;
  return (text, kind = "error") => {
    node.textContent = text;
    node.className = `toast ${kind}`;
    node.hidden = false;
    window.clearTimeout(timer);
    timer = window.setTimeout(() => (node.hidden = true), kind === "error" ? 9000 : 4000);
  };
}

/** Looks up ids inside `root` only: a view cannot reach another view's elements by mistake. */
export function inside(root: HTMLElement) {
  return <T extends HTMLElement = HTMLElement>(id: string): T => {
    const found = root.querySelector<T>(`#${CSS.escape(id)}`);
    if (!found) throw new Error(`#${id} is not inside ${root.id ? `#${root.id}` : root.className}`);
    return found;
  };
}
