// Keeps a lecture's audience window and its speaker view on one step: a BroadcastChannel per
// lecture (same origin, no server state).  A window the user moved says "go N" when it loads; the
// other window follows.  A window that loaded because it followed says nothing but asks "where?",
// so that a step taken while it was loading is not lost; the other answers "at N".
const FOLLOWED = "lecture-followed";

/**
 * @param {string} name the lecture's name
 * @param {number} step this window's step
 * @param {(n: number) => void} goTo loads step n in this window
 */
export function syncSteps(name, step, goTo) {
  if (typeof BroadcastChannel === "undefined") return null;
  const channel = new BroadcastChannel(`lecture:${name}`);
  const key = `${FOLLOWED}:${name}`;
  const followed = sessionStorage.getItem(key) === String(step);
  sessionStorage.removeItem(key);
  let asking = followed;
  const follow = (n) => {
    if (!Number.isInteger(n) || n === step) return;
    sessionStorage.setItem(key, String(n));
    goTo(n);
  };
  channel.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || typeof data.step !== "number") return;
    if (data.type === "go") follow(data.step);
    else if (data.type === "where") channel.postMessage({ type: "at", step });
    else if (data.type === "at" && asking) { asking = false; follow(data.step); }
  });
  if (followed) channel.postMessage({ type: "where", step });
  else channel.postMessage({ type: "go", step });
  return channel;
}

/** True when a key belongs to what has focus (typing in a field, Space on a button or link), so
 * neither the lecture nor the speaker view steps on it. */
export function keptByFocus(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return true;
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return true;
  return event.key === " " && Boolean(target?.closest?.("button, a[href], summary"));
}
