// Context extension: per-pair scale of every method, YaRN's two ramps, angle coverage,
// attention temperature and the dynamic-NTK base; presets are links; the config paste under the
// plots is spectrum-config.js.

import { startPage } from "../lib/page.js";
import { curves, plotly } from "../lib/marks/index.js";
import { COLORS, axis, lineWidth, panelGrid } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";
import { wireConfigPaste } from "./spectrum-config.js";


const METHOD_COLORS = {
  default: "#888888",
  linear: COLORS[0],
  dynamic: COLORS[1],
  yarn: COLORS[2],
  longrope: COLORS[3],
  llama3: COLORS[4],
  ntk: COLORS[5],
};


/** A vertical guide line at x from y0 to y1: a curves series whose hover is its name. */
function vline(x, y0, y1, name, color, dash = "dash") {
  return { x: [x, x], y: [y0, y1], name, color, dash, width: lineWidth(1.5), hoverinfo: "name" };
}

function positiveRange(arrays) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const values of arrays) {
    for (const v of values) {
      if (v > 0 && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
  }
  return [lo, hi];
}

function drawScale(data, byPair) {
  const x = byPair ? [...data.pair] : [...data.wavelength];
  const traces = [];
  const ys = [];
  for (const [name, entry] of Object.entries(data.methods)) {
    if (!entry.available || name === data.rope_type) continue;
    ys.push(entry.scale);
    traces.push({
      mode: "lines+markers",
      x: [...x],
      y: [...entry.scale],
      name: `${name}${name === "dynamic" ? " (reads max_position_embeddings)" : ""}`,
      color: METHOD_COLORS[name],
      width: lineWidth(1.5),
      marker: { size: lineWidth(2) * 2 },
      hovertemplate: `${name}<br>%{x}<br>scale %{y:.4g}<extra></extra>`,
    });
  }
  ys.push(data.selected.scale);
  traces.push({
    mode: "lines+markers",
    x: [...x],
    y: [...data.selected.scale],
    name: `chosen: ${data.rope_type}`,
    color: "#000",
    width: lineWidth(3),
    marker: { size: lineWidth(3) * 2, color: "#000" },
    hovertemplate: `${data.rope_type}<br>%{x}<br>scale %{y:.4g}<extra></extra>`,
  });
  const [lo, hi] = positiveRange(ys);
  const y0 = lo / 1.5;
  const y1 = Math.max(hi * 1.5, 1.5);
  const L = data.train_len;
  traces.push(vline(byPair ? data.critical_pair : L, y0, y1, `λ = L = ${L} (critical pair ${approx(data.critical_pair, 4)})`, "#444"));
  if (data.llama3_bands && !byPair) {
    traces.push(vline(data.llama3_bands.high_freq_wavelen, y0, y1, `llama3 edge L/high ${equals(data.llama3_bands.high_freq_wavelen)}`, COLORS[4], "dot"));
    traces.push(vline(data.llama3_bands.low_freq_wavelen, y0, y1, `llama3 edge L/low ${equals(data.llama3_bands.low_freq_wavelen)}`, COLORS[4], "dot"));
  }
  curves("plot-scale", traces, {
    title: `Scale θ′/θ per pair (s ${equals(data.factor)}, L = ${L}, T = ${data.target_len})`,
    xaxis: byPair ? axis("pair index j") : axis("wavelength λ<sub>j</sub> = 2π/θ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power" }),
    yaxis: axis("θ′<sub>j</sub> / θ<sub>j</sub>", { type: "log", exponentformat: "power", range: [Math.log10(y0), Math.log10(y1)] }),
  });
}

