"""Routes of the lectures: ``/lectures``, ``/lecture/<name>?step=N``, their JSON twins and the
QR code of a step's view (SVG drawn here, so nothing is fetched from outside)."""

from __future__ import annotations

import functools
import io
from typing import Any
from urllib.parse import urlsplit

import segno
from fastapi import APIRouter, HTTPException, Query
from pydantic import Field, create_model
from starlette.requests import Request
from starlette.responses import Response

from app.lectures import Lecture, lectures
from app.web.answers import Answer, doc
from app.web.caching import cached_response
from app.web.errors import describe_errors, validation_response
from app.web.params import Params
from app.web.query import read_query
from app.web.responses import dumps
from app.web.routing import API_CACHE_CONTROL
from app.web.security import PAGE_HEADERS
from app.web.templating import templates
from app.web.views import REGISTRY, ordered

router = APIRouter()
MAX_QR_URL = 1500


def lectures_using(view: str) -> list[dict]:
    """The lectures with a step on this lesson, each with its first such step (for
    templates/_lecture_links.html on every lesson page)."""
    found = []
    for lecture in lectures().values():
        number = next((i + 1 for i, step in enumerate(lecture.steps) if step.view == view), None)
        if number is not None:
            found.append({"name": lecture.name, "title": lecture.title, "step": number, "heading": lecture.steps[number - 1].heading})
    return found


def lecture_list() -> list[Lecture]:
    """Every loaded lecture, for the home page."""
    return list(lectures().values())


templates.env.globals["lectures_using"] = lectures_using
templates.env.globals["lecture_list"] = lecture_list


def checked_router() -> APIRouter:
    """The router, once every lecture has loaded: a bad lecture file stops the app at start."""
    lectures()
    return router


def _lecture(name: str) -> Lecture:
    found = lectures().get(name)
    if found is None:
        raise HTTPException(404, f"no lecture {name!r}; lectures: {', '.join(sorted(lectures()))}")
    return found


MAX_START_MS = 10**13


@functools.cache
def _query_model(kind: str, steps: int) -> type[Params]:
    """The query of a lecture page with ``steps`` steps: ``kind`` "lecture" (``step``,
    ``presenter``) or "speaker" (``step``, ``start``).  Read like every other query
    (app/web/query.py); names it does not have are ignored, as a page ignores them."""
    step = (int, Field(1, ge=1, le=steps, description="The step shown, from 1."))
    if kind == "lecture":
        return create_model("LectureQuery", __base__=Params, step=step,
                            presenter=(bool, Field(True, description="Larger text for a projector.")))
    start = (int, Field(0, ge=0, le=MAX_START_MS, description="When the lecture started, epoch ms (0: not yet)."))
    return create_model("SpeakerQuery", __base__=Params, step=step, start=start)


def _read(request: Request, model: type[Params]) -> Any:
    """The page's query as ``model``; a refused value is the 422 every route gives, naming it
    (a readable page for a browser, the API's JSON item for the rest)."""
    items = [(name, value) for name, value in request.query_params.multi_items() if name in model.model_fields]
    params, problems = read_query(model, items)
    if params is not None:
        return params
    if "text/html" in request.headers.get("accept", "text/html"):
        (item, *_) = describe_errors(problems, [model])
        raise HTTPException(422, f"{item['param']}: {item['msg']} ({item['allowed']}).")
    return validation_response(problems, [model])


def _page(request: Request, key: tuple, template: str, context: dict) -> Response:
    """A lecture page as every page of the app is served: ETag, 304 when unchanged."""
    def make() -> bytes:
        return bytes(templates.TemplateResponse(request, template, context).body)  # bytes as is (typed bytes | memoryview)

    return cached_response(request, key, make, "text/html", "page", cache_control="no-cache", headers=PAGE_HEADERS)


def _summary(lecture: Lecture) -> dict:
    return {"name": lecture.name, "title": lecture.title, "steps": len(lecture.steps), "questions": lecture.question_count,
            "page": f"/lecture/{lecture.name}", "api": f"/api/lectures/{lecture.name}"}


def _step_json(step) -> dict:
    return {"heading": step.heading, "url": step.url, "view": step.view, "figure": step.figure or None, "narration": step.narration,
            "notes": step.notes,
            "question": step.question or None, "answer": step.answer or None}


class LectureSummary(Answer):
    """One lecture: its title, size and addresses."""

    name: str = doc("The lecture's name, as in its URL.")
    title: str = doc("Its title.")
    steps: int = doc("Number of steps.")
    questions: int = doc("Steps that ask the class a question.")
    page: str = doc("The presenter page.")
    api: str = doc("This lecture's steps as JSON.")


class LecturesAnswer(Answer):
    """Every lecture."""

    lectures: list[LectureSummary] = doc("In the order they are taught.")


class LectureStep(Answer):
    """One step: the view it shows and what to say about it."""

    heading: str = doc("The step's heading.")
    url: str = doc("The lesson view of this step (path and query).")
    view: str = doc("The lesson's name.")
    figure: str | None = doc("The id of the lesson's plot this step shows (null: the lesson's first plot).")
    narration: list[str] = doc("What to say, one Markdown paragraph per item.")
    notes: list[str] = doc("The speaker's notes (shown in the speaker view only), one Markdown paragraph per item.")
    question: str | None = doc("A question for the class (null when the step asks none).")
    answer: str | None = doc("Its answer, computed from the view (null without a question).")


