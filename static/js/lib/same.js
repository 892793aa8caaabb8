// Equality of figures, for the two questions drawing asks: is this the figure already drawn (then
// nothing is drawn), and which of its arrays are unchanged (Plotly.react is given the old array
// objects back, since it takes a new array object for new data).

function isList(value) {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

/** Deep equality of plain data: objects, arrays, typed arrays, numbers (NaN equals NaN). */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  if (isList(a) || isList(b)) {
    if (!isList(a) || !isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  if (keys.length !== Object.keys(b).filter((key) => b[key] !== undefined).length) return false;
  return keys.every((key) => same(a[key], b[key]));
}

/** `next` with each array that equals its place in `previous` replaced by that array. */
export function keepUnchanged(previous, next) {
  if (!previous || !next || typeof next !== "object") return next;
  if (isList(next)) {
    if (same(previous, next)) return previous;
    const nested = Array.isArray(next) && Array.isArray(previous) && next.some((item) => item && typeof item === "object");
    return nested ? next.map((item, i) => keepUnchanged(previous[i], item)) : next;
  }
  const out = {};
  for (const [key, value] of Object.entries(next)) out[key] = keepUnchanged(previous[key], value);
  return out;
}
