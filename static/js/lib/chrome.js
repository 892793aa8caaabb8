import { COLORS } from "./colours.js";
import { plotState } from "./figure.js";
import { richText } from "./layout.js";

// A plot's title and legend, as HTML beside it (above and below): they wrap on a phone and scale
// with the page on a projector, and changing them costs the plot no redraw.  Pressing a legend
// entry hides or shows its curves (the page's trace becomes visible: "legendonly"); `onToggle`
// redraws the plot after such a press.

function chromeOf(el, onToggle) {
  const state = plotState(el);
  if (state.chrome) return state.chrome;
  const title = document.createElement("p");
  title.className = "plot-title";
  title.id = `${el.id || "plot"}-title`;
  const legend = document.createElement("ul");
  legend.className = "plot-legend";
  legend.setAttribute("aria-label", "Legend: press an entry to hide or show its curve");
  el.before(title);
  el.after(legend);
  if (!el.hasAttribute("aria-labelledby") && !el.hasAttribute("aria-label")) el.setAttribute("aria-labelledby", title.id);
  legend.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-trace]");
    if (!button) return;
    const name = button.dataset.trace;
    const hidden = state.hidden || (state.hidden = new Set());
    if (hidden.has(name)) hidden.delete(name);
    else hidden.add(name);
    button.setAttribute("aria-pressed", String(!hidden.has(name)));
    state.chrome.onToggle();
  });
  state.chrome = { title, legend, titleHtml: null, legendKey: null, onToggle };
  return state.chrome;
}

function swatch(trace, index) {
  const line = trace.line || {};
  const marker = trace.marker || {};
  const colour = (typeof line.color === "string" && line.color) || (typeof marker.color === "string" && marker.color) ||
    (typeof trace.fillcolor === "string" && trace.fillcolor) || COLORS[index % COLORS.length];
  const dash = line.dash && line.dash !== "solid" ? line.dash : "";
  const markersOnly = trace.mode === "markers";
  const fill = Boolean(trace.fill && trace.fill !== "none") && (line.width === 0 || !trace.mode?.includes("lines"));
  return { colour: fill && typeof trace.fillcolor === "string" ? trace.fillcolor : colour, dash, markersOnly, fill };
}

export function legendItems(traces, layout) {
  if (layout.showlegend === false) return [];
  // One entry per named trace; pressing it hides or shows its whole legend group.
  const items = [];
  const names = new Set();
  traces.forEach((trace, index) => {
    if (trace.showlegend === false || !trace.name || trace.type === "heatmap" || names.has(trace.name)) return;
    names.add(trace.name);
    items.push({ name: trace.name, key: trace.legendgroup || trace.name, ...swatch(trace, index) });
  });
  return layout.showlegend === true || items.length > 1 ? items : [];
}

/** Show `title` above the plot and `items` (legendItems) below it. */
export function showChrome(el, title, items, onToggle) {
  const chrome = chromeOf(el, onToggle);
  const html = richText(title);
  if (chrome.titleHtml !== html) {
    chrome.title.innerHTML = html;
    chrome.title.hidden = !html;
    chrome.titleHtml = html;
  }
  const hidden = plotState(el).hidden || new Set();
  const key = JSON.stringify([items, [...hidden]]);
  if (chrome.legendKey === key) return;
  chrome.legendKey = key;
  chrome.legend.hidden = items.length === 0;
  chrome.legend.replaceChildren(
    ...items.map((item) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.trace = item.key;
      button.setAttribute("aria-pressed", String(!hidden.has(item.key)));
      const mark = document.createElement("span");
      mark.className = `swatch${item.markersOnly ? " swatch-marker" : ""}${item.fill ? " swatch-fill" : ""}${item.dash ? ` swatch-line-${item.dash}` : ""}`;
      mark.style.setProperty("--swatch", item.colour);
      mark.setAttribute("aria-hidden", "true");
      const label = document.createElement("span");
      label.innerHTML = richText(item.name);
      button.append(mark, label);
      li.appendChild(button);
      return li;
    }),
  );
}