function drawRamp(data, byPair) {
  const ramp = data.ramp;
  const xDense = byPair ? [...ramp.pair] : [...ramp.wavelength];
  const traces = [
    {
      x: xDense,
      y: [...ramp.paper_scale],
      name: `paper: linear in L/λ between α ${equals(ramp.alpha)} and β ${equals(ramp.beta)}`,
      color: COLORS[0],
      width: lineWidth(2.5),
    },
    {
      x: [...xDense],
      y: [...ramp.code_scale],
      name: `code: linear in j between ${ramp.correction_range[0]} and ${ramp.correction_range[1]}`,
      color: COLORS[1],
      width: lineWidth(2.5),
      dash: "dash",
    },
  ];
  if (data.methods.yarn.available) {
    traces.push({
      mode: "markers",
      x: byPair ? [...data.pair] : [...data.wavelength],
      y: [...data.methods.yarn.scale],
      name: "pairs (transformers)",
      marker: { color: COLORS[1], size: lineWidth(3) * 2, symbol: "circle-open" },
    });
  }
  const s = data.factor;
  const edges = ramp.paper_edges;
  const edgePairs = ramp.correction_range_unrounded; // the pairs whose wavelengths are L/β and L/α
  traces.push(vline(byPair ? edgePairs[0] : edges[0], 1 / s / 1.2, 1.2, `λ = L/β ${equals(edges[0])}`, "#666", "dot"));
  traces.push(vline(byPair ? edgePairs[1] : edges[1], 1 / s / 1.2, 1.2, `λ = L/α ${equals(edges[1])}`, "#666", "dot"));
  curves("plot-ramp", traces, {
    title: "YaRN: the paper's ramp against the code's ramp",
    xaxis: byPair ? axis("pair index j") : axis("wavelength λ (tokens)", { type: "log", exponentformat: "power" }),
    yaxis: axis("θ′ / θ", { type: "log", exponentformat: "power" }),
  });
}

function drawCoverage(data, byPair) {
  const x = byPair ? [...data.pair] : [...data.wavelength];
  const c = data.coverage;
  const traces = [
    { name: `largest angle in training (L·θ<sub>j</sub>, L = ${data.train_len})`, y: c.train_max_angle, color: COLORS[2], dash: "solid" },
    { name: `at T = ${data.target_len}, unscaled (T·θ<sub>j</sub>)`, y: c.target_unscaled, color: COLORS[1], dash: "dash" },
    { name: `at T, after ${data.rope_type} (T·θ′<sub>j</sub>)`, y: c.target_scaled, color: "#000", dash: "solid" },
  ].map((item) => ({
    mode: "lines+markers",
    x: [...x],
    y: [...item.y],
    name: item.name,
    color: item.color,
    dash: item.dash,
    width: lineWidth(2),
    marker: { size: lineWidth(2) * 2 },
  }));
  traces.push({
    x: [x[0], x[x.length - 1]],
    y: [2 * Math.PI, 2 * Math.PI],
    name: "one full turn (2π)",
    color: "#666",
    dash: "dot",
    width: lineWidth(1),
  });
  curves("plot-coverage", traces, {
    title: "Angle coverage: which pairs leave the range seen in training",
    xaxis: byPair ? axis("pair index j") : axis("wavelength λ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power" }),
    yaxis: axis("largest angle (radians)", { type: "log", exponentformat: "power" }),
  });
}

