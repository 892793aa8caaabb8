"""The lecture file format: steps, their narration, question and answer template.

A lecture file::

    ---
    title: RoPE in one lecture
    ---
    ## The problem: order is invisible
    /why?sentence=dog+bites+man
    Narration, one or more lines (blank lines separate paragraphs).
    Notes:
    What the teacher says or asks here; shown only in the speaker view.
    Q: Will "bites" get the same output in both orders?
    A: Yes: its largest difference is {schemes.none.max_difference}.

Every ``## `` heading starts a step; the first non-blank line under it is the relative URL of a
lesson view; an optional ``Figure: plot-xyz`` line right under it names the plot of that lesson the
step shows (the id of its element; without the line, the lesson's first plot).  The narration
follows (Markdown source, app/lectures/markdown.py: emphasis, links, inline code, lists and ``$...$``
math; raw HTML is shown as text; a paragraph keeps its line breaks, so lists survive).  A ``Notes:`` line
starts the speaker notes, which run to the ``Q:`` line or the next heading (a ``Notes:`` block may
also follow the ``A:`` line).  ``Q:`` and ``A:`` lines give an optional question and its answer,
where ``{a.b.0}`` is a dotted path into the step's JSON twin (dict keys and list indices), filled in
at load time.

This module reads the text alone (:func:`parse`); app/lectures/loading.py checks the steps against the
views and fills in the answers.  A malformed file raises :class:`LectureError` naming the file, the
line and the reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_STEPS = 200
FIELD_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
FIGURE_RE = re.compile(r"^plot(-[a-z0-9]+)*$")


class LectureError(ValueError):
    def __init__(self, path: Path | str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = str(path), line, reason


@dataclass
class Step:
    heading: str
    url: str
    view: str
    narration: list[str] = field(default_factory=list)
    question: str = ""
    answer_template: str = ""
    answer: str = ""
    line: int = 0
    figure: str = ""  # id of the lesson's plot element this step shows; "" = the first
    notes: list[str] = field(default_factory=list)  # speaker notes, one paragraph per item
    figure_line: int = 0
    notes_line: int = 0
    narration_lines: list[int] = field(default_factory=list)  # the file line where each paragraph starts
    notes_lines: list[int] = field(default_factory=list)
    # the same paragraphs as HTML (app/lectures/markdown.py), and the question and answer inline
    narration_html: list[str] = field(default_factory=list)
    notes_html: list[str] = field(default_factory=list)
    question_html: str = ""
    answer_html: str = ""
    question_line: int = 0
    answer_line: int = 0


@dataclass
class Lecture:
    name: str
    title: str
    path: str
    steps: list[Step]

    @property
    def question_count(self) -> int:
        return sum(1 for step in self.steps if step.question)


def lookup(data: Any, path: str) -> Any:
    """Follow a dotted path (``scores.0.1``) through dicts, lists and arrays; KeyError if absent."""
    node = data
    for part in path.split("."):
        if isinstance(node, dict):
            if part not in node:
                raise KeyError(path)
            node = node[part]
            continue
        if hasattr(node, "tolist") and not isinstance(node, (int, float)):
            node = node.tolist()
        if isinstance(node, (list, tuple)) and re.fullmatch(r"-?\d+", part):
            index = int(part)
            if not -len(node) <= index < len(node):
                raise KeyError(path)
            node = node[index]
            continue
        raise KeyError(path)
    if hasattr(node, "item") and getattr(node, "ndim", 1) == 0:
        node = node.item()
    if isinstance(node, (dict, list, tuple)) or hasattr(node, "tolist"):
        raise KeyError(path)  # an answer names one value, not a table
    return node


def show(value: Any) -> str:
    """A twin value as an answer shows it: floats to 4 significant digits, tiny round-off as 0."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, float):
        if math.isfinite(value) and abs(value) < 1e-12:
            return "0"
        if math.isfinite(value) and value == round(value) and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def parse(text: str, path: Path | str) -> tuple[str, list[Step]]:
    """The title and steps of a lecture file (no view checks: see :func:`check`)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise LectureError(path, 1, "a lecture starts with front matter: a line '---', 'title: ...', '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise LectureError(path, 1, "the front matter is not closed by a line '---'") from None
    title = ""
    for i in range(1, end):
        key, sep, value = lines[i].partition(":")
        if not sep or key.strip() != "title":
            raise LectureError(path, i + 1, "the front matter holds one line 'title: ...'")
        title = value.strip()
    if not title:
        raise LectureError(path, 1, "the front matter has no 'title:'")
    steps: list[Step] = []
    step: Step | None = None
    paragraph: list[str] = []
    starts: list[int] = []  # the line of each line of the paragraph
    in_notes = False

    def flush() -> None:
        if step is not None and paragraph:
            (step.notes if in_notes else step.narration).append("\n".join(paragraph))
            (step.notes_lines if in_notes else step.narration_lines).append(starts[0])
        paragraph.clear()
        starts.clear()

    def add(text: str, number: int) -> None:
        paragraph.append(text)
        starts.append(number)

    for number, raw in enumerate(lines[end + 1:], start=end + 2):
        line = raw.strip()
        if line.startswith("## "):
            flush()
            in_notes = False
            step = Step(heading=line[3:].strip(), url="", view="", line=number)
            if not step.heading:
                raise LectureError(path, number, "a step heading '## ' has no text")
            steps.append(step)
            continue
        if step is None:
            if line:
                raise LectureError(path, number, "text before the first step heading '## '")
            continue
        if not step.url:
            if not line:
                continue
            if not line.startswith("/") or line.startswith("//"):
                raise LectureError(path, number, f"the first line of a step is the relative URL of a lesson view, like /rotation?m=2, not {line[:60]!r}")
            step.url = line
            continue
        if line.startswith("Figure:"):
            if step.figure_line or step.narration or paragraph or step.notes or in_notes or step.question:
                raise LectureError(path, number, "a step's 'Figure:' line comes right under its URL, once")
            step.figure = line[7:].strip()
            step.figure_line = number
            if not FIGURE_RE.match(step.figure):
                raise LectureError(path, number, f"'Figure:' names the id of a plot of the lesson, like plot-margin, not {step.figure[:60]!r}")
            continue
        if line.startswith("Notes:"):
            flush()
            if step.notes or in_notes:
                raise LectureError(path, number, "a step has at most one 'Notes:' block")
            if step.question and not step.answer_template:
                raise LectureError(path, number, "after 'Q:' comes its 'A:' line before any 'Notes:'")
            in_notes = True
            step.notes_line = number
            rest = line[6:].strip()
            if rest:
                add(rest, number)
            continue
        if line.startswith("Q:"):
            flush()
            if in_notes and not step.question:
                in_notes = False
            if step.question:
                raise LectureError(path, number, "a step has at most one 'Q:' line")
            step.question = line[2:].strip()
            step.question_line = number
            if not step.question:
                raise LectureError(path, number, "'Q:' has no question")
        elif line.startswith("A:"):
            flush()
            if not step.question or step.answer_template:
                raise LectureError(path, number, "an 'A:' line follows its step's 'Q:' line, once")
            step.answer_template = line[2:].strip()
            step.answer_line = number
            if not step.answer_template:
                raise LectureError(path, number, "'A:' has no answer")
        elif in_notes:
            if line:
                add(line, number)
            else:
                flush()
        elif step.question:
            if line:
                raise LectureError(path, number, "after 'Q:' only its 'A:' line (and a 'Notes:' block) may follow in a step")
        elif line:
            add(line, number)
        else:
            flush()
    flush()
    if not steps:
        raise LectureError(path, end + 2, "a lecture has at least one step ('## ' heading)")
    if len(steps) > MAX_STEPS:
        raise LectureError(path, steps[MAX_STEPS].line, f"a lecture has at most {MAX_STEPS} steps")
    for s in steps:
        if not s.url:
            raise LectureError(path, s.line, "this step has no view URL under its heading")
        if s.question and not s.answer_template:
            raise LectureError(path, s.line, "this step's 'Q:' has no 'A:' line")
        if s.notes_line and not s.notes:
            raise LectureError(path, s.notes_line, "this step's 'Notes:' block is empty")
    return title, steps
