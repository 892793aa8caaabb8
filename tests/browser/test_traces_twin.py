"""What Plotly draws equals the JSON twin after every move (issue 21, item 4).

On every page, from the defaults, each control the page shows (slider, menu, checkbox, number box)
is moved to one new value the page accepts, one after another.  After each move, when the page's
requests are done and its plots drawn, the twin of the new view is fetched and every array Plotly
holds (``_fullData`` x, y, z of every trace) must be one of the twin's arrays, at the path where it
was found at the defaults or another one: ``.curves.rope.low``, ``.alibi_penalty[3]`` (a row),
``.nope_causal.weights[:,0]`` (a column), within float32 rounding; x = 0 … n−1 (or 1 … n) counts
as the index of a twin array of length n drawn beside it.  A heatmap drawn as a layout image must
draw a twin matrix of its size through some colour scale: its pixels, read back through a canvas,
are a banded function of the matrix (one band of values per colour, bands apart).

Guide lines at a twin value, a twin array drawn in runs that tile it (tiled_runs) and a twin
array on a log axis with its non-positive values left out count as the twin's too.  What
else the page derives from the twin (circles, vectors, wiring) has no twin field to point at:
those arrays, and an image that draws no twin matrix, must equal what a fresh load of the new
address draws, an independent path with no update history.  DERIVED names the one matrix a page
builds from the twin in another form.
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest

from app.main import create_app  # noqa: F401  (registers every view)
from app.web.views import discover
from tests.browser.helpers import (
    DRAWN_JS,
    colours_follow,
    image_pixels,
    moved_and_fresh_tabs,
    numeric,
    same_numbers,
    set_box,
    settle,
    twin_arrays,
    twin_path,
    twin_url,
)

pytestmark = pytest.mark.browser

NAMES = [view.name for view in discover()]

# The controls the page shows, one per parameter: its slider if it has one, else its menu,
# checkbox or number box (free-text boxes are not moved here).
CONTROLS_JS = """() => {
  const seen = new Map();
  for (const el of document.querySelectorAll('#controls [data-param]')) {
    if (el.disabled || !el.offsetParent) continue;
    const kind = el.type === 'range' ? 'range' : el.type === 'checkbox' ? 'checkbox'
      : el.tagName === 'SELECT' ? 'select' : el.type === 'number' ? 'number' : null;
    if (!kind || (kind === 'select' && el.options.length < 2)) continue;
    const known = seen.get(el.dataset.param);
    if (!known || (kind === 'range' && known !== 'range')) seen.set(el.dataset.param, kind);
  }
  return [...seen].map(([name, kind]) => ({name, kind}));
}"""

# A slider `direction` steps (of a tenth of a decade on a log slider) on, committed; null past an end.
SLIDE_JS = """([name, direction]) => {
  const input = document.querySelector(`#controls input[type=range][data-param="${name}"]`);
  const step = input.step === 'any' ? (input.max - input.min) / 100 : Number(input.step) * (input.dataset.scale === 'log' ? 10 : 1);
  const next = Number(input.value) + direction * step;
  if (next > Number(input.max) + 1e-9 || next < Number(input.min) - 1e-9) return null;
  input.value = String(next);
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return input.value;
}"""

# A menu's other options, those after the current one first.
OPTIONS_JS = """(name) => {
  const select = document.querySelector(`#controls select[data-param="${name}"]`);
  const values = [...select.options].filter((o) => !o.disabled).map((o) => o.value);
  const at = values.indexOf(select.value);
  return [...values.slice(at + 1), ...values.slice(0, at)];
}"""

ERRORS_JS = """() => [...document.querySelectorAll('.control-error')]
    .filter((el) => el.textContent && !el.classList.contains('is-note')).map((el) => el.id + ': ' + el.textContent)"""


def _learned_sinusoid_similarity(twin):
    """/learned's sinusoid P·Pᵀ for an even width is Toeplitz: by_offset.sinusoid at |p − q|
    (the twin gives the matrix itself only for an odd width)."""
    positions = np.array(twin["positions"])
    by_offset = dict(zip(twin["by_offset"]["offsets"], twin["by_offset"]["sinusoid"], strict=True))
    offsets = np.abs(positions[:, None] - positions[None, :])
    if not all(int(o) in by_offset for o in np.unique(offsets)):
        return {}
    return {".by_offset.sinusoid[|p − q|]": [[by_offset[int(o)] for o in row] for row in offsets]}


# What a page draws from the twin that the twin holds in another form: name → twin → {path: array}.
DERIVED = {"learned": _learned_sinusoid_similarity}


def arrays_of(name, twin):
    """The twin's arrays by shape (helpers.twin_arrays), with what the page derives (DERIVED)."""
    extra = DERIVED.get(name, lambda _: {})(twin)
    return twin_arrays({**twin, "_derived": extra} if extra else twin)


