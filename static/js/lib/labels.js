import { axisMap, plotBox } from "./geometry.js";
import { isPresenter, richText, textWidth } from "./layout.js";

// ---- text in the plot as HTML ------------------------------------------------------------------
//
// Words written into a plot (a trace of mode "text", an annotation without an arrow) change with
// the numbers, and changed text makes Plotly redraw the whole figure.  On screen they are HTML
// placed over the plot at their data or paper coordinates (showLabels), so the figure underneath
// keeps only what Plotly can move cheaply; exports draw them with Plotly as the page gave them.

export function placeholder(trace) {
  return { type: "scatter", mode: "markers", x: trace.x, y: trace.y, xaxis: trace.xaxis, yaxis: trace.yaxis, hoverinfo: "skip", showlegend: false, marker: { size: 1, opacity: 0 } };
}

const TEXT_POSITION = {
  "top left": ["right", "bottom"],
  "top center": ["center", "bottom"],
  "top right": ["left", "bottom"],
  "middle left": ["right", "middle"],
  "middle center": ["center", "middle"],
  "middle right": ["left", "middle"],
  "bottom left": ["right", "top"],
  "bottom center": ["center", "top"],
  "bottom right": ["left", "top"],
};

export function traceLabels(trace) {
  const [xanchor, yanchor] = TEXT_POSITION[trace.textposition || "middle center"] || ["center", "middle"];
  const font = trace.textfont || {};
  return (trace.x || []).map((x, i) => ({
    x,
    y: trace.y[i],
    xref: trace.xaxis || "x",
    yref: trace.yaxis || "y",
    log: false,
    text: Array.isArray(trace.text) ? trace.text[i] : trace.text,
    color: Array.isArray(font.color) ? font.color[i] : font.color,
    size: Array.isArray(font.size) ? font.size[i] : font.size,
    xanchor,
    yanchor,
    shift: [0, yanchor === "bottom" ? -4 : yanchor === "top" ? 4 : 0],
  }));
}

export function annotationLabel(note) {
  return {
    x: note.x,
    y: note.y,
    xref: note.xref || "x",
    yref: note.yref || "y",
    log: true, // an annotation on a log axis gives log10 of its position, as Plotly reads it
    text: note.text,
    color: note.font?.color,
    size: note.font?.size,
    xanchor: !note.xanchor || note.xanchor === "auto" ? "center" : note.xanchor,
    yanchor: !note.yanchor || note.yanchor === "auto" ? "middle" : note.yanchor,
    angle: note.textangle || 0,
    background: note.bgcolor,
    shift: [note.xshift || 0, -(note.yshift || 0)],
  };
}

function labelPixel(gd, box, ref, value, letter, log) {
  if (ref === "paper") return letter === "x" ? box.l + value * box.w : box.t + (1 - value) * box.h;
  const axis = axisMap(gd, ref, letter, box);
  return axis ? axis.toPixel(value, log) : NaN;
}

const ANCHOR_SHIFT = { left: "0%", center: "-50%", right: "-100%", top: "0%", middle: "-50%", bottom: "-100%" };

export function showLabels(el, labels) {
  let layer = el.querySelector(":scope > .plot-labels");
  if (!labels.length) {
    layer?.remove();
    return;
  }
  if (!el.layout) return;
  const box = plotBox(el);
  if (!layer) {
    layer = document.createElement("div");
    layer.className = "plot-labels";
    layer.setAttribute("aria-hidden", "true");
    el.appendChild(layer);
  }
  const nodes = [...layer.children];
  nodes.slice(labels.length).forEach((node) => node.remove());
  const positions = [];
  labels.forEach((label, i) => {
    const node = nodes[i] || layer.appendChild(document.createElement("span"));
    const x = labelPixel(el, box, label.xref, label.x, "x", label.log) + label.shift[0];
    const y = labelPixel(el, box, label.yref, label.y, "y", label.log) + label.shift[1];
    positions.push(x);
    const html = richText(label.text);
    if (node.innerHTML !== html) node.innerHTML = html;
    node.hidden = !Number.isFinite(x) || !Number.isFinite(y);
    node.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(${ANCHOR_SHIFT[label.xanchor]}, ${ANCHOR_SHIFT[label.yanchor]})${label.angle ? ` rotate(${label.angle}deg)` : ""}`;
    node.style.transformOrigin = label.angle ? "left bottom" : "";
    node.style.color = label.color || "";
    node.style.fontSize = label.size ? `${label.size}px` : "";
    node.style.background = label.background || "";
  });
  keepInside(layer, labels, positions, el.layout.width);
}

// A label that would run past the plot's left or right edge (a note centred on a narrow band) is
// moved sideways until it fits.  Measuring a label's box makes the browser lay the page out at that
// moment (5 ms a draw on /conventions), so only labels whose estimated box (the text's width at
// the labels' size, a fifth and an em more) comes near an edge are measured.
const LABEL_SIZE = () => (isPresenter() ? 23 : 13); // (as app.css sets .plot-labels > span)

const ANCHOR_SHARE = { left: 0, center: 0.5, right: 1 };

function nearAnEdge(label, x, width) {
  const size = label.size || LABEL_SIZE();
  const lines = String(label.text ?? "").split(/<br\s*\/?>/i).map((line) => line.replace(/<[^>]*>/g, ""));
  const wide = 1.2 * Math.max(...lines.map((line) => textWidth(line, size))) + size;
  const left = x - wide * (ANCHOR_SHARE[label.xanchor] ?? 0.5);
  return !(left > 0 && left + wide < width);
}

function keepInside(layer, labels, positions, width) {
  const nodes = [...layer.children];
  const near = nodes.filter((node, i) => !node.hidden && !labels[i]?.angle && nearAnEdge(labels[i], positions[i], width));
  if (!near.length) return;
  const bounds = layer.getBoundingClientRect();
  for (const node of near) {
    const box = node.getBoundingClientRect();
    const shift = box.width > bounds.width ? 0 : Math.min(0, bounds.right - box.right) + Math.max(0, bounds.left - box.left);
    if (shift) node.style.transform += ` translateX(${shift.toFixed(1)}px)`;
  }
}
