// What the server accepts, known before asking it: each field's own constraints (from its JSON
// schema) and the cross-field rules declared beside it (app/web/rules.py), which arrive as
// expression trees.  The page uses this to bound sliders and boxes by the other controls and to
// send no request for a value the server would refuse.
//
// The trees mean what the Python expressions mean: floor division and modulo follow Python's
// signs, truthiness is Python's (an empty list is false), int() truncates, and a rule that
// divides by zero or reads a missing value does not apply (tests/browser/test_rules.py compares
// the two evaluators on the rules of every view).

class NotApplicable extends Error {}

// Python's str.split() whitespace (JavaScript's \s differs: it lacks \x1c-\x1f and \x85, and has \ufeff).
const PY_SPACE = /[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

function truthy(value) {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value) || typeof value === "string") return value.length > 0;
  if (typeof value === "number") return value !== 0;
  return Boolean(value);
}

const CALLS = {
  len: (value) => (typeof value === "string" ? [...value].length : value.length),
  words: (text) => text.split(PY_SPACE).filter(Boolean).length,
  int: (value) => Math.trunc(Number(value)),
  min: (...values) => Math.min(...values),
  max: (...values) => Math.max(...values),
  sum: (values) => values.reduce((total, value) => total + value, 0),
};

function divide(a, b, floor) {
  if (b === 0) throw new NotApplicable();
  return floor ? Math.floor(a / b) : a / b;
}

function modulo(a, b) {
  if (b === 0) throw new NotApplicable();
  let r = a % b;
  if (r !== 0 && r < 0 !== b < 0) r += b;
  return r;
}

const BINARY = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => divide(a, b, false),
  "//": (a, b) => divide(a, b, true),
  "%": modulo,
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  in: (a, b) => b.includes(a),
  "not in": (a, b) => !b.includes(a),
};

/** Value of a compiled expression (app/web/rules.py) for the field values; throws NotApplicable. */
export function evaluate(tree, values) {
  const [op, ...args] = tree;
  switch (op) {
    case "lit":
      return args[0];
    case "var": {
      const value = values[args[0]];
      if (value === null || value === undefined) throw new NotApplicable();
      return value;
    }
    case "and": {
      const left = evaluate(args[0], values);
      return truthy(left) ? evaluate(args[1], values) : left;
    }
    case "or": {
      const left = evaluate(args[0], values);
      return truthy(left) ? left : evaluate(args[1], values);
    }
    case "if":
      return truthy(evaluate(args[0], values)) ? evaluate(args[1], values) : evaluate(args[2], values);
    case "not":
      return !truthy(evaluate(args[0], values));
    case "neg":
      return -evaluate(args[0], values);
    case "list":
      return args.map((item) => evaluate(item, values));
    case "call":
      return CALLS[args[0]](...args.slice(1).map((arg) => evaluate(arg, values)));
    default:
      return BINARY[op](evaluate(args[0], values), evaluate(args[1], values));
  }
}

/** evaluate(), with NotApplicable as `fallback` (for tests: the same contract as the server's). */
export function evaluateOr(tree, values, fallback = null) {
  try {
    return evaluate(tree, values);
  } catch (error) {
    if (error instanceof NotApplicable) return fallback;
    throw error;
  }
}

