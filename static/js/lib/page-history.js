// The page's address follows its state: one history entry per finished change (url-state.js
// History), the JSON twin link and the presenter toggle beside it; Back and Forward bring an
// entry's values back; a link's values the server refused are shown beside their boxes.

import { History, queryFromState, stateFromQuery } from "./url-state.js";

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
  }

  /** The address shows the state; `finished` ends its history entry (a drag replaces its own). */
  write(finished) {
    this.history.write(queryFromState(this.fields, this.store.state), { finished });
    this.syncToolbar();
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
