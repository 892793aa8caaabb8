// The update cycle: after a change, the state is checked, the address follows it, the view is
// fetched (from the cache, or from the server with the figures marked busy after a moment; an
// answer a newer change superseded is dropped), what the server refused is said beside the
// controls and taken back, and the page draws.

import { LatestRequest, cachedBody } from "./api.js";
import { prefetchAround } from "./prefetch.js";

const BUSY_DELAY_MS = 150;

export class UpdateCycle {
  /** `parts`: {fields, limits, controls, messages, figures, computeQuery, apiUrl}; the others as named. */
  constructor(parts, { store, history, draw, data }) {
    this.parts = parts;
    this.store = store;
    this.history = history;
    this.draw = draw;
    // Large data is not embedded in the HTML (app/web/routing.py, EMBED_MAX_BYTES): fetched at start.
    this.data = data;
    this.shownQuery = data === null ? null : parts.computeQuery(store.state).toString();
    this.request = new LatestRequest();
    this.scheduled = null; // {push}
    this.busyTimer = null;
  }

  /** Update once the current task's events are in; `push` ends the history entry. */
  schedule(push) {
    if (this.scheduled) {
      this.scheduled.push = this.scheduled.push || push;
      return;
    }
    this.scheduled = { push };
    // Coalesce the events of one task (a key press fires input then change) and start the
    // request right after it, not at the next animation frame (up to 16 ms later).  Browsers
    // already deliver a drag's input events at most once per frame, and a newer request aborts
    // the older one (api.js), so this does not multiply requests.
    queueMicrotask(() => {
      const { push: pushNow } = this.scheduled;
      this.scheduled = null;
      this.update(pushNow);
    });
  }

  async update(push) {
    const { fields, limits, controls, messages, computeQuery, apiUrl } = this.parts;
    document.body.classList.toggle("presenter", Boolean(this.store.state.presenter));
    // Fields still refused (a dependent rule no move could settle): the last view stays.
    if (this.store.refused().some((field) => field.role === "compute")) {
      controls.showBounds(fields, limits, this.store.state);
      return;
    }
    // The address follows the controls (a copied link is what the reader set up), written once
    // the view is drawn (page-history.js); a value the server refuses after all is taken back below.
    this.history.write(push);
    const query = computeQuery(this.store.state).toString();
    if (query === this.shownQuery) {
      controls.showBounds(fields, limits, this.store.state);
      this.show();
      return;
    }
    // The request leaves first; the bounds are put back while it is on its way.
    const fetched = this.fetchView(apiUrl({ ...this.store.state }));
    controls.showBounds(fields, limits, this.store.state);
    const result = await fetched;
    if (result === null) return; // superseded by a newer change
    if (!result.ok) {
      this.refusedByServer(result.body);
      return;
    }
    messages.setStatus("");
    this.data = result.body;
    this.shownQuery = query;
    this.show();
    prefetchAround(this.store.lastMoved, { controls, limits, fields, state: this.store.state, apiUrl });
  }

  /** The view at `url`, from the cache or the server (busy shown if it takes a while); null if superseded. */
  async fetchView(url) {
    const cached = cachedBody(url);
    if (cached !== null) return cached;
    const figures = this.parts.figures;
    clearTimeout(this.busyTimer);
    this.busyTimer = setTimeout(() => figures?.classList.add("is-busy"), BUSY_DELAY_MS);
    const result = await this.request.get(url);
    if (result === null) return null;
    clearTimeout(this.busyTimer);
    figures?.classList.remove("is-busy");
    return result;
  }

  /**
   * The server refused something the page could not know (a rule it alone checks): the fields
   * it names go back to their last good values, their boxes keep what was typed.
   */
  refusedByServer(body) {
    this.store.takeBack(this.parts.messages.showServerErrors(body));
    this.history.write(true);
    this.history.flushSoon();
  }

  show() {
    this.store.shown();
    try {
      this.redraw();
    } finally {
      this.history.flushSoon();
    }
  }

  redraw() {
    try {
      this.draw(this.data, this.store.state);
    } catch (error) {
      this.parts.messages.setStatus(`Could not draw: ${error.message}`, true);
      throw error;
    }
  }
}
