// What the server accepts, decided in the page before any request: each field's own constraints
// and the cross-field rules (rules.js), the interval a numeric field may take given the others,
// and the nearest allowed value for one that the others' new values exclude.

import { ownProblem, ruleBounds, ruleProblem, ruleReads } from "./rules.js";

// Slider positions tried on each side when a position breaks a rule (e.g. an odd rotary dimension).
const SNAP_STEPS = 400;

export class Limits {
  constructor(fields, rules, controls) {
    this.fields = fields;
    this.rules = rules;
    this.byName = Object.fromEntries(fields.map((field) => [field.name, field]));
    this.controls = controls;
    // Fields whose limits depend on a given field: they are re-checked when it changes.
    this.dependents = {};
    for (const rule of rules) {
      for (const name of ruleReads(rule)) if (name !== rule.field) (this.dependents[name] ||= new Set()).add(rule.field);
    }
  }

  /** Why `values[name]` is refused, or "" when the server would accept it with the others. */
  problem(name, values) {
    return ownProblem(this.byName[name], values[name]) || ruleProblem(this.rules, name, values);
  }

  /** The rule `name`'s value breaks with `values` (to say why a value moved). */
  ruleProblem(name, values) {
    return ruleProblem(this.rules, name, values);
  }

  /** The interval a numeric field may take with the other values as they are. */
  of(name, values) {
    const field = this.byName[name];
    const dependent = ruleBounds(this.rules, name, values);
    let lo = Math.max(field.minimum ?? -Infinity, field.exclusiveMinimum ?? -Infinity, dependent.min);
    let hi = Math.min(field.maximum ?? Infinity, field.exclusiveMaximum ?? Infinity, dependent.max);
    const integer = field.type === "integer";
    const step = integer ? field.multipleOf || 1 : 0;
    const loOpen = (field.exclusiveMinimum !== undefined && lo === field.exclusiveMinimum) || (dependent.minExclusive && lo === dependent.min);
    const hiOpen = (field.exclusiveMaximum !== undefined && hi === field.exclusiveMaximum) || (dependent.maxExclusive && hi === dependent.max);
    if (integer) {
      lo = loOpen ? Math.floor(lo) + 1 : Math.ceil(lo);
      hi = hiOpen ? Math.ceil(hi) - 1 : Math.floor(hi);
      if (step > 1) {
        lo = Math.ceil(lo / step) * step;
        hi = Math.floor(hi / step) * step;
      }
    }
    return { lo, hi, loOpen: !integer && loOpen, hiOpen: !integer && hiOpen };
  }

  /** Nearest value to `value` that the field's limits allow (integers stay on their step). */
  clamp(name, value, values) {
    const { lo, hi, loOpen, hiOpen } = this.of(name, values);
    if (lo > hi) return value;
    if (value < lo || (loOpen && value <= lo)) return loOpen ? this.nextAbove(name, lo) : lo;
    if (value > hi || (hiOpen && value >= hi)) return hiOpen ? this.nextBelow(name, hi) : hi;
    return value;
  }

  nextAbove(name, bound) {
    const step = this.controls.step(name);
    return step ? Number((Math.floor(bound / step + 1) * step).toPrecision(12)) : bound * (1 + 1e-9) + 1e-12;
  }

  nextBelow(name, bound) {
    const step = this.controls.step(name);
    return step ? Number((Math.ceil(bound / step - 1) * step).toPrecision(12)) : bound * (1 - 1e-9);
  }

  /**
   * A slider position that breaks a rule (say int(head_dim·fraction) odd) is replaced by the
   * nearest position on the slider that does not, searching in the direction of the move first.
   */
  snap(name, value, values, direction) {
    const range = this.controls.range(name);
    if (!range || range.dataset.scale === "log") return value;
    const step = Number(range.step);
    if (!Number.isFinite(step) || step <= 0) return value;
    const min = Number(range.min);
    const max = Number(range.max);
    const ok = (candidate) => !this.problem(name, { ...values, [name]: candidate });
    if (ok(value)) return value;
    const order = direction < 0 ? [-1, 1] : [1, -1];
    const index = Math.round((value - min) / step);
    for (let k = 1; k <= SNAP_STEPS; k++) {
      for (const sign of order) {
        const candidate = Number((min + (index + sign * k) * step).toPrecision(12));
        if (candidate < min - 1e-12 || candidate > max + 1e-12) continue;
        if (ok(candidate)) return candidate;
      }
    }
    return value;
  }

  /** `value` of `name` moved to where the other `values` allow it (a list loses what it may not hold). */
  settled(name, value, values) {
    const field = this.byName[name];
    if (value === null || value === undefined) return value;
    if (field.type === "integer" || field.type === "number") {
      const clamped = this.clamp(name, value, values);
      return this.snap(name, clamped, values, Math.sign(value - clamped) || -1);
    }
    if (field.type.startsWith("list:") && Array.isArray(value)) {
      const items = ruleBounds(this.rules, name, values, "each");
      let list = value.map((item) => Math.min(Math.max(item, items.min), items.max));
      list = list.filter((item, i) => list.indexOf(item) === i);
      const length = ruleBounds(this.rules, name, values, "length");
      if (Number.isFinite(length.max)) list = list.slice(0, Math.max(1, Math.floor(length.max)));
      return list;
    }
    return value;
  }
}