function drawTemperature(data) {
  const t = data.temperature;
  const s = data.factor;
  const traces = [
    { x: [...t.scale], y: [...t.yarn], name: "YaRN: 0.1·ln s + 1 (on cos and sin)", color: COLORS[2], width: lineWidth(2.5) },
    {
      x: [...t.scale],
      y: [...t.longrope],
      name: `LongRoPE: √(1 + ln s / ln L<sub>0</sub>), L<sub>0</sub> = ${count(data.train_len)} (on cos and sin)`,
      color: COLORS[3],
      width: lineWidth(2.5),
      dash: "dash",
    },
  ];
  let top = Math.max(...t.yarn, ...t.longrope);
  if (t.softmax_scale_multiplier) {
    const a = approx(t.mscale, 6);
    const b = approx(t.mscale_all_dim, 6);
    traces.push(
      {
        x: [...t.scale],
        y: [...t.yarn_configured],
        name: t.mscale
          ? `this config's attention_factor: get_mscale(s, ${a}) / get_mscale(s, ${b}) (on cos and sin)`
          : "this config's attention_factor: 0.1·ln s + 1, mscale_all_dim alone changes nothing here (on cos and sin)",
        color: "#000",
        width: lineWidth(2.5),
      },
      {
        x: [...t.scale],
        y: [...t.softmax_scale_multiplier],
        name: `DeepSeek: get_mscale(s, ${b})² (on the softmax scale, so on the logits)`,
        color: COLORS[1],
        width: lineWidth(2.5),
        dash: "dot",
      },
    );
    top = Math.max(top, ...t.yarn_configured, ...t.softmax_scale_multiplier);
  }
  traces.push(vline(s, 1, top, `s ${equals(s)}`, "#444"));
  curves("plot-temperature", traces, {
    title: "Temperature factors against scale s: on cos and sin (logits × factor²), and DeepSeek's on the softmax scale",
    xaxis: axis("scale factor s", { type: "log" }),
    yaxis: axis("factor"),
  });
  const at = t.at_factor;
  const sText = approx(s, 6);
  let note =
    `At s = ${sText}: YaRN's default attention_factor 0.1·ln s + 1 ${equals(at.yarn, 6)} and LongRoPE's √(1 + ln s / ln L₀) ${equals(at.longrope, 6)} ` +
    "multiply cos and sin, so the logits q·k are multiplied by their squares.";
  if (at.softmax_scale_multiplier !== null) {
    note +=
      ` With mscale ${equals(t.mscale, 6)} and mscale_all_dim ${equals(t.mscale_all_dim, 6)}, transformers' attention_factor is ${approx(at.yarn_configured, 6)}, ` +
      `and DeepSeek-V2/V3 also multiply their softmax scale 1/√(qk_head_dim) by get_mscale(s, ${approx(t.mscale_all_dim, 6)})² ${equals(at.softmax_scale_multiplier, 6)}: ` +
      `the logits are multiplied by ${approx(at.yarn_configured ** 2 * at.softmax_scale_multiplier, 6)} in all.`;
  }
  out("temperature_note", note);
}

function drawDynamic(data) {
  const d = data.dynamic;
  if (!d.base) {
    curves("plot-dynamic", [], { title: "Dynamic NTK needs a rotary dimension above 2" });
    return;
  }
  const hi = Math.max(...d.base);
  curves(
    "plot-dynamic",
    [
      { x: [...d.length], y: [...d.base], name: "effective base b′(T)", color: COLORS[1], width: lineWidth(2.5) },
      vline(d.max_position_embeddings, data.base, hi, `max_position_embeddings = ${d.max_position_embeddings}`, "#444"),
      vline(data.target_len, data.base, hi, `T = ${data.target_len}`, "#000", "dot"),
    ],
    {
      title: `Dynamic NTK: base against current length (s ${equals(data.factor)})`,
      xaxis: axis("current length (tokens)", { type: "log", exponentformat: "power" }),
      yaxis: axis("base b′", { type: "log", exponentformat: "power" }),
    },
  );
}

// ---- the model family: pairing and the query scale that grows with position ----------------------

