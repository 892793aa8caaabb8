// The page's address follows its state: one history entry per finished change (url-state.js
// History), the JSON twin link and the presenter toggle beside it; Back and Forward bring an
// entry's values back; a link's values the server refused are shown beside their boxes.

import { History, queryFromState, stateFromQuery } from "./url-state.js";

// history.replaceState costs 2-7 ms a call in Chromium (bench/RESULTS.md): written inside the input
// handler it delayed every redraw.  The address is written once the view is drawn (`flushSoon`), or
// at the latest this long after the change.
const LATEST_WRITE_MS = 200;
// (a page that keeps drawing frames, a Plotly.react, can leave Chromium no idle period for longer)
const IDLE_WRITE_MS = 60;

export class PageHistory {
  /** `parts`: {fields, controls, messages, apiUrl(state)}; `store`: the PageState. */
  constructor({ fields, controls, messages, apiUrl }, store) {
    this.fields = fields;
    this.controls = controls;
    this.messages = messages;
    this.apiUrl = apiUrl;
    this.store = store;
    this.history = new History();
    this.twin = document.querySelector('[data-role="json-twin"]');
    this.pending = []; // [{params, finished}] not yet in the address, oldest first
    this.timer = 0; // the latest write
    this.idle = 0; // the write once the page is idle
  }

  /**
   * The address will show the state; `finished` ends its history entry (a drag replaces its own).
   * Written by `flush` (soon after the draw); a draft entry followed by another write is only ever
   * replaced, so the later write takes its place in the queue.
   */
  write(finished) {
    const params = queryFromState(this.fields, this.store.state);
    const last = this.pending[this.pending.length - 1];
    if (last && !last.finished) this.pending[this.pending.length - 1] = { params, finished };
    else this.pending.push({ params, finished });
    // (as a plot waiting to be drawn carries data-pending: a test knows the address is not final yet)
    document.documentElement.dataset.addressPending = "";
    if (!this.timer) this.timer = setTimeout(() => this.flush(), LATEST_WRITE_MS);
  }

  /**
   * Write the address once the draw is on screen: when the page is next idle (Plotly moves traces
   * in the frame after the draw), within IDLE_WRITE_MS, or LATEST_WRITE_MS after the change at most.
   */
  flushSoon() {
    if (!this.pending.length || this.idle) return;
    if (typeof requestIdleCallback !== "function") {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), 0);
      return;
    }
    this.idle = requestIdleCallback(() => {
      this.idle = 0;
      this.flush();
    }, { timeout: IDLE_WRITE_MS });
  }

  /** Every pending write, in order, into the address. */
  flush() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (this.idle) cancelIdleCallback(this.idle);
    this.idle = 0;
    const pending = this.pending;
    this.pending = [];
    delete document.documentElement.dataset.addressPending;
    for (const { params, finished } of pending) this.history.write(params, { finished });
    if (pending.length) this.syncToolbar();
  }

  /** The twin link and the presenter toggle follow the state. */
  syncToolbar() {
    const state = this.store.state;
    if (this.twin) this.twin.href = this.apiUrl(state);
    const toggle = document.querySelector('[data-action="presenter"]');
    if (toggle) toggle.setAttribute("aria-pressed", String(Boolean(state.presenter)));
  }

  /** Back and Forward: the state takes the entry's values (each refused one kept), then `update()`. */
  onBackForward(update) {
    window.addEventListener("popstate", () => {
      // (a write still pending belongs to the entry left: it must not land on the one arrived at)
      clearTimeout(this.timer);
      this.timer = 0;
      if (this.idle) cancelIdleCallback(this.idle);
      this.idle = 0;
      this.pending = [];
      delete document.documentElement.dataset.addressPending;
      this.history.settled();
      this.store.fromAddress(stateFromQuery(this.fields));
      update();
    });
  }

  /**
   * A link may hold values the server refused (`errors`, its 422 items): the view shows the
   * defaults it fell back to, and each box keeps the link's value with the message beside it.
   */
  showRefusedLink(errors) {
    if (!errors?.length) return;
    const fromLink = stateFromQuery(this.fields);
    for (const name of this.messages.showServerErrors({ detail: errors })) this.controls.show(name, fromLink[name]);
  }
}
