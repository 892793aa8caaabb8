import { startPage } from "../lib/page.js";
import { draw } from "../lib/plot.js";
startPage({ draw() { draw("plot", [{ type: "scatter", x: [0], y: [0] }], {}); } });
