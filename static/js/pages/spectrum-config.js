// /spectrum's config paste: a pasted config.json goes to POST /api/rope/frequencies; the settings it
// resolves to are moved onto the page's controls through the page controller's own set() (so the
// plots, the address and Back follow as after any other move), and everything the answer says
// about the config is listed under the box.

import { approx, count } from "../lib/numbers.js";
import { stateFromQuery, withQuery } from "../lib/url-state.js";

const form = document.getElementById("paste-form");
const errorSlot = document.getElementById("paste-error");
const report = document.getElementById("paste-report");

function showPasteError(text) {
  errorSlot.textContent = text;
  form.classList.toggle("has-error", Boolean(text));
}

function element(tag, text, attributes = {}) {
  const node = Object.assign(document.createElement(tag), attributes);
  if (text !== undefined) node.textContent = text;
  return node;
}

function layerList(layers, shown = 12) {
  const head = layers.slice(0, shown).join(", ");
  return layers.length > shown ? `${head}, … (${layers.length} layers)` : head;
}

function spectrumLink(query, length) {
  const params = new URLSearchParams();
  for (const [name, value] of query) params.append(name, value);
  if (length && !params.has("seq_len")) params.append("seq_len", String(length));
  return withQuery("/spectrum", params);
}

function mropeLink(body) {
  const params = new URLSearchParams();
  params.append("head_dim", String(body.resolved.head_dim));
  params.append("base", String(body.resolved.rope_theta));
  for (const value of body.mrope.mrope_section) params.append("mrope_section", String(value));
  params.append("layout", body.mrope.mrope_interleaved ? "interleaved" : "sections");
  return withQuery("/mrope", params);
}

/** Every setting the answer gives, as rows of (label, text or node). */
function reportRows(body, length) {
  const r = body.resolved;
  const rows = [];
  if (r.model_type) rows.push(["model_type", r.model_type]);
  rows.push([
    "Head and rotated dimensions",
    `${r.rotary_dim} of ${r.head_dim} dimensions rotate (${r.rotary_dim / 2} pairs)`,
  ]);
  const pairing = element("span", `${body.pairing === "interleaved" ? "interleaved, adjacent pairs (GPT-J style)" : "half, x_j with x_(j+r/2) (GPT-NeoX style)"}: ` +
    `${body.pairing_source}; `);
  pairing.append(element("a", "what a wrong pairing does", { href: "/conventions" }));
  rows.push(["Pairing", pairing]);
  rows.push(["Base rope_theta", String(r.rope_theta)]);
  const factor = r.factor === undefined || r.factor === null ? "" : `, factor ${r.factor_used ?? r.factor}`;
  const at = length
    ? `, at T = ${count(length)} tokens (its max_position_embeddings)`
    : ", at this page's target length T (the config gives no max_position_embeddings)";
  rows.push(["Scaling (drawn above)", `${r.rope_type}${factor}${at}`]);
  if (r.rope_type === "longrope") {
    const L0 = r.original_max_position_embeddings;
    rows.push([
      "LongRoPE factors drawn",
      length && length > L0
        ? `long_factor: T = ${count(length)} > original_max_position_embeddings = ${count(L0)} (short_factor up to ${count(L0)} tokens)`
        : `short_factor: T ≤ original_max_position_embeddings = ${count(L0)} (long_factor once the length passes it)`,
    ]);
  }
  if (body.softmax_scale_multiplier !== null) {
    rows.push(["Softmax-scale multiplier (DeepSeek-style latent attention)", approx(body.softmax_scale_multiplier, 6)]);
  }
  if (body.query_scale) {
    const q = body.query_scale;
    rows.push(["Query scale (grows with position)", `${q.formula} on ${q.layers === "nope" ? "the NoPE layers" : "every layer"}: ${approx(q.at_max_length, 6)} at position ${count(q.max_length - 1)} (${q.reference})`]);
  }
  if (body.mrope) {
    const link = element("a", "open it on the M-RoPE lesson", { href: mropeLink(body) });
    const text = `${body.mrope.mrope_section.join(" / ")} pairs on t / h / w (${body.mrope.mrope_interleaved ? "interleaved" : "consecutive blocks"}); `;
    const cell = element("span", text);
    cell.append(link);
    rows.push(["M-RoPE sections", cell]);
  }
  const layers = body.layers || {};
  if (layers.nope_layers) {
    rows.push(["Layers without RoPE (NoPE)", layers.nope_layers.length ? layerList(layers.nope_layers) : "none"]);
  }
  if (layers.layer_types) {
    const parts = Object.entries(layers.layer_types).map(([kind, list]) => `${kind}: ${layerList(list, 8)}`);
    rows.push(["Layer types", parts.join("; ")]);
  }
  return rows;
}

