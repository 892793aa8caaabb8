// Numbers for the sentences and readouts of the lesson pages, rounded honestly: a value shown
// with fewer digits than it has carries "≈", and a rounded value never ends in zeros that read as
// exact digits (47,117.2 is "≈ 47,117", not "47,120").  Shared by the page modules (static/js/lib); it only
// formats (static/js/lib/plot.js's fmt does the digits).

import { fmt } from "./plot.js";

/** True when `digits` significant digits show `value` exactly. */
export function exactIn(value, digits) {
  return Number(value.toPrecision(digits)) === value;
}

/**
 * `value` to `digits` significant digits with "≈ " in front when that rounds it.  Between
 * 10^digits and 10^6 (where fmt would pad the integer part with zeros) every integer digit is
 * printed instead.
 */
export function approx(value, digits = 4) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 10 ** digits && magnitude < 1e6) {
    const rounded = Math.round(value);
    return `${rounded === value ? "" : "≈ "}${rounded.toLocaleString("en-US")}`;
  }
  return `${exactIn(value, digits) ? "" : "≈ "}${fmt(value, digits)}`;
}

/** "= value" or "≈ value": for sentences that state a value after its name. */
export function equals(value, digits = 4, unit = "") {
  const text = approx(value, digits);
  return text.startsWith("≈") ? `${text}${unit}` : `= ${text}${unit}`;
}

/** An integer with thousands separators (positions, lengths, counts: always exact). */
export function count(value) {
  return value === null || value === undefined ? "—" : Number(value).toLocaleString("en-US");
}

/** Write `text` into every element with data-out="name". */
export function out(name, text) {
  document.querySelectorAll(`[data-out="${name}"]`).forEach((slot) => {
    if (slot.textContent !== text) slot.textContent = text;
  });
}
