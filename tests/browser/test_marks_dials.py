"""Issue 35 item 1: the table, dials and plane marks, drawn alone and on their pages.

Each mark is checked for what a reader sees: every word on screen at a phone, presenter and wide
size (the same DOM measure as test_figure_text.py), an update that ends where a fresh draw of the
same data does, and numbers computed here from the JSON twin (hand j of the clock points at
m·θ_j mod 2π; the rotated query is q turned by m·θ), never read back from the code under test.
"""

from __future__ import annotations

import json
import math
import urllib.request

import pytest

from tests.browser.helpers import (
    page_sized,
    plot_data,
    set_box,
    settle,
    snapshot,
    twin_url,
    wait_for_data_change,
    wait_for_plot,
    wait_for_query,
)
from tests.browser.test_figure_text import DRAWN_JS, SIZES, TEXT_BOXES_JS

# The page's own copy of a mark (the same versioned URL as its page module, so the same module
# instances: sizes and presenter mode as the page has them).
IMPORT_JS = """async (name) => {
    const page = document.querySelector('script[type=module][src*="/js/pages/"]').src;
    window.__marks = window.__marks || {};
    window.__marks[name] = await import(page.replace(/js\\/pages\\/[^/]+$/, `js/lib/marks/${name}.js`));
    return true;
}"""

# Cells of tables whose text is cut by its cell, hidden, or empty where a value belongs.
TABLE_PROBLEMS_JS = """(selector) => {
    const out = [];
    const body = document.querySelector(selector);
    if (!body) return ['no ' + selector];
    body.scrollIntoView({block: 'center'});
    for (const cell of body.querySelectorAll('td, th')) {
        const text = cell.textContent.trim();
        if (!text) { out.push('empty cell'); continue; }
        const style = getComputedStyle(cell);
        if (style.display === 'none' || style.visibility === 'hidden') out.push(`${text}: hidden`);
        const range = document.createRange(); range.selectNodeContents(cell);
        const r = range.getBoundingClientRect(), c = cell.getBoundingClientRect();
        if (r.width < 1 || r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1)
            out.push(`${text}: cut by its cell`);
        if (cell.scrollWidth > cell.clientWidth + 1) out.push(`${text}: overflows`);
    }
    return out;
}"""


def twin(page) -> dict:
    with urllib.request.urlopen(twin_url(page)) as answer:
        return json.loads(answer.read())


def load(page, name: str) -> None:
    page.evaluate(IMPORT_JS, name)


def words_problems(page) -> list[str]:
    page.wait_for_function(DRAWN_JS)
    page.evaluate("() => document.fonts.ready")
    return [f"fig {o['figure']} {o['text']!r} {o['box']} {o['problem']}" for o in page.evaluate(TEXT_BOXES_JS)]


def hand_angles(traces) -> list[float]:
    """The direction of each hand of the clock, from its drawn segment (centre, tip, gap)."""
    hands = next(t for t in traces if t.get("name") == "hands")
    x, y = hands["x"], hands["y"]
    return [math.atan2(y[i + 1] - y[i], x[i + 1] - x[i]) % (2 * math.pi) for i in range(0, len(x), 3)]


def angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)


@pytest.fixture(scope="module", params=SIZES, ids=[s[0] for s in SIZES])
def sized(request, warm_context):
    name, width, height, query = request.param
    return (lambda: page_sized(warm_context, width, height)), name, query


# ---- on their pages, at the three sizes ------------------------------------------------------------


@pytest.mark.parametrize("view, tables", [("clock", ['[data-out="hand_rows"]']), ("rotation", [])])
def test_dials_plane_and_table_words_on_screen(sized, base_url, view, tables):
    new_page, size, query = sized
    page = new_page()
    try:
        # a position far along, so hands point everywhere and the angle column is filled
        extra = "position=12345" if view == "clock" else "m=7&n=11&shift=3"
        page.goto(f"{base_url}/{view}?{'&'.join(q for q in (query, extra) if q)}")
        report = words_problems(page)
        for selector in tables:
            report += [f"{selector}: {p}" for p in page.evaluate(TABLE_PROBLEMS_JS, selector)]
    finally:
        page.close()
    assert report == [], f"/{view} @{size}:\n" + "\n".join(report[:40])


