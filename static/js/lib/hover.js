// The tooltip of an image heatmap (heatmap.js attachHover): a layout image has no Plotly hover,
// so the page writes the hovered cell's text in an HTML box over the plot.  Lines, markers and
// bars have Plotly's own hover label (the chart marks hand Plotly their hover templates and texts).

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
