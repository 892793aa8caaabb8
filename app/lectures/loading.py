"""Loading lectures: every file of the shipped and configured folders, checked against the views.

Everything is checked when the lectures are loaded (at server start): a malformed file, an unknown
page, a parameter the view refuses or a path the twin lacks raises :class:`LectureError` naming the
file, the line and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app import settings
from app.lectures.format import FIELD_RE, Lecture, LectureError, Step, lookup, parse, show
from app.lectures.markdown import MarkdownProblem, render, render_inline
from app.settings import TEMPLATES_DIR
from app.web.query import read_query_or_defaults
from app.web.views import REGISTRY, discover

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "lectures"
MAX_FILE_BYTES = 200_000
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
PLOT_ID_RE = re.compile(r'\bid="(plot(?:-[a-z0-9]+)*)"')


@lru_cache(maxsize=64)
def plot_ids(view: str) -> tuple[str, ...]:
    """The ids of the plot elements of a lesson's page, in page order (view.html's own ``plot``
    when the page keeps the default figures block)."""
    source = (TEMPLATES_DIR / "pages" / f"{view}.html").read_text(encoding="utf-8")
    ids = PLOT_ID_RE.findall(source)
    if "block figures" not in source:
        ids.insert(0, "plot")
    return tuple(dict.fromkeys(ids))


def check(steps: list[Step], path: Path | str, text: str) -> None:
    """Resolve each step's view and parameters and fill in its answer, or raise LectureError."""
    lines = text.splitlines()
    for step in steps:
        url_line = next(i + 1 for i in range(step.line, len(lines)) if lines[i].strip() == step.url)
        parts = urlsplit(step.url)
        view = REGISTRY.get(parts.path.strip("/"))
        if view is None or parts.path != "/" + view.name:
            raise LectureError(path, url_line, f"unknown page {parts.path!r} (pages: {', '.join(sorted(REGISTRY))})")
        step.view = view.name
        if step.figure and step.figure not in plot_ids(view.name):
            raise LectureError(path, step.figure_line, f"/{view.name} has no figure {step.figure!r} (its figures: {', '.join(plot_ids(view.name))})")
        items: list[tuple[str, str]] = []
        display: list[tuple[str, str]] = []
        for name, value in parse_qsl(parts.query, keep_blank_values=True):
            if name in view.params.model_fields:
                items.append((name, value))
            elif name in view.display.model_fields and name != "embed":
                display.append((name, value))
            else:
                raise LectureError(path, url_line, f"/{view.name} has no parameter {name!r}")
        params, problems = read_query_or_defaults(view.params, items)
        _, display_problems = read_query_or_defaults(view.display, display)
        for problem in problems + display_problems:
            name = problem["loc"][1] if len(problem["loc"]) > 1 else ""
            raise LectureError(path, url_line, f"/{view.name} refuses {name}: {problem['msg']}")
        if not step.answer_template:
            continue
        answer_line = next((i + 1 for i in range(url_line, len(lines)) if lines[i].strip().startswith("A:")), url_line)
        step.answer = computed_answer(step.answer_template, view.name, view.compute(params), path, answer_line)


def computed_answer(template: str, view: str, data: dict[str, Any], path: Path | str, line: int) -> str:
    """The answer template with each ``{dotted.path}`` replaced by that value of the view's twin
    ``data``, or LectureError at ``line`` for a template that names none or a path the twin lacks."""

    def fill(match: re.Match[str]) -> str:
        try:
            return show(lookup(data, match.group(1)))
        except KeyError:
            raise LectureError(path, line, f"the twin of /{view} has no single value at {{{match.group(1)}}}") from None

    if not FIELD_RE.search(template):
        raise LectureError(path, line, "an answer is computed: it names at least one twin value as {dotted.path}")
    return FIELD_RE.sub(fill, template)


def rendered(to_html: Callable[[str], str], source: str, line: int, path: Path | str) -> str:
    """One paragraph (starting at file line ``line``) as HTML, or LectureError at its faulty line."""
    try:
        return to_html(source)
    except MarkdownProblem as problem:
        at = source.find(problem.snippet) if problem.snippet else -1
        raise LectureError(path, line + (source[:at].count("\n") if at > 0 else 0), str(problem)) from None


def render_steps(steps: list[Step], path: Path | str) -> None:
    """Each step's narration, notes, question and answer as HTML, or LectureError at the paragraph."""
    for step in steps:
        step.narration_html = [
            rendered(render, source, line, path) for source, line in zip(step.narration, step.narration_lines, strict=True)
        ]
        step.notes_html = [rendered(render, source, line, path) for source, line in zip(step.notes, step.notes_lines, strict=True)]
        if step.question:
            step.question_html = rendered(render_inline, step.question, step.question_line, path)
            step.answer_html = rendered(render_inline, step.answer, step.answer_line, path)


def load_file(path: Path) -> Lecture:
    name = path.stem
    if not NAME_RE.match(name):
        raise LectureError(path, 1, "a lecture file's name is lower-case letters, digits and '-', ending .md")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise LectureError(path, 1, f"a lecture file is at most {MAX_FILE_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LectureError(path, 1, f"not UTF-8 text ({exc.reason})") from None
    title, steps = parse(text, path)
    check(steps, path, text)
    render_steps(steps, path)
    return Lecture(name=name, title=title, path=str(path), steps=steps)


def load_dirs(dirs: list[Path]) -> dict[str, Lecture]:
    if not REGISTRY:
        discover()
    lectures: dict[str, Lecture] = {}
    for directory in dirs:
        if not directory.is_dir():
            raise LectureError(directory, 0, "not a directory of lectures")
        for path in sorted(directory.glob("*.md")):
            lecture = load_file(path)
            if lecture.name in lectures:
                raise LectureError(path, 1, f"a lecture named {lecture.name!r} is already loaded from {lectures[lecture.name].path}")
            lectures[lecture.name] = lecture
    return lectures


def configured_dirs() -> list[Path]:
    """The shipped folder, then those of ``--lectures`` (app.settings)."""
    return [SHIPPED_DIR, *settings.current().lecture_dirs]


@lru_cache(maxsize=1)
def lectures() -> dict[str, Lecture]:
    """The shipped lectures and those of ``--lectures`` directories, checked once per process."""
    return load_dirs(configured_dirs())