@pytest.fixture(scope="module")
def pages(browser, base_url):
    """One context for the module: the page whose controls move, and one for fresh loads."""
    context, moved, fresh = moved_and_fresh_tabs(browser, base_url)
    yield moved, fresh
    context.close()


def number_box_values(page, name):
    box = page.locator(f'#controls [data-param="{name}"][data-role="box"]')
    value = float(box.input_value() or 0)
    step = box.get_attribute("step")
    if step in (None, "", "any"):
        values = [value * 1.25, value * 0.8, value * 2, value / 2] if value else [1.0, 0.5]
    else:
        values = [value + k * float(step) for k in (1, -1, 2, -2)]
    text = lambda v: str(int(v)) if float(v).is_integer() else f"{v:.6g}"
    return [text(v) for v in values]


def attempts(page, control):
    """The ways to move one control, nearest first: (a description, a function doing it)."""
    name, kind = control["name"], control["kind"]
    if kind == "range":
        return [(f"{name} {k:+d} step", lambda k=k: page.evaluate(SLIDE_JS, [name, k])) for k in (1, -1, 2, -2, 3, -3)]
    if kind == "select":
        options = page.evaluate(OPTIONS_JS, name)
        return [(f"{name} = {o}", lambda o=o: page.select_option(f'#controls select[data-param="{name}"]', o)) for o in options]
    if kind == "checkbox":
        return [(f"{name} toggled", lambda: page.locator(f'#controls input[type=checkbox][data-param="{name}"]').click())]
    return [(f"{name} = {v}", lambda v=v: set_box(page, name, v)) for v in number_box_values(page, name)]


def move(page, control) -> str | None:
    """Move one control to a new value the page accepts (the address changes and no control shows
    an error); what was done, or None.  A refused try is undone by going back to the last view."""
    for done, attempt in attempts(page, control):
        before = page.url
        attempt()
        settle(page)
        if page.url != before and not page.evaluate(ERRORS_JS):
            return f"{done} ({page.url.split('?', 1)[-1]})"
        if page.url != before or page.evaluate(ERRORS_JS):
            page.goto(before)
            settle(page)
    return None


