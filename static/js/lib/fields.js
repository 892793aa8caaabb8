// Fills every [data-field="dotted.path"] element with that value of the view's JSON twin (the
// same dotted paths as lecture answers: dict keys and list indices), from the embedded data at
// first and again whenever the page controller points its "JSON twin" link at a new query.
function lookup(data, path) {
  let node = data;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(part)] : node[part];
  }
  return node;
}

export function show(value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value === null || value === undefined) return "none";
  if (typeof value === "number") {
    if (Number.isFinite(value) && Math.abs(value) < 1e-12) return "0";
    if (Number.isInteger(value)) return String(value);
    const digits = Math.abs(value) >= 1000 ? 6 : 4;
    return String(Number(value.toPrecision(digits)));
  }
  return String(value);
}

function fill(data) {
  if (!data) return;
  for (const el of document.querySelectorAll("[data-field]")) {
    const value = lookup(data, el.dataset.field);
    if (value !== undefined && (value === null || typeof value !== "object")) el.textContent = show(value);
  }
}

const boot = document.getElementById("page-data");
const twin = document.querySelector('[data-role="json-twin"]');
if (boot && document.querySelector("[data-field]")) {
  const embedded = JSON.parse(boot.textContent).data;
  let asked = twin ? twin.getAttribute("href") : null;
  if (embedded) fill(embedded);
  else if (asked) fetch(asked, { headers: { Accept: "application/json" } }).then((r) => r.ok && r.json()).then(fill);
  if (twin) {
    new MutationObserver(async () => {
      const href = twin.getAttribute("href");
      if (href === asked) return;
      asked = href;
      const response = await fetch(href, { headers: { Accept: "application/json" } });
      if (response.ok && href === asked) fill(await response.json());
    }).observe(twin, { attributes: true, attributeFilter: ["href"] });
  }
}
