// legacy: draw(el, traces, layout), the figure compiler's entry point, for the pages that still
// call it (through plot.js): absolute, clock (its phase plot), compare, ladder, learned,
// long-context, mrope, precision, relative, rotation (its curves), spectrum, transformer-xl and
// why, until each is on marks (issue 35).  It paints through paint.js like every mark:
// compose.js rewrites the page's figure, updates.js finds its cheap update (frames: the figure
// with what may change cheaply taken out), same.js hands unchanged arrays back to Plotly.react.
// These three modules go with the last such page.

/* global Plotly */

import { compose } from "./compose.js";
import { plotState } from "./figure.js";
import { paint, plotConfig } from "./paint.js";
import { keepUnchanged } from "./same.js";
import { framesOf, heatmapSwap, pointsMove, remember } from "./updates.js";

function legacyJob(traces, layout) {
  return {
    mark: "draw",
    asked: { traces, layout },
    build(el, forExport) {
      const figure = compose(el, traces, layout, forExport);
      figure.shown = traces;
      if (!forExport) figure.frames = framesOf(figure);
      return figure;
    },
    update(el, figure) {
      return heatmapSwap(el, figure, figure.frames) || pointsMove(el, figure, figure.frames);
    },
    react(el, figure) {
      const { transition, ...plain } = figure.layout;
      // Arrays equal to the ones drawn are handed back as the same objects: Plotly.react takes a
      // new array for new data, so this is how it learns which traces did not change.
      const state = plotState(el);
      const given = state.given ? keepUnchanged(state.given, { traces: figure.traces, layout: plain }) : { traces: figure.traces, layout: plain };
      remember(el, given, figure.frames);
      return Plotly.react(el, given.traces, given.layout, plotConfig());
    },
  };
}

/**
 * legacy: draw or update a plot from a Plotly figure (heatmap traces become images, the title and
 * legend go beside the plot).  New code draws with a mark (marks/index.js).
 */
export function draw(el, traces, layout = {}) {
  return paint(el, legacyJob(traces, layout));
}

export { flushAll, shownTraces } from "./paint.js";