# ---- the dials -----------------------------------------------------------------------------------


def test_clock_hands_point_at_m_theta_from_the_twin(page, base_url):
    page.goto(f"{base_url}/clock?head_dim=32&position=987654")
    wait_for_plot(page, "plot-clock")
    inv_freq = twin(page)["inv_freq"]
    m = 987654
    drawn = hand_angles(plot_data(page, "plot-clock"))
    assert len(drawn) == len(inv_freq) == 16
    for j, theta in enumerate(inv_freq):
        expected = math.fmod(m * theta, 2 * math.pi)
        assert angle_gap(drawn[j], expected) < 1e-9, (j, drawn[j], expected)
    # the table's angle column says the same angle in degrees (6 significant digits)
    cells = page.locator('[data-out="hand_rows"] tr td:nth-child(5)').all_inner_texts()
    for j, theta in enumerate(inv_freq):
        degrees = math.degrees(math.fmod(m * theta, 2 * math.pi))
        assert float(cells[j].replace("≈", "").replace(",", "").strip()) == pytest.approx(degrees, rel=1e-5, abs=1e-4)


def test_clock_update_equals_a_fresh_draw_and_moves_only_the_hands(page, base_url):
    page.goto(f"{base_url}/clock?head_dim=32")
    wait_for_plot(page, "plot-clock")
    before = snapshot(page, "plot-clock")
    # Mark the drawn rings' path: a cheap update keeps it (the dials are not drawn again).
    page.evaluate("""() => {
        const traces = document.querySelectorAll('#plot-clock .scatterlayer .trace');
        const hand = traces[2].querySelector('path.js-line');
        traces[0].querySelector('path.js-line').dataset.kept = 'ring'; hand.dataset.before = hand.getAttribute('d');
    }""")
    set_box(page, "position", "4321")
    wait_for_query(page, "position=4321")
    wait_for_data_change(page, "plot-clock", before)
    # the hands' path is redrawn (within a few frames) while the rings' path element stays
    page.wait_for_function("""() => {
        const hand = document.querySelectorAll('#plot-clock .scatterlayer .trace')[2].querySelector('path.js-line');
        return hand.dataset.before !== undefined && hand.getAttribute('d') !== hand.dataset.before;
    }""")
    assert page.evaluate("() => document.querySelector('#plot-clock .scatterlayer .trace path.js-line').dataset.kept") == "ring"
    updated = snapshot(page, "plot-clock")
    title = page.locator("#plot-clock").locator("xpath=..").inner_text()
    rows = page.locator('[data-out="hand_rows"]').inner_text()
    page.goto(f"{base_url}/clock?head_dim=32&position=4321")
    wait_for_plot(page, "plot-clock")
    assert snapshot(page, "plot-clock") == updated
    assert page.locator("#plot-clock").locator("xpath=..").inner_text() == title
    assert page.locator('[data-out="hand_rows"]').inner_text() == rows
    assert "Position m = 4321" in title


def test_player_steps_and_resets_the_hands(page, base_url):
    page.goto(f"{base_url}/clock?head_dim=16&position=10")
    wait_for_plot(page, "plot-clock")
    inv_freq = twin(page)["inv_freq"]
    page.click('[data-clock="step"]')
    wait_for_query(page, "position=11")
    page.wait_for_function("() => document.querySelector('[data-out=position_now]').textContent === '11'")
    assert all(angle_gap(a, math.fmod(11 * t, 2 * math.pi)) < 1e-9 for a, t in zip(hand_angles(plot_data(page, "plot-clock")), inv_freq, strict=True))
    page.click('[data-clock="back"]')
    page.click('[data-clock="back"]')
    wait_for_query(page, "position=9")
    page.click('[data-clock="reset"]')
    page.wait_for_function("() => !/position=[1-9]/.test(location.search)")
    page.wait_for_function("() => document.querySelector('[data-out=position_now]').textContent === '0'")
    assert all(angle_gap(a, 0.0) < 1e-12 for a in hand_angles(plot_data(page, "plot-clock")))


