// Context extension: per-pair scale of every method, YaRN's two ramps, angle coverage,
// attention temperature and the dynamic-NTK base; presets are links; a pasted config.json is
// sent to POST /api/rope/frequencies and becomes this page's address.

import { startPage } from "../lib/page.js";
import { COLORS, axis, draw, fmt, lineWidth } from "../lib/plot.js";

const METHOD_COLORS = {
  default: "#888888",
  linear: COLORS[0],
  dynamic: COLORS[1],
  yarn: COLORS[2],
  longrope: COLORS[3],
  llama3: COLORS[4],
  ntk: COLORS[5],
};

function out(name, text) {
  const slot = document.querySelector(`[data-out="${name}"]`);
  if (slot) slot.textContent = text;
}


function vline(x, y0, y1, name, color, dash = "dash") {
  return {
    type: "scatter",
    mode: "lines",
    x: [x, x],
    y: [y0, y1],
    name,
    line: { color, dash, width: lineWidth(1.5) },
    hoverinfo: "name",
  };
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

function pairOf(wavelength, data) {
  // Fractional pair index whose unscaled wavelength is λ: j = (r/2)·ln(λ/2π)/ln b.
  return ((data.rotary_dim / 2) * Math.log(wavelength / (2 * Math.PI))) / Math.log(data.base);
}

function drawScale(data, byPair) {
  const x = byPair ? [...data.pair] : [...data.wavelength];
  const traces = [];
  const ys = [];
  for (const [name, entry] of Object.entries(data.methods)) {
    if (!entry.available || name === data.rope_type) continue;
    ys.push(entry.scale);
    traces.push({
      type: "scatter",
      mode: "lines+markers",
      x: [...x],
      y: [...entry.scale],
      name: `${name}${name === "dynamic" ? " (reads max_position_embeddings)" : ""}`,
      line: { color: METHOD_COLORS[name], width: lineWidth(1.5) },
      marker: { size: lineWidth(2) * 2 },
      hovertemplate: `${name}<br>%{x}<br>scale %{y:.4g}<extra></extra>`,
    });
  }
  ys.push(data.selected.scale);
  traces.push({
    type: "scatter",
    mode: "lines+markers",
    x: [...x],
    y: [...data.selected.scale],
    name: `chosen: ${data.rope_type}`,
    line: { color: "#000", width: lineWidth(3) },
    marker: { size: lineWidth(3) * 2, color: "#000" },
    hovertemplate: `${data.rope_type}<br>%{x}<br>scale %{y:.4g}<extra></extra>`,
  });
  const [lo, hi] = positiveRange(ys);
  const y0 = lo / 1.5;
  const y1 = Math.max(hi * 1.5, 1.5);
  const L = data.train_len;
  traces.push(vline(byPair ? data.critical_pair : L, y0, y1, `λ = L = ${L} (critical pair ${data.critical_pair.toFixed(2)})`, "#444"));
  if (data.llama3_bands && !byPair) {
    traces.push(vline(data.llama3_bands.high_freq_wavelen, y0, y1, `llama3 edge L/high = ${fmt(data.llama3_bands.high_freq_wavelen)}`, COLORS[4], "dot"));
    traces.push(vline(data.llama3_bands.low_freq_wavelen, y0, y1, `llama3 edge L/low = ${fmt(data.llama3_bands.low_freq_wavelen)}`, COLORS[4], "dot"));
  }
  draw("plot-scale", traces, {
    title: { text: `Scale θ′/θ per pair (s = ${fmt(data.factor)}, L = ${L}, T = ${data.target_len})` },
    xaxis: byPair ? axis("pair index j") : axis("wavelength λ<sub>j</sub> = 2π/θ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power" }),
    yaxis: axis("θ′<sub>j</sub> / θ<sub>j</sub>", { type: "log", exponentformat: "power", range: [Math.log10(y0), Math.log10(y1)] }),
  });
}

function drawRamp(data, byPair) {
  const ramp = data.ramp;
  const xDense = byPair ? ramp.wavelength.map((w) => pairOf(w, data)) : [...ramp.wavelength];
  const traces = [
    {
      type: "scatter",
      mode: "lines",
      x: xDense,
      y: [...ramp.paper_scale],
      name: `paper: linear in L/λ between α = ${fmt(ramp.alpha)} and β = ${fmt(ramp.beta)}`,
      line: { color: COLORS[0], width: lineWidth(2.5) },
    },
    {
      type: "scatter",
      mode: "lines",
      x: [...xDense],
      y: [...ramp.code_scale],
      name: `code: linear in j between ${ramp.correction_range[0]} and ${ramp.correction_range[1]}`,
      line: { color: COLORS[1], width: lineWidth(2.5), dash: "dash" },
    },
  ];
  if (data.methods.yarn.available) {
    traces.push({
      type: "scatter",
      mode: "markers",
      x: byPair ? [...data.pair] : [...data.wavelength],
      y: [...data.methods.yarn.scale],
      name: "pairs (transformers)",
      marker: { color: COLORS[1], size: lineWidth(3) * 2, symbol: "circle-open" },
    });
  }
  const s = data.factor;
  const edges = ramp.paper_edges;
  traces.push(vline(byPair ? pairOf(edges[0], data) : edges[0], 1 / s / 1.2, 1.2, `λ = L/β = ${fmt(edges[0])}`, "#666", "dot"));
  traces.push(vline(byPair ? pairOf(edges[1], data) : edges[1], 1 / s / 1.2, 1.2, `λ = L/α = ${fmt(edges[1])}`, "#666", "dot"));
  draw("plot-ramp", traces, {
    title: { text: "YaRN: the paper's ramp against the code's ramp" },
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
    type: "scatter",
    mode: "lines+markers",
    x: [...x],
    y: [...item.y],
    name: item.name,
    line: { color: item.color, dash: item.dash, width: lineWidth(2) },
    marker: { size: lineWidth(2) * 2 },
  }));
  traces.push({
    type: "scatter",
    mode: "lines",
    x: [x[0], x[x.length - 1]],
    y: [2 * Math.PI, 2 * Math.PI],
    name: "one full turn (2π)",
    line: { color: "#666", dash: "dot", width: lineWidth(1) },
  });
  draw("plot-coverage", traces, {
    title: { text: "Angle coverage: which pairs leave the range seen in training" },
    xaxis: byPair ? axis("pair index j") : axis("wavelength λ<sub>j</sub> (tokens)", { type: "log", exponentformat: "power" }),
    yaxis: axis("largest angle (radians)", { type: "log", exponentformat: "power" }),
  });
}

