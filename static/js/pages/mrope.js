// M-RoPE: the ladder split among t/h/w, the (t, h, w) of every token, the patch grid, and what a
// score between two patches depends on.

import { startPage } from "../lib/page.js";
import { bars, curves, plotly } from "../lib/marks/index.js";
import { COLORS, SEQUENTIAL, axis, baseLayout, fmt, isPresenter, lineWidth, narrowSpread, offAxis, panelGrid, plotSize, spreadPercent, textSize, textWidth } from "../lib/plot.js";
import { out } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

const AXIS_COLOR = { t: COLORS[0], h: COLORS[1], w: COLORS[2] };
const TABLE_ROWS = 64;

function pairsOf(data, name) {
  return data.axis.map((a, j) => (a === name ? j : -1)).filter((j) => j >= 0);
}

function drawLadder(data) {
  bars(
    "plot-ladder",
    ["t", "h", "w"].map((name) => {
      const pairs = pairsOf(data, name);
      return {
        x: pairs,
        y: pairs.map((j) => data.inv_freq[j]),
        name: `${name}: ${pairs.length} pairs`,
        color: AXIS_COLOR[name],
        customdata: pairs.map((j) => data.wavelengths[j]),
        hovertemplate: `pair %{x} follows ${name}<br>θ = %{y:.4g} rad/position<br>wavelength %{customdata:.4g}<extra></extra>`,
      };
    }),
    {
      title: `The ladder θ<sub>j</sub> = ${fmt(data.base)}<sup>−2j/${data.head_dim}</sup>, each pair coloured by its axis (${data.layout})`,
      xaxis: axis("pair j (dims j and j + d/2)"),
      yaxis: axis("θ<sub>j</sub> (radians per position)", offAxis({ type: "log", exponentformat: "power" })),
      bargap: 0.05,
    },
  );
}

function drawSequence(data) {
  const seq = data.sequence;
  const index = seq.t.map((_, n) => n);
  const hover = seq.kind.map((kind, n) => (kind === "text" ? "text" : `patch (${seq.frame[n]}, ${seq.row[n]}, ${seq.col[n]})`));
  const line = (name, dash) => ({
    mode: "lines+markers",
    x: index,
    y: [...seq[name]],
    name,
    color: AXIS_COLOR[name],
    width: lineWidth(1.5),
    dash,
    line: { shape: "hv" },
    marker: { size: 4 },
    customdata: hover,
    hovertemplate: `token %{x} (%{customdata})<br>${name} = %{y}<extra></extra>`,
  });
  const start = data.text_before - 0.5;
  const stop = data.text_before + data.frames * data.grid_h * data.grid_w - 0.5;
  curves("plot-sequence", [line("t", "solid"), line("h", "dash"), line("w", "dot")], {
    title: "The (t, h, w) of every token: text, then the image patches (shaded), then text",
    xaxis: axis("token (place in the sequence)"),
    yaxis: axis("position index"),
    shapes: [{ type: "rect", xref: "x", yref: "paper", x0: start, x1: stop, y0: 0, y1: 1, fillcolor: "#999", opacity: 0.15, line: { width: 0 } }],
  });
}

function drawPatches(data) {
  const seq = data.sequence;
  const rows = Array.from({ length: data.grid_h }, (_, r) => r);
  const cols = Array.from({ length: data.grid_w }, (_, c) => c);
  const first = data.text_before + data.query_frame * data.grid_h * data.grid_w;
  const at = (r, c) => first + r * data.grid_w + c;
  const text = rows.map((r) => cols.map((c) => `(${seq.t[at(r, c)]}, ${seq.h[at(r, c)]}, ${seq.w[at(r, c)]})`));
  const z = rows.map((r) => cols.map((c) => (r === data.query_row && c === data.query_col ? 2 : r === data.key_row && c === data.key_col && data.key_frame === data.query_frame ? 1 : 0)));
  // A triple is written in its cell only where it fits at the figures' text size (Plotly would shrink it
  // to fit, to 5 px on a phone); otherwise the cells stay plain and the title says where the triples are.
  const size = isPresenter() ? 18 : textSize();
  const base = baseLayout();
  const width = plotSize("plot-patches").width || 600;
  const cell = (width - base.margin.l - (size * 6 + 40)) / data.grid_w; // the colour bar and its names on the right
  const widest = Math.max(...text.flat().map((triple) => textWidth(triple, size, base.font.family)));
  const written = data.grid_h * data.grid_w <= 144 && widest + 8 <= cell;
  // Three kinds of patch with their triples written in the cells, a stepped scale and a bar that
  // names the kinds: more of Plotly's heatmap than the heatmap mark takes, so Plotly's own form.
  plotly(
    "plot-patches",
    [
      {
        type: "heatmap",
        z,
        x: cols,
        y: rows,
        text,
        texttemplate: written ? "%{text}" : "",
        textfont: { size },
        // Three kinds of patch, not a quantity: a stepped scale whose bar names them.
        zmin: -0.5,
        zmax: 2.5,
        colorscale: [
          [0, "#f2f2f2"], [1 / 3, "#f2f2f2"],
          [1 / 3, "#f6c9a8"], [2 / 3, "#f6c9a8"],
          [2 / 3, "#a8cde8"], [1, "#a8cde8"],
        ],
        showscale: true,
        colorbar: { tickvals: [0, 1, 2], ticktext: ["other", "key", "query"], ticks: "", title: { text: "patch" } },
        xgap: 2,
        ygap: 2,
        hovertemplate: "row %{y}, column %{x}<br>(t, h, w) = %{text}<extra></extra>",
      },
    ],
    {
      title: {
        text: `Frame ${data.query_frame} of the image, ${data.grid_h} × ${data.grid_w} patches: (t, h, w) of each` +
          (written ? "" : " (touch or point at a patch; the table lists the tokens)"),
      },
      xaxis: axis("column", { dtick: 1 }),
      yaxis: axis("row", { autorange: "reversed", dtick: 1 }),
    },
  );
}

