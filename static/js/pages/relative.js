// Relative encodings: Shaw's clipped index, T5 buckets and bias, ALiBi slopes, penalties and bias.

import { startPage } from "../lib/page.js";
import { bars, curves, heatmap } from "../lib/marks/index.js";
import { COLORS, DIVERGING, SEQUENTIAL, axis, belowCorner, lineWidth } from "../lib/plot.js";
import { approx, equals, out } from "../lib/numbers.js";
import { table } from "../lib/marks/table.js";

// The T5 bucket table: bucket (the row's header), its offsets, how many, its stand-in bias.
const BUCKET_COLUMNS = [
  { key: "bucket", header: "row" },
  { value: (r) => (r.count === 0 ? "none" : r.low === r.high ? String(r.low) : `${r.low} … ${r.high}`) },
  { key: "count" },
  { key: "bias", format: (v) => approx(v) },
];

const SUPERSCRIPT = { "-": "⁻", ".": "·", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** 2 to a power, as markup (plot text) or with superscript characters (readouts). */
function power(exponent, markup = true) {
  const rounded = String(Math.round(exponent * 1000) / 1000);
  return markup ? `2<sup>${rounded}</sup>` : `2${[...rounded].map((ch) => SUPERSCRIPT[ch] ?? ch).join("")}`;
}

function drawShaw(shaw) {
  const k = shaw.max_relative_position;
  const offsets = shaw.query_positions.map((qi) => shaw.key_positions.map((kj) => kj - qi));
  heatmap(
    "plot-shaw",
    {
      z: shaw.index_matrix.map((row) => [...row]),
      x: [...shaw.key_positions],
      y: [...shaw.query_positions],
      customdata: offsets,
      zmin: 0,
      zmax: Math.max(2 * k, 1),
      scale: SEQUENTIAL,
      bar: "index",
      hovertemplate: "query at %{y}, key at %{x}<br>offset %{customdata}<br>table row %{z}<extra></extra>",
    },
    {
      title: `Shaw: table row clip(j − i, −${k}, ${k}) + ${k} (${2 * k + 1} rows)`,
      xaxis: axis("key position j"),
      yaxis: axis("query position i", { autorange: "reversed" }),
    },
  );
}

function drawShawTerm(shaw) {
  const k = shaw.max_relative_position;
  const term = shaw.stand_in;
  const rows = shaw.index_matrix.map((row) => row.map((index) => index - k));
  heatmap(
    "plot-shaw-term",
    {
      z: term.term.map((row) => [...row]),
      x: [...shaw.key_positions],
      y: [...shaw.query_positions],
      customdata: rows,
      scale: DIVERGING,
      bar: "term",
      hovertemplate: "query at %{y}, key at %{x}<br>clipped offset %{customdata}<br>q·a/√d = %{z:.6g}<extra></extra>",
    },
    {
      title: `Shaw: q<sub>i</sub>·a<sub>clip(j − i, −${k}, ${k})</sub>/√d, stand-ins with d = ${term.dim} (seed ${term.seed})`,
      xaxis: axis("key position j"),
      yaxis: axis("query position i", { autorange: "reversed" }),
    },
  );
  const values = term.term.flat();
  out("shaw_term_range", `${approx(Math.min(...values), 4)} … ${approx(Math.max(...values), 4)}`);
  // The last query: every key at offset −k or further back picks row 0 of the table, one value.
  const last = shaw.query_positions.length - 1;
  const query = shaw.query_positions[last];
  const far = shaw.key_positions.filter((j) => j - query <= -k);
  out(
    "shaw_term_far",
    far.length > 1
      ? `query ${query}: keys ${far[0]} … ${far[far.length - 1]} (offset ≤ −${k}) all get ${approx(term.term[last][far[0]], 6)}`
      : `query ${query}: ${far.length ? "one key" : "no key"} at offset ≤ −${k}, so no two far keys share a value here`,
  );
}

function drawT5(t5) {
  const x = [...t5.relative_position];
  const e = t5.max_exact;
  const D = t5.max_distance;
  const top = t5.num_buckets;
  const marks = [];
  const mark = (at, label, color, dash) => {
    if (Math.abs(at) > t5.max_offset) return;
    marks.push({
      mode: "lines",
      x: [at, at],
      y: [0, top - 1],
      name: label,
      line: { color, dash, width: lineWidth(1) },
      hoverinfo: "name",
    });
  };
  mark(-e, `|offset| = max_exact = ${e}`, COLORS[2], "dot");
  if (t5.bidirectional) mark(e, `offset = +${e}`, COLORS[2], "dot");
  mark(-D, `|offset| = max_distance = ${D}`, COLORS[1], "dash");
  if (t5.bidirectional) mark(D, `offset = +${D}`, COLORS[1], "dash");
  curves(
    "plot-t5-buckets",
    [
      {
        mode: "lines",
        x,
        y: [...t5.bucket],
        name: "bucket",
        line: { shape: "hv", color: COLORS[0], width: lineWidth(2) },
        hovertemplate: "offset %{x}<br>bucket %{y}<extra></extra>",
      },
      ...marks,
    ],
    {
      title: `T5 buckets (${t5.num_buckets}, max_distance ${D}, ${t5.bidirectional ? "bidirectional" : "causal"})`,
      xaxis: axis("offset j − i (key minus query)", belowCorner()),
      yaxis: axis("bucket", { rangemode: "tozero" }),
    },
  );
  const z = t5.bias_matrix.map((row) => [...row]);
  const positions = Array.from({ length: t5.seq_len }, (_, i) => i);
  heatmap(
    "plot-t5-bias",
    {
      z,
      x: positions,
      y: positions,
      scale: DIVERGING,
      bar: "bias",
      hovertemplate: "query %{y}, key %{x}<br>bias %{z:.4f}<extra></extra>",
    },
    {
      title: `T5 bias b[bucket(j − i)] with seeded per-bucket values (seed ${t5.seed})`,
      xaxis: axis("key position j"),
      yaxis: axis("query position i", { autorange: "reversed" }),
    },
  );
}

function drawAlibi(alibi) {
  const heads = alibi.slopes.map((_, h) => h);
  bars(
    "plot-alibi-slopes",
    [
      {
        x: heads,
        y: [...alibi.slopes],
        text: alibi.slope_exponents.map(power),
        hovertemplate: "head %{x}<br>slope %{y:.6g} = %{text}<extra></extra>",
        marker: { color: heads.map((h) => (h === alibi.head ? COLORS[1] : COLORS[0])) },
        name: "slope",
      },
    ],
    {
      title: `ALiBi slopes for ${alibi.num_heads} heads (orange: head shown below)`,
      xaxis: axis("head h (0-based)"),
      yaxis: axis("slope m<sub>h</sub>", { type: "log", exponentformat: "power", dtick: 1 }),
      legend: false,
    },
  );
  const shown = Math.min(alibi.num_heads, 16);
  const step = alibi.num_heads / shown;
  const picked = Array.from({ length: shown }, (_, i) => Math.floor(i * step));
  if (!picked.includes(alibi.head)) picked.push(alibi.head);
  curves(
    "plot-alibi-penalty",
    picked.map((h, i) => ({
      mode: "lines",
      x: [...alibi.distances],
      y: [...alibi.penalty[h]],
      name: `head ${h} (m = ${power(alibi.slope_exponents[h])})`,
      line: { color: h === alibi.head ? COLORS[1] : COLORS[i % 2 === 0 ? 0 : 5], width: lineWidth(h === alibi.head ? 3 : 1.5) },
      hovertemplate: `head ${h}<br>distance %{x}<br>penalty %{y:.4g}<extra></extra>`,
    })),
    {
      title: `ALiBi penalty −m<sub>h</sub>·(i − j) against distance${alibi.num_heads > shown ? ` (${picked.length} of ${alibi.num_heads} heads)` : ""}`,
      xaxis: axis("distance i − j to an earlier key"),
      yaxis: axis("added to the score"),
      legend: alibi.num_heads <= 16,
    },
  );
  const positions = Array.from({ length: alibi.seq_len }, (_, i) => i);
  const z = alibi.bias_matrix.map((row) => row.map((v) => (v === null ? null : v)));
  heatmap(
    "plot-alibi-bias",
    {
      z,
      x: positions,
      y: positions,
      scale: SEQUENTIAL,
      bar: "bias",
      hoverongaps: false,
      hovertemplate: "query %{y}, key %{x}<br>bias %{z:.6g}<extra></extra>",
    },
    {
      title: `ALiBi bias of head ${alibi.head} (${alibi.form === "paper" ? "−m·(i − j)" : "m·j, BLOOM form"}); grey = future keys, masked`,
      xaxis: axis("key position j"),
      yaxis: axis("query position i", { autorange: "reversed" }),
    },
  );
}

startPage({
  draw(data) {
    const { shaw, t5, alibi } = data;
    drawShaw(shaw);
    drawShawTerm(shaw);
    drawT5(t5);
    drawAlibi(alibi);

    const used = new Set(shaw.index_matrix.flat());
    out("shaw_rows", `${used.size} of ${2 * shaw.max_relative_position + 1} (queries at positions ${shaw.query_positions[0]}–${shaw.query_positions[shaw.query_positions.length - 1]})`);
    const e = t5.max_exact;
    out(
      "t5_exact",
      t5.bidirectional
        ? `offsets −${e - 1} … 0 → buckets ${e - 1} … 0; +1 … +${e - 1} → ${(t5.num_buckets >> 1) + 1} … ${(t5.num_buckets >> 1) + e - 1}`
        : `0 … ${e - 1} positions back → buckets 0 … ${e - 1}; keys after the query → 0`,
    );
    const unused = t5.bucket_ranges.filter((r) => r.count === 0).map((r) => r.bucket);
    out("t5_unused", unused.length ? `${unused.join(", ")} (within ±${t5.max_offset})` : "none: every bucket is used");
    out("t5_limit", String(t5.max_offset));
    const listed = alibi.slope_exponents.slice(0, 12).map((exponent) => power(exponent, false)).join(", ");
    out("alibi_slopes", alibi.num_heads > 12 ? `${listed}, … (${alibi.num_heads} heads)` : listed);
    out("alibi_head", `head ${alibi.head}: m ${equals(alibi.slopes[alibi.head])} = ${power(alibi.slope_exponents[alibi.head], false)}`);
    table('[data-table="buckets"]', t5.bucket_ranges.map((r) => ({ ...r, bias: t5.bucket_bias[r.bucket] })), BUCKET_COLUMNS);
  },
});
