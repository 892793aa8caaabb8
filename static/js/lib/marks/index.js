// Marks: a page passes data to a mark, the mark builds its Plotly figure as Plotly documents it,
// owns its cheap update, and hands both to paint.js, which adds what every plot gets: its size (the container's box),
// the title above and the legend below as HTML (chrome.js), PNG/SVG export (exports.js), the
// plot's state in one WeakMap (figure.js), waiting while out of view, zoom kept and reset.
//
//   plotly(el, traces, layout, {unchanged}) escape hatch: a Plotly figure as Plotly takes it, built
//                                           by the heatmap and chart marks' rules (plotly.js), or
//                                           with unchanged: true to Plotly.react as given
//   heatmap(el, cells, options)             cells {z, x, y, scale, zmin, zmax, zauto, hovertemplate,
//                                           customdata, bar}; options {square, title, xaxis,
//                                           yaxis, margin}.  Drawn as an image of colour-mapped
//                                           cells with Plotly's own colour bar; an update with new
//                                           numbers swaps the image, relabels the bar only when its
//                                           rounded range changed, moves an axis only when its
//                                           range changed
//   curves(el, series, options)             series [{x, y, name, color, width, dash, mode,
//                                           hovertemplate, ...}]; options {title, xaxis, yaxis,
//                                           legend}.  An update moves the curves whose points
//                                           moved, the axes only when their range changed
//   bars(el, series, options)               series [{x, y, name, color, hovertemplate, ...}];
//                                           options {title, xaxis, yaxis, barmode, bargap}
//
// Marks imported from their own files (pages that use them import them there):
//   table(target, rows, columns)            table.js: rows written into a <tbody>, only changed cells
//   dials(el, {angles, labels, hover}, o)   dials.js: a grid of clock dials; an update moves the hands
//   player(transport, {show, sync, ...})    dials.js: play / step / back / reset on animation frames
//   plane(el, {panels}, options)            plane.js: vectors in the plane, side-by-side panels
//
// `el` is an element or its id; every mark returns the promise of its draw.  `xaxis`/`yaxis` are
// Plotly axis objects (axis() from ../plot.js gives the library's titled axis).  A mark's test
// draws it alone (tests/browser/test_marks.py).  Adding a mark: one file here that builds its
// figure and calls paint(el, {mark, asked, build, update}) (../paint.js), or paintChart (chart.js)
// for lines, markers and bars; its export below; its test.

export { plotly } from "./plotly.js";
export { heatmap } from "./heatmap.js";
export { curves } from "./curves.js";
export { bars } from "./bars.js";
