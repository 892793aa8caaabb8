// The handout: each step's live view loses its stage bar and Controls drawer (a stylesheet added
// to the framed page, same origin), each drawn figure marks its frame data-drawn, and "Print /
// save as PDF" is offered once every figure is drawn.
const root = document.querySelector(".handout");
const frames = [...document.querySelectorAll("iframe.handout-view")];
const status = document.querySelector('[data-role="status"]');
const button = document.querySelector('[data-action="print"]');

/** The plot the framed stage shows, once it is drawn; null before. */
function drawnPlot(frame) {
  const doc = frame.contentDocument;
  if (!doc) return null;
  const shown = doc.querySelector("[data-stage-figure]");
  const plot = shown && (shown.matches(".plot") ? shown : shown.querySelector(".plot"));
  // Drawn: the library says what the plot shows (figure.js plotShown, on the framed page's
  // window) and Plotly's SVG is in it; no reading of Plotly's internal fields.
  const drawn = plot && frame.contentWindow?.plotShown?.(plot);
  return drawn && plot.querySelector(".main-svg") ? plot : null;
}

function dress(frame) {
  const doc = frame.contentDocument;
  if (!doc || doc.querySelector("link[data-handout]")) return;
  const link = doc.createElement("link");
  link.rel = "stylesheet";
  link.href = root.dataset.frameCss;
  link.dataset.handout = "";
  doc.head.append(link);
  // the stage's bar went away: the plot takes the room it left
  link.addEventListener("load", () => frame.contentWindow.dispatchEvent(new Event("resize")));
}

function update() {
  let drawn = 0;
  for (const frame of frames) {
    if (frame.contentDocument?.readyState === "complete") dress(frame);
    if (drawnPlot(frame)) { frame.dataset.drawn = ""; drawn += 1; }
  }
  const all = drawn === frames.length;
  status.textContent = all ? `All ${frames.length} figures are drawn.` : `Drawing the figures: ${drawn} of ${frames.length}…`;
  button.disabled = !all;
  root.dataset.drawn = String(drawn);
  return all;
}

for (const frame of frames) frame.addEventListener("load", () => { dress(frame); update(); });
const timer = setInterval(() => { if (update()) clearInterval(timer); }, 250);
update();
button.addEventListener("click", () => window.print());