def twin_numbers(twin):
    """Every number the twin holds, as one sorted array (for guide lines at a twin value)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            found.append(float(node))

    walk(twin)
    return np.unique(np.array(found + [0.0]))


def _in(numbers, value) -> bool:
    k = np.searchsorted(numbers, value)
    return any(0 <= j < numbers.size and math.isclose(numbers[j], value, rel_tol=1.2e-7, abs_tol=1e-300) for j in (k - 1, k))


def _derived_from_twin(trace, arrays, numbers) -> bool:
    """A guide line: two points, one axis at a number of the twin (x = c or y = c) and the other
    spanning the plot; or a twin array on a log axis with its values ≤ 0 left out (null)."""
    x, y = numeric(trace["x"]), numeric(trace["y"])
    if x is None or y is None or x.ndim != 1 or y.ndim != 1 or x.size != y.size:
        return False
    if x.size == 2 and any(a[0] == a[1] and _in(numbers, float(a[0])) for a in (x, y)):
        return True
    if np.isnan(y).any():
        for _, array in arrays.get(y.shape, []):
            if same_numbers(y, np.where(array > 0, array, np.nan)):
                return True
    return False


def _runs(trace, arrays):
    """(path, start, stop) for every twin array of which the trace draws the run start … stop−1
    at its own indices (x = start … stop−1, y those values)."""
    x, y = numeric(trace["x"]), numeric(trace["y"])
    if x is None or y is None or x.ndim != 1 or y.ndim != 1 or x.size != y.size or x.size < 2:
        return set()
    start = x[0]
    if not (float(start).is_integer() and start >= 0 and same_numbers(x, np.arange(start, start + x.size))):
        return set()
    run = slice(int(start), int(start) + x.size)
    return {(path, run.start, run.stop) for shape, group in arrays.items() if len(shape) == 1 and shape[0] >= run.stop
            for path, array in group if same_numbers(y, array[run])}


def tiled_runs(traces, arrays):
    """The traces of a plot that draw, between them, one twin array in two or more runs that tile
    it end to end (/mrope's frequency ladder split among t, h and w).  A single run is not enough:
    a line that kept its old points would be the new array's first run."""
    runs = {i: _runs(trace, arrays) for i, trace in enumerate(traces)}
    lengths = {path: array.size for group in arrays.values() for path, array in group if array.ndim == 1}
    tiled = set()
    for path in {path for found in runs.values() for path, _, _ in found}:
        spans = sorted({(a, b) for found in runs.values() for p, a, b in found if p == path})
        if len(spans) >= 2 and spans[0][0] == 0 and spans[-1][1] == lengths[path] and all(b == c for (_, b), (c, _) in pairwise(spans)):
            tiled |= {i for i, found in runs.items() if any(p == path for p, _, _ in found)}
    return tiled


def _index_or_ends(values, lengths, arrays) -> bool:
    """x = 0 … n−1 or 1 … n beside a twin array of length n; or two values, the first and last of a
    twin array or 0 and n−1 for a side n of a twin matrix (the corners a heatmap spans)."""
    if values is None or values.ndim != 1:
        return False
    n = values.size
    if n in lengths and (same_numbers(values, np.arange(n)) or same_numbers(values, np.arange(1, n + 1))):
        return True
    if n != 2:
        return False
    for shape, group in arrays.items():
        if len(shape) == 2 and any(same_numbers(values, np.array([0.0, side - 1])) for side in shape):
            return True
        if len(shape) == 1 and shape[0] > 2 and any(same_numbers(values, array[[0, -1]]) for _, array in group):
            return True
    return False


def image_in_twin(image, arrays) -> bool:
    """The image's pixels draw, through some colour scale, a twin matrix of its size (either way up)."""
    pixels = image_pixels(image)
    if pixels is None:
        return False
    for _, array in arrays.get(pixels.shape[:2], []):
        for flipped in (array, array[::-1], array[:, ::-1], array[::-1, ::-1]):
            if colours_follow(flipped, pixels):
                return True
    return False


def corner_marks(content):
    """The traces of a plot that draw nothing and answer no hover, two points each, beside a layout
    image: the carrier the drawing library keeps in Plotly for a heatmap drawn as an image (checked
    apart, by test_image_heatmap_corner_marks_follow_a_resize)."""
    return {i for i, t in enumerate(content["traces"]) if content["images"] and t["unseen"] and t["x"] and len(t["x"]) == 2}


def check_against_twin(drawn, arrays, found_at, counts, numbers):
    """What the twin holds (arrays at the paths found at the defaults first, or drawn from it as
    _derived_from_twin says); the rest, by key: (plot, trace, axis) for an array, (plot, "image",
    k) for a layout image."""
    unverified = []
    for plot, content in drawn.items():
        same_plot = len(content["traces"]) == counts.get(plot)
        skip = corner_marks(content) | tiled_runs(content["traces"], arrays)
        for i, trace in enumerate(content["traces"]):
            if i in skip:
                continue
            lengths, rest = set(), []
            for axis in ("x", "y", "z"):
                values = trace[axis]
                if values is None:
                    continue
                key = (plot, i, axis)
                if twin_path(values, arrays, found_at.get(key) if same_plot else None):
                    lengths.add(len(values))
                else:
                    rest.append(key)
            rest = [key for key in rest if not _index_or_ends(numeric(trace[key[2]]), lengths, arrays)]
            if rest and not _derived_from_twin(trace, arrays, numbers):
                unverified += rest
        unverified += [(plot, "image", k) for k, image in enumerate(content["images"]) if not image_in_twin(image, arrays)]
    return unverified


def discover_paths(drawn, arrays):
    found_at = {}
    for plot, content in drawn.items():
        for i, trace in enumerate(content["traces"]):
            for axis in ("x", "y", "z"):
                path = twin_path(trace[axis], arrays) if trace[axis] is not None else None
                if path:
                    found_at[(plot, i, axis)] = path
    return found_at


def same_image(one, other):
    if one["pixels"]["hash"] != other["pixels"]["hash"] or one["xref"] != other["xref"] or one["yref"] != other["yref"]:
        return False
    return all(math.isclose(float(one[k]), float(other[k]), rel_tol=1e-9, abs_tol=1e-9) for k in ("x", "y", "sizex", "sizey"))


def brief(values):
    """A short account of an array for a message: its length and first values."""
    if not isinstance(values, list):
        return repr(values)
    head = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in values[:4])
    return f"[{head}{', …' if len(values) > 4 else ''}] ({len(values)} values)"


def equal_values(a, b):
    na, nb = numeric(a), numeric(b)
    if na is not None and nb is not None:
        return same_numbers(na, nb, rtol=1e-9)
    return a == b


