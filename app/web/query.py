"""The one reading of a URL query into a parameter model, for pages, lectures and lecture files.

A query is read the way FastAPI reads ``Annotated[Model, Query()]`` for the JSON twins: a list
field takes every value of its repeated name (``pairs=0&pairs=63``), any other field the last
value given, and the model validates the rest (``Params`` forbids names it does not have).  Errors
are pydantic's, located as FastAPI locates them (``("query", name, …)``), so
``errors.describe_errors`` turns them into the same 422 items everywhere: the twin's answer, a
page's problems beside its controls, a lecture's refused ``step``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.web.params import per_process

M = TypeVar("M", bound=BaseModel)


@per_process
def list_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of ``model`` given by repeating their name."""
    return frozenset(
        name for name, field in model.model_fields.items() if getattr(field.annotation, "__origin__", None) in (list, tuple)
    )


def query_values(model: type[BaseModel], items: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Name → value for ``model``: a list field's values in order, any other name's last value."""
    lists = list_fields(model)
    raw: dict[str, Any] = {}
    for name, value in items:
        if name in lists:
            raw.setdefault(name, []).append(value)
        else:
            raw[name] = value
    return raw


def _located(errors: list[Any]) -> list[dict[str, Any]]:
    return [{**error, "loc": ("query", *error.get("loc", ()))} for error in errors]


def read_query(model: type[M], items: Iterable[tuple[str, str]]) -> tuple[M | None, list[dict[str, Any]]]:
    """The query as ``model``, or ``None`` and the errors (``loc`` starting with ``"query"``)."""
    try:
        return model.model_validate(query_values(model, items)), []
    except ValidationError as exc:
        return None, _located(exc.errors(include_url=False))


def read_query_or_defaults(model: type[M], items: Iterable[tuple[str, str]]) -> tuple[M, list[dict[str, Any]]]:
    """A page's reading: the query as ``model`` with every refused field at its default (so the
    page still draws), and the errors found."""
    raw = query_values(model, items)
    try:
        return model.model_validate(raw), []
    except ValidationError as exc:
        found = _located(exc.errors(include_url=False))
    bad = {str(error["loc"][1]) for error in found if len(error["loc"]) > 1}
    kept = {name: value for name, value in raw.items() if name not in bad}
    try:
        return model.model_validate(kept), found
    except ValidationError:
        return model(), found
