// Steppers for touch: the − and + buttons the controls macro puts beside each linear slider move
// it by exactly one step and dispatch the same input/change events a drag would, so the page
// controller needs no change and every value of a wide range (0–500 in steps of 1) is reachable
// without typing.  The buttons are in the HTML (not added here) so that the controls' layout does
// not shift, and the plots are not redrawn, after the first paint.
for (const button of document.querySelectorAll("button.stepper[data-for]")) {
  const range = document.querySelector(`input[type="range"][data-role="range"][data-param="${button.dataset.for}"]`);
  if (!range) continue;
  button.addEventListener("click", () => {
    const before = range.value;
    if (Number(button.dataset.step) > 0) range.stepUp();
    else range.stepDown();
    if (range.value === before) return;
    range.dispatchEvent(new Event("input", { bubbles: true }));
    range.dispatchEvent(new Event("change", { bubbles: true }));
  });
}
