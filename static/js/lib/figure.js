// One plot's state, in one place: a WeakMap from the plot element to a plain object, so nothing
// is written on the element itself (Plotly's own fields aside) and a plot removed from the page
// takes its state with it.  Every module of the library that keeps something per plot keeps it
// here, under the names below.
//
//   asked       what the page last asked of the mark ({traces, layout, size}): an equal ask draws nothing
//   job         the mark's last job (paint.js): redraws (resize, legend, reset) and exports build from it
//   held        the figure the mark last built and handed to Plotly: its next cheap update starts there
//   shown       the page's traces as drawn (heatmaps with their numbers): what the tests read
//   heatmaps    the image heatmaps' entries (numbers, colour scale and range, pixels)
//   sources     the object URLs of the images shown (released when replaced)
//   resets      how many times the reader reset the axes (a new uirevision each time)
//   zoomed      the axes the reader zoomed or panned (Set of names)
//   hidden      the legend keys the reader hid (Set)
//   chrome      the HTML title and legend beside the plot (chrome.js)
//   hover       whether the image heatmaps' hover listener is attached
//   mark        the name of the mark that drew the plot (marks/)
//   titlesFollow, titlesKey, titlesPlaced, titleHeights
//               a heatmap mark's HTML axis titles (marks/heatmap.js): whether they follow Plotly's
//               draws, what they were last placed for, the tick labels' reach per axis, their heights

const states = new WeakMap();

/** The state of the plot `el` (created empty on first use). */
export function plotState(el) {
  let state = states.get(el);
  if (!state) {
    state = {};
    states.set(el, state);
  }
  return state;
}

/** The state of `el` if it has any, else undefined (nothing is created). */
export function stateOf(el) {
  return el ? states.get(el) : undefined;
}

/**
 * What a plot shows, for tests and tools: the page's traces (heatmaps with the numbers behind
 * their image), the image heatmaps' entries and the axes the reader zoomed; null before a draw.
 */
export function plotShown(el) {
  const state = stateOf(el);
  if (!state || !state.shown) return null;
  return { traces: state.shown, heatmaps: state.heatmaps || [], zoomed: [...(state.zoomed || [])] };
}

if (typeof window !== "undefined") window.plotShown = plotShown;
