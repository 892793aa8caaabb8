import { COLORS } from "./colours.js";

/** True on a presenter page (?presenter=true): larger type and marks for a projector. */
export function isPresenter() {
  return document.body.classList.contains("presenter");
}

/** `normal` on a screen, `presenter` on a presenter page: the one place pages ask for a size. */
export function sized(normal, presenter) {
  return isPresenter() ? presenter : normal;
}

function isNarrow() {
  return window.innerWidth < 560;
}

/** True when the plot is too narrow for panels side by side (a phone). */
export function isNarrowPlot(el) {
  if (typeof el === "string") el = document.getElementById(el);
  return Boolean(el) && plotSize(el).width < 600;
}

// ---- plot sizes ----------------------------------------------------------------------------------
//
// A plot's size as the browser last laid it out, kept up to date by a ResizeObserver.  Reading
// clientWidth after another plot's redraw changed the page makes the browser lay the whole page out
// there and then (3 ms of a move on /conventions and /mrope, which draw several plots in turn); the
// observer reads the same numbers once the browser has laid the page out anyway, before it paints.
// (Plotly's own text measuring still lays the page out once per plot redrawn after another.)

const sizes = new WeakMap(); // element → {width, height}
const resizeListeners = [];
let sizeObserver = null;

const measure = (el) => ({ width: el.clientWidth, height: el.clientHeight });

/** The plot's {width, height} in CSS pixels (clientWidth, clientHeight as last laid out). */
export function plotSize(el) {
  if (typeof el === "string") el = document.getElementById(el);
  if (typeof ResizeObserver === "undefined") return measure(el);
  let size = sizes.get(el);
  if (!size) {
    size = measure(el);
    sizes.set(el, size);
    sizeObserver ||= new ResizeObserver((entries) => {
      for (const { target } of entries) {
        const last = sizes.get(target);
        const now = measure(target); // (laid out already: the observer runs after layout)
        sizes.set(target, now);
        if (last && (last.width !== now.width || last.height !== now.height)) resizeListeners.forEach((listener) => listener(target));
      }
    });
    sizeObserver.observe(el);
  }
  return size;
}

/** Call `listener(el)` when a plot whose size was asked for changes size. */
export function onPlotResize(listener) {
  resizeListeners.push(listener);
}

/** A plot's height in px (null: the stylesheet's); its size is read anew when this changed it. */
export function setPlotHeight(el, px) {
  const value = px === null ? "" : `${px}px`;
  if (el.style.height === value) return;
  el.style.height = value;
  sizes.delete(el);
}

/**
 * The axes and captions of two square panels from panelGrid: side by side, or one above the other
 * on a phone.  `square(domain, anchor)` gives one axis (anchor: the axis it is scaled to); each
 * caption sits centred under its panel, or over it with `captionAt: "top"`.
 */
export function squarePanels(grid, square, captions, { captionAt = "bottom" } = {}) {
  const top = captionAt === "top";
  return {
    xaxis: { ...square(grid.stacked ? [0, 1] : grid.x[0]), anchor: "y" },
    yaxis: { ...square(grid.y[0], "x"), anchor: "x" },
    xaxis2: { ...square(grid.stacked ? [0, 1] : grid.x[1]), anchor: "y2" },
    yaxis2: { ...square(grid.y[1], "x2"), anchor: "x2" },
    annotations: panelCaptions(grid, captions, top),
  };
}

/** One caption per panel of `grid` (panelGrid), centred above (`top`) or below it. */
export function panelCaptions(grid, captions, top) {
  return captions.map((text, i) => ({
    text,
    x: grid.stacked ? 0.5 : (grid.x[i][0] + grid.x[i][1]) / 2,
    y: top ? grid.y[i][1] : grid.y[i][0],
    xref: "paper",
    yref: "paper",
    yanchor: top ? "bottom" : "top",
    showarrow: false,
  }));
}

/**
 * Domains for `count` square panels of one figure: side by side on a wide plot, stacked (and the
 * plot made tall enough for them) on a narrow one, or when a panel would be narrower than
 * `minPanelWidth` pixels.  Returns {stacked, x: [domain…], y: [domain…]}.
 */
export function panelGrid(el, count, gap = 0.1, minPanelWidth = 300) {
  if (typeof el === "string") el = document.getElementById(el);
  const { width: wide } = plotSize(el);
  const stacked = count > 1 && (isNarrowPlot(el) || wide / count < minPanelWidth);
  el.classList.toggle("plot-stacked", stacked);
  setPlotHeight(el, stacked ? Math.round(wide * 0.92 * count + 60) : null);
  // equal shares, `gap` between neighbours (a middle panel is as wide as the outer ones)
  const width = (1 - gap * (count - 1)) / count;
  const share = (i) => [i * (width + gap), Math.min(1, i * (width + gap) + width)];
  return {
    stacked,
    x: Array.from({ length: count }, (_, i) => (stacked ? [0, 0.86] : share(i))),
    y: Array.from({ length: count }, (_, i) => (stacked ? share(count - 1 - i) : [0, 1])),
  };
}

export function lineWidth(base = 2) {
  return isPresenter() ? base * 2 : base;
}

let measurer = null;

/** Width in pixels of `text` at `size` px in `family` (the figures' font unless given), as the browser lays it out. */
export function textWidth(text, size, family = baseLayout().font.family) {
  measurer ||= document.createElement("canvas").getContext("2d");
  measurer.font = `${size}px ${family}`;
  return measurer.measureText(text).width;
}

/** The figures' text size in pixels (12 on a phone, 13 on a screen, 23 on a projector). */
export function textSize() {
  // On a projector 23 px, so that even exponents and subscripts (drawn at 70%) stay at 16 px.
  if (isPresenter()) return 23;
  return isNarrow() ? 12 : 13;
}

export function baseLayout() {
  const presenter = isPresenter();
  const size = textSize();
  return {
    font: { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Liberation Sans', sans-serif", size, color: presenter ? "#000" : "#222" },
    // Fixed margins: room for tick labels (powers of ten included) and the axis title.
    margin: { l: Math.round(size * 5.2 + 8), r: Math.round(size * 1.5 + 8), t: Math.round(size * 1.2 + 6), b: Math.round(size * 3.8 + 8) },
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
    colorway: COLORS,
    hovermode: "closest",
    // Plotly's hover label at the figures' text size, trace names in full (not cut at 15 characters)
    hoverlabel: { font: { size }, namelength: -1 },
    showlegend: false,
    // Keep the user's zoom across updates of the same view.
    uirevision: "keep",
  };
}

// ---- small helpers --------------------------------------------------------------------------

export function merge(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra || {})) {
    out[key] = value && typeof value === "object" && !Array.isArray(value) && base[key] && typeof base[key] === "object" && !Array.isArray(base[key])
      ? merge(base[key], value)
      : value;
  }
  return out;
}

// The markup Plotly accepts in text (and that our titles use): <sub>, <sup>, <b>, <i>, <em>,
// <br>.  Anything else is shown as text, so a word typed by the reader can never become markup.
const ALLOWED_TAGS = /^<\/?(sub|sup|b|i|em)>$|^<br\s*\/?>$/i;

export function richText(text) {
  const parts = String(text ?? "").split(/(<[^>]*>)/);
  return parts
    .map((part) => {
      if (ALLOWED_TAGS.test(part)) return part.toLowerCase().startsWith("<br") ? "<br>" : part.toLowerCase();
      return part.replace(/&(?![a-z]+;|#\d+;)/gi, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    })
    .join("");
}

export function titleText(title) {
  if (!title) return "";
  return typeof title === "string" ? title : title.text || "";
}
