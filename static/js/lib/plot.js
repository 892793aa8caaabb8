// What the page modules import to draw: one entry point over the drawing library.  Each name lives
// in the module that does that job (CONTRIBUTING.md, "The drawing library"):
//   paint.js    flushAll, shownTraces: every plot's common part (pages draw with marks/index.js)
//   layout.js   sizes, presenter type, panel grids, the shared layout
//   axes.js     axis titles, tick standoffs, log ticks, ranges
//   colours.js  line colours, heatmap scales and ranges, honest ranges (clipped, narrow)
//   numbers.js  every number format
//   exports.js  a plot as PNG or SVG

export { flushAll, shownTraces } from "./paint.js";
export { baseLayout, isNarrowPlot, isPresenter, lineWidth, panelGrid, plotSize, richText, setPlotHeight, sized, squarePanels, textSize, textWidth } from "./layout.js";
export { axis, belowCorner, offAxis } from "./axes.js";
export { COLORS, DIVERGING, SEQUENTIAL, clipLimit, colourRange, dominatedLimit, narrowSpread, spreadPercent } from "./colours.js";
export { fmt } from "./numbers.js";
export { exportFigure } from "./exports.js";
