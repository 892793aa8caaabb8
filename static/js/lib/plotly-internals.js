// The only module that reads Plotly's private fields, and why each is still needed.
//
// Written against plotly.js 4.1.1 (the bundle of the Python package plotly 7.1.0 that the app
// serves, pinned in pyproject.toml); tests/browser/test_plotly_internals.py fails when either
// version differs, so that a new Plotly is checked against what is read here before it ships.
//
// - plotArea(gd): `gd._fullLayout._size`, the plot area after Plotly pushed its margins out.
//   The marks fix their margins (no automargin; the image heatmaps' colour bars have their room
//   measured beforehand and margin.autoexpand off), and geometry.js computes the plot area from
//   them.  A figure with a colour bar of Plotly's own (markers' colour scales, labelled heatmaps
//   drawn by Plotly) lets Plotly push the right margin out by the width of its labels, which only
//   Plotly measures: there the plot area is read here.  (Measured alternative: laying the bar out
//   a second time with the margin we would compute costs a whole relayout, 20–27 ms.)

/** The plot area {l, t, w, h} as Plotly laid it out (its margins pushed out), or a default box. */
export function plotArea(gd) {
  const size = gd._fullLayout?._size;
  if (size) return { l: size.l, t: size.t, w: size.w, h: size.h };
  return { l: 0, t: 0, w: gd.clientWidth || 0, h: gd.clientHeight || 0 };
}

/** The plotly.js version this module was written against (Plotly.version must equal it). */
export const PLOTLY_JS_VERSION = "4.1.1";
