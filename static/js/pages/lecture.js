// The lecture page: keys move between steps (links, so the step is in the URL and Back/Forward
// work), Space reveals the answer, B or . blanks the screen, O or Esc opens the overview of the
// steps, ? lists the keys, and the QR code follows the origin this browser uses.  The same keys
// pressed inside the live view arrive as messages from it (static/js/stage.js), checked to come
// from this origin and from this page's own frame.  S (or the "Speaker view" link) opens the
// speaker view in a window of its own; the two windows step together (lecture-sync.js).
import { keptByFocus, syncSteps } from "./lecture-sync.js";

const root = document.querySelector(".lecture");
const frame = document.querySelector("iframe.lecture-view");
const blackout = document.querySelector('[data-role="blackout"]');
const overview = document.getElementById("overview");
const keys = document.getElementById("keys");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

// A phone is no projector: its live view gets the ordinary type (the page's own follows in CSS).
if (frame && window.matchMedia("(max-width: 700px)").matches) {
  const url = new URL(frame.src);
  if (url.searchParams.get("presenter") === "true") {
    url.searchParams.delete("presenter");
    frame.src = url.href;
  }
}

function go(which) {
  const link = document.querySelector(`[data-step="${which}"]`);
  if (link) location.assign(link.href);
}

function stepLink(number) {
  const url = new URL(location.href);
  url.searchParams.set("step", String(number));
  location.assign(url.href);
}

// The time this tab started the lecture, for the speaker view's timer (no server state).
const STARTED = `lecture-start:${root.dataset.name}`;
if (!Number(sessionStorage.getItem(STARTED))) sessionStorage.setItem(STARTED, String(Date.now()));

function openSpeaker() {
  const url = new URL(`/lecture/${root.dataset.name}/speaker`, location.origin);
  url.searchParams.set("step", root.dataset.number);
  url.searchParams.set("start", sessionStorage.getItem(STARTED));
  window.open(url.href, "lecture-speaker");
}

/** Shows the answer; false when there was none left to show. */
function reveal() {
  const answer = document.getElementById("answer");
  const button = document.querySelector('[data-action="reveal"]');
  if (!answer || !button || !answer.hidden) return false;
  answer.hidden = false;
  button.setAttribute("aria-expanded", "true");
  button.hidden = true;
  return true;
}

function toggleBlackout(on = blackout.hidden) {
  blackout.hidden = !on;
}

function openDialog(dialog) {
  for (const other of [overview, keys]) if (other !== dialog && other.open) other.close();
  if (dialog.open) return;
  dialog.showModal();
  if (dialog === overview) overview.querySelector('[aria-current="step"]')?.focus();
}

/** One lecture key, pressed on this page or inside the view; false when it means nothing here. */
function handle(key) {
  const total = Number(root.dataset.total);
  if (overview.open || keys.open) {
    // a dialog has the keys: Esc closes it (the browser does that for a key pressed here), O and ? too
    const open = overview.open ? overview : keys;
    if (key === "Escape" || ((key === "o" || key === "O") && open === overview) || (key === "?" && open === keys)) open.close();
    else if (key === "?" ) openDialog(keys);
    else return false;
    return true;
  }
  if (!blackout.hidden) {
    if (key === "b" || key === "B" || key === "." || key === "Escape") { toggleBlackout(false); return true; }
  }
  if (key === "ArrowRight" || key === "PageDown") go("next");
  else if (key === "ArrowLeft" || key === "PageUp") go("prev");
  else if (key === "Home") stepLink(1);
  else if (key === "End") stepLink(total);
  else if (key === " ") { if (!reveal()) go("next"); }
  else if (key === "b" || key === "B" || key === ".") toggleBlackout(true);
  else if (key === "o" || key === "O" || key === "Escape") openDialog(overview);
  else if (key === "?") openDialog(keys);
  else if (key === "s" || key === "S") openSpeaker();
  else return false;
  return true;
}

document.addEventListener("keydown", (event) => {
  if (keptByFocus(event)) return;
  // inside an open dialog only its own keys count
  if ((overview.open || keys.open) && !["Escape", "o", "O", "?"].includes(event.key)) return;
  if (handle(event.key)) event.preventDefault();
});

// Keys pressed inside the live view (stage.js forwards them): this origin, this frame, this shape.
window.addEventListener("message", (event) => {
  if (event.origin !== location.origin || !frame || event.source !== frame.contentWindow) return;
  const data = event.data;
  if (!data || data.type !== "lecture-key" || typeof data.key !== "string") return;
  handle(data.key);
});

document.querySelector('[data-action="reveal"]')?.addEventListener("click", reveal);
document.querySelector('[data-action="keys"]')?.addEventListener("click", () => openDialog(keys));
document.querySelector('[data-action="speaker"]')?.addEventListener("click", (event) => { event.preventDefault(); openSpeaker(); });
syncSteps(root.dataset.name, Number(root.dataset.number), (n) => { if (n >= 1 && n <= Number(root.dataset.total)) stepLink(n); });
blackout.addEventListener("click", () => toggleBlackout(false));
// Arrow keys walk the overview's list; Enter follows the link.
overview.addEventListener("keydown", (event) => {
  if (!["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft"].includes(event.key)) return;
  const links = [...overview.querySelectorAll(".overview-steps a")];
  const at = links.indexOf(document.activeElement);
  const next = at + (event.key === "ArrowDown" || event.key === "ArrowRight" ? 1 : -1);
  if (next >= 0 && next < links.length) links[next].focus();
  event.preventDefault();
});

// The QR code of the view at this browser's origin (the server drew one for the origin it saw).
const holder = document.querySelector("[data-qr-for]");
if (holder) {
  const absolute = location.origin + holder.dataset.qrFor;
  const shown = document.querySelector(".student-url");
  if (shown) shown.textContent = absolute;
  fetch(`/lecture-qr.svg?url=${encodeURIComponent(absolute)}`)
    .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
    .then((svg) => {
      const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
      holder.replaceChildren(document.importNode(parsed, true));
      holder.dataset.qrUrl = absolute;
    })
    .catch(() => {});
  if (LOOPBACK.has(location.hostname)) document.querySelector(".loopback-note").hidden = false;
}