/** The pairing readout and the query scale 1 + β·ln(1 + ⌊(pos + offset)/interval⌋) against position. */
function drawFamily(data) {
  out("pairing", data.pairing === "interleaved"
    ? "interleaved: adjacent dimensions (x₂ⱼ, x₂ⱼ₊₁) turn together (GPT-J style)"
    : "half: x_j turns with x_(j+r/2) (GPT-NeoX style)");
  const q = data.query_scale;
  const T = data.target_len;
  if (!q) {
    const end = Math.max(T, data.dynamic.max_position_embeddings);
    curves("plot-query-scale", [
      { x: [0, Math.min(T, end) - 1, end - 1], y: [1, 1, 1], name: "query scale 1 at every position",
        color: "#888", width: lineWidth(2), hovertemplate: "position %{x:,d}: × 1 (no query scale)<extra></extra>" },
    ], { title: "No query scale that grows with position (query_scale_beta = 0)", xaxis: axis("position"), yaxis: axis("factor on q") });
    out("query_scale_note", "This model multiplies no query by a position-dependent factor; Ministral 3 (llama_4_scaling_beta) and Llama 4's NoPE layers (attn_temperature_tuning) do.");
    return;
  }
  const x = [...q.position];
  const y = [...q.scale];
  const last = y[y.length - 1];
  curves("plot-query-scale", [
    { line: { shape: "hv" }, color: COLORS[1], width: lineWidth(2.5), x, y, name: `1 + ${approx(q.beta, 6)}·ln(1 + ⌊${q.offset ? "(pos + 1)" : "pos"} / ${count(q.interval)}⌋)`,
      hovertemplate: "position %{x:,d}: × %{y:.6f}<extra></extra>" },
    vline(T - 1, 1, last, `T − 1 = ${count(T - 1)}`, "#000", "dot"),
  ], {
    title: `The model's query scale against position: ${approx(q.at_target, 6)} at T − 1, ${approx(q.at_max_length, 6)} at its last position`,
    xaxis: axis("position (0-based)"),
    yaxis: axis("factor on q (so on the logits)"),
  });
  out("query_scale_note",
    `${q.layers === "nope" ? "Only the layers without RoPE multiply" : "The model multiplies"} each query by this factor: 1 up to position ${count(q.first_rise - 1)}, ` +
    `then one step every ${count(q.interval)} positions, ${approx(q.at_max_length, 6)} at position ${count(q.max_length - 1)}. It is not RoPE's attention factor: it grows with the position, not with s.`);
}

// ---- temperature factors, T ≤ L0, LongRoPE's two factor sets -------------------------------------