function settingsTable(body, length) {
  const table = element("table", undefined, { className: "preset-table" });
  const head = table.createTHead().insertRow();
  for (const title of ["Layers", "Read from", "rope_type", "base", "rotated dims", ""]) head.append(element("th", title, { scope: "col" }));
  const rows = table.createTBody();
  body.settings.forEach((setting, i) => {
    const row = rows.insertRow();
    const r = setting.resolved;
    const drawn = i === body.primary_setting;
    for (const text of [setting.layer_type || "every layer", setting.where, r.rope_type, String(r.rope_theta), String(r.rotary_dim)]) {
      row.append(element("td", text));
    }
    const cell = element("td");
    if (drawn) cell.textContent = "drawn above";
    else cell.append(element("a", "draw this setting", { href: spectrumLink(setting.query, length) }));
    row.append(cell);
  });
  const scroll = element("div", undefined, { className: "data-scroll", tabIndex: 0 });
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-label", "RoPE settings of the pasted config (scrolls sideways)");
  scroll.append(table);
  return scroll;
}

function showReport(body, length) {
  const list = element("dl", undefined, { className: "numbers" });
  for (const [label, value] of reportRows(body, length)) {
    const item = element("div");
    const dd = element("dd");
    if (typeof value === "string") dd.textContent = value;
    else dd.append(value);
    item.append(element("dt", label), dd);
    list.append(item);
  }
  const parts = [element("h3", "What the pasted config sets"), list];
  if (body.settings.length > 1) {
    parts.push(element("p", `${body.settings.length} RoPE settings, one per kind of layer:`), settingsTable(body, length));
  }
  if (body.notes.length) {
    const notes = element("ul", undefined, { className: "note" });
    for (const text of body.notes) notes.append(element("li", text));
    parts.push(element("p", "Read from the config:"), notes);
  }
  report.replaceChildren(...parts);
}

/**
 * Move the page to the view `query` (URLSearchParams) names: every field to its value there (its
 * default when the query leaves it out), through `page.set`, and end the history entry.  A value
 * the rules refuse next to the others' current values is tried again once the others have moved;
 * the names of those still refused at the end are returned (each has its message beside it).
 */
function applyQuery(page, query) {
  const target = stateFromQuery(page.fields, `?${query}`);
  let pending = page.fields.map((field) => field.name).filter((name) => name in target);
  for (let pass = 0; pending.length && pass <= page.fields.length; pass++) {
    const left = pending.filter((name) => !page.set(name, target[name]));
    if (left.length === pending.length) break; // no move this pass: the rest stay refused
    pending = left;
  }
  const anyName = page.fields[0]?.name;
  if (anyName !== undefined) page.set(anyName, page.state[anyName], { finished: true });
  return pending;
}

/** Wire the paste box of /spectrum to `page` (what startPage returned). */
export function wireConfigPaste(page) {
  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    submit(page);
  });
}

async function submit(page) {
  const text = document.getElementById("paste-config").value;
  let config;
  try {
    config = JSON.parse(text);
  } catch (error) {
    showPasteError(`Invalid JSON: ${error.message}`);
    return;
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    showPasteError("The config must be a JSON object, like a model's config.json.");
    return;
  }
  showPasteError("");
  let response;
  try {
    response = await fetch("/api/rope/frequencies", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(config),
    });
  } catch {
    showPasteError("The server could not be reached.");
    return;
  }
  const body = await response.json().catch(() => ({ detail: `HTTP ${response.status}` }));
  if (!response.ok) {
    const items = Array.isArray(body.detail) ? body.detail : [{ msg: String(body.detail) }];
    showPasteError(items.map((item) => (item.param ? `${item.param}: ${item.msg}` : item.msg)).join(" · "));
    report.replaceChildren();
    return;
  }
  // Drawn at the context the model advertises (its max_position_embeddings), as the preset links are.
  const length = body.resolved.max_position_embeddings;
  showReport(body, length);
  const target = spectrumLink(body.query, length);
  const refused = applyQuery(page, target.split("?")[1] || "");
  if (refused.length) showPasteError(`This page cannot draw the config's ${refused.join(", ")} (see the message beside each).`);
}
