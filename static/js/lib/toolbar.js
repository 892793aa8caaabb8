// The page's toolbar: copy the link, download the plots (PNG, SVG), the JSON twin and the CSV,
// switch presenter mode.  `page` gives what they need: {name, api, query(), data(), say(text),
// togglePresenter(), writeAddress()}.

import { flushAll } from "./paint.js";
import { withQuery } from "./url-state.js";

export function wireToolbar(page) {
  document.querySelector(".toolbar")?.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    if (action === "copy-link") copyLink(page);
    else if (action === "png" || action === "svg") exportImages(page, action);
    else if (action === "json") download(`${fileStem(page)}.json`, "application/json", JSON.stringify(page.data()));
    else if (action === "csv") downloadUrl(`${fileStem(page)}.csv`, withQuery(`${page.api}.csv`, page.query()));
    else if (action === "presenter") page.togglePresenter();
  });
}

async function copyLink(page) {
  page.writeAddress(); // (the address is written after the draw: page-history.js)
  const link = window.location.href;
  try {
    await navigator.clipboard.writeText(link);
    page.say("Link copied.");
  } catch {
    window.prompt("Copy this link:", link);
  }
}

function fileStem(page) {
  const parts = [page.name];
  for (const [name, value] of page.query()) parts.push(`${name}-${value}`);
  return parts.join("_").replace(/[^A-Za-z0-9_.+-]/g, "");
}

async function exportImages(page, format) {
  const { exportFigure } = await import("./exports.js");
  await flushAll();
  const plots = [...document.querySelectorAll(".plot")].filter((el) => el.data);
  for (const [i, el] of plots.entries()) {
    const suffix = plots.length > 1 ? `_${el.id.replace(/^plot-?/, "") || i}` : "";
    await exportFigure(el, format, `${fileStem(page)}${suffix}`);
  }
}

function download(filename, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  downloadUrl(filename, url);
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function downloadUrl(filename, url) {
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
}
