// Colours: the line colours, the two kinds of heatmap scale, the range a heatmap is coloured over,
// the lookup table that turns a number into a colour for the heatmap images (heatmap.js), and the
// honest ranges: a matrix one cell dominates is clipped at a stated percentile, and a spread too
// narrow to see is said in words.

// Okabe–Ito: distinguishable for the common forms of colour blindness.
export const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"];

// Signed values (scores, sines): blue–white–red centred on 0, from −m to m (m: the largest |value|,
// rounded up), whatever the signs of the values drawn.  White is always a zero, and the scale keeps
// its kind as a slider moves the values across 0: only its numbers change, which is the heatmap
// path's cheap update (a scale that switched to one half of the ramp when every value had one sign
// made Plotly lay out the whole plot again on 3 of 5 head_dim moves on /scores).
export const DIVERGING = "signed";

// Magnitudes: sequential and perceptually uniform.
export const SEQUENTIAL = "Cividis";

// ColorBrewer RdBu (11 classes, as plotly.py's plotly.colors.diverging.RdBu), blue for negative.
const RDBU = [
  [5, 48, 97], [33, 102, 172], [67, 147, 195], [146, 197, 222], [209, 229, 240], [247, 247, 247],
  [253, 219, 199], [244, 165, 130], [214, 96, 77], [178, 24, 43], [103, 0, 31],
];

// Cividis (as plotly.py's plotly.colors.sequential.Cividis).
const CIVIDIS = [
  [0, 34, 78], [18, 53, 112], [59, 73, 108], [87, 93, 109], [112, 113, 115], [138, 134, 120],
  [165, 156, 116], [195, 179, 105], [225, 204, 85], [254, 232, 56],
];

const SCALES = {
  diverging: RDBU,
  positive: RDBU.slice(5), // white → red
  negative: RDBU.slice(0, 6), // blue → white
  Cividis: CIVIDIS,
};

// Cells without a value (a causal mask, NaN): drawn light grey, and said so on hover.
export const MISSING_RGB = [222, 222, 226];

/** Nice round number ≥ value (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k). */
function niceCeil(value) {
  if (!(value > 0) || !Number.isFinite(value)) return value;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * power >= value * (1 - 1e-12)) return m * power;
  return 10 * power;
}

export function niceStep(span) {
  if (!(span > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(span));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= span) return m * power;
  return 10 * power;
}

function extent(z) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of z) {
    for (const v of row) {
      if (v === null || !Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return [lo, hi];
}

/**
 * The colour scale and range for a heatmap of `z`: the page asks for DIVERGING (signed values)
 * or a named sequential scale; the range comes from the data, rounded outward a little so that
 * small changes of the data do not move the colour bar on every redraw.
 */
export function colourRange(z, scale, zmin, zmax, fixed = false) {
  // zauto: false (Plotly's own attribute) keeps the page's range as it is: a deliberate clip, or a
  // quantity with natural limits (a cosine).
  if (fixed && Number.isFinite(zmin) && Number.isFinite(zmax)) {
    if (scale !== DIVERGING) return { scale: SCALES[scale] || CIVIDIS, zmin, zmax, kind: "sequential" };
    if (zmin < 0 && zmax > 0) return { scale: SCALES.diverging, zmin, zmax, kind: "diverging" };
    return zmax > 0 ? { scale: SCALES.positive, zmin, zmax, kind: "positive" } : { scale: SCALES.negative, zmin, zmax, kind: "negative" };
  }
  let [lo, hi] = extent(z);
  // Signed values: a zmin/zmax from the page widens the extent to fit (heatmaps that share a scale).
  if (scale === DIVERGING && Number.isFinite(zmin) && Number.isFinite(zmax)) {
    lo = Math.min(lo, zmin);
    hi = Math.max(hi, zmax);
  }
  if (!(lo <= hi)) return { scale: SCALES[scale === DIVERGING ? "diverging" : scale] || CIVIDIS, zmin: -1, zmax: 1, kind: "empty" };
  if (scale === DIVERGING) {
    const limit = niceCeil(Math.max(Math.abs(lo), Math.abs(hi))) || 1;
    return { scale: SCALES.diverging, zmin: -limit, zmax: limit, kind: "diverging" };
  }
  const [a, b] = zmin !== undefined && zmax !== undefined ? [zmin, zmax] : rounded(lo, hi);
  return { scale: SCALES[scale] || CIVIDIS, zmin: a, zmax: b, kind: "sequential" };
}

function rounded(lo, hi) {
  if (lo === hi) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.05 : 1;
    return [lo - pad, hi + pad];
  }
  const step = niceStep((hi - lo) / 8);
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

export function plotlyScale(stops) {
  return stops.map((rgb, i) => [i / (stops.length - 1), `rgb(${rgb.join(",")})`]);
}

// Linear interpolation between the stops, as Plotly interpolates its colour bar.
export const LUT_SIZE = 1024;

const lutCache = new Map();

export function lookupTable(stops) {
  let lut = lutCache.get(stops);
  if (lut) return lut;
  lut = new Uint8Array(LUT_SIZE * 3);
  const last = stops.length - 1;
  for (let i = 0; i < LUT_SIZE; i++) {
    const t = (i / (LUT_SIZE - 1)) * last;
    const k = Math.min(last - 1, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[3 * i + c] = Math.round(stops[k][c] + (stops[k + 1][c] - stops[k][c]) * f);
  }
  lutCache.set(stops, lut);
  return lut;
}

// ---- honest colour ranges (the page states a clip or a narrow spread beside the plot) -------------

/** The 99.5th percentile of |value| over the finite cells of `rows`, or 0 when there are none. */
export function clipLimit(rows, fraction = 0.995) {
  const values = [];
  for (const row of rows) for (const v of row) if (v !== null && Number.isFinite(v)) values.push(Math.abs(v));
  values.sort((a, b) => a - b);
  return values.length ? values[Math.min(values.length - 1, Math.floor(fraction * values.length))] : 0;
}

/**
 * The colour limit of a matrix that one cell (or a few) dominates: the 99.5th percentile of |value|
 * when the largest |value| is more than twice it (the whole ramp would otherwise go to under half a
 * percent of the cells); null when the full range serves.
 */
export function dominatedLimit(rows) {
  const limit = clipLimit(rows);
  const [lo, hi] = extent(rows);
  const largest = lo <= hi ? Math.max(Math.abs(lo), Math.abs(hi)) : 0;
  return limit > 0 && largest > 2 * limit ? { limit, largest } : null;
}

/** True when lo … hi spans under 1 % of the values' size (a full colour ramp would magnify it). */
export function narrowSpread(lo, hi) {
  return hi > lo && hi - lo < 0.01 * Math.max(Math.abs(lo), Math.abs(hi));
}

/** The spread of lo … hi as a percentage of the values' size. */
export function spreadPercent(lo, hi) {
  return (100 * (hi - lo)) / Math.max(Math.abs(lo), Math.abs(hi));
}