function attentionReadouts(data) {
  const sel = data.selected;
  out("attention", `${approx(sel.attention_factor, 8)} (logits × ${approx(sel.logit_multiplier, 6)})`);
  const multiplier = sel.softmax_scale_multiplier;
  const r = sel.resolved;
  out(
    "softmax",
    multiplier === null
      ? (data.latent_attention ? "none: it needs mscale_all_dim and a scaled rope_type" : "none: plain 1/√d attention (only DeepSeek-style latent attention has it)")
      : `${approx(multiplier, 6)} = get_mscale(${approx(r.factor, 6)}, ${approx(r.mscale_all_dim, 6)})²`,
  );
  out("logits_total", approx(sel.logit_multiplier * (multiplier ?? 1), 6));
  const notes = document.querySelector('[data-out="factor_notes"]');
  if (notes) {
    const items = Object.entries(sel.attention_factors).map(
      ([name, entry]) => `${name}${entry.value === null ? "" : ` ${equals(entry.value, 6)}`}: ${entry.applies}.`,
    );
    notes.replaceChildren(...items.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  }
}

function extendsNote(data) {
  if (data.extends) return "";
  const unchanged = [];
  const changed = [];
  for (const [name, entry] of Object.entries(data.methods)) {
    if (!entry.available || name === "default") continue;
    const label = name === "longrope" ? "longrope (short factors)" : name;
    (entry.scale.every((v) => v === 1) ? unchanged : changed).push(label);
  }
  // the twin's reason (the core's one sentence), then what each method does at this length
  let text = `${data.reason[0].toUpperCase()}${data.reason.slice(1)}.`;
  if (unchanged.length) text += ` At this length ${unchanged.join(", ")} leave${unchanged.length === 1 ? "s" : ""} every pair as it is.`;
  if (changed.length) {
    text += ` ${unchanged.length ? "The others" : "The methods shown"} (${changed.join(", ")}) would still change the pairs whatever the length, as the curves show; a model at this length needs none of it.`;
  }
  return text;
}

let longrope = null; // {figure, plot} while rope_type is longrope

function longropeFigure(slot) {
  const figure = document.createElement("figure");
  figure.className = "figure";
  const plot = document.createElement("div");
  plot.className = "plot";
  plot.id = "plot-longrope";
  plot.setAttribute("role", "figure");
  plot.setAttribute("aria-label", "LongRoPE: short and long factors per pair, and the scale of a few pairs against the current length with the switch at L0");
  const numbers = document.createElement("dl");
  numbers.className = "numbers";
  for (const [label, name] of [["LongRoPE factors in use at T", "longrope_in_use"], ["LongRoPE attention factor (both sets)", "longrope_attention"]]) {
    const item = document.createElement("div");
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.dataset.out = name;
    item.append(dt, dd);
    numbers.appendChild(item);
  }
  figure.append(plot, numbers);
  slot.appendChild(figure);
  return { figure, plot };
}

/** LongRoPE only: both factor sets per pair, and a few pairs' scale against the current length. */
function drawLongrope(data, byPair) {
  const slot = document.getElementById("longrope-slot");
  const lr = data.longrope_switch;
  if (!slot) return;
  if (!lr) {
    if (longrope) {
      window.Plotly?.purge(longrope.plot);
      longrope.figure.remove();
      longrope = null;
    }
    return;
  }
  if (!longrope) longrope = longropeFigure(slot);
  const longropePlot = longrope.plot;
  const L0 = lr.switch_after;
  const grid = panelGrid(longropePlot, 2, 0.16);
  const x = byPair ? [...data.pair] : [...data.wavelength];
  const inUse = lr.in_use;
  const traces = [
    {
      type: "scatter",
      mode: "lines+markers",
      x: [...x],
      y: [...lr.short_scale],
      name: `short_factor: seq_len ≤ L<sub>0</sub> = ${count(L0)}${inUse === "short" ? " (in use at T)" : ""}`,
      line: { color: COLORS[0], width: lineWidth(inUse === "short" ? 3 : 1.5) },
      marker: { size: lineWidth(2) * 2 },
      xaxis: "x",
      yaxis: "y",
    },
    {
      type: "scatter",
      mode: "lines+markers",
      x: [...x],
      y: [...lr.long_scale],
      name: `long_factor: seq_len > ${count(L0)}${inUse === "long" ? " (in use at T)" : ""}`,
      line: { color: COLORS[1], width: lineWidth(inUse === "long" ? 3 : 1.5), dash: "dash" },
      marker: { size: lineWidth(2) * 2 },
      xaxis: "x",
      yaxis: "y",
    },
  ];
  const shades = [COLORS[4], COLORS[5], COLORS[6]];
  let lo = Infinity;
  let hi = -Infinity;
  lr.pairs.forEach((pair, k) => {
    const y = [...lr.scale_at_length[k]];
    lo = Math.min(lo, ...y);
    hi = Math.max(hi, ...y);
    traces.push({
      type: "scatter",
      mode: "lines",
      x: [...lr.lengths],
      y,
      name: `pair ${pair} against the current length`,
      line: { color: shades[k % shades.length], width: lineWidth(2), shape: "hv" },
      xaxis: "x2",
      yaxis: "y2",
    });
  });
  traces.push({
    type: "scatter",
    mode: "lines",
    x: [L0, L0],
    y: [lo, hi],
    name: `switch: long_factor once seq_len > L<sub>0</sub> = ${count(L0)}`,
    line: { color: COLORS[2], dash: "dash", width: lineWidth(1.5) },
    xaxis: "x2",
    yaxis: "y2",
    hoverinfo: "name",
  });
  traces.push({
    type: "scatter",
    mode: "markers",
    x: [data.target_len],
    y: [lr.scale_at_length[0][lr.lengths.indexOf(data.target_len)]],
    name: `T = ${count(data.target_len)}`,
    marker: { color: COLORS[2], size: lineWidth(5) * 2, symbol: "diamond" },
    xaxis: "x2",
    yaxis: "y2",
  });
  // Both factor sets per pair beside a few pairs against the length, on two subplots: Plotly's own form.
  plotly(longropePlot, traces, {
    title: { text: `LongRoPE: θ′<sub>j</sub>/θ<sub>j</sub> = 1/factor<sub>j</sub> for both sets, and the switch at L<sub>0</sub> = ${count(L0)}` },
    xaxis: byPair
      ? axis("pair index j", { domain: grid.x[0], anchor: "y" })
      : axis("wavelength λ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power", domain: grid.x[0], anchor: "y" }),
    yaxis: axis("θ′<sub>j</sub> / θ<sub>j</sub>", { type: "log", exponentformat: "power", domain: grid.y[0], anchor: "x" }),
    xaxis2: axis("current length seq_len (tokens)", { type: "log", exponentformat: "power", domain: grid.x[1], anchor: "y2" }),
    yaxis2: axis("θ′ / θ", { type: "log", exponentformat: "power", domain: grid.y[1], anchor: "x2" }),
  });
  out(
    "longrope_in_use",
    inUse === "long"
      ? `long_factor: T = ${count(data.target_len)} > L0 = ${count(L0)}`
      : `short_factor: T = ${count(data.target_len)} ≤ L0 = ${count(L0)} (long_factor only once seq_len > L0)`,
  );
  out("longrope_attention", approx(lr.attention_factor, 8));
}