function drawTemperature(data) {
  const t = data.temperature;
  const s = data.factor;
  draw(
    "plot-temperature",
    [
      { type: "scatter", mode: "lines", x: [...t.scale], y: [...t.yarn], name: "YaRN: 0.1·ln s + 1", line: { color: COLORS[2], width: lineWidth(2.5) } },
      {
        type: "scatter",
        mode: "lines",
        x: [...t.scale],
        y: [...t.longrope],
        name: `LongRoPE: √(1 + ln s / ln L), L = ${data.train_len}`,
        line: { color: COLORS[3], width: lineWidth(2.5), dash: "dash" },
      },
      vline(s, 1, Math.max(...t.yarn), `s = ${fmt(s)}`, "#444"),
    ],
    {
        title: { text: "Attention factor against scale (cos and sin × factor; logits × factor²)" },
      xaxis: axis("scale factor s", { type: "log" }),
      yaxis: axis("attention factor"),
    },
  );
}

function drawDynamic(data) {
  const d = data.dynamic;
  if (!d.base) {
    draw("plot-dynamic", [], { title: { text: "Dynamic NTK needs a rotary dimension above 2" } });
    return;
  }
  const hi = Math.max(...d.base);
  draw(
    "plot-dynamic",
    [
      { type: "scatter", mode: "lines", x: [...d.length], y: [...d.base], name: "effective base b′(T)", line: { color: COLORS[1], width: lineWidth(2.5) } },
      vline(d.max_position_embeddings, data.base, hi, `max_position_embeddings = ${d.max_position_embeddings}`, "#444"),
      vline(data.target_len, data.base, hi, `T = ${data.target_len}`, "#000", "dot"),
    ],
    {
        title: { text: `Dynamic NTK: base against current length (s = ${fmt(data.factor)})` },
      xaxis: axis("current length (tokens)", { type: "log", exponentformat: "power" }),
      yaxis: axis("base b′", { type: "log", exponentformat: "power" }),
    },
  );
}

startPage({
  draw(data, state) {
    const byPair = state.x_axis === "pair";
    drawScale(data, byPair);
    drawRamp(data, byPair);
    drawCoverage(data, byPair);
    drawTemperature(data);
    drawDynamic(data);
    const selected = data.methods[data.rope_type];
    out("method", `${data.rope_type} — ${selected ? selected.title : ""}`);
    out("attention", `${fmt(data.selected.attention_factor, 8)} (logits × ${fmt(data.selected.attention_factor ** 2, 6)})`);
    out("rotary", `${data.rotary_dim} of ${data.head_dim} (${data.rotary_dim / 2} pairs)`);
    out("critical", `j = ${data.critical_pair.toFixed(3)}: ${data.pairs_below_train_len} pairs turn fully within L`);
    const ramp = data.ramp;
    out(
      "yarn_range",
      `pairs ${ramp.correction_range[0]}–${ramp.correction_range[1]} (unrounded ${ramp.correction_range_unrounded[0].toFixed(3)}–${ramp.correction_range_unrounded[1].toFixed(3)})`,
    );
    const b = data.llama3_bands;
    out("bands", b ? `${b.kept} / ${b.smoothed} / ${b.divided}` : "high_freq_factor must exceed low_freq_factor");
    out("dynamic_base", data.dynamic.base_at_target === null ? "—" : fmt(data.dynamic.base_at_target, 6));
    out("ntk_base", data.dynamic.ntk_base === null ? "—" : fmt(data.dynamic.ntk_base, 6));
    const notes = document.querySelector('[data-out="notes"]');
    if (notes) {
      const items = [...data.selected.notes];
      for (const [name, entry] of Object.entries(data.methods)) {
        if (!entry.available) items.push(`${name} not drawn: ${entry.reason}`);
      }
      notes.replaceChildren(...items.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
    }
  },
});

// ---- paste a config.json -------------------------------------------------------------------

const form = document.getElementById("paste-form");
const errorSlot = document.getElementById("paste-error");

function showPasteError(text) {
  errorSlot.textContent = text;
  form.classList.toggle("has-error", Boolean(text));
}

form?.addEventListener("submit", async (event) => {
  event.preventDefault();
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
    return;
  }
  const target = new URL("/spectrum", window.location.origin);
  for (const [name, value] of body.query) target.searchParams.append(name, value);
  if (!body.query.some(([name]) => name === "seq_len") && body.resolved.max_position_embeddings) {
    target.searchParams.append("seq_len", String(body.resolved.max_position_embeddings));
  }
  window.location.assign(target.pathname + target.search);
});
