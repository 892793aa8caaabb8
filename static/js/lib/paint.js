// What every plot gets, whichever mark drew it: its size (the container's box), the HTML title
// above and legend below (chrome.js), the in-plot words as HTML (labels.js), PNG/SVG export
// (exports.js), its state in one WeakMap (figure.js), waiting while out of view, a zoom kept
// through redraws and reset by a double click.  A mark hands paint() a job:
//
//   { mark,            the mark's name (figure.js: `mark`)
//     asked,           what the page gave the mark ({traces, layout}: page form): an equal ask,
//                      at the same size, draws nothing
//     build(el, forExport) → figure
//                      the Plotly figure the mark makes of it: {traces, layout, title, items,
//                      heatmaps, labels, shown} (title and legend items for chrome.js, labels for
//                      labels.js, shown: the traces the tests read, heatmaps with their numbers)
//     update(el, figure, held, asked, before) → Promise | null
//                      the mark's cheap update from `held` (what Plotly holds) to `figure`; null
//                      when it does not apply, and then Plotly.react draws the figure
//     react(el, figure) → Promise   optional: how the figure goes to Plotly.react }
//
// Sizes are explicit (the container's box, followed with a ResizeObserver) and margins are set by
// the marks, so no redraw pays for Plotly's autosize reflow, and the plot area is known without
// reading Plotly's internals (geometry.js).

/* global Plotly */

import { showChrome } from "./chrome.js";
import { exportFigure } from "./exports.js";
import { plotState, stateOf } from "./figure.js";
import { attachHover } from "./heatmap.js";
import { showLabels } from "./labels.js";
import { isPresenter, onPlotResize, plotSize } from "./layout.js";

