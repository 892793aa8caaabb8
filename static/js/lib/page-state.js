// The page's state: the value of each field that the server accepts together with the others,
// the values the view on screen was drawn from, and the checks a proposed value passes before it
// becomes state.  A refused value stays in its box with the reason beside it; the state keeps the
// last accepted one, so the other controls go on working.

import { boundText } from "./numbers.js";

export class PageState {
  /** `parts`: {fields, limits, controls, messages}; `initial`: the state of the first view. */
  constructor({ fields, limits, controls, messages }, initial) {
    this.fields = fields;
    this.limits = limits;
    this.controls = controls;
    this.messages = messages;
    this.state = { ...initial };
    this.lastGood = { ...initial }; // the state the view on screen was drawn from
    this.lastMoved = null; // {name, direction}: the slider the reader is dragging, for prefetching
  }

  /**
   * Apply `value` to field `name` if the server would accept it (true); else say why beside the
   * control (false).  A slider's value (`from` is the slider) moves to the nearest position the
   * rules allow, searching in `direction` first.  The fields that depend on `name` follow.
   */
  propose(name, value, { from = null, direction = 0 } = {}) {
    if (!this.limits.byName[name]) return false;
    const range = from && from.dataset.role === "range";
    const candidate = range ? this.limits.snap(name, value, this.state, direction) : value;
    const trial = { ...this.state, [name]: candidate };
    const problem = this.limits.problem(name, trial);
    if (problem) {
      this.messages.set(name, problem);
      return false;
    }
    this.messages.set(name, "");
    this.messages.clearNotes();
    this.state = trial;
    // The control the reader is using keeps what it shows, unless the value was snapped.
    this.controls.show(name, candidate, range && candidate !== value ? null : from);
    this.settleDependents(name);
    return true;
  }

  /**
   * After `name` changed: move every field whose limits moved out from under its value to the
   * nearest allowed value, saying why beside it, so the view follows.
   */
  settleDependents(name) {
    const queue = [...(this.limits.dependents[name] || [])];
    const seen = new Set();
    while (queue.length) {
      const other = queue.shift();
      if (seen.has(other) || other === name) continue;
      seen.add(other);
      const before = this.state[other];
      const after = this.limits.settled(other, before, this.state);
      if (sameValue(after, before)) continue;
      const why = this.limits.ruleProblem(other, this.state);
      this.state = { ...this.state, [other]: after };
      this.controls.show(other, after);
      this.messages.note(other, why ? `Moved to ${Array.isArray(after) ? after.join(", ") : boundText(after)}: ${why}.` : "");
      for (const next of this.limits.dependents[other] || []) queue.push(next);
    }
  }

  /** The reader moved slider `name` to `value`: remembered for prefetching; the move's direction. */
  dragged(name, value) {
    const direction = Math.sign(value - this.state[name]);
    this.lastMoved = { name, direction: direction || this.lastMoved?.direction || 1 };
    return direction;
  }

  /** The fields still refused (a dependent rule no move could settle), each with its message shown. */
  refused() {
    const refused = this.fields.filter((field) => this.limits.problem(field.name, this.state));
    for (const field of refused) this.messages.set(field.name, this.limits.problem(field.name, this.state));
    return refused;
  }

  /** The view on screen is now drawn from the current state. */
  shown() {
    this.lastGood = { ...this.state };
  }

  /** The server refused the fields `names`: they go back to the values of the view on screen. */
  takeBack(names) {
    for (const name of names) if (name in this.lastGood) this.state = { ...this.state, [name]: this.lastGood[name] };
  }

  /** Back or Forward: the address's values `wanted`, each refused one kept at its current value. */
  fromAddress(wanted) {
    for (const field of this.fields) {
      const problem = this.limits.problem(field.name, wanted);
      this.messages.set(field.name, problem);
      if (problem) wanted[field.name] = this.state[field.name];
    }
    this.state = wanted;
    for (const field of this.fields) this.controls.show(field.name, this.state[field.name]);
  }
}

/** Equal field values: the same scalar, or lists of the same items. */
export function sameValue(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}
