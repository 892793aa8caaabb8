// Steppers for touch: a − and a + button beside each linear slider move it by exactly one step and
// dispatch the same input/change events a drag would, so the page controller needs no change and
// every value of a wide range (0–500 in steps of 1) is reachable without typing.
for (const range of document.querySelectorAll('input[type="range"][data-role="range"]:not([data-scale="log"])')) {
  const label = range.getAttribute("aria-label") || range.dataset.param;
  const make = (sign, text) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "stepper";
    button.textContent = text;
    button.setAttribute("aria-label", `${sign > 0 ? "Increase" : "Decrease"} ${label.replace(/ slider$/, "")} by one step`);
    button.addEventListener("click", () => {
      const before = range.value;
      if (sign > 0) range.stepUp();
      else range.stepDown();
      if (range.value === before) return;
      range.dispatchEvent(new Event("input", { bubbles: true }));
      range.dispatchEvent(new Event("change", { bubbles: true }));
    });
    return button;
  };
  range.before(make(-1, "−"));
  range.after(make(1, "+"));
}
