"""Lectures: the shipped files load with computed answers; each malformed case stops loading with
its file, line and reason; the pages, twins and QR endpoint answer and refuse as documented."""

import subprocess
import sys
from pathlib import Path

import pytest

from app.lectures import LectureError, load_dirs, lookup

GOOD = """---
title: Mine
---
## One
/rotation?m=2&n=5&theta=0.5
Some narration.
Q: What is the offset?
A: It is {offset}.
"""


def write(tmp_path: Path, text: str, name: str = "mine.md") -> Path:
    directory = tmp_path / "lectures"
    directory.mkdir(exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")
    return directory


def test_shipped_lectures_meet_the_issue(client):
    listed = client.get("/api/lectures").json()["lectures"]
    assert {item["name"] for item in listed} == {"rope", "context", "families"}
    for item in listed:
        assert item["steps"] >= 12 and item["questions"] >= 4


def test_answers_are_computed_from_the_twin(client):
    steps = client.get("/api/lectures/rope").json()["steps"]
    by_heading = {step["heading"]: step for step in steps}
    # All θ = 0: every score equal; all θ = π: signs alternate with the gap (independent: q·k = c, (−1)^gap c).
    zero = by_heading["Test your understanding: all θ = 0"]
    pi = by_heading["Test your understanding: all θ = π"]
    twin = client.get("/api/rope/scores", params={"content": "repeated", "seq_len": 16, "head_dim": 64, "theta_override": "none"}).json()
    c = twin["content_dot"]
    assert f"{c:.4g}, {c:.4g}, {c:.4g}" in zero["answer"]
    assert f"{c:.4g}, {-c:.4g}, {c:.4g}" in pi["answer"]
    rotation = by_heading["A rotation in the plane"]
    assert "60 degrees" in rotation["answer"] and "gap 2" in rotation["answer"]  # 2 × 30°
    norms = by_heading["Rotations keep lengths"]
    assert "After rotation it is 1;" in norms["answer"]  # a rotation keeps the unit length
    assert by_heading["Why v is not rotated"]["question"] == "Why does RoPE rotate q and k but leave v alone?"
    for step in steps:
        assert "{" not in (step["answer"] or "")
        # the shipped steps show their lesson's first plot, but the step on RoPE's added position
        assert step["figure"] == ("plot-with" if step["heading"] == "Adding position changes the answer" else None)
        assert step["notes"]


def test_lookup_paths():
    data = {"a": {"b": [10, [1.5, 2.5]]}, "x": 3}
    assert lookup(data, "a.b.0") == 10 and lookup(data, "a.b.1.1") == 2.5 and lookup(data, "x") == 3
    for bad in ("a.c", "a.b.2", "a.b", "x.0"):
        with pytest.raises(KeyError):
            lookup(data, bad)


def test_a_good_directory_loads(tmp_path):
    loaded = load_dirs([write(tmp_path, GOOD)])
    step = loaded["mine"].steps[0]
    assert step.view == "rotation" and step.answer == "It is 3." and step.narration == ["Some narration."]


def test_figure_and_notes(tmp_path):
    text = """---
title: Mine
---
## One
/calculator?head_dim=64
Figure: plot-margin
First paragraph,
second line.

- a list item
Notes:
Ask the class first.

Then point at the zero line.
Q: What is the scale factor?
A: It is {scale}.

## Two
/rotation?m=2&n=5&theta=0.5
Plain.
Q: What is the offset?
A: It is {offset}.
Notes: After the answer, a note.
"""
    step, two = load_dirs([write(tmp_path, text)])["mine"].steps
    assert step.figure == "plot-margin" and step.view == "calculator"
    assert step.narration == ["First paragraph,\nsecond line.", "- a list item"]
    assert step.notes == ["Ask the class first.", "Then point at the zero line."]
    assert two.figure == "" and two.notes == ["After the answer, a note."] and two.answer == "It is 3."


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("title: x\n## One\n/rotation\n", 1, "front matter"),
        ("---\ntitle: x\n## One\n", 1, "not closed"),
        ("---\ntitle: x\n---\nstray text\n", 4, "before the first step"),
        ("---\ntitle: x\n---\n## One\nrotation?m=2\n", 5, "relative URL"),
        ("---\ntitle: x\n---\n## One\n/nowhere?m=2\n", 5, "unknown page '/nowhere'"),
        ("---\ntitle: x\n---\n## One\n/rotation?colour=red\n", 5, "no parameter 'colour'"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=100000\n", 5, "refuses m"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nQ: why?\nA: {no_such_field}\n", 7, "no single value at {no_such_field}"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nQ: why?\nA: typed, not computed\n", 7, "computed"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nQ: why?\n", 4, "no 'A:'"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nA: {offset}\n", 6, "follows its step's 'Q:'"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nFigure: plot-nowhere\n", 6, "/rotation has no figure 'plot-nowhere' (its figures: plot-planes, plot-norms, plot-shift)"),
        ("---\ntitle: x\n---\n## One\n/sinusoidal\nFigure: plot-margin\n", 6, "its figures: plot)"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nFigure: <b>\n", 6, "id of a plot"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nText.\nFigure: plot-norms\n", 7, "right under its URL"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nNotes:\n\n## Two\n/rotation\n", 6, "'Notes:' block is empty"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nNotes: a\nNotes: b\n", 7, "at most one 'Notes:'"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nQ: why?\nNotes: a\nA: {offset}\n", 7, "before any 'Notes:'"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nFine.\n\nIt costs $5 here.\n", 8, "no '$' closes"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nFine.\nNotes:\nSee\n$\\frac{1}{$ ok\n", 9, "latex2mathml cannot draw"),
        ("---\ntitle: x\n---\n## One\n/rotation?m=2\nQ: is $$ money?\nA: {offset}\n", 6, "holds no math"),
    ],
)
def test_malformed_files_name_file_line_and_reason(tmp_path, text, line, reason):
    directory = write(tmp_path, text)
    with pytest.raises(LectureError) as caught:
        load_dirs([directory])
    assert caught.value.path.endswith("mine.md") and caught.value.line == line
    assert reason in caught.value.reason


def test_a_bad_lecture_stops_the_server_at_start(tmp_path):
    directory = write(tmp_path, "---\ntitle: x\n---\n## One\n/rotation?colour=red\n")
    done = subprocess.run([sys.executable, "-m", "app", "--port", "1", "--lectures", str(directory)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"{directory / 'mine.md'}:5: /rotation has no parameter 'colour'" in done.stderr


def test_narration_is_markdown_with_math_and_html_shown_as_text(tmp_path):
    text = """---
title: Mine
---
## One
/rotation?m=2&n=5&theta=0.5
Some *emphasis*, a [link](/rotation?m=3), `code $x$` and $m\\theta$.

<script>alert(1)</script> and <b>bold?</b> costs \\$5.

- first
- second
Notes:
Ask **why** before showing [bad](javascript:alert(1)).
Q: Is $n - m$ the offset?
A: It is {offset}.
"""
    step = load_dirs([write(tmp_path, text)])["mine"].steps[0]
    first, html_para, items = step.narration_html
    assert "<em>emphasis</em>" in first and '<a href="/rotation?m=3">link</a>' in first
    assert "<code>code $x$</code>" in first  # no math inside code
    # the math: m and θ as MathML identifiers, drawn inline like the lessons' formulas
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in first
    assert "<mi>m</mi>" in first and "<mi>&#x003B8;</mi>" in first
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html_para and "<script" not in html_para and "<b>" not in html_para
    assert "costs $5." in html_para  # an escaped dollar is a dollar
    assert items == "<ul>\n<li>first</li>\n<li>second</li>\n</ul>\n"
    assert "<strong>why</strong>" in step.notes_html[0] and "href=\"javascript" not in step.notes_html[0]
    assert step.question_html.startswith("Is <math") and "<mo>&#x02212;</mo>" in step.question_html
    assert step.answer_html == "It is 3."


def test_every_shipped_step_has_notes():
    from app.lectures import lectures

    for lecture in lectures().values():
        for step in lecture.steps:
            assert step.notes and step.notes_html, f"{lecture.name}: {step.heading} has no Notes:"


def test_lecture_pages(client):
    page = client.get("/lecture/rope", params={"step": 4})
    assert page.status_code == 200
    assert "step 4 of 14" in page.text and "embed=true" in page.text and "presenter=true" in page.text
    assert "<svg" in page.text  # the QR code, drawn here
    assert 'href="/lecture/rope?step=5&amp;presenter=true"' in page.text
    assert 'href="/lecture/rope?step=3&amp;presenter=true"' in page.text
    assert client.get("/lecture/rope", params={"step": 15}).status_code == 422
    assert client.get("/lecture/rope", params={"step": 0}).status_code == 422
    missing = client.get("/lecture/nope")
    assert missing.status_code == 404 and "rope" in missing.text
    listing = client.get("/lectures", params={"presenter": "true"}).text
    assert 'href="/lecture/families?step=1&amp;presenter=true"' in listing


def test_speaker_and_handout_pages(client):
    speaker = client.get("/lecture/rope/speaker", params={"step": 3, "start": 1700000000000})
    assert speaker.status_code == 200 and "step 3 of 14" in speaker.text
    assert "Point at the first and the last bar" in speaker.text  # the notes
    assert "Next: A rotation in the plane" in speaker.text and 'class="speaker-preview"' in speaker.text
    assert 'href="/lecture/rope/speaker?step=4&amp;start=1700000000000"' in speaker.text
    assert 'href="/lecture/rope/handout"' in speaker.text
    assert 'href="/lecture/rope/handout"' in client.get("/lecture/rope", params={"step": 2}).text  # in the overview
    assert client.get("/lecture/rope/speaker", params={"step": 15}).status_code == 422
    assert client.get("/lecture/rope/speaker", params={"step": 1, "start": -5}).status_code == 422
    handout = client.get("/lecture/families/handout")
    assert handout.status_code == 200 and handout.text.count('class="handout-step"') == 12
    assert handout.text.count('<iframe class="handout-view"') == 12
    assert client.get("/lecture/nope/handout").status_code == 404


@pytest.mark.parametrize("path", ["/lecture/rope?step=3", "/lecture/rope/speaker?step=3&start=5", "/lecture/rope/handout", "/lectures"])
def test_lecture_pages_revalidate_like_the_views(client, path):
    first = client.get(path)
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag and first.headers["cache-control"] == "no-cache"
    again = client.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag and again.content == b""
    assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.parametrize(
    ("path", "param", "kind", "allowed"),
    [
        ("/lecture/rope?step=99", "step", "less_than_equal", "an integer ≥ 1 and ≤ 14"),
        ("/lecture/rope?step=0", "step", "greater_than_equal", "an integer ≥ 1 and ≤ 14"),
        ("/lecture/rope?step=abc", "step", "int_parsing", "an integer ≥ 1 and ≤ 14"),
        ("/lecture/rope?step=2.5", "step", "int_parsing", "an integer ≥ 1 and ≤ 14"),
        ("/lecture/families/speaker?step=13", "step", "less_than_equal", "an integer ≥ 1 and ≤ 12"),
        ("/lecture/families/speaker?step=2&start=yesterday", "start", "int_parsing", "an integer ≥ 0 and ≤ 10000000000000"),
    ],
)
def test_a_refused_step_is_a_422_naming_it(client, path, param, kind, allowed):
    answer = client.get(path, headers={"Accept": "application/json"})
    assert answer.status_code == 422 and answer.headers["content-type"].startswith("application/json")
    (item,) = answer.json()["detail"]
    assert item["loc"] == ["query", param] and item["param"] == param and item["type"] == kind
    assert item["allowed"] == allowed and item["msg"]
    # The words of every route's 422 (app/web/query.py): the twins refuse an integer out of range alike.
    twin = client.get("/api/rope/plane", params={"m": {"less_than_equal": 501, "greater_than_equal": -1}.get(kind, "abc")}).json()
    assert twin["detail"][0]["msg"].split(" to ")[0].split(",")[0] == item["msg"].split(" to ")[0].split(",")[0]
    page = client.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 422 and page.headers["content-type"].startswith("text/html")
    assert f"{param}: {item['msg']}" in page.text and allowed in page.text


def test_ways_in(client):
    home = client.get("/").text
    assert '<a href="/lecture/rope?step=1"><strong>RoPE in one lecture</strong><span>14 steps' in home
    assert "/lecture/families?step=1" in home and "/lecture/context?step=1" in home
    rotation = client.get("/rotation").text
    assert '<a href="/lecture/rope?step=4">RoPE in one lecture, step 4 (A rotation in the plane)</a>' in rotation
    assert "lecture-links" not in client.get("/rotation", params={"embed": "true"}).text
    from app.lectures import lectures
    from app.web.views import REGISTRY

    used = {step.view for lecture in lectures().values() for step in lecture.steps}
    for name in REGISTRY:
        text = client.get(f"/{name}").text
        assert ('class="lecture-links"' in text) == (name in used), name


@pytest.mark.parametrize("url", ["http://evil.example/x", "javascript:alert(1)", "/rotation", "http://h/rotation#x", "http://h/api/scores"])
def test_qr_refuses_what_is_not_a_view_url(client, url):
    response = client.get("/lecture-qr.svg", params={"url": url})
    assert response.status_code == 422 and "url" in response.text


def test_qr_of_a_view_url(client):
    response = client.get("/lecture-qr.svg", params={"url": "http://192.168.1.20:8000/rotation?m=2&n=5"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert client.get("/lecture-qr.svg", params={"url": "http://h/rotation?" + "m=2&" * 400}).status_code == 422