function number(value) {
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

function render(parts, values) {
  return (parts || [])
    .map((part) => (typeof part === "string" ? part : number(evaluateOr(part, values, "?"))))
    .join("");
}

const WORDS = { ge: "at least", gt: "greater than", le: "at most", lt: "less than" };
const HOLDS = { ge: (v, b) => v >= b, gt: (v, b) => v > b, le: (v, b) => v <= b, lt: (v, b) => v < b };

function applies(rule, values) {
  return !rule.when || truthy(evaluate(rule.when, values));
}

function names(tree, out = new Set()) {
  if (tree[0] === "var") out.add(tree[1]);
  else if (tree[0] !== "lit") for (const part of tree.slice(1)) if (Array.isArray(part)) names(part, out);
  return out;
}

/** The field names a rule reads. */
export function ruleReads(rule) {
  const trees = [rule.when, rule.test, ...Object.values(rule.limits || {}),
    ...[...(rule.message || []), ...(rule.why || [])].filter(Array.isArray)].filter(Boolean);
  const out = new Set();
  for (const tree of trees) names(tree, out);
  return out;
}

/** Message of the first rule of `field` that `values` break, or "". */
export function ruleProblem(rules, field, values) {
  const value = values[field];
  if (value === null || value === undefined) return "";
  for (const rule of rules) {
    if (rule.field !== field) continue;
    try {
      if (!applies(rule, values)) continue;
      if (rule.kind === "require") {
        if (!truthy(evaluate(rule.test, values))) return render(rule.message, values);
        continue;
      }
      const reason = rule.why && rule.why.length ? ` (${render(rule.why, values)})` : "";
      for (const [op, tree] of Object.entries(rule.limits)) {
        const bound = evaluate(tree, values);
        if (typeof bound === "number" && !Number.isFinite(bound)) continue;
        if (rule.kind === "length" && !HOLDS[op](value.length, bound)) {
          return `${field} must hold ${WORDS[op]} ${number(bound)} item${bound !== 1 ? "s" : ""} here${reason}; it has ${value.length}`;
        }
        if (rule.kind === "each") {
          const bad = value.find((item) => !HOLDS[op](item, bound));
          if (bad !== undefined) return `every ${field} item must be ${WORDS[op]} ${number(bound)} here${reason}; ${number(bad)} is not`;
        }
        if (rule.kind === "value" && !HOLDS[op](value, bound)) {
          return `${field} must be ${WORDS[op]} ${number(bound)} here${reason}; got ${number(value)}`;
        }
      }
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
    }
  }
  return "";
}

/**
 * Dependent limits of a numeric field (or of a list's items / length) under `values`:
 * {min, max, minExclusive, maxExclusive} from its value rules, combined with nothing else.
 */
export function ruleBounds(rules, field, values, kind = "value") {
  const out = { min: -Infinity, max: Infinity, minExclusive: false, maxExclusive: false };
  for (const rule of rules) {
    if (rule.field !== field || rule.kind !== kind) continue;
    try {
      if (!applies(rule, values)) continue;
      for (const [op, tree] of Object.entries(rule.limits)) {
        const bound = evaluate(tree, values);
        if (typeof bound !== "number" || !Number.isFinite(bound)) continue;
        if ((op === "ge" || op === "gt") && (bound > out.min || (bound === out.min && op === "gt"))) {
          out.min = bound;
          out.minExclusive = op === "gt";
        }
        if ((op === "le" || op === "lt") && (bound < out.max || (bound === out.max && op === "lt"))) {
          out.max = bound;
          out.maxExclusive = op === "lt";
        }
      }
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
    }
  }
  return out;
}

// ---- a field's own constraints (its JSON schema, as app/web/templating.field_specs sends it) ----

function numberProblem(spec, value, label = spec.name) {
  if (typeof value !== "number" || Number.isNaN(value)) return `${label} must be a number`;
  if (!Number.isFinite(value)) return `${label} must be finite`;
  if (spec.type === "integer" && !Number.isInteger(value)) return `${label} must be a whole number`;
  if (spec.minimum !== undefined && value < spec.minimum) return `${label} must be at least ${number(spec.minimum)}`;
  if (spec.exclusiveMinimum !== undefined && value <= spec.exclusiveMinimum) return `${label} must be greater than ${number(spec.exclusiveMinimum)}`;
  if (spec.maximum !== undefined && value > spec.maximum) return `${label} must be at most ${number(spec.maximum)}`;
  if (spec.exclusiveMaximum !== undefined && value >= spec.exclusiveMaximum) return `${label} must be less than ${number(spec.exclusiveMaximum)}`;
  if (spec.multipleOf !== undefined && spec.type === "integer" && value % spec.multipleOf !== 0) {
    return `${label} must be a multiple of ${spec.multipleOf}`;
  }
  return "";
}

/** Why `value` is refused by the field's own constraints, or "". */
export function ownProblem(spec, value) {
  if (value === null && spec.nullable) return "";
  if (spec.type === "boolean") return typeof value === "boolean" ? "" : `${spec.name} must be true or false`;
  if (spec.type === "integer" || spec.type === "number") return numberProblem(spec, value);
  if (spec.type.startsWith("list:")) {
    if (!Array.isArray(value)) return `${spec.name} must be a list`;
    if (spec.minItems !== undefined && value.length < spec.minItems) return `${spec.name} needs at least ${spec.minItems} value${spec.minItems > 1 ? "s" : ""}`;
    if (spec.maxItems !== undefined && value.length > spec.maxItems) return `${spec.name} takes at most ${spec.maxItems} values`;
    const item = { name: "each value", type: spec.type.slice(5), ...(spec.items || {}) };
    for (const entry of value) {
      const problem = numberProblem(item, entry, `each value`);
      if (problem) return `${problem} (${number(entry)} is not)`;
    }
    return "";
  }
  if (spec.enum && !spec.enum.includes(value)) return `${spec.name} must be one of ${spec.enum.join(", ")}`;
  if (typeof value !== "string") return `${spec.name} must be text`;
  if (spec.minLength !== undefined && [...value].length < spec.minLength) return `${spec.name} must not be empty`;
  if (spec.maxLength !== undefined && [...value].length > spec.maxLength) return `${spec.name} takes at most ${spec.maxLength} characters`;
  return "";
}
