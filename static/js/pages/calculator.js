// Context-extension calculator: each row's value, the Men et al. verdict on b and the smallest
// passing base, and Bₘ for both bases, all from the JSON twin.

import { startPage } from "../lib/page.js";
import { curves } from "../lib/marks/index.js";
import { COLORS, axis, lineWidth, offAxis } from "../lib/plot.js";
import { approx, count, equals, out } from "../lib/numbers.js";

const SOURCE = {
  table: "from the precomputed table",
  live: "searched for this request",
};

/** A base on the four-significant-digit grid is exact in 4 digits; any other base gets 6. */
function baseText(value) {
  if (Number.isInteger(value) && Math.abs(value) < 1e12) return count(value);
  return approx(value, 4).startsWith("≈") ? approx(value, 6) : approx(value, 4);
}

function verdictText(data) {
  const T = count(data.seq_len);
  if (data.base_passes === true) return `yes: Bₘ ≥ 0 for every m < ${T}`;
  if (data.base_passes === false) return `no: Bₘ < 0 first at m = ${count(data.base_first_failing_m)}`;
  return `not decided: no failure among the first ${count(data.base_checked_length)} of the ${T} distances (checking them all is more than one request's work)`;
}

function smallestText(base, source, reason) {
  if (base === null) return `not given: ${reason}`;
  return `${baseText(base)} (${SOURCE[source]})`;
}

function lowest(curve, data) {
  const where = data.margin.covers_target ? "" : ` (over m < ${count(data.margin.length)})`;
  return `lowest Bₘ ${approx(curve.min, 4)} at m = ${count(curve.min_at)}${where}`;
}

function curveVerdict(curve, data) {
  if (curve.verdict_passes === true) return `passes: ${lowest(curve, data)}`;
  if (curve.verdict_passes === false) return `fails: Bₘ < 0 first at m = ${count(curve.verdict_first_failing_m)}; ${lowest(curve, data)}`;
  return `no failure among the first ${count(curve.verdict_checked)} distances; ${lowest(curve, data)}`;
}

/** Known bases above the smallest one that fail: the twin's example and b itself when it is one. */
function largerFailing(data) {
  const found = [];
  const larger = data.larger_failing_base;
  if (larger) found.push({ base: larger.base, fails_at: larger.fails_at, chosen: false });
  if (data.smallest_base !== null && data.base > data.smallest_base && data.base_passes === false) {
    found.push({ base: data.base, fails_at: data.base_first_failing_m, chosen: true });
  }
  return found;
}

// The twin says why nothing is extended (the core's one sentence); the page adds what that means for its rows.
function extendsNote(data) {
  if (data.extends) return "";
  const why = `${data.reason[0].toUpperCase()}${data.reason.slice(1)}.`;
  if (data.scale === 1) return `${why} Every recipe leaves b as it is and the temperatures are 1.`;
  const ntk = data.ntk_base_formula_value === null ? "" : ` (its formula would lower b to ${approx(data.ntk_base_formula_value, 6)})`;
  return `${why} The NTK row gives no base${ntk}, dynamic NTK keeps b, and the YaRN and LongRoPE attention factors are 1.`;
}

function tableNote(data) {
  const table = data.smallest_base_table;
  const dims = table.head_dims;
  const here = dims.includes(data.head_dim)
    ? `d = ${data.head_dim} is tabulated`
    : `d = ${data.head_dim} is not tabulated`;
  return (
    `Where the smallest base comes from: a table that scripts/men_table.py precomputed with the same code, for d = ${dims.join(", ")} ` +
    `and every T ≤ ${count(table.max_length)}; otherwise a search run for the request when it fits in one request's work ` +
    `(${here}).`
  );
}

// The plot keeps one slot per curve (b, then the smallest passing base) and one for the marker
// line, empty when the view has no such curve: the same traces from move to move, so a move is
// the chart mark's cheap update and not a new figure (an empty slot has no name: no legend entry).
const CURVE_SLOTS = 2;