DIALS_ALONE_JS = """async ([angles, labels]) => {
    const { dials } = window.__marks.dials;
    const make = (id) => {
        const figure = document.createElement('figure'); figure.className = 'figure';
        const el = document.createElement('div'); el.className = 'plot'; el.id = id;
        figure.appendChild(el); document.querySelector('main').prepend(figure);
        return el;
    };
    const updated = make('alone-updated'), fresh = make('alone-fresh');
    const hover = (j) => `dial ${j}`;
    await dials(updated, { angles: angles.map(() => 0), labels, hover }, { title: 'Some dials' });
    await dials(updated, { angles, labels, hover }, { title: 'Some dials' });
    await dials(fresh, { angles, labels, hover }, { title: 'Some dials' });
    return true;
}"""

# What a plot shows: its lines as drawn (SVG paths, in pixels), its size, its words, its traces.
SHOWN_JS = """(id) => {
    const el = document.getElementById(id);
    const paths = [...el.querySelectorAll('.scatterlayer path.js-line')].map((p) => p.getAttribute('d'));
    return JSON.stringify({ paths, height: el.getBoundingClientRect().height, words: el.parentElement.innerText,
        data: el.data.map((t) => ({ x: t.x, y: t.y, text: t.text, name: t.name })) });
}"""


def test_dials_alone_update_equals_fresh_draw(sized, base_url):
    new_page, size, query = sized
    page = new_page()
    try:
        page.goto(f"{base_url}/clock?head_dim=8" + (f"&{query}" if query else ""))
        wait_for_plot(page, "plot-clock")
        load(page, "dials")
        angles = [0.0, math.pi / 2, math.pi, 3 * math.pi / 2, 1.0, 2.5, 6.0]
        labels = [f"dial {j}" for j in range(len(angles))]
        page.evaluate(DIALS_ALONE_JS, [angles, labels])
        settle(page)  # a plot whose height the mark set is drawn again at that height
        updated, fresh = page.evaluate(SHOWN_JS, "alone-updated"), page.evaluate(SHOWN_JS, "alone-fresh")
        assert updated == fresh
        traces = json.loads(updated)["data"]
        drawn = hand_angles(traces)
        assert all(angle_gap(a, b) < 1e-12 for a, b in zip(drawn, angles, strict=True)) and len(drawn) == len(angles)
        words = json.loads(updated)["words"]
        assert "Some dials" in words and all(label in words for label in labels)
        report = words_problems(page)
    finally:
        page.close()
    assert report == [], f"dials alone @{size}:\n" + "\n".join(report[:40])


# ---- the plane -----------------------------------------------------------------------------------


def rotate(v, angle):
    return [math.cos(angle) * v[0] - math.sin(angle) * v[1], math.sin(angle) * v[0] + math.cos(angle) * v[1]]


def test_rotation_plane_arrows_from_the_twin_and_update_equals_fresh(page, base_url):
    page.goto(f"{base_url}/rotation")
    wait_for_plot(page, "plot-planes")
    before = snapshot(page, "plot-planes")
    set_box(page, "m", "6")
    wait_for_query(page, "m=6")
    wait_for_data_change(page, "plot-planes", before)
    updated = snapshot(page, "plot-planes")
    data = twin(page)
    m, n, theta, shift = data["panels"][0]["m"], data["panels"][0]["n"], data["theta"], data["shift"]
    assert m == 6
    traces = plot_data(page, "plot-planes")
    # each panel's traces in order: the first panel's arrows, then the second's
    named = lambda prefix, panel: [t for t in traces if (t.get("name") or "").startswith(prefix)][panel]
    for panel, (pm, pn) in enumerate(((m, n), (m + shift, n + shift))):
        q_rot, k_rot = named("R<sub>m</sub> q", panel), named("R<sub>n</sub> k", panel)
        assert [q_rot["x"][1], q_rot["y"][1]] == pytest.approx(rotate(data["q"], pm * theta), abs=1e-12)
        assert [k_rot["x"][1], k_rot["y"][1]] == pytest.approx(rotate(data["k"], pn * theta), abs=1e-12)
        assert [q_rot["x"][0], q_rot["y"][0]] == [0, 0]
    legend = page.locator("#plot-planes").locator("xpath=..").inner_text()
    page.goto(f"{base_url}/rotation?m=6")
    wait_for_plot(page, "plot-planes")
    assert snapshot(page, "plot-planes") == updated
    assert page.locator("#plot-planes").locator("xpath=..").inner_text() == legend


