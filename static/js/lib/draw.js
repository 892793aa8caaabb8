// Drawing a plot: draw(el, traces, layout) composes the page's Plotly figure (compose.js), hands
// it to Plotly, and keeps the HTML beside it (title, legend, colour bars, in-plot labels) in step.
// A plot outside the window waits until it comes into view; sizes follow the container.
//
// Why not hand the page's figure to Plotly unchanged:
// - A Plotly heatmap maps every cell through a d3 colour scale and encodes a PNG synchronously
//   on each redraw (~100 ms at 512 × 512 here).  Here the page's own numbers are colour-mapped
//   through a lookup table into an uncompressed BMP shown as a layout image (heatmap.js).
// - Titles and legends drawn by Plotly sit inside a fixed-size SVG: on a phone they are cut, on a
//   projector a long legend covers the data.  As HTML next to the plot (chrome.js) they wrap.
// - Sizes are explicit (the container's box, followed with a ResizeObserver) and margins fixed, so
//   no redraw pays for Plotly's autosize reflow.

/* global Plotly */

import { legendItems, showChrome } from "./chrome.js";
import { compose } from "./compose.js";
import { exportFigure } from "./exports.js";
import { plotState, stateOf } from "./figure.js";
import { attachHover } from "./heatmap.js";
import { showLabels } from "./labels.js";
import { isPresenter, onPlotResize, plotSize, titleText } from "./layout.js";
import { keepUnchanged, same } from "./same.js";
import { framesOf, heatmapSwap, pointsMove, remember } from "./updates.js";

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

function plotConfig() {
  // One object for every call: a config that differs from the last one makes react start over.
  // A double click resets the axes the library's way (below), not Plotly's: Plotly would go back
  // to the ranges of the plot's first draw, or autoscale around an image's carrier (updates.js).
  if (!config) config = { responsive: false, displaylogo: false, scrollZoom: false, doubleClick: false, modeBarButtons: modeBar(), showTips: false };
  return config;
}

const SHARP_BELOW = 400;

/**
 * Compose and draw: a heatmap whose numbers alone changed swaps its image, curves whose points
 * alone moved are moved (updates.js); anything else goes to Plotly.react, which works out itself
 * what to redraw (a page that wants its curves to glide asks for it with Plotly's own `transition`
 * in its layout, the clock's hands).  A figure equal to the one drawn is skipped (unless forced):
 * a change then redraws only the plots it changes.
 */
