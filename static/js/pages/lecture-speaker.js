// The speaker view: keys step (links, so the step is in the URL), the audience window follows
// and is followed (lecture-sync.js), the timer counts from `start` in the URL (set here on the
// first visit), and the next step's preview is its 1280 × 800 view scaled into its box.
import { keptByFocus, syncSteps } from "./lecture-sync.js";

const root = document.querySelector(".speaker");
const name = root.dataset.name;
const number = Number(root.dataset.number);
const total = Number(root.dataset.total);

let start = Number(new URL(location.href).searchParams.get("start"));

// The start time rides in this URL and in every step link, so the timer survives step loads.
function setStart(ms) {
  start = ms;
  for (const link of [location, ...document.querySelectorAll("[data-step]")]) {
    const url = new URL(link.href);
    url.searchParams.set("start", String(ms));
    if (link === location) history.replaceState(null, "", url.href);
    else link.href = url.href;
  }
}
if (!Number.isFinite(start) || start <= 0) setStart(Date.now());

function stepUrl(n) {
  const url = new URL(location.href);
  url.searchParams.set("step", String(n));
  return url.href;
}

function goTo(n) {
  if (n >= 1 && n <= total && n !== number) location.assign(stepUrl(n));
}

const timer = document.querySelector('[data-role="timer"]');
function tick() {
  const seconds = Math.max(0, Math.floor((Date.now() - start) / 1000));
  const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
  timer.textContent = (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + `:${String(s).padStart(2, "0")}`;
}
tick();
setInterval(tick, 1000);
document.querySelector('[data-action="restart"]').addEventListener("click", () => {
  setStart(Date.now());
  tick();
});

document.addEventListener("keydown", (event) => {
  if (keptByFocus(event)) return;
  const key = event.key;
  if (key === "ArrowRight" || key === "PageDown" || key === " ") goTo(number + 1);
  else if (key === "ArrowLeft" || key === "PageUp") goTo(number - 1);
  else if (key === "Home") goTo(1);
  else if (key === "End") goTo(total);
  else return;
  event.preventDefault();
});

// The preview: the next step's view laid out at projector size, scaled to the box.
const frame = document.querySelector(".speaker-preview");
if (frame) {
  const box = frame.parentElement;
  const fit = () => { frame.style.transform = `scale(${box.clientWidth / 1280})`; };
  fit();
  new ResizeObserver(fit).observe(box);
}

syncSteps(name, number, goTo);
