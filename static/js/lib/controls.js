// The form's controls: reading a value from a slider, box or checkbox, showing a value in every
// control of a field, and putting the bounds the rules allow on sliders and boxes.

import { boundText } from "./numbers.js";
import { parseValue, formatValue } from "./url-state.js";

export class Controls {
  constructor(form, byName) {
    this.form = form;
    this.byName = byName;
  }

  /** Every control of field `name` (a slider and its box, a checkbox, a select). */
  of(name) {
    return this.form ? this.form.querySelectorAll(`[data-param="${name}"]`) : [];
  }

  /** The slider of field `name`, if it has one. */
  range(name) {
    return this.form?.querySelector(`[data-param="${name}"][data-role="range"]`) || null;
  }

  /** The slider's step, or null (no slider, or a continuous one). */
  step(name) {
    const range = this.range(name);
    if (!range) return null;
    return range.step === "any" ? null : Number(range.step);
  }

  /** The value a control holds, in its field's type. */
  read(input) {
    const field = this.byName[input.dataset.param];
    if (input.type === "checkbox") return input.checked;
    if (input.dataset.scale === "log") return fromLog(field, Number(input.value));
    if (field.type.startsWith("list:")) {
      const itemType = field.type.slice(5);
      return input.value.split(/[\s,]+/).filter(Boolean).map((item) => parseValue(itemType, item));
    }
    if (field.nullable && input.value.trim() === "") return null;
    return parseValue(field.type, input.value);
  }

  /** Show `value` in every control of `name` but `except` (the one the reader is typing into). */
  show(name, value, except = null) {
    for (const input of this.of(name)) {
      if (input === except) continue;
      if (input.type === "checkbox") input.checked = Boolean(value);
      else if (input.dataset.scale === "log") input.value = value > 0 ? String(Math.log10(value)) : input.min;
      else if (Array.isArray(value)) input.value = value.map(formatValue).join(", ");
      else if (value === null) input.value = "";
      else input.value = formatValue(value);
    }
  }

  /** Put every numeric control's bounds where `limits` (limits.js) puts them for `state`. */
  showBounds(fields, limits, state) {
    for (const field of fields) {
      if (field.type !== "integer" && field.type !== "number") continue;
      const bounds = limits.of(field.name, state);
      if (!(bounds.lo <= bounds.hi)) continue;
      for (const input of this.of(field.name)) this.bound(input, field.name, bounds, limits);
      const hint = document.getElementById(`range-${field.name}`);
      if (hint && Number.isFinite(bounds.lo) && Number.isFinite(bounds.hi)) {
        const text = `${bounds.loOpen ? "above " : ""}${boundText(bounds.lo)} – ${bounds.hiOpen ? "below " : ""}${boundText(bounds.hi)}`;
        if (hint.textContent !== text) hint.textContent = text;
      }
    }
  }

  bound(input, name, { lo, hi, loOpen, hiOpen }, limits) {
    if (input.dataset.scale === "log") {
      // An open end (base > 1) starts one slider step inside, so the slider never offers it.
      const step = Number(input.step) || 0.01;
      if (lo > 0) setBound(input, "min", Math.log10(lo) + (loOpen ? step : 0));
      if (hi > 0 && Number.isFinite(hi)) setBound(input, "max", Math.log10(hi) - (hiOpen ? step : 0));
    } else if (input.type === "range") {
      const step = input.step === "any" ? 0 : Number(input.step);
      if (Number.isFinite(lo)) setBound(input, "min", loOpen && step ? limits.nextAbove(name, lo) : lo);
      if (Number.isFinite(hi)) setBound(input, "max", hiOpen && step ? limits.nextBelow(name, hi) : hi);
    } else if (input.type === "number") {
      if (Number.isFinite(lo)) setBound(input, "min", lo);
      if (Number.isFinite(hi)) setBound(input, "max", hi);
    }
  }
}

// Bounds are put back after every change; an attribute written with its own value still makes the
// browser restyle the control, so only a bound that moved is written.
function setBound(input, attribute, value) {
  const text = String(value);
  if (input[attribute] !== text) input[attribute] = text;
}

/** The value at a log slider's position (three significant digits keep slider-made URLs short). */
export function fromLog(field, position) {
  const rounded = Number((10 ** position).toPrecision(3));
  return field.type === "integer" ? Math.round(rounded) : rounded;
}

// On a phone a long list of controls would push the plots a screen or more down: it starts
// folded (its summary says how many controls it holds), one tap away.
export function collapseLongControlsOnPhones(form) {
  const box = form?.querySelector(".controls-box");
  if (!box || window.innerWidth >= 900) return;
  const count = box.querySelectorAll(".control").length;
  const summary = box.querySelector("summary");
  if (summary) summary.textContent = `Controls (${count})`;
  if (box.scrollHeight > window.innerHeight * 0.6) box.open = false;
}
