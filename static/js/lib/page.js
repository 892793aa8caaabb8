// The page controller shared by every lesson: URL ⇄ controls ⇄ JSON twin ⇄ plots.
//
// A page module calls startPage({draw}).  draw(data, state) redraws everything from the JSON
// twin's data and the current state; it runs for the first paint (data embedded in the HTML) and
// after every change.  startPage returns {data, state, set(name, value, {finished})} for pages
// that move a control themselves (the clock's animation).
//
// What is on screen is always a view the server accepted.  `state` holds the last value of each
// field that the server accepts together with the others; a box may show something else (what
// the user is typing, or a refused value from a link) with its message beside it.  Before any
// request, every field is checked against its own constraints and the cross-field rules
// (rules.js), so a refused value costs no round trip and freezes nothing: the other controls keep
// working from the last good values.  Sliders and boxes take their bounds from the same rules,
// and a control whose value the new bounds exclude moves to the nearest allowed one.

import { LatestRequest, prefetch, cachedBody } from "./api.js";
import { flushAll } from "./draw.js";
import { boundText } from "./numbers.js";
import { ownProblem, ruleBounds, ruleProblem, ruleReads } from "./rules.js";
import { History, formatValue, parseValue, queryFromState, stateFromQuery, withQuery } from "./url-state.js";

const BUSY_DELAY_MS = 150;
// A typed number applies when the user pauses this long, or at once on Enter / leaving the box.
const TYPING_PAUSE_MS = 700;
// Slider positions tried on each side when a position breaks a rule (e.g. an odd rotary dimension).
const SNAP_STEPS = 400;

