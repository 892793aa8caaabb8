// The page controller shared by every lesson: URL ⇄ controls ⇄ JSON twin ⇄ plots.
//
// A page module calls startPage({draw, csv}).  draw(data, state) redraws everything from the
// JSON twin's data and the current state; it runs for the first paint (data embedded in the
// HTML) and after every change.

import { LatestRequest } from "./api.js";
import { flushAll } from "./plot.js";
import { History, formatValue, parseValue, queryFromState, stateFromQuery, withQuery } from "./url-state.js";

const BUSY_DELAY_MS = 150;

export function startPage({ draw }) {
  const boot = JSON.parse(document.getElementById("page-data").textContent);
  const fields = boot.fields;
  const byName = Object.fromEntries(fields.map((field) => [field.name, field]));
  const figures = document.querySelector(".figures");
  const status = document.querySelector('[data-role="status"]');
  const twin = document.querySelector('[data-role="json-twin"]');
  const request = new LatestRequest();
  const history = new History();

  let state = { ...boot.state };
  // Large data is not embedded in the HTML (app/web/routing.py, EMBED_MAX_BYTES): fetched at start.
  let data = boot.data;
  let fetchedQuery = data === null ? null : computeQuery(state).toString();
  let pending = null; // {push}
  let busyTimer = null;

  function computeQuery(s) {
    return queryFromState(fields, s, ["compute"]);
  }

  function apiUrl(s) {
    return withQuery(boot.api, computeQuery(s));
  }

  // ---- controls -------------------------------------------------------------------------

  function controlsFor(name) {
    return document.querySelectorAll(`[data-param="${name}"]`);
  }

  function readControl(input) {
    const field = byName[input.dataset.param];
    if (input.type === "checkbox") return input.checked;
    if (input.dataset.scale === "log") {
      const exact = 10 ** Number(input.value);
      // Three significant digits keep slider-made URLs short; typed values stay exact.
      const rounded = Number(exact.toPrecision(3));
      return field.type === "integer" ? Math.round(rounded) : rounded;
    }
    if (field.type.startsWith("list:")) {
      const itemType = field.type.slice(5);
      return input.value.split(/[\s,]+/).filter(Boolean).map((item) => parseValue(itemType, item));
    }
    return parseValue(field.type, input.value);
  }

  function showValue(name, value, except = null) {
    for (const input of controlsFor(name)) {
      if (input === except) continue;
      if (input.type === "checkbox") input.checked = Boolean(value);
      else if (input.dataset.scale === "log") input.value = value > 0 ? String(Math.log10(value)) : input.min;
      else if (Array.isArray(value)) input.value = value.map(formatValue).join(", ");
      else input.value = formatValue(value);
    }
  }

  function showAllValues() {
    for (const field of fields) showValue(field.name, state[field.name]);
  }

  function setError(name, message) {
    const slot = document.getElementById(`err-${name}`);
    if (slot) {
      slot.textContent = message;
      slot.closest(".control")?.classList.toggle("has-error", Boolean(message));
      return true;
    }
    return false;
  }

  function clearErrors() {
    document.querySelectorAll(".control-error").forEach((slot) => {
      slot.textContent = "";
      slot.closest(".control")?.classList.remove("has-error");
    });
    setStatus("");
  }

  function showErrors(body) {
    const items = Array.isArray(body.detail) ? body.detail : [{ msg: String(body.detail) }];
    const loose = [];
    for (const item of items) {
      const text = item.msg + (item.allowed ? ` (allowed: ${item.allowed})` : "");
      if (!item.param || !setError(item.param, text)) loose.push(text);
    }
    if (loose.length) setStatus(loose.join(" · "), true);
  }

  function setStatus(text, isError = false) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("is-error", isError);
  }

  // ---- update cycle -----------------------------------------------------------------------

  function schedule(push) {
    if (pending) {
      pending.push = pending.push || push;
      return;
    }
    pending = { push };
    // Coalesce the events of one task (a key press fires input then change) and start the
    // request right after it, not at the next animation frame (up to 16 ms later).  Browsers
    // already deliver a drag's input events at most once per frame, and a newer request aborts
    // the older one (api.js), so this does not multiply requests.
    queueMicrotask(() => {
      const { push: pushNow } = pending;
      pending = null;
      update(pushNow, true);
    });
  }

  async function update(push, writeAddress) {
    if (writeAddress) history.write(queryFromState(fields, state), { finished: push });
    document.body.classList.toggle("presenter", Boolean(state.presenter));
    syncToolbar();
    const query = computeQuery(state).toString();
    if (query === fetchedQuery) {
      redraw();
      return;
    }
    clearTimeout(busyTimer);
    busyTimer = setTimeout(() => figures?.classList.add("is-busy"), BUSY_DELAY_MS);
    const snapshot = { ...state };
    const result = await request.get(apiUrl(snapshot));
    if (result === null) return; // superseded by a newer change
    clearTimeout(busyTimer);
    figures?.classList.remove("is-busy");
    if (!result.ok) {
      showErrors(result.body);
      return; // keep the last good plot
    }
    clearErrors();
    data = result.body;
    fetchedQuery = query;
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

  // ---- events ----------------------------------------------------------------------------

  const form = document.getElementById("controls");
  form?.addEventListener("submit", (event) => event.preventDefault());
  form?.addEventListener("input", (event) => {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    const value = readControl(input);
    state = { ...state, [input.dataset.param]: value };
    showValue(input.dataset.param, value, input);
    schedule(false);
  });
  form?.addEventListener("change", (event) => {
    const input = event.target.closest("[data-param]");
    if (!input) return;
    state = { ...state, [input.dataset.param]: readControl(input) };
    schedule(true);
  });

  window.addEventListener("popstate", () => {
    history.settled();
    state = stateFromQuery(fields);
    showAllValues();
    update(false, false);
  });

  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest?.("input, select, textarea");
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "p" && "presenter" in byName) {
      state = { ...state, presenter: !state.presenter };
      schedule(true);
    }
  });

  document.querySelector(".toolbar")?.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    if (action === "copy-link") copyLink();
    else if (action === "png" || action === "svg") exportImages(action);
    else if (action === "json") download(`${fileStem()}.json`, "application/json", JSON.stringify(data));
    else if (action === "csv") downloadUrl(`${fileStem()}.csv`, withQuery(`${boot.api}.csv`, computeQuery(state)));
    else if (action === "presenter") {
      state = { ...state, presenter: !state.presenter };
      schedule(true);
    }
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
    await flushAll();
    const plots = [...document.querySelectorAll(".plot")].filter((el) => el.data);
    plots.forEach((el, i) => {
      const suffix = plots.length > 1 ? `_${el.id.replace(/^plot-?/, "") || i}` : "";
      Plotly.downloadImage(el, { format, filename: `${fileStem()}${suffix}`, width: el.clientWidth, height: el.clientHeight });
    });
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

  if (boot.errors?.length) showErrors({ detail: boot.errors });
  syncToolbar();
  if (data === null) update(false, false);
  else redraw();
  return { get data() { return data; }, get state() { return state; } };
}