function drawScores(data) {
  const rows = Array.from({ length: data.grid_h }, (_, r) => r);
  const cols = Array.from({ length: data.grid_w }, (_, c) => c);
  // Each panel has its own colour range: with Qwen2-VL's blocks the h and w pairs are slow, so the
  // M-RoPE scores of nearby patches differ in the third decimal while 1-D RoPE's differ in the first.
  const range = (z) => {
    const flat = z.flat();
    return [Math.min(...flat), Math.max(...flat)];
  };
  const grid = panelGrid("plot-scores", 2, 0.22, 420);
  const heat = (z, axes, name, colorbar) => {
    const [lo, hi] = range(z);
    return {
      type: "heatmap",
      z: z.map((row) => [...row]),
      x: cols,
      y: rows,
      zmin: lo,
      zmax: hi > lo ? hi : lo + 1e-12,
      colorscale: SEQUENTIAL,
      colorbar: { title: { text: "score" }, ...colorbar },
      hovertemplate: `${name}<br>row %{y}, column %{x}<br>score %{z:.6f}<extra></extra>`,
      ...axes,
    };
  };
  const [lo, hi] = range(data.grid_scores);
  const [lo1, hi1] = range(data.grid_scores_1d);
  // A spread under 1 % of the scores' size painted with the whole ramp looks as varied as a wide
  // one: the title says how narrow it is.
  const notes = [[lo, hi, "M-RoPE"], [lo1, hi1, "1-D RoPE"]].filter(([a, b]) => narrowSpread(a, b)).map(([a, b, name]) =>
    `${name}'s scores differ by only ${fmt(spreadPercent(a, b), 2)} % of their size (${fmt(a, 6)} … ${fmt(b, 6)}): its full colour ramp magnifies that`);
  // Two heatmaps in subplots, each with its own colour bar placed beside it: Plotly's own form.
  plotly(
    "plot-scores",
    [
      heat(data.grid_scores, { xaxis: "x", yaxis: "y" }, "M-RoPE", grid.stacked ? { x: 1.0, y: 0.78, len: 0.44 } : { x: 0.4, len: 0.9 }),
      heat(data.grid_scores_1d, { xaxis: "x2", yaxis: "y2" }, "1-D RoPE", grid.stacked ? { x: 1.0, y: 0.22, len: 0.44 } : { x: 1.0, len: 0.9 }),
    ],
    {
      title: { text: `Score from the query patch q to every patch (all-ones q and k), each panel on its own scale${notes.length ? `; ${notes.join("; ")}` : ""}` },
      xaxis: axis(`M-RoPE: ${fmt(lo, 6)} … ${fmt(hi, 6)}`, { domain: grid.stacked ? grid.x[0] : [0, 0.36], dtick: 1, anchor: "y" }),
      yaxis: axis("row", { autorange: "reversed", dtick: 1, domain: grid.y[0], anchor: "x" }),
      xaxis2: axis(`1-D RoPE in reading order: ${fmt(lo1)} … ${fmt(hi1)}`, { domain: grid.stacked ? grid.x[1] : [0.58, 0.94], dtick: 1, anchor: "y2" }),
      yaxis2: axis(grid.stacked ? "row" : "", { autorange: "reversed", anchor: "x2", dtick: 1, domain: grid.y[1] }),
      annotations: [
        { xref: "x", yref: "y", x: data.query_col, y: data.query_row, text: "q", showarrow: false, font: { color: "#fff" } },
        { xref: "x2", yref: "y2", x: data.query_col, y: data.query_row, text: "q", showarrow: false, font: { color: "#fff" } },
      ],
    },
  );
}

