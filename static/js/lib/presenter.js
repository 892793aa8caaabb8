// Presenter mode stays on across links: while <body> has the class "presenter" (set from the URL
// or by the "p" key), every link to another page of this app carries presenter=true; when it is
// turned off the links lose it again.  The body class is watched, so the page controller is untouched.
const SKIP = /^\/(api|static|s|docs|openapi\.json|vendor|healthz)(\/|$)/;

function rewrite(on) {
  for (const link of document.querySelectorAll("a[href^='/']")) {
    const url = new URL(link.getAttribute("href"), location.origin);
    if (SKIP.test(url.pathname) || link.dataset.role === "json-twin") continue;
    if (on) url.searchParams.set("presenter", "true");
    else url.searchParams.delete("presenter");
    const href = url.pathname + url.search + url.hash;
    if (href !== link.getAttribute("href")) link.setAttribute("href", href);
  }
}

const body = document.body;
let state = body.classList.contains("presenter");
// The lecture pages say presenter=false explicitly when it is off (on is their default).
if (!body.classList.contains("lecture-page") && !body.classList.contains("lectures-page")) rewrite(state);
else if (state) rewrite(true);
new MutationObserver(() => {
  const now = body.classList.contains("presenter");
  if (now !== state) rewrite((state = now));
}).observe(body, { attributes: true, attributeFilter: ["class"] });