function drawMargin(data) {
  const m = data.margin;
  const x = [...m.start];
  const series = [];
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < CURVE_SLOTS; i++) {
    const curve = m.curves[i];
    const color = COLORS[i];
    const group = `curve-${i}`;
    if (!curve) {
      series.push({ x: [], y: [], name: "", legendgroup: group, showlegend: false, color, width: lineWidth(1), hoverinfo: "skip" });
      series.push({ x: [], y: [], name: "", legendgroup: group, color, width: lineWidth(1), fill: "tonexty", opacity: 0.55, hovertemplate: "" });
      continue;
    }
    const label = i === 0 ? `b = ${baseText(curve.base)}` : `smallest passing base ${baseText(curve.base)}`;
    const verdict = curve.verdict_passes === true ? "passes" : curve.verdict_passes === false ? `fails at m = ${count(curve.verdict_first_failing_m)}` : "undecided";
    const name = `${label} (${verdict})`;
    series.push({ x: [...x], y: [...curve.low], name, legendgroup: group, showlegend: false, color, width: lineWidth(1), hoverinfo: "skip" });
    series.push({
      x: [...x],
      y: [...curve.high],
      name,
      legendgroup: group,
      color,
      width: lineWidth(1),
      fill: "tonexty",
      opacity: 0.55,
      hovertemplate: `${label}<br>m from %{x}: max B<sub>m</sub> %{y:.4g}<extra></extra>`,
    });
    lo = Math.min(lo, ...curve.low);
    hi = Math.max(hi, ...curve.high);
  }
  const chosen = m.curves[0];
  const fails = chosen && chosen.verdict_first_failing_m !== null && chosen.verdict_first_failing_m < m.length;
  series.push({
    x: fails ? [chosen.verdict_first_failing_m, chosen.verdict_first_failing_m] : [],
    y: fails ? [lo, hi] : [],
    name: fails ? `first m with B<sub>m</sub> &lt; 0 for b: ${count(chosen.verdict_first_failing_m)}` : "",
    color: COLORS[0],
    dash: "dot",
    width: lineWidth(1.5),
    hoverinfo: "name",
  });
  series.push({ x: [0, m.length - 1], y: [0, 0], name: "B<sub>m</sub> = 0", color: "#000", dash: "dash", width: lineWidth(1), hoverinfo: "skip" });
  const range = m.covers_target ? `every m < T = ${count(data.seq_len)}` : `m < ${count(m.length)} (of T = ${count(data.seq_len)})`;
  curves("plot-margin", series, {
    title: `B<sub>m</sub> = Σ<sub>j</sub> cos(m·θ<sub>j</sub>), d = ${data.head_dim}, ${range}: lowest and highest value per column`,
    xaxis: axis("distance m (tokens)"),
    yaxis: axis("B<sub>m</sub>", offAxis()),
  });
}

startPage({
  draw(data) {
    drawMargin(data);
    out("extends_note", extendsNote(data));
    out("table_note", tableNote(data));
    out("scale", approx(data.scale, 6));
    if (data.exponent === null) out("ntk_base", "needs d > 2");
    else if (data.ntk_base === null) out("ntk_base", `not an extension (s ≤ 1): the formula would give ${approx(data.ntk_base_formula_value, 6)}`);
    else out("ntk_base", approx(data.ntk_base, 6));
    if (data.exponent === null) out("dynamic_base", "needs d > 2");
    else if (data.dynamic_base === null) out("dynamic_base", `b unchanged: below L dynamic NTK keeps b ${equals(data.base, 6)}`);
    else out("dynamic_base", `${approx(data.dynamic_base, 6)} (α ${equals(data.dynamic_alpha, 6)})`);
    out("yarn", `${approx(data.yarn_attention, 8)} (logits × ${approx(data.yarn_logits, 6)})`);
    out("longrope", approx(data.longrope_attention, 8));
    out("critical", approx(data.critical_pair, 6));
    const bands = data.llama3;
    out("edges", `${approx(bands.high_freq_wavelen, 6)} and ${approx(bands.low_freq_wavelen, 6)} tokens`);
    out("bands", `${bands.kept} / ${bands.smoothed} / ${bands.divided}`);
    out("verdict", verdictText(data));
    out("smallest", smallestText(data.smallest_base, data.smallest_base_source, data.smallest_base_reason));
    out("smallest_train", smallestText(data.smallest_base_train, data.smallest_base_train_source, data.smallest_base_train_reason));

    const [chosen, smallest] = data.margin.curves;
    out("verdict_detail", `b = ${baseText(data.base)} ${curveVerdict(chosen, data)}`);
    out("smallest_detail", smallest ? `${baseText(smallest.base)} ${curveVerdict(smallest, data)}` : `not given: ${data.smallest_base_reason}`);
    if (data.smallest_base === null) out("previous", "—");
    else if (data.smallest_base_previous === null) out("previous", "none: it is the smallest grid value");
    else out("previous", `${baseText(data.smallest_base_previous)} fails: Bₘ < 0 first at m = ${count(data.smallest_base_previous_fails_at)}`);
    const larger = largerFailing(data);
    out(
      "larger",
      data.smallest_base === null
        ? "—"
        : larger.length
          ? larger.map((item) => `${item.chosen ? "b = " : ""}${baseText(item.base)} fails: Bₘ < 0 at m = ${count(item.fails_at)}`).join("; ")
          : data.larger_failing_base_search,
    );
    if (data.smallest_base === null) out("interval_note", "");
    else if (larger.length) {
      const example = larger[0];
      out(
        "interval_note",
        `Larger bases can fail: ${baseText(data.smallest_base)} passes for T = ${count(data.seq_len)}, yet ${baseText(example.base)} above it ` +
          `fails at m = ${count(example.fails_at)}. The passing bases are not an interval, so a base above the smallest one ` +
          `is not enough by itself: each base has to be checked, as the verdict row does for b.`,
      );
    } else {
      out(
        "interval_note",
        "Larger bases can fail: the passing bases are not an interval in general, so a base above the smallest one is not " +
          "enough by itself; each base has to be checked, as the verdict row does for b.",
      );
    }
    const m = data.margin;
    out(
      "coverage_note",
      m.covers_target
        ? `Drawn for every distance m < ${count(data.seq_len)}: each of the ${count(m.start.length)} columns spans the lowest to the highest Bₘ over its distances.`
        : `Drawn for m < ${count(m.length)} only, of the ${count(data.seq_len)} distances below T (drawing them all would take more than one request's work); ` +
            `the verdict on b was read on to m < ${count(data.base_checked_length)}.`,
    );
    out("definition_length", count(data.seq_len));
  },
});