/** Deep equality of plain data: objects, arrays, typed arrays, numbers (NaN equals NaN). */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const list = (value) => Array.isArray(value) || ArrayBuffer.isView(value);
  if (list(a) || list(b)) {
    if (!list(a) || !list(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  if (keys.length !== Object.keys(b).filter((key) => b[key] !== undefined).length) return false;
  return keys.every((key) => same(a[key], b[key]));
}

function modeBar() {
  return [[
    {
      name: "Download this plot as PNG",
      icon: Plotly.Icons.camera,
      click: (gd) => exportFigure(gd, "png", gd.id || "plot"),
    },
    { name: "Reset axes", icon: Plotly.Icons.home, click: (gd) => resetAxes(gd) },
  ]];
}

let config = null;

/** The one config object of every plot (a config that differs from the last makes react start over). */
export function plotConfig() {
  // A double click resets the axes the library's way (below), not Plotly's: Plotly would go back
  // to the ranges of the plot's first draw, or autoscale around an image's carrier.
  if (!config) config = { responsive: false, displaylogo: false, scrollZoom: false, doubleClick: false, modeBarButtons: modeBar(), showTips: false };
  return config;
}

const SHARP_BELOW = 400;

/** The plot's width and height for a figure: the container's box, at least 200 × 160. */
export function figureSize(el) {
  const size = plotSize(el);
  return { width: Math.max(200, Math.round(size.width || 600)), height: Math.max(160, Math.round(size.height || 420)) };
}

/** The uirevision of a plot: the page's, renewed by every reset of the axes (Plotly drops its zoom). */
export function uirevision(el, given = "keep") {
  const resets = stateOf(el)?.resets;
  return resets ? `${given}:${resets}` : given;
}

const hasCategoryAxis = (el) => Object.entries(el.layout || {}).some(([key, value]) => /^[xy]axis\d*$/.test(key) && value?.type === "category");

function paintNow(el, job, force = false) {
  const { width, height } = plotSize(el);
  const state = plotState(el);
  const asked = { ...job.asked, size: [width, height, isPresenter()] };
  const repaintIt = () => repaint(el);
  if (!force && el.data && state.asked && state.job?.mark === job.mark && same(state.asked, asked)) {
    const held = state.held;
    if (held) showChrome(el, held.title, held.items, repaintIt);
    return Promise.resolve(el);
  }
  const before = state.asked;
  const previous = state.job;
  const figure = job.build(el, false);
  showChrome(el, figure.title, figure.items, repaintIt);
  state.asked = asked;
  state.job = job;
  state.mark = job.mark;
  state.shown = figure.shown;
  state.heatmaps = figure.heatmaps || [];
  if (state.heatmaps.length) attachHover(el);
  // Few cells on many pixels: sharp cell edges (the browser would blur an enlarged image).
  const sharp = state.heatmaps.length > 0 && state.heatmaps.every((entry) => entry.width < SHARP_BELOW && entry.height < SHARP_BELOW);
  if (sharp) el.dataset.sharp = "";
  else delete el.dataset.sharp;
  const first = !el.data;
  const held = state.held;
  const cheap = !first && !force && held && previous?.mark === job.mark && job.update ? job.update(el, figure, held, asked, before) : null;
  state.held = figure;
  const drawn = cheap || (job.react ? job.react(el, figure) : reactTo(el, figure));
  // The object URLs of the images replaced are released once the new ones are up.
  const old = state.sources || [];
  const current = state.heatmaps.map((entry) => entry.source);
  state.sources = current;
  // A cheap update has set its axes by now (its relayouts are synchronous; its animate changes
  // points alone), and the labels' places depend on the layout only: shown now, they are painted in
  // the frame that draws the new points, not in a timer after Plotly's promise (+20 ms on /clock).
  // (A category axis places labels by the categories of el.data, which the animate sets later.)
  const labelsNow = Boolean(cheap) && !hasCategoryAxis(el);
  if (labelsNow) showLabels(el, figure.labels || []);
  drawn.then(() => {
    old.forEach((url) => !current.includes(url) && URL.revokeObjectURL(url));
    if (!labelsNow) showLabels(el, figure.labels || []);
  });
  if (first) {
    watch(el);
    quietModeBar(el);
    // An axis the reader zoomed or panned keeps that range through later redraws; a reset (double
    // click, the reset button) gives it back to the data.  (The marks move axes with Plotly.update, reported as plotly_update,
    // or with Plotly.animate, counted in state.moving: any other plotly_relayout is the reader's.)
    el.on?.("plotly_relayout", (change) => {
      if (state.moving) return;  // a mark's own move of its axes (chart.js), not the reader's
      const zoomed = state.zoomed || (state.zoomed = new Set());
      for (const key of Object.keys(change || {})) {
        const match = /^([xy]axis\d*)\.range/.exec(key);
        if (match) zoomed.add(match[1]);
      }
    });
    // (Plotly reports the double click and, told doubleClick: false, leaves the axes to the library)
    el.on?.("plotly_doubleclick", () => resetAxes(el));
  }
  return drawn;
}

/**
 * The figure as Plotly is handed it: copies of its traces and of the layout's objects (axes,
 * margins, …), ranges included.  Plotly writes into what it is given (each axis's type and
 * autorange, a zoom into range[0] and range[1]); the figure the mark built stays as built, and the
 * mark's next update compares with it.  A transition is for points that only move (a mark's
 * update): where the figure changed more than that, Plotly's transition path would cost more than
 * a redraw.
 */
export function plotlyCopy(figure) {
  const { transition, ...layout } = figure.layout;
  for (const [key, value] of Object.entries(layout)) {
    if (!value || typeof value !== "object") continue;
    if (Array.isArray(value)) layout[key] = value.map((item) => (item && typeof item === "object" ? { ...item } : item));
    else {
      layout[key] = { ...value };
      if (Array.isArray(value.range)) layout[key].range = [...value.range];
    }
  }
  return { traces: figure.traces.map((trace) => ({ ...trace })), layout };
}

function reactTo(el, figure) {
  const given = plotlyCopy(figure);
  return Plotly.react(el, given.traces, given.layout, plotConfig());
}

/** The page's own ranges again, after a zoom or pan: the whole figure is handed to Plotly anew. */
function resetAxes(el) {
  const state = plotState(el);
  state.zoomed?.clear();
  state.resets = (state.resets || 0) + 1;
  return repaint(el);
}

/** Draw the last job again (the legend hid a curve; the plot changed size; the axes were reset). */
function repaint(el) {
  const job = stateOf(el)?.job;
  return job ? paintNow(el, job, true) : Promise.resolve(el);
}

// The mode bar's buttons are left out of the tab order: the page's toolbar offers the same
// exports by keyboard, and ten plots would otherwise put their buttons between every control.
function quietModeBar(el) {
  const mute = () => el.querySelectorAll(".modebar-btn").forEach((button) => button.setAttribute("tabindex", "-1"));
  mute();
  el.on?.("plotly_afterplot", mute);
}

// ---- sizes that follow the container ------------------------------------------------------------

// A plot that changed size is drawn again at its new size (layout.js keeps the sizes).
onPlotResize((el) => {
  const job = stateOf(el)?.job;
  if (!job) return;
  // the page is about to draw every figure for its new width (page.js redrawWhenPanelsRestack)
  if (el.closest("[data-restacking]")) return;
  // (a newer figure already waiting is kept: the last drawn one would bring back a stale view)
  if (inView.get(el) === false) {
    if (!pending.has(el)) pending.set(el, job);
  } else paintNow(el, job, true);
});

// ---- plots out of view wait -------------------------------------------------------------------------
//
// A plot that has been drawn and is now outside the window is not redrawn at once: its newest
// job waits, and is drawn when the plot comes within OFFSCREEN_MARGIN of the window.  A waiting
// plot carries data-pending; printing and image export draw every waiting plot first.
const OFFSCREEN_MARGIN = "200px 0px";

const pending = new Map(); // element → job

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

function flush(el) {
  const job = pending.get(el);
  if (!job) return Promise.resolve(el);
  pending.delete(el);
  return Promise.resolve(paintNow(el, job)).finally(() => {
    if (!pending.has(el)) delete el.dataset.pending;
  });
}

/** Draw every plot still waiting to come into view (before an export or printing). */
export function flushAll() {
  return Promise.all([...pending.keys()].map(flush));
}

function farBelowOrAbove(el) {
  const box = el.getBoundingClientRect();
  return box.top > window.innerHeight + 200 || box.bottom < -200;
}

/**
 * Draw or update a plot with a mark's job (above).  Skipped when the ask equals the one already
 * drawn there, and put off while the plot is out of view.  Returns a promise.
 */
export function paint(el, job) {
  if (typeof el === "string") el = document.getElementById(el);
  if (!el) return Promise.resolve(null);
  // A plot that has never been drawn and starts well outside the window waits too: opening a
  // lesson draws what the reader sees first.
  if (!el.data && (inView.get(el) === false || (!inView.has(el) && farBelowOrAbove(el)))) {
    pending.set(el, job);
    el.dataset.pending = "";
    watch(el);
    return Promise.resolve(el);
  }
  if (el.data && inView.get(el) === false) {
    // (its title and legend wait with it: they describe what is drawn)
    pending.set(el, job);
    el.dataset.pending = "";
    return Promise.resolve(el);
  }
  pending.delete(el);
  delete el.dataset.pending;
  return paintNow(el, job);
}

/** What a plot shows, as the page gave it: traces with heatmaps' z (the numbers behind the pixels). */
export function shownTraces(el) {
  return stateOf(el)?.shown || [];
}
