import { richText } from "./layout.js";
import { formatNumber } from "./numbers.js";

export function pick(value, i, j) {
  if (value === undefined || value === null) return "";
  if (!Array.isArray(value)) return value;
  const row = value[i];
  return Array.isArray(row) ? row[j] : Array.isArray(value[0]) ? "" : value[j];
}

export function tipOf(el) {
  let tip = el.querySelector(":scope > .plot-tip");
  if (!tip) {
    tip = document.createElement("div");
    tip.className = "plot-tip";
    tip.setAttribute("role", "status");
    tip.hidden = true;
    el.appendChild(tip);
  }
  return tip;
}

export function placeTip(el, tip, px, py) {
  const box = el.getBoundingClientRect();
  const left = Math.min(px + 14, box.width - tip.offsetWidth - 4);
  const top = py + 14 + tip.offsetHeight > box.height ? py - tip.offsetHeight - 10 : py + 14;
  tip.style.transform = `translate(${Math.max(0, left)}px, ${Math.max(0, top)}px)`;
}

/** The hover text of point `i` of a page trace, as Plotly would have written it. */
function pointText(trace, i, x, y) {
  const at = (value) => (Array.isArray(value) ? value[i] : value);
  if (trace.hovertemplate) {
    const values = { x, y, text: at(trace.text), customdata: at(trace.customdata) };
    const extra = /<extra>(.*?)<\/extra>/.exec(trace.hovertemplate);
    const main = at(trace.hovertemplate)
      .replace(/<extra>.*?<\/extra>/g, "")
      .replace(/%\{(\w+)(?::([^}]*))?\}/g, (_, name, spec) => (name in values ? formatNumber(values[name], spec) : ""));
    return extra && extra[1] ? `${main}<br><i>${extra[1]}</i>` : main;
  }
  const info = trace.hoverinfo || "all";
  if (info === "text") return String(at(trace.hovertext) ?? at(trace.text) ?? "");
  if (info === "name") return trace.name || "";
  // As Plotly writes it: the point first (integers whole, else up to 6 digits), the trace's name
  // after it, where Plotly puts it beside the label.
  const parts = [];
  if (info === "all" || info.includes("x") || info.includes("y")) parts.push(`(${formatNumber(x)}, ${formatNumber(y)})`);
  if ((info === "all" || info.includes("text")) && at(trace.text) !== undefined) parts.push(String(at(trace.text)));
  if ((info === "all" || info.includes("name")) && trace.name) parts.push(`<i>${trace.name}</i>`);
  return parts.join("<br>");
}

// Lines and bars: Plotly finds the point under the pointer (hover events); the text comes from
// the page's trace, so hover strings never enter Plotly's figure (screenTrace).
export function attachTooltip(el) {
  if (!el.on || el._tooltip) return;
  el._tooltip = true;
  el.on("plotly_hover", (event) => {
    const point = event?.points?.[0];
    const trace = point ? (el._shown || [])[point.curveNumber] : null;
    if (!trace || trace.type === "heatmap" || trace.hoverinfo === "skip" || trace.hoverinfo === "none") return;
    const index = point.pointNumber ?? point.pointIndex;
    const text = pointText(trace, index, point.x, point.y);
    if (!text) return;
    const tip = tipOf(el);
    tip.innerHTML = richText(text);
    tip.hidden = false;
    tip.dataset.from = "trace";
    const box = el.getBoundingClientRect();
    const mouse = event.event;
    placeTip(el, tip, mouse ? mouse.clientX - box.left : box.width / 2, mouse ? mouse.clientY - box.top : box.height / 2);
  });
  el.on("plotly_unhover", () => {
    tipOf(el).hidden = true;
  });
}
