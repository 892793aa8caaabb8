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
// (limits.js), so a refused value costs no round trip and freezes nothing: the other controls keep
// working from the last good values.  Sliders and boxes take their bounds from the same rules,
// and a control whose value the new bounds exclude moves to the nearest allowed one.
//
// The parts, one job each: controls.js (reading and showing controls), limits.js (what the
// server accepts), messages.js (what is said beside the controls), prefetch.js (the next view
// fetched ahead), toolbar.js (links and downloads), url-state.js (the address and history), and
// here the state and the update cycle that ties them together.

import { LatestRequest, cachedBody } from "./api.js";
import { Controls, collapseLongControlsOnPhones } from "./controls.js";
import { Limits } from "./limits.js";
import { Messages } from "./messages.js";
import { boundText } from "./numbers.js";
import { prefetchAround } from "./prefetch.js";
import { wireToolbar } from "./toolbar.js";
import { History, queryFromState, stateFromQuery, withQuery } from "./url-state.js";

const BUSY_DELAY_MS = 150;
// A typed number applies when the user pauses this long, or at once on Enter / leaving the box.
const TYPING_PAUSE_MS = 700;

export function startPage({ draw }) {
  const boot = JSON.parse(document.getElementById("page-data").textContent);
  const fields = boot.fields;
  const form = document.getElementById("controls");
  const figures = document.querySelector(".figures");
  const twin = document.querySelector('[data-role="json-twin"]');
  const controls = new Controls(form, Object.fromEntries(fields.map((field) => [field.name, field])));
  const limits = new Limits(fields, boot.rules || [], controls);
  const byName = limits.byName;
  const messages = new Messages(form, document.querySelector('[data-role="status"]'), byName);
  const request = new LatestRequest();
  const history = new History();

  let state = { ...boot.state };
  // Large data is not embedded in the HTML (app/web/routing.py, EMBED_MAX_BYTES): fetched at start.
  let data = boot.data;
  let shownQuery = data === null ? null : computeQuery(state).toString();
  let lastGood = { ...state };
  let scheduled = null; // {push}
  let busyTimer = null;
  let lastMoved = null; // {name, direction}: the slider the reader is dragging, for prefetching

  function computeQuery(s) {
    return queryFromState(fields, s, ["compute"]);
  }

  function apiUrl(s) {
    return withQuery(boot.api, computeQuery(s));
  }

  /**
   * After `name` changed: move every field whose limits moved out from under its value to the
   * nearest allowed value, saying why beside it, so the view follows.
   */
  function settleDependents(name) {
    const queue = [...(limits.dependents[name] || [])];
    const seen = new Set();
    while (queue.length) {
      const other = queue.shift();
      if (seen.has(other) || other === name) continue;
      seen.add(other);
      const before = state[other];
      const after = limits.settled(other, before, state);
      if (sameValue(after, before)) continue;
      const why = limits.ruleProblem(other, state);
      state = { ...state, [other]: after };
      controls.show(other, after);
      messages.note(other, why ? `Moved to ${Array.isArray(after) ? after.join(", ") : boundText(after)}: ${why}.` : "");
      for (const next of limits.dependents[other] || []) queue.push(next);
    }
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
    if (!byName[name]) return false;
    const range = from && from.dataset.role === "range";
    const candidate = range ? limits.snap(name, value, state, direction) : value;
    const trial = { ...state, [name]: candidate };
    const problem = limits.problem(name, trial);
    if (problem) {
      messages.set(name, problem);
      return false;
    }
    messages.set(name, "");
    messages.clearNotes();
    state = trial;
    if (range && candidate !== value) controls.show(name, candidate);
    else controls.show(name, candidate, from);
    settleDependents(name);
    schedule(push);
    return true;
  }

  async function update(push) {
    document.body.classList.toggle("presenter", Boolean(state.presenter));
    controls.showBounds(fields, limits, state);
    // Fields still refused (a dependent rule no move could settle): the last view stays.
    const refused = fields.filter((field) => limits.problem(field.name, state));
    for (const field of refused) messages.set(field.name, limits.problem(field.name, state));
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
    const result = await fetchView(apiUrl({ ...state }));
    if (result === null) return; // superseded by a newer change
    if (!result.ok) {
      // The server refused something the page could not know (a rule it alone checks): the
      // fields it names go back to their last good values, their boxes keep what was typed.
      for (const name of messages.showServerErrors(result.body)) if (name in lastGood) state = { ...state, [name]: lastGood[name] };
      history.write(queryFromState(fields, state), { finished: true });
      syncToolbar();
      return;
    }
    messages.setStatus("");
    data = result.body;
    shownQuery = query;
    show();
    prefetchAround(lastMoved, { controls, limits, fields, state, apiUrl });
  }

  /** The view at `url`, from the cache or the server (busy shown if it takes a while); null if superseded. */
  async function fetchView(url) {
    const cached = cachedBody(url);
    if (cached !== null) return cached;
    clearTimeout(busyTimer);
    busyTimer = setTimeout(() => figures?.classList.add("is-busy"), BUSY_DELAY_MS);
    const result = await request.get(url);
    if (result === null) return null;
    clearTimeout(busyTimer);
    figures?.classList.remove("is-busy");
    return result;
  }

  function show() {
    lastGood = { ...state };
    redraw();
  }

  function redraw() {
    try {
      draw(data, state);
    } catch (error) {
      messages.setStatus(`Could not draw: ${error.message}`, true);
      throw error;
    }
  }

  function syncToolbar() {
    if (twin) twin.href = apiUrl(state);
    const toggle = document.querySelector('[data-action="presenter"]');
    if (toggle) toggle.setAttribute("aria-pressed", String(Boolean(state.presenter)));
  }

  // ---- events ----------------------------------------------------------------------------

  const typing = {}; // field → timer of a number being typed

  function onInput(event) {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    const name = input.dataset.param;
    if (input.dataset.role === "range") {
      const value = controls.read(input);
      const direction = Math.sign(value - state[name]);
      lastMoved = { name, direction: direction || lastMoved?.direction || 1 };
      propose(name, value, { from: input, direction });
      return;
    }
    if (input.type === "checkbox" || input.tagName === "SELECT") {
      propose(name, controls.read(input), { push: true, from: input });
      return;
    }
    // A box being typed into: apply when the typing pauses.
    clearTimeout(typing[name]);
    typing[name] = setTimeout(() => {
      delete typing[name];
      propose(name, controls.read(input), { from: input });
    }, TYPING_PAUSE_MS);
  }

  function onChange(event) {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    const name = input.dataset.param;
    clearTimeout(typing[name]);
    delete typing[name];
    if (input.type === "checkbox" || input.tagName === "SELECT") return; // applied on input
    const value = controls.read(input);
    if (sameValue(value, state[name]) && !messages.shown[name]) {
      schedule(true); // the end of a drag: one history entry
      return;
    }
    propose(name, value, { push: true, from: input });
  }

  // Back and Forward: the address's values, each refused one kept at its current value.
  function onHistory() {
    history.settled();
    const wanted = stateFromQuery(fields);
    for (const field of fields) {
      const problem = limits.problem(field.name, wanted);
      messages.set(field.name, problem);
      if (problem) wanted[field.name] = state[field.name];
    }
    state = wanted;
    for (const field of fields) controls.show(field.name, state[field.name]);
    update(false);
  }

  form?.addEventListener("submit", (event) => event.preventDefault());
  form?.addEventListener("input", onInput);
  form?.addEventListener("change", onChange);
  form?.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.matches?.('input[data-role="box"]')) {
      event.preventDefault();
      event.target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  window.addEventListener("popstate", onHistory);
  document.addEventListener("keydown", (event) => {
    const typingInto = event.target.closest?.("input, select, textarea");
    if (typingInto || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "p" && "presenter" in byName) propose("presenter", !state.presenter, { push: true });
  });
  wireToolbar({
    name: boot.name,
    api: boot.api,
    query: () => computeQuery(state),
    data: () => data,
    say: (text) => messages.setStatus(text),
    togglePresenter: () => propose("presenter", !state.presenter, { push: true }),
  });

  // ---- first paint --------------------------------------------------------------------------

  // A link may hold values the server refused: the view shows the defaults it fell back to, and
  // each box keeps the link's value with the message beside it.
  if (boot.errors?.length) {
    const fromLink = stateFromQuery(fields);
    for (const name of messages.showServerErrors({ detail: boot.errors })) controls.show(name, fromLink[name]);
  }
  controls.showBounds(fields, limits, state);
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

// Figures lay out their panels by the width they get (layout.js panelGrid, the clock's dials):
// when the figures' width changes, the page draws again once the resizing pauses.  Until then the
// figures carry data-restacking, so a plot does not repaint its old layout at the new size first
// (draw.js followSize), and a test knows the figures are not final yet.
function redrawWhenPanelsRestack(figures, redraw) {
  if (!figures || typeof ResizeObserver === "undefined") return;
  let width = figures.clientWidth;
  let timer = 0;
  new ResizeObserver(() => {
    if (Math.abs(figures.clientWidth - width) < 1) return;
    width = figures.clientWidth;
    clearTimeout(timer);
    figures.dataset.restacking = "";
    timer = setTimeout(() => {
      delete figures.dataset.restacking;
      redraw();
    }, 80);
  }).observe(figures);
}

function sameValue(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]);
  }
  return a === b;
}
