// Honest colour ranges for heatmaps, shared by the lesson pages: a matrix one cell dominates is
// clipped at a stated percentile, and a spread too narrow to see is said in words.

/** The 99.5th percentile of |value| over the finite cells of `rows`, or 0 when there are none. */
export function clipLimit(rows, fraction = 0.995) {
  const values = [];
  for (const row of rows) for (const v of row) if (v !== null && Number.isFinite(v)) values.push(Math.abs(v));
  values.sort((a, b) => a - b);
  return values.length ? values[Math.min(values.length - 1, Math.floor(fraction * values.length))] : 0;
}

/** Largest |value| over the finite cells of `rows`. */
export function largestMagnitude(rows) {
  let largest = 0;
  for (const row of rows) for (const v of row) if (v !== null && Number.isFinite(v)) largest = Math.max(largest, Math.abs(v));
  return largest;
}

/**
 * The colour limit of a matrix that one cell (or a few) dominates: the 99.5th percentile of |value|
 * when the largest |value| is more than twice it (the whole ramp would otherwise go to under half a
 * percent of the cells); null when the full range serves.
 */
export function dominatedLimit(rows) {
  const limit = clipLimit(rows);
  const largest = largestMagnitude(rows);
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