def compare_with_fresh(fresh, url, drawn, unverified, where):
    """Problems where the moved page differs from a fresh load of its address, for the arrays and
    images in ``unverified``; the number of traces and images of every plot too."""
    fresh.goto(url)
    settle(fresh)
    again = fresh.evaluate(DRAWN_JS)
    if sorted(again) != sorted(drawn):
        return [f"{where}: plots {sorted(drawn)}, a fresh load has {sorted(again)}"]
    problems = []
    for plot, content in drawn.items():
        for part in ("traces", "images"):
            if len(content[part]) != len(again[plot][part]):
                problems.append(f"{where}: {plot} holds {len(content[part])} {part}, a fresh load {len(again[plot][part])}")
    for plot, i, axis in unverified:
        if len(again[plot]["traces"]) != len(drawn[plot]["traces"]) or len(again[plot]["images"]) != len(drawn[plot]["images"]):
            continue
        if i == "image":
            if not same_image(drawn[plot]["images"][axis], again[plot]["images"][axis]):
                problems.append(f"{where}: {plot}'s image {axis} differs from a fresh load's")
            continue
        mine, theirs = drawn[plot]["traces"][i][axis], again[plot]["traces"][i][axis]
        if not equal_values(mine, theirs):
            problems.append(f"{where}: {plot} trace {i} {axis} is {brief(mine)}, a fresh load's {brief(theirs)}")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_every_trace_holds_the_twins_points_after_each_move(pages, base_url, name):
    moved, fresh = pages
    moved.goto(f"{base_url}/{name}")
    settle(moved)
    twin = moved.request.get(twin_url(moved)).json()
    drawn = moved.evaluate(DRAWN_JS)
    arrays = arrays_of(name, twin)
    found_at = discover_paths(drawn, arrays)
    counts = {plot: len(content["traces"]) for plot, content in drawn.items()}
    # At the defaults every heatmap drawn as an image draws a twin matrix of its size.
    unmatched = [f"{plot} image {k}" for plot, content in drawn.items() for k, image in enumerate(content["images"]) if not image_in_twin(image, arrays)]
    assert unmatched == [], f"/{name}: images whose colours follow no twin matrix of their size: {unmatched}"
    problems, unmoved = [], []
    for control in moved.evaluate(CONTROLS_JS):
        done = move(moved, control)
        if done is None:
            unmoved.append(control)
            continue
        twin = moved.request.get(twin_url(moved)).json()
        drawn = moved.evaluate(DRAWN_JS)
        unverified = check_against_twin(drawn, arrays_of(name, twin), found_at, counts, twin_numbers(twin))
        if unverified:
            problems += compare_with_fresh(fresh, moved.url, drawn, unverified, f"/{name} after {done}")
    # A number box takes any typed value and says beside it why one is refused (/mrope's head_dim
    # moves only with its sections); a slider, menu or checkbox offers only what is accepted.
    assert [c for c in unmoved if c["kind"] != "number"] == [], f"/{name}: no new value accepted for {unmoved}"
    # Each wrong array once, at the first move that showed it.
    first = {}
    for problem in problems:
        first.setdefault(problem.split(": ", 1)[1].split(" is ")[0], problem)
    assert not first, "\n".join(first.values())
    for tab in pages:
        assert tab.watch.problems == [] and tab.watch.foreign == [], (tab.watch.problems, tab.watch.foreign)


def test_compare_heatmap_positions_24_to_40_moves_every_trace(pages, base_url):
    """The case that was stale: /compare's NoPE out_m line kept its 24 points when its weight
    matrix went to 40 rows.  After the move both follow the twin's 40 positions."""
    moved, fresh = pages
    moved.goto(f"{base_url}/compare")
    settle(moved)
    set_box(moved, "seq_len", "40")
    settle(moved)
    assert "seq_len=40" in moved.url
    twin = moved.request.get(twin_url(moved)).json()
    assert len(twin["nope_causal"]["weights"]) == 40
    drawn = moved.evaluate(DRAWN_JS)
    arrays = twin_arrays(twin)
    lines = [t for t in drawn["plot-nope"]["traces"] if t["type"] == "scatter" and t["x"] and len(t["x"]) > 2]
    assert lines and all(twin_path(t["x"], arrays) and twin_path(t["y"], arrays) for t in lines), "the out_m line is not the twin's"
    images = [(plot, "image", k) for plot, content in drawn.items() for k in range(len(content["images"]))]
    assert compare_with_fresh(fresh, moved.url, drawn, images, "/compare after seq_len → 40") == []


def test_image_heatmap_corner_marks_follow_a_resize(pages, base_url):
    """The invisible trace an image heatmap keeps in Plotly (a marker pair, or the transparent 2 × 2
    heatmap carrying its colour bar) is after a resize what a fresh load of the new address gives
    Plotly: /scores at 64 → 80 positions.  (The old library left it spanning the old grid.)"""
    moved, fresh = pages
    moved.goto(f"{base_url}/scores")
    settle(moved)
    set_box(moved, "seq_len", "80")
    settle(moved)
    drawn = moved.evaluate(DRAWN_JS)
    corners = [(plot, i, axis) for plot, content in drawn.items() for i in corner_marks(content) for axis in ("x", "y")]
    assert corners
    assert compare_with_fresh(fresh, moved.url, drawn, corners, "/scores after seq_len → 80") == []