function paint(el, traces, layout, force = false) {
  const { width, height } = plotSize(el);
  const state = plotState(el);
  const asked = { traces, layout, size: [width, height, isPresenter()] };
  if (!force && el.data && state.asked && same(state.asked, asked)) {
    showChrome(el, titleText(layout.title), legendItems(traces, layout), () => repaint(el));
    return Promise.resolve(el);
  }
  const figure = compose(el, traces, layout);
  showChrome(el, figure.title, figure.items, () => repaint(el));
  state.asked = asked;
  state.last = { traces, layout };
  // What the plot shows, as the page gave it (heatmaps with their numbers): read by the tests.
  state.shown = traces;
  state.heatmaps = figure.heatmaps;
  if (figure.heatmaps.length) attachHover(el);
  // Few cells on many pixels: sharp cell edges (the browser would blur an enlarged image).
  const sharp = figure.heatmaps.length > 0 && figure.heatmaps.every((entry) => entry.width < SHARP_BELOW && entry.height < SHARP_BELOW);
  if (sharp) el.dataset.sharp = "";
  else delete el.dataset.sharp;
  const first = !el.data;
  const frames = framesOf(figure);
  const drawn = (!first && (heatmapSwap(el, figure, frames) || pointsMove(el, figure, frames))) || reactTo(el, figure, frames);
  // The object URLs of the images replaced are released once the new ones are up.
  const old = state.sources || [];
  const current = figure.heatmaps.map((entry) => entry.source);
  state.sources = current;
  drawn.then(() => {
    old.forEach((url) => !current.includes(url) && URL.revokeObjectURL(url));
    showLabels(el, figure.labels);
  });
  if (first) {
    watch(el);
    quietModeBar(el);
    // An axis the reader zoomed or panned keeps that range through later redraws; a reset (double
    // click, the reset button) gives it back to the data.
    el.on?.("plotly_relayout", (change) => {
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

function reactTo(el, figure, frames) {
  // A page's transition is for points that move (updates.js pointsMove); where the figure changed
  // more than that (points come and go), Plotly's transition path would cost more than a redraw.
  const { transition, ...layout } = figure.layout;
  // Arrays equal to the ones drawn are handed back as the same objects: Plotly.react takes a new
  // array for new data, so this is how it learns which traces did not change.
  const state = plotState(el);
  const given = state.given ? keepUnchanged(state.given, { traces: figure.traces, layout }) : { traces: figure.traces, layout };
  remember(el, given, frames);
  return Plotly.react(el, given.traces, given.layout, plotConfig());
}

/** The page's own ranges again, after a zoom or pan: the whole figure is handed to Plotly anew. */
function resetAxes(el) {
  const state = plotState(el);
  state.zoomed?.clear();
  // a new uirevision: Plotly drops the zoom it keeps through redraws (compose.js)
  state.resets = (state.resets || 0) + 1;
  state.given = null;
  return repaint(el);
}

/** Draw the last figure again (the legend hid a curve; the plot changed size). */
function repaint(el) {
  const last = stateOf(el)?.last;
  return last ? paint(el, last.traces, last.layout, true) : Promise.resolve(el);
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
  const last = stateOf(el)?.last;
  if (!last) return;
  // the page is about to draw every figure for its new width (page.js redrawWhenPanelsRestack)
  if (el.closest("[data-restacking]")) return;
  const { traces, layout } = last;
  // (a newer figure already waiting is kept: the last drawn one would bring back a stale view)
  if (inView.get(el) === false) { if (!pending.has(el)) pending.set(el, { traces, layout }); }
  else paint(el, traces, layout, true);
});

// ---- plots out of view wait -------------------------------------------------------------------------
//
// A plot that has been drawn and is now outside the window is not redrawn at once: its newest
// figure waits, and is drawn when the plot comes within OFFSCREEN_MARGIN of the window.  A
// waiting plot carries data-pending; printing and image export draw every waiting plot first.
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

function flush(el) {
  const job = pending.get(el);
  if (!job) return Promise.resolve(el);
  pending.delete(el);
  return Promise.resolve(paint(el, job.traces, job.layout)).finally(() => {
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
 * Draw or update a plot: `traces` and `layout` as Plotly takes them (heatmap traces become
 * images, the title and legend go beside the plot).  Skipped when the figure equals the one
 * already drawn there, and put off while the plot is out of view.  Returns a promise.
 */
export function draw(el, traces, layout = {}) {
  if (typeof el === "string") el = document.getElementById(el);
  // A plot that has never been drawn and starts well outside the window waits too: opening a
  // lesson draws what the reader sees first.
  if (!el.data && (inView.get(el) === false || (!inView.has(el) && farBelowOrAbove(el)))) {
    pending.set(el, { traces, layout });
    el.dataset.pending = "";
    watch(el);
    return Promise.resolve(el);
  }
  if (el.data && inView.get(el) === false) {
    // (its title and legend wait with it: they describe what is drawn)
    pending.set(el, { traces, layout });
    el.dataset.pending = "";
    return Promise.resolve(el);
  }
  pending.delete(el);
  delete el.dataset.pending;
  return paint(el, traces, layout);
}

/** What a plot shows, as the page gave it: traces with heatmaps' z (the numbers behind the pixels). */
export function shownTraces(el) {
  return stateOf(el)?.last?.traces || [];
}
