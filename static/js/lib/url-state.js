// The URL is the only state of a page.  This is the only module that touches location/history.
//
// fields: [{name, role: "compute"|"display", type: "integer"|"number"|"boolean"|"string"|"list:integer"|"list:number", default}]

export function parseValue(type, raw) {
  if (type === "boolean") return raw === "true" || raw === "1" || raw === "on";
  if (type === "integer" || type === "number") {
    const value = Number(raw);
    return raw.trim() === "" || Number.isNaN(value) ? raw : value;
  }
  return raw;
}

export function formatValue(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

function sameValue(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameValue(item, b[i]));
  }
  if (typeof a === "number" && typeof b === "number") return a === b;
  return formatValue(a) === formatValue(b);
}

/** State from a query string: defaults for absent fields, typed values for present ones. */
export function stateFromQuery(fields, search = window.location.search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const field of fields) {
    const raw = params.getAll(field.name);
    if (raw.length === 0) {
      state[field.name] = field.default;
    } else if (field.type.startsWith("list:")) {
      state[field.name] = raw.map((item) => parseValue(field.type.slice(5), item));
    } else {
      state[field.name] = parseValue(field.type, raw[raw.length - 1]);
    }
  }
  return state;
}

/** Canonical query: only values that differ from their defaults, in field order. */
export function queryFromState(fields, state, roles = ["compute", "display"]) {
  const params = new URLSearchParams();
  for (const field of fields) {
    if (!roles.includes(field.role)) continue;
    const value = state[field.name];
    if (value === undefined || sameValue(value, field.default)) continue;
    if (Array.isArray(value)) value.forEach((item) => params.append(field.name, formatValue(item)));
    else params.append(field.name, formatValue(value));
  }
  return params;
}

export function withQuery(path, params) {
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Keeps one history entry per finished change.  The first movement of a drag pushes a new
 * entry, later movements replace it (no entry per pixel), and the end of the change replaces
 * it once more; a change made in one step (a select, a typed value) pushes.  Back therefore
 * returns to the view before the change, not to a value somewhere in the middle of a drag.
 */
export class History {
  constructor() {
    this.draft = false; // the current entry belongs to a change still in progress
  }

  write(params, { finished }) {
    // the fragment is kept: in an embedded view it names the figure shown (static/js/stage.js)
    const url = withQuery(window.location.pathname, params) + window.location.hash;
    const same = url === window.location.pathname + window.location.search + window.location.hash;
    if (this.draft) {
      if (!same) window.history.replaceState(null, "", url);
      this.draft = !finished;
    } else if (!same) {
      window.history.pushState(null, "", url);
      this.draft = !finished;
    }
  }

  /** Back/Forward landed on an entry: it is a finished view. */
  settled() {
    this.draft = false;
  }
}
