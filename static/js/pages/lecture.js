// The lecture page: keys move between steps (links, so the step is in the URL and Back/Forward
// work), Space reveals the answer, and the QR code follows the origin this browser uses.
const root = document.querySelector(".lecture");
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function go(which) {
  const link = document.querySelector(`[data-step="${which}"]`);
  if (link) location.assign(link.href);
}

function stepLink(number) {
  const url = new URL(location.href);
  url.searchParams.set("step", String(number));
  location.assign(url.href);
}

function reveal() {
  const answer = document.getElementById("answer");
  const button = document.querySelector('[data-action="reveal"]');
  if (!answer || !button) return;
  answer.hidden = false;
  button.setAttribute("aria-expanded", "true");
  button.hidden = true;
}

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
  const total = Number(root.dataset.total);
  if (event.key === "ArrowRight" || event.key === "PageDown") go("next");
  else if (event.key === "ArrowLeft" || event.key === "PageUp") go("prev");
  else if (event.key === "Home") stepLink(1);
  else if (event.key === "End") stepLink(total);
  else if (event.key === " " && target.tagName !== "BUTTON" && target.tagName !== "A") reveal();
  else return;
  event.preventDefault();
});

document.querySelector('[data-action="reveal"]')?.addEventListener("click", reveal);

// The QR code of the view at this browser's origin (the server drew one for the origin it saw).
const holder = document.querySelector("[data-qr-for]");
if (holder) {
  const absolute = location.origin + holder.dataset.qrFor;
  const shown = document.querySelector(".student-url");
  if (shown) shown.textContent = absolute;
  fetch(`/lecture-qr.svg?url=${encodeURIComponent(absolute)}`)
    .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
    .then((svg) => {
      const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
      holder.replaceChildren(document.importNode(parsed, true));
      holder.dataset.qrUrl = absolute;
    })
    .catch(() => {});
  if (LOOPBACK.has(location.hostname)) document.querySelector(".loopback-note").hidden = false;
}
