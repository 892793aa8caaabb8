// The stage: a lesson view embedded in a frame (embed=true: a lecture step, a course page) shows one
// figure, sized to the frame (static/css/stage.css), with its controls in a drawer.  The figure is
// the plot the address's fragment names (/calculator?...&embed=true#plot-margin), else the first;
// the numbered links in the bar switch figures by changing the fragment, so the address still says
// what is shown.  Inside a lecture the lecture's keys are forwarded to it (same origin only).

const stage = document.querySelector(".stage");
const picker = document.querySelector(".stage-picker");
const plots = stage ? [...stage.querySelectorAll(".plot")] : [];
// Words that plot.js puts beside a plot (title above, legend below) belong to it and stay shown.
const BESIDE = ".plot-title, .plot-legend, .busy";

function chosen() {
  const id = decodeURIComponent(window.location.hash.slice(1));
  return plots.find((el) => el.id === id) || plots[0];
}

function show() {
  const plot = chosen();
  if (!plot) return;
  for (const el of stage.querySelectorAll("[data-stage-off], [data-stage-path], [data-stage-figure]")) {
    delete el.dataset.stageOff;
    delete el.dataset.stagePath;
    delete el.dataset.stageFigure;
  }
  const figure = plot.closest(".figure") || plot;
  figure.dataset.stageFigure = "";
  // Every box from the figure up to the stage is on the path (it passes its height down); every
  // other box beside that path is put away.
  for (let el = figure; el && el !== stage; el = el.parentElement) {
    if (el !== figure) el.dataset.stagePath = "";
    for (const other of el.parentElement.children) {
      if (other !== el && !other.matches(BESIDE)) other.dataset.stageOff = "";
    }
  }
  for (const link of picker?.querySelectorAll("a") || []) {
    if (link.hash === `#${plot.id}`) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
}

function buildPicker() {
  if (!picker || plots.length < 2) return;
  plots.forEach((el, i) => {
    const link = document.createElement("a");
    link.href = `#${el.id}`;
    link.textContent = String(i + 1);
    link.title = el.getAttribute("aria-label") || `Figure ${i + 1}`;
    link.setAttribute("aria-label", `Figure ${i + 1}: ${link.title}`);
    picker.append(link);
  });
  picker.hidden = false;
}

if (stage) {
  buildPicker();
  show();
  window.addEventListener("hashchange", show);
}

// ---- the lecture's keys, from inside the frame -----------------------------------------------
const LECTURE_KEYS = new Set(["ArrowRight", "ArrowLeft", "PageDown", "PageUp", "Home", "End", " ", "b", "B", ".", "o", "O", "Escape", "?", "s", "S"]);
const MOVING = new Set(["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "Home", "End"]);

function lectureParent() {
  if (window.parent === window) return null;
  try {
    // a parent of another origin throws here; only the app's own lecture page gets the keys
    return window.parent.location.origin === window.location.origin && window.parent.document.querySelector(".lecture") ? window.parent : null;
  } catch {
    return null;
  }
}

/** Whether the focused element keeps this key for itself (a slider its arrows, a box its typing). */
function keptByTarget(target, key) {
  if (key === "PageDown" || key === "PageUp") return false; // the clicker's keys always step
  if (!target || !target.closest) return false;
  if (target.closest("textarea, select, [contenteditable=''], [contenteditable='true']")) return true;
  const input = target.closest("input");
  if (input) {
    if (input.type === "range") return MOVING.has(key);
    if (input.type === "checkbox" || input.type === "radio") return key === " ";
    return true; // a number or text box: arrows, '.', letters and Space are typing
  }
  if (target.closest("button, summary, a[href]")) return key === " "; // Space presses it
  return false;
}

const lecture = lectureParent();
if (lecture) {
  document.body.dataset.lectureFrame = "";
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !LECTURE_KEYS.has(event.key)) return;
    if (keptByTarget(event.target, event.key)) return;
    event.preventDefault();
    lecture.postMessage({ type: "lecture-key", key: event.key }, window.location.origin);
  });
}
