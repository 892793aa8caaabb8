// Plotly drawing shared by every page: one layout style, SVG traces only, fresh arrays each time.

/* global Plotly */

// Okabe–Ito: distinguishable for the common forms of colour blindness.
export const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"];
// Signed values (scores, sines): diverging, centred on zero.
export const DIVERGING = "RdBu";
// Magnitudes: sequential and perceptually uniform.
export const SEQUENTIAL = "Cividis";

function isPresenter() {
  return document.body.classList.contains("presenter");
}

export function lineWidth(base = 2) {
  return isPresenter() ? base * 2 : base;
}

export function baseLayout() {
  const presenter = isPresenter();
  return {
    font: { family: "system-ui, sans-serif", size: presenter ? 20 : 13, color: presenter ? "#000" : "#222" },
    margin: { l: presenter ? 90 : 70, r: 30, t: presenter ? 60 : 44, b: presenter ? 80 : 56 },
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
    colorway: COLORS,
    hovermode: "closest",
    legend: { orientation: "h", y: -0.2 },
    // Keep the user's zoom across updates of the same view.
    uirevision: "keep",
  };
}

const CONFIG = { responsive: true, displaylogo: false, scrollZoom: false };

function merge(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra || {})) {
    out[key] = value && typeof value === "object" && !Array.isArray(value) && base[key] && typeof base[key] === "object"
      ? merge(base[key], value)
      : value;
  }
  return out;
}

// Figures whose JSON is at most this many characters are compared with the last one drawn in
// the same element, and not redrawn when equal: a slider that changes one plot of a page then
// costs one Plotly redraw (20–60 ms each here), not one per plot.  Larger figures (heatmaps of
// hundreds of rows) always redraw: serialising them would cost about as much as drawing.
const COMPARE_LIMIT = 400_000;
const lastFigure = new WeakMap();

function numberCount(value, budget) {
  // Cheap upper bound of the serialised size, so big figures are not stringified just to learn that.
  if (Array.isArray(value)) {
    let total = value.length;
    for (const item of value) {
      if (total > budget) break;
      if (item && typeof item === "object") total += numberCount(item, budget - total);
    }
    return total;
  }
  if (value && typeof value === "object") {
    let total = 0;
    for (const item of Object.values(value)) {
      if (total > budget) break;
      if (item && typeof item === "object") total += numberCount(item, budget - total);
    }
    return total;
  }
  return 0;
}

// A plot that has been drawn and is now outside the window is not redrawn at once: its newest
// figure waits, and is drawn when the plot comes within OFFSCREEN_MARGIN of the window.  Most
// pages show one plot at a time and stack the rest below, so a slider redraws the plot in view,
// not all of them (each Plotly redraw costs 20–60 ms here).  A waiting plot carries
// data-pending; printing and image export draw every waiting plot first.
const OFFSCREEN_MARGIN = "200px 0px";
const pending = new Map(); // element → {traces, layout}
const inView = new WeakMap(); // element → last IntersectionObserver verdict
let observer = null;

function watch(el) {
  if (typeof IntersectionObserver === "undefined") return;
  if (observer === null) {
    observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          inView.set(entry.target, entry.isIntersecting);
          if (entry.isIntersecting) flush(entry.target);
        }
      },
      { rootMargin: OFFSCREEN_MARGIN },
    );
    window.addEventListener("beforeprint", () => flushAll());
  }
  observer.observe(el);
}

function render(el, traces, fullLayout) {
  let key = null;
  if (numberCount(traces, COMPARE_LIMIT / 8) <= COMPARE_LIMIT / 8) {
    key = JSON.stringify([traces, fullLayout]);
    if (key.length > COMPARE_LIMIT) key = null;
    else if (el.data && lastFigure.get(el) === key) return Promise.resolve(el);
  }
  if (key === null) lastFigure.delete(el);
  else lastFigure.set(el, key);
  const first = !el.data;
  const drawn = Plotly.react(el, traces, fullLayout, CONFIG);
  if (first) watch(el);
  return drawn;
}

function flush(el) {
  const job = pending.get(el);
  if (!job) return Promise.resolve(el);
  pending.delete(el);
  return Promise.resolve(render(el, job.traces, job.layout)).finally(() => {
    if (!pending.has(el)) delete el.dataset.pending;
  });
}

/** Draw every plot still waiting to come into view (before an export or printing). */
export function flushAll() {
  return Promise.all([...pending.keys()].map(flush));
}

/**
 * Draw or update a plot; skipped when the figure equals the one already drawn there, and put
 * off while the plot is out of view (see above).  Returns a promise.
 */
export function draw(el, traces, layout = {}) {
  if (typeof el === "string") el = document.getElementById(el);
  const fullLayout = merge(baseLayout(), layout);
  if (el.data && inView.get(el) === false) {
    pending.set(el, { traces, layout: fullLayout });
    el.dataset.pending = "";
    return Promise.resolve(el);
  }
  pending.delete(el);
  delete el.dataset.pending;
  return render(el, traces, fullLayout);
}

/**
 * Axis title helper.  Margins are fixed (baseLayout and the pages' own) rather than automatic:
 * Plotly's automargin measures every tick label after each redraw and can redraw a second time,
 * about a third of a small plot's redraw time.
 */
export function axis(title, extra = {}) {
  return { title: { text: title }, zeroline: false, ...extra };
}

/** Compact number formatting for readouts: 4 significant digits, scientific when tiny or huge. */
export function fmt(value, digits = 4) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return value.toExponential(digits - 1);
  return Number(value.toPrecision(digits)).toLocaleString("en-US", { maximumFractionDigits: 12 });
}
