// Every number the pages print, in one place: readouts and sentences (fmt, approx, equals, count,
// out), the image heatmaps' hover templates (formatNumber: the d3-format subset the pages use;
// lines and bars have Plotly's own hover) and control bounds (boundText).  A value shown with
// fewer digits than it has carries "≈", and a rounded value never ends in zeros that read as exact
// digits (47,117.2 is "≈ 47,117", not "47,120").
// The formats themselves are d3-format specifiers, written by format.js.

import { format, MINUS } from "./format.js";

/** A number as a hover template writes it: `spec` is the d3-format after the colon in %{z:.3f}. */
export function formatNumber(value, spec) {
  if (value === null || value === undefined || (typeof value === "number" && !Number.isFinite(value))) return "masked (no value)";
  if (typeof value !== "number") return String(value);
  if (!spec) return plotlyDefault(value);
  const write = formatter(spec, MINUS);
  return write ? write(value).replace(/e-/, "e\u2212") : String(value);
}

// No format in a hover template: an integer prints as an integer, any other number with up to six
// significant digits (as Plotly does), a minus as "−".
function plotlyDefault(value) {
  return (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)))).replace(/^-/, MINUS).replace(/e-/, "e\u2212");
}

// format.js's writers, one per specifier and minus sign (hovers ask for the same few thousands of times).
const writers = new Map();
function formatter(spec, minus) {
  const key = `${minus}${spec}`;
  if (!writers.has(key)) {
    let write = null;
    try {
      write = format(spec, { minus });
    } catch {
      write = null; // not a d3-format specifier: the value as JavaScript writes it
    }
    writers.set(key, write);
  }
  return writers.get(key);
}

// Readouts write a minus as a hyphen (as they always have).
const readout = (spec) => formatter(spec, "-");

/**
 * Compact number formatting for readouts: `digits` significant digits, scientific when tiny or
 * huge.  Between 10^digits and 10^6 every digit of the integer part is printed (47,117, not a
 * 47,120 whose last zero would read as exact); approx (below) adds "≈" where it rounds.
 */
export function fmt(value, digits = 4) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return readout(`.${digits - 1}e`)(value);
  if (magnitude >= 10 ** digits) return readout(",d")(value);
  return readout(`,.${digits}~r`)(value);
}


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
    return `${rounded === value ? "" : "≈ "}${readout(",d")(rounded)}`;
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
  if (value === null || value === undefined) return "—";
  const number = Number(value);
  return readout(Number.isInteger(number) ? ",d" : ",")(number);
}

/** Write `text` into every element with data-out="name". */
export function out(name, text) {
  document.querySelectorAll(`[data-out="${name}"]`).forEach((slot) => {
    if (slot.textContent !== text) slot.textContent = text;
  });
}

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** A control's bound or moved value: six significant digits, powers of ten from 10⁷ (10⁹, 2.5×10⁸). */
export function boundText(value) {
  if (Math.abs(value) >= 1e7) {
    const power = Math.floor(Math.log10(Math.abs(value)));
    const mantissa = Number((value / 10 ** power).toPrecision(3));
    const exponent = [...String(power)].map((ch) => SUPERSCRIPT[ch]).join("");
    return `${mantissa === 1 ? "" : `${mantissa}×`}10${exponent}`;
  }
  return Number(value.toPrecision(6)).toLocaleString("en-US", { maximumFractionDigits: 6 });
}
