// Axis settings shared by the lesson pages.

import { sized } from "../../lib/plot.js";

/**
 * Tick labels a few pixels further from their axis than Plotly's default: a y tick at the bottom
 * of the axis then never meets the x axis's first tick label in the corner (at presenter size the
 * two labels overlapped by a few pixels).
 */
export function offAxis(extra = {}) {
  return { ticklabelstandoff: sized(4, 8), ...extra };
}

/** For an x axis whose first tick label is wide (−150): its labels drop below a y tick at the corner. */
export function belowCorner(extra = {}) {
  return { ticklabelstandoff: sized(8, 14), ...extra };
}