class LectureAnswer(LectureSummary):
    """A lecture with every step."""

    steps: list[LectureStep] = doc("Every step, in order.")  # type: ignore[assignment]  # narrows the summary's step count to the steps themselves


@router.get("/api/lectures", tags=["Lectures"], summary="The lectures", response_model=LecturesAnswer, response_description="Every lecture.")
def api_lectures(request: Request) -> Response:
    def make() -> bytes:
        return dumps({"lectures": [_summary(lecture) for lecture in lectures().values()]})

    return cached_response(request, ("lectures-json",), make, "application/json", "json", cache_control=API_CACHE_CONTROL)


@router.get(
    "/api/lectures/{name}", tags=["Lectures"], summary="A lecture's steps with their computed answers",
    response_model=LectureAnswer, response_description="The lecture's steps.",
    responses={404: {"description": "No lecture of that name (the message lists the lectures there are)."}},
)
def api_lecture(request: Request, name: str) -> Response:
    lecture = _lecture(name)
    def make() -> bytes:
        return dumps({**_summary(lecture), "steps": [_step_json(step) for step in lecture.steps]})

    return cached_response(request, ("lecture-json", name), make, "application/json", "json", cache_control=API_CACHE_CONTROL)


@router.get("/lectures", include_in_schema=False)
def lectures_page(request: Request, presenter: bool = False) -> Response:
    context = {"nav": ordered(), "lectures": list(lectures().values()), "presenter": presenter}
    return _page(request, ("lectures", presenter), "lectures.html", context)


def frame_url(step, presenter: bool) -> str:
    """The step's view as the lecture frames it: a stage (templates/view.html), the fragment naming
    the figure it shows."""
    join = "&" if "?" in step.url else "?"
    return step.url + join + "embed=true" + ("&presenter=true" if presenter else "") + (f"#{step.figure}" if step.figure else "")


@router.get("/lecture/{name}", include_in_schema=False)
def lecture_page(request: Request, name: str) -> Response:
    lecture = _lecture(name)
    query = _read(request, _query_model("lecture", len(lecture.steps)))
    if isinstance(query, Response):
        return query
    index, presenter = query.step - 1, query.presenter
    current = lecture.steps[index]
    frame_url_ = frame_url(current, presenter)
    student_url = str(request.base_url).rstrip("/") + current.url
    context = {
        "nav": ordered(), "lecture": lecture, "step": current, "number": index + 1, "total": len(lecture.steps),
        "frame_url": frame_url_, "student_url": student_url, "qr_svg": qr_svg(student_url),
        "presenter": presenter, "view_title": REGISTRY[current.view].title,
    }
    return _page(request, ("lecture", name, index, presenter, str(request.base_url)), "lecture.html", context)


@router.get("/lecture/{name}/speaker", include_in_schema=False)
def speaker_page(request: Request, name: str) -> Response:
    """The teacher's screen: this step's narration, notes and answer, the next step's title and a
    small live preview of its view, and the time since the lecture started (``start``: epoch
    milliseconds, carried in the URL; the page sets it when it is absent)."""
    lecture = _lecture(name)
    query = _read(request, _query_model("speaker", len(lecture.steps)))
    if isinstance(query, Response):
        return query
    index, start_ms = query.step - 1, query.start or None
    upcoming = lecture.steps[index + 1] if index + 1 < len(lecture.steps) else None
    context = {
        "nav": ordered(), "lecture": lecture, "step": lecture.steps[index], "number": index + 1, "total": len(lecture.steps),
        "next_step": upcoming, "next_frame_url": frame_url(upcoming, True) if upcoming else "", "start": start_ms,
        "presenter": False,
    }
    return _page(request, ("lecture-speaker", name, index, start_ms), "lecture-speaker.html", context)


@router.get("/lecture/{name}/handout", include_in_schema=False)
def handout_page(request: Request, name: str) -> Response:
    """Every step on one printable page: title, narration, the live figure, question and answer."""
    lecture = _lecture(name)
    frames = [frame_url(step, False) for step in lecture.steps]
    context = {"nav": ordered(), "lecture": lecture, "steps": list(zip(lecture.steps, frames, strict=True)), "presenter": False}
    return _page(request, ("lecture-handout", name), "lecture-handout.html", context)


def qr_svg(url: str) -> str:
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=2, xmldecl=False, svgns=True,
                                    title="QR code of this step's view", svgclass="qr")
    return buffer.getvalue().decode("utf-8")


@router.get("/lecture-qr.svg", include_in_schema=False)
def lecture_qr(url: str = Query(..., max_length=MAX_QR_URL)) -> Response:
    """The QR code of an absolute URL of one of this app's lesson views (the teacher's origin)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/") not in REGISTRY or parts.fragment:
        raise HTTPException(422, "url must be an absolute http(s) URL of one of this app's lesson views, like http://host:8000/rotation?m=2")
    return Response(qr_svg(url), media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=3600"})
