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

/** Draw or update a plot.  Returns Plotly's promise. */
export function draw(el, traces, layout = {}) {
  if (typeof el === "string") el = document.getElementById(el);
  return Plotly.react(el, traces, merge(baseLayout(), layout), CONFIG);
}

/** Axis title helper. */
export function axis(title, extra = {}) {
  return { title: { text: title }, zeroline: false, automargin: true, ...extra };
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
