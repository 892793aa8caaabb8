// After a view settles, the slider last moved is likely to move one step more: the views one
// step either side (two in the direction of the drag) are fetched while the page is idle, so
// the next move needs no round trip.  At most three requests per settled view.

import { prefetch } from "./api.js";
import { fromLog } from "./controls.js";
import { parseValue } from "./url-state.js";

let timer = 0;

/** `moved`: {name, direction} of the slider last moved; `page`: {controls, limits, fields, state, apiUrl}. */
export function prefetchAround(moved, page) {
  clearTimeout(timer);
  if (!moved || window.__noPrefetch) return;
  timer = setTimeout(() => {
    const range = page.controls.range(moved.name);
    const field = page.limits.byName[moved.name];
    if (!range || field.role !== "compute") return;
    const here = Number(range.value);
    const step = range.step === "any" ? (Number(range.max) - Number(range.min)) / 200 : Number(range.step);
    const ahead = moved.direction < 0 ? -1 : 1;
    for (const offset of [ahead, -ahead, 2 * ahead]) {
      const position = here + offset * step;
      if (position < Number(range.min) - 1e-9 || position > Number(range.max) + 1e-9) continue;
      const value = range.dataset.scale === "log" ? fromLog(field, position) : parseValue(field.type, String(position));
      const trial = trialView(moved.name, value, offset, page);
      if (trial) prefetch(page.apiUrl(trial));
    }
  }, 30);
}

// The view the page would ask for after moving `name` to `value`, or null if it would refuse it.
function trialView(name, value, direction, { limits, fields, state }) {
  const candidate = limits.snap(name, value, state, direction);
  let trial = { ...state, [name]: candidate };
  if (limits.problem(name, trial)) return null;
  for (const other of limits.dependents[name] || []) trial = { ...trial, [other]: limits.settled(other, trial[other], trial) };
  return fields.some((field) => field.role === "compute" && limits.problem(field.name, trial)) ? null : trial;
}
