// Real heads: SmolLM2-135M's attention pattern, pair energy, offset scores, head classes and surgery.

import { startPage } from "../lib/page.js";
import { curves, heatmap } from "../lib/marks/index.js";
import { COLORS, SEQUENTIAL, axis, plotSize, sized, textSize } from "../lib/plot.js";
import { fmt, out } from "../lib/numbers.js";

// A tick label is "index token", cut to what the fixed left margin holds beside the axis title
// (the hover gives the index; the token list is under the plots).
function label(token, i) {
  const chars = window.innerWidth < 560 ? 6 : sized(8, 6);
  const text = `${i} ${token.trim() || "␣"}`;
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/** Every stride-th token is labelled, the stride chosen so that labels a line apart fit the plot. */
function tokenTicks(el, tokens, extent) {
  const lineHeight = textSize() * 1.5;
  const fit = Math.max(2, Math.floor(extent(el) / lineHeight));
  const stride = Math.max(1, Math.ceil(tokens.length / fit));
  const tickvals = tokens.map((_, i) => i).filter((i) => i % stride === 0);
  return { tickmode: "array", tickvals, ticktext: tickvals.map((i) => label(tokens[i], i)) };
}

function drawPattern(id, data, z, title) {
  const el = document.getElementById(id);
  const index = data.tokens.map((_, i) => i);
  // The plot area is the element less the layout's margins: about 8 lines of text across, 6 down.
  const rows = tokenTicks(el, data.tokens, (node) => plotSize(node).height - textSize() * 6);
  // Across, the key axis numbers its tokens (the rows name them): each number gets four characters.
  const size = textSize();
  const across = Math.max(2, Math.floor((plotSize(el).width - size * 8) / (size * 2.4)));
  const stride = Math.max(1, Math.ceil(data.tokens.length / across));
  const colVals = index.filter((i) => i % stride === 0);
  const cols = { tickmode: "array", tickvals: colVals, ticktext: colVals.map(String) };
  heatmap(id, { z, x: index, y: index, scale: SEQUENTIAL, zmin: 0, zmax: 1,
    hovertemplate: "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>" },
  { title, xaxis: { ...axis("key token (index)"), ...cols },
    yaxis: { ...axis("query token"), ...rows, autorange: "reversed" },
    // Beside the axis title, room for the eight characters of a row label on a screen.
    ...(window.innerWidth < 560 ? {} : { margin: { l: sized(100, 128) } }) });
}

function drawEnergy(data) {
  const series = data.layer_pair_energy.map((row, h) => ({
    mode: "lines+markers", name: `head ${h}`, x: data.theta, y: row,
    width: h === data.head ? 3 : 1, color: h === data.head ? COLORS[0] : undefined,
    hovertemplate: `head ${h}<br>θ %{x:.3g}<br>E %{y:.3g}<extra></extra>`,
  }));
  curves("plot-energy", series, { title: `Energy per pair, layer ${data.layer}`,
    xaxis: { ...axis("θ_j (radians per token)"), type: "log" }, yaxis: axis("E_j = mean ‖q_j‖·‖k_j‖") });
}

function drawOffsets(data) {
  curves("plot-offsets", [{ x: data.offset_scores.map((_, i) => i), y: data.offset_scores,
    name: `head ${data.head}`, hovertemplate: "offset %{x}<br>mean score %{y:.3f}<extra></extra>" }],
  { title: "Mean score against offset", xaxis: axis("offset m − n"), yaxis: axis("mean score") });
}

const progressBox = document.querySelector('[data-role="model-progress"]');
const figures = document.querySelector(".figures");

function render(data) {
  // the answer is here: the pass is over, whatever the last progress poll said
  if (progressBox) progressBox.hidden = true;
  drawPattern("plot-pattern", data, data.weights, `Layer ${data.layer}, head ${data.head}: the model's pattern`);
  drawPattern("plot-surgery", data, data.surgered_weights || data.weights,
    data.surgered_weights ? "After surgery" : "After surgery (no surgery chosen: the same)");
  drawEnergy(data);
  drawOffsets(data);
  const after = data.surgered_mass || data.mass;
  out("n_tokens", String(data.n_tokens));
  out("previous", `${fmt(data.mass.previous, 3)} → ${fmt(after.previous, 3)}`);
  out("first", `${fmt(data.mass.first, 3)} → ${fmt(after.first, 3)}`);
  out("divergence", fmt(data.divergence, 4));
  out("surgery_note", data.notes.join(" "));
  out("classes", data.head_classes.map((c) => `${c.head}: ${c.class}`).join(", "));
}

const page = startPage({ draw: render });

// A text of your own takes the model seconds (text=custom): while the page waits for that answer,
// it asks the server which layer the pass has reached.  The twin's request runs the pass; this only reads.
const PROGRESS_EVERY_MS = 400;

function progressText(status) {
  if (status.state === "running") return `The model is reading your text: layer ${status.layer} of ${status.n_layer} (${status.seconds} s).`;
  if (status.state === "done") return `The model has read your text (${status.n_layer} layers): drawing.`;
  if (status.state === "waiting" || status.state === "stopped") return status.message;
  return "Starting the model…";
}

async function watchProgress() {
  const state = page.state;
  const waiting = state.text === "custom" && figures?.classList.contains("is-busy");
  if (!progressBox) return;
  if (!waiting) {
    progressBox.hidden = true;
  } else {
    try {
      const response = await fetch(`/api/model/heads/progress?${new URLSearchParams({ custom_text: state.custom_text })}`);
      if (response.ok) {
        const status = await response.json();
        const bar = progressBox.querySelector("progress");
        bar.max = status.n_layer;
        bar.value = status.layer;
        progressBox.querySelector("span").textContent = progressText(status);
        progressBox.hidden = !figures.classList.contains("is-busy");
      }
    } catch {
      // the page's own request reports a server that went away
    }
  }
  setTimeout(watchProgress, PROGRESS_EVERY_MS);
}

if (progressBox) watchProgress();

// Each text costs the model a pass of seconds: the text box applies on Enter or on leaving it, not at
// every pause in typing (the shared controller's rule for boxes), which would start a pass per half-typed word.
document.querySelector('[data-param="custom_text"][data-role="box"]')?.addEventListener("input", (event) => event.stopPropagation());