function drawAngles(data) {
  const traces = [];
  for (const name of ["t", "h", "w"]) {
    const pairs = pairsOf(data, name);
    traces.push({
      type: "bar",
      x: pairs,
      y: pairs.map((j) => data.delta_angles[j]),
      name: `${name} pairs: Δ${name} = ${data.offset[name]}`,
      marker: { color: AXIS_COLOR[name] },
      hovertemplate: `pair %{x} (${name})<br>angle key − query %{y:.5g} rad<extra></extra>`,
    });
    traces.push({
      type: "scatter",
      mode: "markers",
      x: pairs,
      y: pairs.map((j) => data.angles[j]),
      name: `angle at ${name} = ${data.position[name]}`,
      marker: { color: AXIS_COLOR[name], symbol: "diamond-open", size: 6 },
      xaxis: "x2",
      yaxis: "y2",
      hovertemplate: `pair %{x} (${name})<br>${name}·θ = %{y:.5g} rad<extra></extra>`,
    });
  }
  const grid = panelGrid("plot-angles", 2, 0.14, 320);
  const [first, second] = grid.stacked ? ["top", "bottom"] : ["left", "right"];
  // Bars and markers on two subplots: Plotly's own form.
  plotly("plot-angles", traces, {
    title: { text: `Per pair: key − query angle (${first}) and the angles of (t, h, w) = (${data.t}, ${data.h}, ${data.w}) (${second}, log scale)` },
    xaxis: axis("pair j", { domain: grid.stacked ? [0, 1] : grid.x[0], anchor: "y" }),
    yaxis: axis("angle (radians)", offAxis({ domain: grid.y[0], anchor: "x" })),
    xaxis2: axis("pair j", { domain: grid.stacked ? [0, 1] : grid.x[1], anchor: "y2" }),
    yaxis2: axis("angle (radians)", offAxis({ anchor: "x2", type: "log", exponentformat: "power", domain: grid.y[1] })),
    barmode: "overlay",
  });
}

// The listed tokens: index (the row's header), kind, patch, and the triple (t, h, w).
const TOKEN_COLUMNS = [
  { key: "i", header: "row" },
  { key: "kind" },
  { key: "patch" },
  { key: "t" },
  { key: "h" },
  { key: "w" },
];

function fillTokens(data) {
  const seq = data.sequence;
  const n = seq.t.length;
  const picks = n <= TABLE_ROWS ? seq.t.map((_, i) => i) : [...Array(TABLE_ROWS - 8).keys(), ...Array.from({ length: 8 }, (_, k) => n - 8 + k)];
  const rows = picks.map((i) => ({
    i,
    kind: seq.kind[i],
    patch: seq.kind[i] === "text" ? "—" : `(${seq.frame[i]}, ${seq.row[i]}, ${seq.col[i]})`,
    t: seq.t[i],
    h: seq.h[i],
    w: seq.w[i],
  }));
  if (!table('[data-table="tokens"]', rows, TOKEN_COLUMNS)) return;
  out("table_note", n > TABLE_ROWS ? `${TABLE_ROWS} of the ${n} tokens are listed (the first ${TABLE_ROWS - 8} and the last 8); the CSV export has them all.` : `All ${n} tokens.`);
}

startPage({
  draw(data) {
    drawLadder(data);
    drawSequence(data);
    drawPatches(data);
    drawScores(data);
    drawAngles(data);
    fillTokens(data);
    const c = data.section_counts;
    out("counts", `${c.t}, ${c.h}, ${c.w} of ${data.head_dim / 2}`);
    const patches = data.frames * data.grid_h * data.grid_w;
    out("block", `${patches} patches from token ${data.vision_start}; t = ${data.vision_start}${data.frames > 1 ? ` … ${data.vision_start + data.frames - 1}` : ""}, h = ${data.vision_start} … ${data.vision_start + data.grid_h - 1}, w = ${data.vision_start} … ${data.vision_start + data.grid_w - 1}`);
    out("resume", `${data.vision_start + Math.max(data.grid_h, data.grid_w)} (= ${data.vision_start} + max(${data.grid_h}, ${data.grid_w})); ids run ${-data.rope_delta} behind the token count`);
    out("pair", `(${data.query.t}, ${data.query.h}, ${data.query.w}) → (${data.key.t}, ${data.key.h}, ${data.key.w})`);
    out("offset", `(${data.offset.t}, ${data.offset.h}, ${data.offset.w}); 1-D: ${data.flat_offset}`);
    out("score", fmt(data.score));
    out("angles", `${data.angles.slice(0, 3).map((v) => fmt(v)).join(", ")} … ${fmt(data.angles[data.angles.length - 1])}`);
  },
});