# ---- the table -----------------------------------------------------------------------------------

TABLE_ALONE_JS = """async () => {
    const { table } = window.__marks.table;
    const make = () => {
        const t = document.createElement('table'); t.className = 'lesson-table';
        document.querySelector('main').prepend(t);
        return t;
    };
    const columns = [
        { key: 'name', header: 'row' },
        { key: 'value', format: (v) => v.toFixed(2), align: 'right' },
        { value: (row, i) => `#${i}`, data: { kind: (row) => row.kind } },
        { key: 'x', format: '.3f' },
    ];
    const first = [{ name: 'a', value: 1, kind: 'p', x: -1.5 }, { name: 'b', value: 2, kind: 'q', x: 2 }, { name: 'c', value: 3, kind: 'r', x: 0.25 }];
    const second = [{ name: 'a', value: 1, kind: 'p', x: -1.5 }, { name: 'B', value: 2.5, kind: 'q', x: 2 }];
    const updated = make();
    table(updated, first, columns);
    const kept = updated.tBodies[0].rows[0];
    let writes = 0;
    const watch = new MutationObserver((list) => { writes += list.length; });
    watch.observe(updated, { subtree: true, childList: true, characterData: true });
    table(updated, second, columns);
    await new Promise((resolve) => setTimeout(resolve, 0));
    watch.disconnect();
    const fresh = make();
    table(fresh, second, columns);
    return { updated: updated.innerHTML, fresh: fresh.innerHTML, writes, keptRow: updated.tBodies[0].rows[0] === kept,
             text: [...updated.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
             tags: [...updated.tBodies[0].rows[0].cells].map((c) => c.tagName + (c.scope ? ':' + c.scope : '')),
             kind: updated.tBodies[0].rows[1].cells[2].dataset.kind, align: updated.tBodies[0].rows[1].cells[1].style.textAlign };
}"""


def test_table_alone_update_equals_fresh_and_writes_only_what_changed(page, base_url):
    page.goto(f"{base_url}/clock")
    wait_for_plot(page, "plot-clock")
    load(page, "table")
    result = page.evaluate(TABLE_ALONE_JS)
    assert result["updated"] == result["fresh"]
    assert result["text"] == [["a", "1.00", "#0", "−1.500"], ["B", "2.50", "#1", "2.000"]]
    assert result["tags"] == ["TH:row", "TD", "TD", "TD"]
    assert result["kind"] == "q" and result["align"] == "right"
    assert result["keptRow"]
    # two cells rewritten (each a text node replaced: one mutation record each) and one row removed
    assert result["writes"] == 3


def test_clock_table_follows_the_position_writing_the_angle_column_alone(page, base_url):
    page.goto(f"{base_url}/clock?head_dim=16&position=3")
    wait_for_plot(page, "plot-clock")
    page.evaluate("""() => {
        window.__written = new Set();
        const body = document.querySelector('[data-out="hand_rows"]');
        new MutationObserver((list) => list.forEach((r) => {
            const cell = (r.target.nodeType === 1 ? r.target : r.target.parentElement).closest('td, th');
            if (cell) window.__written.add(cell.cellIndex);
            else window.__written.add('rows');
        })).observe(body, { subtree: true, childList: true, characterData: true });
    }""")
    page.click('[data-clock="step"]')
    wait_for_query(page, "position=4")
    page.wait_for_function("() => window.__written.size > 0")
    page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    assert sorted(page.evaluate("() => [...window.__written]"), key=str) == [4]
    inv_freq = twin(page)["inv_freq"]
    rows = [row.split("\t") for row in page.locator('[data-out="hand_rows"]').inner_text().splitlines()]
    assert len(rows) == len(inv_freq) == 8
    for j, theta in enumerate(inv_freq):
        assert rows[j][0] == str(j)
        degrees = math.degrees(math.fmod(4 * theta, 2 * math.pi))
        assert float(rows[j][4].replace("≈", "").replace(",", "").strip()) == pytest.approx(degrees, rel=1e-5, abs=1e-4)
