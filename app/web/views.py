"""The view registry: every lesson page is one ``View`` with a JSON twin.

A view is a pure function of its URL query.  ``params`` validates the query for both faces;
``compute`` turns validated parameters into a plain result dict that feeds the page's first
paint (embedded in the HTML) and the ``/api/...`` response alike.  Adding a lesson is adding a
module under ``app/views/`` that calls :func:`register`; routes, navigation, contract tests and
the home page pick it up from the registry.  API operations without a page of their own are
``Route`` entries of the view they belong to (``View.routes``); what a page template needs beyond
the view's data is ``View.template_context``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.web.answers import describe_echoes
from app.web.params import Display, Params

CsvTable = tuple[list[str], list[list[Any]]]


@dataclass(frozen=True)
class Route:
    """An API operation of a view without a page of its own (a POST, an API-only GET)."""

    path: str
    endpoint: Callable[..., Any]
    """A FastAPI endpoint (its parameters say what it reads) returning a ``Response``."""
    answer: type[BaseModel] | None
    """Its 200 JSON answer (app/web/answers.py); None for a body that is not JSON (``media_type``)."""
    summary: str
    description: str
    response_description: str
    methods: tuple[str, ...] = ("GET",)
    models: tuple[type[BaseModel], ...] = ()
    """The models validating its query or body: a 422 names their fields and what they allow."""
    name: str = ""
    media_type: str = "application/json"
    errors: tuple[tuple[int, str, type[BaseModel]], ...] = ()
    """Answers besides 200 and 422 it declares: (status, description, body model)."""


def route(path: str, *, answer: type[BaseModel], summary: str, description: str, response_description: str,
          methods: tuple[str, ...] = ("GET",), models: tuple[type[BaseModel], ...] = (),
          errors: tuple[tuple[int, str, type[BaseModel]], ...] = ()) -> Callable[[Callable[..., Any]], Route]:
    """Decorate an endpoint into a :class:`Route` for ``View.routes``."""

    def make(endpoint: Callable[..., Any]) -> Route:
        return Route(path, endpoint, answer, summary, description, response_description, methods, models, endpoint.__name__,
                     errors=errors)

    return make


@dataclass(frozen=True)
class View:
    name: str
    """URL slug: the page is ``/{name}``, its template ``pages/{name}.html``, its script
    ``static/js/pages/{name}.js``."""
    title: str
    summary: str
    """One sentence for the navigation and the home page."""
    section: str
    """Group in the teaching order, e.g. "Foundations", "Rotary", "Other families"."""
    order: float
    """Position in the teaching order (lower first)."""
    api_path: str
    params: type[Params]
    compute: Callable[[Any], dict[str, Any]]
    answer: type[BaseModel] | None = None
    """The JSON answer of ``compute`` as a model (app/web/answers.py): documentation and tests only."""
    display: type[Display] = Display
    formulas: tuple[str, ...] = ()
    """LaTeX of the formulas the page draws, rendered as MathML beside the plot."""
    csv: Callable[[dict[str, Any]], CsvTable] | None = None
    """The plotted data as a table (header, rows) for the CSV export."""
    api_description: str = ""
    examples: tuple[str, ...] = field(default_factory=tuple)
    """Example query strings for the API docs, e.g. ``"head_dim=128&base=500000"``."""
    short_title: str = ""
    """A few words for the site header (the title when empty)."""
    pending: Callable[[Any], bool] | None = None
    """True when ``compute`` would take seconds for these parameters (a model's pass not made yet):
    the page then embeds no data and its script fetches the twin, showing progress meanwhile."""
    routes: tuple[Route, ...] = ()
    errors: tuple[tuple[int, str, type[BaseModel]], ...] = ()
    """Answers of the JSON twin besides 200 and 422: (status, description, body model), e.g. a 503."""
    """API operations of this lesson beyond its twin and CSV."""
    template_context: Mapping[str, Any] = field(default_factory=dict)
    """Extra names for the page template (e.g. a function drawing preset links)."""

    @property
    def nav_title(self) -> str:
        return self.short_title or self.title


REGISTRY: dict[str, View] = {}


def register(view: View) -> View:
    if view.name in REGISTRY:
        raise ValueError(f"view {view.name!r} is registered twice")
    overlap = set(view.params.model_fields) & set(view.display.model_fields)
    if overlap:
        raise ValueError(f"view {view.name!r}: fields {sorted(overlap)} are both computed and display-only")
    if view.answer is None:
        raise ValueError(f"view {view.name!r} declares no answer model")
    describe_echoes(view.answer, view.params)
    for route in view.routes:
        if route.answer is not None:
            describe_echoes(route.answer, *route.models)
    REGISTRY[view.name] = view
    return view


def discover() -> list[View]:
    """Import every module in ``app.views`` (each registers its views); teaching order."""
    import app.views as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return ordered()


def ordered() -> list[View]:
    return sorted(REGISTRY.values(), key=lambda view: (view.order, view.name))


def by_section(views: list[View]) -> list[tuple[str, list[View]]]:
    """Group views by section, keeping the teaching order of sections and of views."""
    groups: dict[str, list[View]] = {}
    for view in views:
        groups.setdefault(view.section, []).append(view)
    return list(groups.items())