export function startPage({ draw }) {
  const boot = JSON.parse(document.getElementById("page-data").textContent);
  const fields = boot.fields;
  const rules = boot.rules || [];
  const byName = Object.fromEntries(fields.map((field) => [field.name, field]));
  const figures = document.querySelector(".figures");
  const status = document.querySelector('[data-role="status"]');
  const twin = document.querySelector('[data-role="json-twin"]');
  const form = document.getElementById("controls");
  const request = new LatestRequest();
  const history = new History();
  // Fields whose limits depend on a given field: they are re-checked when it changes.
  const dependents = {};
  for (const rule of rules) {
    for (const name of ruleReads(rule)) if (name !== rule.field) (dependents[name] ||= new Set()).add(rule.field);
  }

  let state = { ...boot.state };
  // Large data is not embedded in the HTML (app/web/routing.py, EMBED_MAX_BYTES): fetched at start.
  let data = boot.data;
  let shownQuery = data === null ? null : computeQuery(state).toString();
  const messages = {}; // field → message shown beside its control ("" = none)
  const typing = {}; // field → timer of a number being typed
  let scheduled = null; // {push}
  let busyTimer = null;
  let lastMoved = null; // {name, direction}: the slider the reader is dragging, for prefetching

  function computeQuery(s) {
    return queryFromState(fields, s, ["compute"]);
  }

  function apiUrl(s) {
    return withQuery(boot.api, computeQuery(s));
  }

  // ---- controls -------------------------------------------------------------------------

  function controlsFor(name) {
    return form ? form.querySelectorAll(`[data-param="${name}"]`) : [];
  }

  function rangeOf(name) {
    return form?.querySelector(`[data-param="${name}"][data-role="range"]`) || null;
  }

  function readControl(input) {
    const field = byName[input.dataset.param];
    if (input.type === "checkbox") return input.checked;
    if (input.dataset.scale === "log") return fromLog(field, Number(input.value));
    if (field.type.startsWith("list:")) {
      const itemType = field.type.slice(5);
      return input.value.split(/[\s,]+/).filter(Boolean).map((item) => parseValue(itemType, item));
    }
    if (field.nullable && input.value.trim() === "") return null;
    return parseValue(field.type, input.value);
  }

  function fromLog(field, position) {
    const exact = 10 ** position;
    // Three significant digits keep slider-made URLs short; typed values stay exact.
    const rounded = Number(exact.toPrecision(3));
    return field.type === "integer" ? Math.round(rounded) : rounded;
  }

  function showValue(name, value, except = null) {
    for (const input of controlsFor(name)) {
      if (input === except) continue;
      if (input.type === "checkbox") input.checked = Boolean(value);
      else if (input.dataset.scale === "log") input.value = value > 0 ? String(Math.log10(value)) : input.min;
      else if (Array.isArray(value)) input.value = value.map(formatValue).join(", ");
      else if (value === null) input.value = "";
      else input.value = formatValue(value);
    }
  }

  // ---- what the server accepts ---------------------------------------------------------------

  function problemOf(name, values) {
    const field = byName[name];
    return ownProblem(field, values[name]) || ruleProblem(rules, name, values);
  }

  /** The interval a numeric field may take with the other values as they are. */
  function limitsOf(name, values) {
    const field = byName[name];
    const dependent = ruleBounds(rules, name, values);
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
  function clampTo(name, value, values) {
    const { lo, hi, loOpen, hiOpen } = limitsOf(name, values);
    if (lo > hi) return value;
    if (value < lo || (loOpen && value <= lo)) return loOpen ? nextAbove(name, lo) : lo;
    if (value > hi || (hiOpen && value >= hi)) return hiOpen ? nextBelow(name, hi) : hi;
    return value;
  }

  function sliderStep(name) {
    const range = rangeOf(name);
    if (!range) return null;
    return range.step === "any" ? null : Number(range.step);
  }

  function nextAbove(name, bound) {
    const step = sliderStep(name);
    return step ? Number((Math.floor(bound / step + 1) * step).toPrecision(12)) : bound * (1 + 1e-9) + 1e-12;
  }

  function nextBelow(name, bound) {
    const step = sliderStep(name);
    return step ? Number((Math.ceil(bound / step - 1) * step).toPrecision(12)) : bound * (1 - 1e-9);
  }

  /**
   * A slider position that breaks a rule (say int(head_dim·fraction) odd) is replaced by the
   * nearest position on the slider that does not, searching in the direction of the move first.
   */
  function snapSlider(name, value, values, direction) {
    const range = rangeOf(name);
    if (!range || range.dataset.scale === "log") return value;
    const step = Number(range.step);
    if (!Number.isFinite(step) || step <= 0) return value;
    const min = Number(range.min);
    const max = Number(range.max);
    const ok = (candidate) => !problemOf(name, { ...values, [name]: candidate });
    if (ok(value)) return value;
    const order = direction < 0 ? [-1, 1] : [1, -1];
    const index = Math.round((value - min) / step);
    for (let k = 1; k <= SNAP_STEPS; k++) {
      for (const sign of order) {
        const position = index + sign * k;
        const candidate = Number((min + position * step).toPrecision(12));
        if (candidate < min - 1e-12 || candidate > max + 1e-12) continue;
        if (ok(candidate)) return candidate;
      }
    }
    return value;
  }

  /** Put every control's range and box bounds where the rules put them for `state`. */
  function showBounds() {
    for (const field of fields) {
      if (field.type !== "integer" && field.type !== "number") continue;
      const { lo, hi, loOpen, hiOpen } = limitsOf(field.name, state);
      if (!(lo <= hi)) continue;
      for (const input of controlsFor(field.name)) {
        if (input.dataset.scale === "log") {
          // An open end (base > 1) starts one slider step inside, so the slider never offers it.
          const step = Number(input.step) || 0.01;
          if (lo > 0) input.min = String(Math.log10(lo) + (loOpen ? step : 0));
          if (hi > 0 && Number.isFinite(hi)) input.max = String(Math.log10(hi) - (hiOpen ? step : 0));
        } else if (input.type === "range") {
          const step = input.step === "any" ? 0 : Number(input.step);
          if (Number.isFinite(lo)) input.min = String(loOpen && step ? nextAbove(field.name, lo) : lo);
          if (Number.isFinite(hi)) input.max = String(hiOpen && step ? nextBelow(field.name, hi) : hi);
        } else if (input.type === "number") {
          if (Number.isFinite(lo)) input.min = String(lo);
          if (Number.isFinite(hi)) input.max = String(hi);
        }
      }
      const hint = document.getElementById(`range-${field.name}`);
      if (hint && Number.isFinite(lo) && Number.isFinite(hi)) {
        hint.textContent = `${loOpen ? "above " : ""}${boundText(lo)} – ${hiOpen ? "below " : ""}${boundText(hi)}`;
      }
    }
  }

  /**
   * After `name` changed: move every field whose limits moved out from under its value to the
   * nearest allowed value (a list loses the items it may no longer hold), so the view follows.
   */
  function settleDependents(name) {
    const queue = [...(dependents[name] || [])];
    const seen = new Set();
    while (queue.length) {
      const other = queue.shift();
      if (seen.has(other) || other === name) continue;
      seen.add(other);
      const before = state[other];
      const after = settled(other, before);
      if (!sameValue(after, before)) {
        // Say why the value moved: the rule its old value now breaks.
        const why = ruleProblem(rules, other, state);
        state = { ...state, [other]: after };
        showValue(other, after);
        setNote(other, why ? `Moved to ${Array.isArray(after) ? after.join(", ") : boundText(after)}: ${why}.` : "");
        for (const next of dependents[other] || []) queue.push(next);
      }
    }
  }

  function settled(name, value) {
    const field = byName[name];
    if (value === null || value === undefined) return value;
    if (field.type === "integer" || field.type === "number") {
      const clamped = clampTo(name, value, state);
      return snapSlider(name, clamped, state, Math.sign(value - clamped) || -1);
    }
    if (field.type.startsWith("list:") && Array.isArray(value)) {
      const items = ruleBounds(rules, name, state, "each");
      let list = value.map((item) => Math.min(Math.max(item, items.min), items.max));
      list = list.filter((item, i) => list.indexOf(item) === i);
      const length = ruleBounds(rules, name, state, "length");
      if (Number.isFinite(length.max)) list = list.slice(0, Math.max(1, Math.floor(length.max)));
      return list;
    }
    return value;
  }

  // ---- messages --------------------------------------------------------------------------------

  function setMessage(name, message) {
    messages[name] = message;
    const slot = document.getElementById(`err-${name}`);
    if (!slot) return false;
    if (slot.textContent !== message) slot.textContent = message;
    slot.classList.remove("is-note");
    slot.closest(".control")?.classList.toggle("has-error", Boolean(message));
    return true;
  }

  /** A remark beside a control that is not an error (a value another control moved). */
  function setNote(name, note) {
    const slot = document.getElementById(`err-${name}`);
    if (!slot || messages[name]) return;
    slot.textContent = note;
    slot.classList.toggle("is-note", Boolean(note));
  }

  function setStatus(text, isError = false) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("is-error", isError);
  }

  function showServerErrors(body) {
    const items = Array.isArray(body.detail) ? body.detail : [{ msg: String(body.detail) }];
    const loose = [];
    for (const item of items) {
      const text = item.msg + (item.allowed && item.type !== "rule" ? ` (allowed: ${item.allowed})` : "");
      if (!item.param || !setMessage(item.param, text)) loose.push(text);
    }
    if (loose.length) setStatus(loose.join(" · "), true);
    return items.map((item) => item.param).filter((name) => name in byName);
  }

  // ---- the update cycle ------------------------------------------------------------------------

  function schedule(push) {
    if (scheduled) {
      scheduled.push = scheduled.push || push;
      return;
    }
    scheduled = { push };
    // Coalesce the events of one task (a key press fires input then change) and start the
    // request right after it, not at the next animation frame (up to 16 ms later).  Browsers
    // already deliver a drag's input events at most once per frame, and a newer request aborts
    // the older one (api.js), so this does not multiply requests.
    queueMicrotask(() => {
      const { push: pushNow } = scheduled;
      scheduled = null;
      update(pushNow);
    });
  }

  /** Apply `value` to field `name` if the server would accept it; else show why. */
  function propose(name, value, { push = false, from = null, direction = 0 } = {}) {
    const field = byName[name];
    if (!field) return false;
    let candidate = value;
    const range = from && from.dataset.role === "range";
    if (range) candidate = snapSlider(name, value, state, direction);
    const trial = { ...state, [name]: candidate };
    const problem = problemOf(name, trial);
    if (problem) {
      setMessage(name, problem);
      return false;
    }
    setMessage(name, "");
    form?.querySelectorAll(".control-error.is-note").forEach((slot) => {
      slot.textContent = "";
      slot.classList.remove("is-note");
    });
    state = trial;
    if (range && candidate !== value) showValue(name, candidate);
    else showValue(name, candidate, from);
    settleDependents(name);
    schedule(push);
    return true;
  }

  async function update(push) {
    document.body.classList.toggle("presenter", Boolean(state.presenter));
    showBounds();
    // Fields still refused (a dependent rule no move could settle): the last view stays.
    const refused = fields.filter((field) => problemOf(field.name, state));
    for (const field of refused) setMessage(field.name, problemOf(field.name, state));
    if (refused.some((field) => field.role === "compute")) return;
    // The address follows the controls at once (a copied link is what the reader set up); a
    // value the server refuses after all is taken back below.
    history.write(queryFromState(fields, state), { finished: push });
    syncToolbar();
    const query = computeQuery(state).toString();
    if (query === shownQuery) {
      show();
      return;
    }
    const snapshot = { ...state };
    const url = apiUrl(snapshot);
    let result = cachedBody(url);
    if (result === null) {
      clearTimeout(busyTimer);
      busyTimer = setTimeout(() => figures?.classList.add("is-busy"), BUSY_DELAY_MS);
      result = await request.get(url);
      if (result === null) return; // superseded by a newer change
      clearTimeout(busyTimer);
      figures?.classList.remove("is-busy");
    }
    if (!result.ok) {
      // The server refused something the page could not know (a rule it alone checks): the
      // fields it names go back to their last good values, their boxes keep what was typed.
      const named = showServerErrors(result.body);
      for (const name of named) if (name in lastGood) state = { ...state, [name]: lastGood[name] };
      history.write(queryFromState(fields, state), { finished: true });
      syncToolbar();
      return;
    }
    setStatus("");
    data = result.body;
    shownQuery = query;
    show();
    schedulePrefetch();
  }

  let lastGood = { ...state };

  function show() {
    lastGood = { ...state };
    redraw();
  }

  function redraw() {
    try {
      draw(data, state);
    } catch (error) {
      setStatus(`Could not draw: ${error.message}`, true);
      throw error;
    }
  }

  function syncToolbar() {
    if (twin) twin.href = apiUrl(state);
    const toggle = document.querySelector('[data-action="presenter"]');
    if (toggle) toggle.setAttribute("aria-pressed", String(Boolean(state.presenter)));
  }

  // ---- prefetching ----------------------------------------------------------------------------
  //
  // After a view settles, the slider last moved is likely to move one step more: the views one
  // step either side (two in the direction of the drag) are fetched while the page is idle, so
  // the next move needs no round trip.  At most three requests per settled view.

  let prefetchTimer = 0;

  function schedulePrefetch() {
    clearTimeout(prefetchTimer);
    if (!lastMoved || window.__noPrefetch) return;
    prefetchTimer = setTimeout(() => {
      const { name, direction } = lastMoved;
      const range = rangeOf(name);
      if (!range || byName[name].role !== "compute") return;
      const here = Number(range.value);
      const step = range.step === "any" ? (Number(range.max) - Number(range.min)) / 200 : Number(range.step);
      const ahead = direction < 0 ? -1 : 1;
      for (const offset of [ahead, -ahead, 2 * ahead]) {
        const position = here + offset * step;
        if (position < Number(range.min) - 1e-9 || position > Number(range.max) + 1e-9) continue;
        const value = range.dataset.scale === "log" ? fromLog(byName[name], position) : parseValue(byName[name].type, String(position));
        const candidate = snapSlider(name, value, state, offset);
        const trial = { ...state, [name]: candidate };
        if (problemOf(name, trial)) continue;
        let settledTrial = trial;
        for (const other of dependents[name] || []) settledTrial = { ...settledTrial, [other]: settledTrialValue(other, settledTrial) };
        if (fields.some((field) => field.role === "compute" && problemOf(field.name, settledTrial))) continue;
        prefetch(apiUrl(settledTrial));
      }
    }, 30);
  }

  function settledTrialValue(name, values) {
    const saved = state;
    state = values;
    try {
      return settled(name, values[name]);
    } finally {
      state = saved;
    }
  }

  // ---- events ----------------------------------------------------------------------------

  form?.addEventListener("submit", (event) => event.preventDefault());
  form?.addEventListener("input", (event) => {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    const name = input.dataset.param;
    if (input.dataset.role === "range") {
      const value = readControl(input);
      const direction = Math.sign(value - state[name]);
      lastMoved = { name, direction: direction || lastMoved?.direction || 1 };
      propose(name, value, { from: input, direction });
      return;
    }
    if (input.type === "checkbox" || input.tagName === "SELECT") {
      propose(name, readControl(input), { push: true, from: input });
      return;
    }
    // A box being typed into: apply when the typing pauses; say at once what is wrong with
    // a value that cannot become right by typing more (but not while a number is half typed).
    clearTimeout(typing[name]);
    typing[name] = setTimeout(() => {
      delete typing[name];
      propose(name, readControl(input), { from: input });
    }, TYPING_PAUSE_MS);
  });
  form?.addEventListener("change", (event) => {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    const name = input.dataset.param;
    clearTimeout(typing[name]);
    delete typing[name];
    if (input.type === "checkbox" || input.tagName === "SELECT") return; // applied on input
    const value = readControl(input);
    if (sameValue(value, state[name]) && !messages[name]) {
      schedule(true); // the end of a drag: one history entry
      return;
    }
    propose(name, value, { push: true, from: input });
  });
  form?.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.matches?.('input[data-role="box"]')) {
      event.preventDefault();
      event.target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  window.addEventListener("popstate", () => {
    history.settled();
    const wanted = stateFromQuery(fields);
    for (const field of fields) {
      const problem = problemOf(field.name, wanted);
      setMessage(field.name, problem);
      if (problem) wanted[field.name] = state[field.name];
    }
    state = wanted;
    for (const field of fields) showValue(field.name, state[field.name]);
    update(false);
  });

  document.addEventListener("keydown", (event) => {
    const typingInto = event.target.closest?.("input, select, textarea");
    if (typingInto || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "p" && "presenter" in byName) propose("presenter", !state.presenter, { push: true });
  });

  document.querySelector(".toolbar")?.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    if (action === "copy-link") copyLink();
    else if (action === "png" || action === "svg") exportImages(action);
    else if (action === "json") download(`${fileStem()}.json`, "application/json", JSON.stringify(data));
    else if (action === "csv") downloadUrl(`${fileStem()}.csv`, withQuery(`${boot.api}.csv`, computeQuery(state)));
    else if (action === "presenter") propose("presenter", !state.presenter, { push: true });
  });

  // ---- sharing and exports ----------------------------------------------------------------

  async function copyLink() {
    const link = window.location.href;
    try {
      await navigator.clipboard.writeText(link);
      setStatus("Link copied.");
    } catch {
      window.prompt("Copy this link:", link);
    }
  }

  function fileStem() {
    const parts = [boot.name];
    for (const [name, value] of computeQuery(state)) parts.push(`${name}-${value}`);
    return parts.join("_").replace(/[^A-Za-z0-9_.+-]/g, "");
  }

  async function exportImages(format) {
    const { exportFigure } = await import("./exports.js");
    await flushAll();
    const plots = [...document.querySelectorAll(".plot")].filter((el) => el.data);
    for (const [i, el] of plots.entries()) {
      const suffix = plots.length > 1 ? `_${el.id.replace(/^plot-?/, "") || i}` : "";
      await exportFigure(el, format, `${fileStem()}${suffix}`);
    }
  }

  function download(filename, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    downloadUrl(filename, url);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function downloadUrl(filename, url) {
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  // ---- first paint --------------------------------------------------------------------------

  // A link may hold values the server refused: the view shows the defaults it fell back to, and
  // each box keeps the link's value with the message beside it.
  if (boot.errors?.length) {
    const fromLink = stateFromQuery(fields);
    for (const name of showServerErrors({ detail: boot.errors })) showValue(name, fromLink[name]);
  }
  showBounds();
  syncToolbar();
  collapseLongControlsOnPhones(form);
  if (data === null) update(false);
  else redraw();
  redrawWhenPanelsRestack(figures, () => data !== null && redraw());

  return {
    get data() {
      return data;
    },
    get state() {
      return state;
    },
    /** Move a control from the page's own code (an animation), as if the reader had. */
    set(name, value, { finished = false } = {}) {
      if (sameValue(value, state[name])) {
        if (finished) schedule(true);
        return true;
      }
      return propose(name, value, { push: finished });
    },
  };
}

// On a phone a long list of controls would push the plots a screen or more down: it starts
// folded (its summary says how many controls it holds), one tap away.
function collapseLongControlsOnPhones(form) {
  const box = form?.querySelector(".controls-box");
  if (!box || window.innerWidth >= 900) return;
  const count = box.querySelectorAll(".control").length;
  const summary = box.querySelector("summary");
  if (summary) summary.textContent = `Controls (${count})`;
  if (box.scrollHeight > window.innerHeight * 0.6) box.open = false;
}

// Figures lay out their panels by the width they get (plot.js panelGrid, the clock's dials):
// when the figures' width changes, the page draws again once the resizing pauses.
function redrawWhenPanelsRestack(figures, redraw) {
  if (!figures || typeof ResizeObserver === "undefined") return;
  let width = figures.clientWidth;
  let timer = 0;
  new ResizeObserver(() => {
    if (Math.abs(figures.clientWidth - width) < 1) return;
    width = figures.clientWidth;
    clearTimeout(timer);
    timer = setTimeout(redraw, 80);
  }).observe(figures);
}

function sameValue(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}
