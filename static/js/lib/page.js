// The page controller shared by every lesson: URL ⇄ controls ⇄ JSON twin ⇄ plots.
//
// A page module calls startPage({draw}).  draw(data, state) redraws everything from the JSON
// twin's data and the current state; it runs for the first paint (data embedded in the HTML) and
// after every change.  startPage returns {data, state, fields, set(name, value, {finished})} for
// pages that move a control themselves (the clock's animation, /spectrum's config paste).
//
// What is on screen is always a view the server accepted.  `state` holds the last value of each
// field that the server accepts together with the others; a box may show something else (what
// the user is typing, or a refused value from a link) with its message beside it.  Before any
// request, every field is checked against its own constraints and the cross-field rules
// (limits.js), so a refused value costs no round trip and freezes nothing: the other controls keep
// working from the last good values.  Sliders and boxes take their bounds from the same rules,
// and a control whose value the new bounds exclude moves to the nearest allowed one.
//
// The parts, one job each: page-state.js (the state and what a proposed value must pass),
// page-cycle.js (the update cycle: check, fetch, draw), page-history.js (the address, Back and
// Forward), page-events.js (the reader's moves), and beside them controls.js (reading and showing
// controls), limits.js (what the server accepts), messages.js (what is said beside the controls),
// prefetch.js (the next view fetched ahead), toolbar.js (links and downloads), url-state.js (the
// query string).  Here they are put together.

import { Controls, collapseLongControlsOnPhones } from "./controls.js";
import { Limits } from "./limits.js";
import { Messages } from "./messages.js";
import { UpdateCycle } from "./page-cycle.js";
import { wireControls, wirePresenterKey } from "./page-events.js";
import { PageHistory } from "./page-history.js";
import { PageState, sameValue } from "./page-state.js";
import { wireToolbar } from "./toolbar.js";
import { queryFromState, withQuery } from "./url-state.js";

export function startPage({ draw }) {
  const boot = JSON.parse(document.getElementById("page-data").textContent);
  const parts = pageParts(boot);
  const store = new PageState(parts, boot.state);
  const history = new PageHistory(parts, store);
  const cycle = new UpdateCycle(parts, { store, history, draw, data: boot.data });
  const propose = (name, value, options = {}) => {
    if (!store.propose(name, value, options)) return false;
    cycle.schedule(options.push ?? false);
    return true;
  };
  const togglePresenter = () => propose("presenter", !store.state.presenter, { push: true });
  wireControls({ ...parts, store, propose, schedule: (push) => cycle.schedule(push) });
  history.onBackForward(() => cycle.update(false));
  wirePresenterKey(togglePresenter);
  wireToolbar({
    name: boot.name,
    api: boot.api,
    query: () => parts.computeQuery(store.state),
    data: () => cycle.data,
    say: (text) => parts.messages.setStatus(text),
    togglePresenter,
    writeAddress: () => history.flush(),
  });
  firstPaint(parts, { boot, store, history, cycle });
  return pageHandle(store, cycle, propose);
}

/** What every part works with: the fields, the form and its helpers, the twin's address of a state. */
function pageParts(boot) {
  const fields = boot.fields;
  const form = document.getElementById("controls");
  const controls = new Controls(form, Object.fromEntries(fields.map((field) => [field.name, field])));
  const limits = new Limits(fields, boot.rules || [], controls);
  const messages = new Messages(form, document.querySelector('[data-role="status"]'), limits.byName);
  const computeQuery = (state) => queryFromState(fields, state, ["compute"]);
  const apiUrl = (state) => withQuery(boot.api, computeQuery(state));
  const figures = document.querySelector(".figures");
  return { fields, form, figures, controls, limits, messages, computeQuery, apiUrl };
}

/** The first view: the embedded data drawn, or (data too large to embed) fetched. */
function firstPaint({ fields, form, figures, controls, limits }, { boot, store, history, cycle }) {
  history.showRefusedLink(boot.errors);
  controls.showBounds(fields, limits, store.state);
  history.syncToolbar();
  collapseLongControlsOnPhones(form);
  if (cycle.data === null) cycle.update(false);
  else cycle.redraw();
  redrawWhenPanelsRestack(figures, () => cycle.data !== null && cycle.redraw());
}

/** What startPage returns: the data and state on screen, and `set` for a page's own moves. */
function pageHandle(store, cycle, propose) {
  return {
    get data() {
      return cycle.data;
    },
    get state() {
      return store.state;
    },
    /** The page's fields ({name, type, default, role, ...}), for a page that reads a query itself. */
    get fields() {
      return store.fields;
    },
    /** Move a control from the page's own code (an animation), as if the reader had. */
    set(name, value, { finished = false } = {}) {
      if (sameValue(value, store.state[name])) {
        if (finished) cycle.schedule(true);
        return true;
      }
      return propose(name, value, { push: finished });
    },
  };
}

// Figures lay out their panels by the width they get (layout.js panelGrid, the clock's dials):
// when the figures' width changes, the page draws again once the resizing pauses.  Until then the
// figures carry data-restacking, so a plot does not repaint its old layout at the new size first
// (paint.js: a plot that changed size is drawn again), and a test knows the figures are not final yet.
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