function readouts(data) {
  const selected = data.methods[data.rope_type];
  const factorSet = data.longrope_switch ? ` (${data.longrope_switch.in_use}_factor at T = ${count(data.target_len)})` : "";
  out("method", `${data.rope_type} — ${selected ? selected.title : ""}${factorSet}`);
  attentionReadouts(data);
  out("extends_note", extendsNote(data));
  out("rotary", `${data.rotary_dim} of ${data.head_dim} (${data.rotary_dim / 2} pairs)`);
  out("critical", `j ${equals(data.critical_pair, 5)}: ${data.pairs_below_train_len} pairs turn fully within L`);
  const ramp = data.ramp;
  out(
    "yarn_range",
    `pairs ${approx(ramp.correction_range[0], 6)}–${approx(ramp.correction_range[1], 6)} (unrounded ${approx(ramp.correction_range_unrounded[0], 5)} and ${approx(ramp.correction_range_unrounded[1], 5)})`,
  );
  const b = data.llama3_bands;
  out("bands", b ? `${b.kept} / ${b.smoothed} / ${b.divided}` : "none: high_freq_factor is below low_freq_factor");
  out("dynamic_base", data.dynamic.base_at_target === null ? "—" : approx(data.dynamic.base_at_target, 6));
  out("ntk_base", data.dynamic.ntk_base === null ? "—" : approx(data.dynamic.ntk_base, 6));
  const notes = document.querySelector('[data-out="notes"]');
  if (notes) {
    const items = [...data.selected.notes];
    for (const [name, entry] of Object.entries(data.methods)) {
      if (!entry.available) items.push(`${name} not drawn: ${entry.reason}`);
    }
    notes.replaceChildren(...items.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  }
}

const page = startPage({
  draw(data, state) {
    const byPair = state.x_axis === "pair";
    // Text first, then the plots from the top: each plot is placed where it will stay when it is
    // drawn, so on opening the lesson the plots below the window wait until they are scrolled to
    // (static/js/lib/plot.js) instead of being drawn before the first one is shown.
    readouts(data);
    drawScale(data, byPair);
    drawLongrope(data, byPair);
    drawRamp(data, byPair);
    drawCoverage(data, byPair);
    drawTemperature(data);
    drawFamily(data);
    drawDynamic(data);
  },
});

wireConfigPaste(page);
