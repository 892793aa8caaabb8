// The reader's moves, turned into proposals (page-state.js): a slider applies as it moves, a
// checkbox or a select at once, a typed number when the typing pauses (or at once on Enter or on
// leaving the box); the end of a drag ends its history entry; the "p" key toggles presenter mode.

import { sameValue } from "./page-state.js";

// A typed number applies when the user pauses this long, or at once on Enter / leaving the box.
const TYPING_PAUSE_MS = 700;

/** `page`: {form, controls, messages, store, propose(name, value, options), schedule(push)}. */
export function wireControls(page) {
  const typing = {}; // field → timer of a number being typed
  const form = page.form;
  form?.addEventListener("submit", (event) => event.preventDefault());
  form?.addEventListener("input", (event) => onInput(event, page, typing));
  form?.addEventListener("change", (event) => onChange(event, page, typing));
  form?.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.matches?.('input[data-role="box"]')) {
      event.preventDefault();
      event.target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
}

/** The "p" key (outside the controls, without a modifier) calls `toggle`. */
export function wirePresenterKey(toggle) {
  document.addEventListener("keydown", (event) => {
    const typingInto = event.target.closest?.("input, select, textarea");
    if (typingInto || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "p") toggle();
  });
}

function onInput(event, page, typing) {
  const input = event.target.closest("[data-param]");
  if (!input) return;
  const name = input.dataset.param;
  if (input.dataset.role === "range") {
    const value = page.controls.read(input);
    const direction = page.store.dragged(name, value);
    page.propose(name, value, { from: input, direction });
    return;
  }
  if (input.type === "checkbox" || input.tagName === "SELECT") {
    page.propose(name, page.controls.read(input), { push: true, from: input });
    return;
  }
  // A box being typed into: apply when the typing pauses.
  clearTimeout(typing[name]);
  typing[name] = setTimeout(() => {
    delete typing[name];
    page.propose(name, page.controls.read(input), { from: input });
  }, TYPING_PAUSE_MS);
}

function onChange(event, page, typing) {
  const input = event.target.closest("[data-param]");
  if (!input) return;
  const name = input.dataset.param;
  clearTimeout(typing[name]);
  delete typing[name];
  if (input.type === "checkbox" || input.tagName === "SELECT") return; // applied on input
  const value = page.controls.read(input);
  if (sameValue(value, page.store.state[name]) && !page.messages.shown[name]) {
    page.schedule(true); // the end of a drag: one history entry
    return;
  }
  page.propose(name, value, { push: true, from: input });
}
