"""Cost of every API operation (and every page) at the largest sizes its parameters allow.

The budget for one request is ~50 ms of CPU and ~50 MB of memory.  This module finds, for every
registered view (``app.web.views.discover()``) and every POST operation of the OpenAPI document,
parameter sets at the largest allowed sizes, read from the parameter model's JSON schema:
starting from the defaults, each bounded number and each bounded list is pushed, in field order,
to the largest value the model still accepts (binary search on validity, so cross-field rules
such as ``seq_len × dim ≤ 262144`` hold); every other value of every choice field (enum, boolean)
starts a variant of its own.  Other GET operations that have a parameter model registered in
``app.web.routing.validating_models`` are covered the same way, and so is each view's CSV twin.

``python -m bench.limits`` prints one row per operation: the costliest variant's wall time and
CPU time (medians over cold runs, every cache in ``app`` cleared before each), its peak traced
memory (tracemalloc, numpy included), and the response size; rows over budget are marked.
``tests/api/test_limits.py`` uses the same cases and asserts only what is deterministic.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import re
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ValidationError

from app.web.params import UI
from bench.asgi import clear_caches

CPU_BUDGET_MS = 50.0
MEMORY_BUDGET_MB = 50.0
MAX_VARIANTS = 48  # choice fields beyond this many combinations are varied one at a time


@dataclass
class Case:
    """One request at the largest sizes: ``GET path?query`` or ``POST path`` with a JSON body."""

    label: str  # operation, e.g. "GET /api/rope/scores"
    method: str
    path: str
    values: dict[str, Any]
    page: bool = False  # the HTML page rather than the API twin
    raw_query: str | None = None  # sent as it is (invalid requests), instead of ``values``
    raw_body: bytes | None = None

    @property
    def url(self) -> str:
        if self.method == "POST":
            return self.path
        query = query_string(self.values) if self.raw_query is None else self.raw_query
        return self.path + ("?" + query if query else "")

    @property
    def headers(self) -> dict[str, str]:
        """What a browser (page) or a script (twin) sends; no compression, so the size is the body's."""
        return {"accept": "text/html" if self.page else "application/json", "accept-encoding": "identity"}

    @property
    def body(self) -> bytes | None:
        if self.raw_body is not None:
            return self.raw_body
        return json.dumps(self.values).encode() if self.method == "POST" else None

    def describe(self, limit: int = 70) -> str:
        if self.raw_query is not None or self.raw_body is not None:
            return str(self.values.get("what", "invalid"))
        parts = [f"{k}=[{len(v)}]" if isinstance(v, (list, tuple)) else f"{k}={v}" for k, v in self.values.items()]
        text = ", ".join(parts) or "defaults"
        return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Measurement:
    case: Case
    status: int
    size: int
    wall_ms: float
    cpu_ms: float
    peak_mb: float
    variants: list[Case] = field(default_factory=list)


# ---- the largest values a model accepts ---------------------------------------------------------


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an ``X | None`` schema."""
    for option in prop.get("anyOf", ()):
        if option.get("type") != "null":
            return {**option, **{k: v for k, v in prop.items() if k != "anyOf"}}
    return prop


def _properties(model: type[BaseModel]) -> dict[str, dict[str, Any]]:
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    out = {}
    for name, prop in schema.get("properties", {}).items():
        if "$ref" in prop:
            prop = definitions.get(prop["$ref"].rsplit("/", 1)[-1], prop)
        out[name] = _plain(prop)
    return out


def _valid(model: type[BaseModel], values: dict[str, Any]) -> bool:
    try:
        model.model_validate(values)
        return True
    except ValidationError:
        return False


def _own_errors_only(model: type[BaseModel], values: dict[str, Any], name: str) -> bool:
    """True if ``name`` itself is acceptable (rules naming a later field are fixed later)."""
    try:
        model.model_validate(values)
        return True
    except ValidationError as exc:
        return not any(error.get("loc") and error["loc"][0] == name for error in exc.errors())


def _upper(prop: dict[str, Any]) -> float | None:
    if "maximum" in prop:
        return prop["maximum"]
    if "exclusiveMaximum" in prop:
        high = prop["exclusiveMaximum"]
        return high - 1 if prop.get("type") == "integer" else math.nextafter(high, -math.inf)
    return None


def _lower(prop: dict[str, Any]) -> float:
    if "minimum" in prop:
        return prop["minimum"]
    if "exclusiveMinimum" in prop:
        low = prop["exclusiveMinimum"]
        return low + 1 if prop.get("type") == "integer" else math.nextafter(low, math.inf)
    return 0


def _largest(model, values, name, low, high, make) -> Any | None:
    """Largest x in [low, high] (as ``make(x)``) with ``name`` acceptable, by bisection."""

    def ok(x):
        return _own_errors_only(model, {**values, name: make(x)}, name)

    if ok(high):
        return make(high)
    if not ok(low):
        return None
    for _ in range(64):
        middle = (low + high) / 2
        if make(middle) in (make(low), make(high)):
            break
        if ok(middle):
            low = middle
        else:
            high = middle
    return make(low)


def _on_grid(step: float | None, integer: bool) -> Callable[[float], float]:
    """A value rounded down to the field's multipleOf (``make`` for :func:`_largest`); an int for an integer field."""
    if integer:
        whole = step or 1
        return lambda x: int(math.floor(x / whole) * whole)
    if step:
        return lambda x: float(math.floor(x / step) * step)
    return float


def maximise(model: type[BaseModel], start: dict[str, Any]) -> dict[str, Any] | None:
    """Each bounded field of ``model``, in order, pushed to its largest acceptable value."""
    values = dict(start)
    for name, prop in _properties(model).items():
        # get_default: a default that follows other fields (default_factory reading them) is made from the values so far.
        field = model.model_fields.get(name)
        default = field.get_default(call_default_factory=True, validated_data=values) if field is not None else None
        current = values.get(name, default)
        kind = prop.get("type")
        if kind in ("integer", "number") and "enum" not in prop:
            high = _upper(prop)
            if high is None:
                continue
            make = _on_grid(prop.get("multipleOf"), kind == "integer")
            low = current if isinstance(current, (int, float)) and not isinstance(current, bool) else _lower(prop)
            best = _largest(model, values, name, low, high, make)
            if best is None:
                best = _largest(model, values, name, _lower(prop), high, make)
            if best is not None:
                values[name] = best
        elif kind == "array" and "maxItems" in prop:
            items = _plain(prop.get("items", {}))
            filler = _filler(items, current)
            best = _largest(model, values, name, len(current or ()) or prop.get("minItems", 1), prop["maxItems"],
                            lambda n, filler=filler: filler(int(n)))
            if best is not None:
                values[name] = best
    return values if _valid(model, values) else _repair(model, start, values)


def _filler(items: dict[str, Any], current) -> Any:
    """Make a list of n elements: distinct integers counting up from the minimum (indices, positions),
    or the current first element repeated."""
    if items.get("type") == "integer":
        low = int(_lower(items))
        high = _upper(items)
        return lambda n: [min(low + i, int(high)) if high is not None else low + i for i in range(n)]
    first = next(iter(current)) if current else (1.0 if items.get("type") == "number" else items.get("enum", ["a"])[0])
    return lambda n: [first] * n


def _repair(model, start, values) -> dict[str, Any] | None:
    """Undo the latest changes until the model validates (a later field could not follow)."""
    values = dict(values)
    changed = [name for name in model.model_fields if values.get(name) != start.get(name)]
    while changed and not _valid(model, values):
        name = changed.pop()
        if name in start:
            values[name] = start[name]
        else:
            values.pop(name, None)
    return values if _valid(model, values) else None


def choice_starts(model: type[BaseModel], default: dict[str, Any], max_variants: int = MAX_VARIANTS) -> list[dict[str, Any]]:
    """Starting points: every combination of the choice fields (enums, booleans) when there are
    at most ``max_variants``, else the defaults and each choice changed alone."""
    choices = {}
    for name, prop in _properties(model).items():
        field = model.model_fields.get(name)
        ui = next((item for item in field.metadata if isinstance(item, UI)), None) if field is not None else None
        if ui is not None and ui.options is not None:
            # The choices this server offers (a text of your own needs the model: 503 without it, by design).
            choices[name] = list(ui.options)
        elif "enum" in prop:
            choices[name] = list(prop["enum"])
        elif prop.get("type") == "boolean":
            choices[name] = [False, True]
    combos = [dict(default)]
    if math.prod(len(c) for c in choices.values()) <= max_variants:
        for name, options in choices.items():
            combos = [{**combo, name: option} for combo in combos for option in options]
    else:
        for name, options in choices.items():
            combos += [{**default, name: option} for option in options]
    unique = []
    for combo in combos:
        if combo not in unique:
            unique.append(combo)
    return unique


def largest_cases(model: type[BaseModel], default: dict[str, Any], max_variants: int = MAX_VARIANTS) -> list[dict[str, Any]]:
    out = []
    for start in choice_starts(model, default, max_variants):
        if not _valid(model, start):
            start = {k: v for k, v in start.items() if k in default or _valid(model, {**default, k: v})}
        values = maximise(model, start)
        if values is not None and values not in out:
            out.append(values)
    return out


# ---- every operation -----------------------------------------------------------------------------


def query_string(values: dict[str, Any]) -> str:
    items: list[tuple[str, Any]] = []
    for name, value in values.items():
        if value is None:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            items.append((name, "true" if item is True else "false" if item is False else item))
    return urlencode(items)


def example_body(operation: dict[str, Any]) -> dict[str, Any] | None:
    """A POST body from the OpenAPI document: a declared example, or "Example body: `{...}`"."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    if "example" in content:
        return content["example"]
    for example in content.get("examples", {}).values():
        if "value" in example:
            return example["value"]
    match = re.search(r"Example body: `(\{.*?\})`", operation.get("description", ""), re.S)
    return json.loads(match.group(1)) if match else None


def body_model(operation: dict[str, Any], path: str, models: dict[str, list[type[BaseModel]]]) -> type[BaseModel] | None:
    """The pydantic model of a JSON body: the registered model named by the body's schema ``$ref``."""
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    name = schema.get("$ref", "").rsplit("/", 1)[-1]
    return next((model for model in models.get(path, []) if model.__name__ == name), None)


def all_cases(app, max_variants: int = MAX_VARIANTS) -> dict[str, list[Case]]:
    """Operation label → its cases at the largest sizes (one per variant).  Pages are labelled
    ``PAGE /name``.  ``max_variants=1`` varies each choice field alone (fewer cases)."""
    from app.web.routing import validating_models
    from app.web.views import discover

    validating = validating_models(app)
    cases: dict[str, list[Case]] = {}
    twins = {}
    for view in discover():
        twins[view.api_path] = view
        maxima = largest_cases(view.params, {}, max_variants)
        cases[f"GET {view.api_path}"] = [Case(f"GET {view.api_path}", "GET", view.api_path, v) for v in maxima]
        cases[f"PAGE /{view.name}"] = [Case(f"PAGE /{view.name}", "GET", f"/{view.name}", v, page=True) for v in maxima]
        if view.csv is not None:
            csv = f"GET {view.api_path}.csv"
            cases[csv] = [Case(csv, "GET", view.api_path + ".csv", v) for v in maxima]
    spec = app.openapi()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            label = f"{method.upper()} {path}"
            if label in cases or not path.startswith("/api/"):
                continue
            if method == "post":
                example = example_body(operation) or {}
                model = body_model(operation, path, validating)
                maxima = largest_cases(model, example, max_variants) if model is not None else [example]
                cases[label] = [Case(label, "POST", path, v) for v in maxima]
            elif method == "get" and path not in twins and not path.endswith(".csv"):
                models = validating.get(path) or []
                if models:
                    cases[label] = [Case(label, "GET", path, v) for v in largest_cases(models[0], {}, max_variants)]
    return cases


# ---- invalid requests at every size allowed ------------------------------------------------------


def invalid_cases(app) -> dict[str, list[Case]]:
    """Requests that must be refused, as large as the server lets them be: as many unknown
    parameters as a query may hold (MAX_QUERY_ITEMS), every list field with as many bad values,
    every numeric field a number of 60,000 digits (a request line stays under 64 KiB), and for each
    POST a body of MAX_BODY_BYTES of numbers too large for a float.  Labelled ``INVALID ...``."""
    from app.settings import MAX_BODY_BYTES, MAX_QUERY_ITEMS
    from app.web.routing import validating_models

    validating = validating_models(app)
    cases: dict[str, list[Case]] = {}
    spec = app.openapi()
    for path, methods in spec["paths"].items():
        if "get" in methods and path.startswith("/api/") and validating.get(path):
            model = validating[path][0]
            label = f"INVALID GET {path}"
            found = [Case(label, "GET", path, {"what": f"{MAX_QUERY_ITEMS} unknown parameters"},
                          raw_query="&".join(f"no_such_{i}=1" for i in range(MAX_QUERY_ITEMS)))]
            for name, prop in _properties(model).items():
                if prop.get("type") == "array":
                    found.append(Case(label, "GET", path, {"what": f"{name}: {MAX_QUERY_ITEMS} bad values"},
                                      raw_query="&".join(f"{name}=x{i}" for i in range(MAX_QUERY_ITEMS))))
                elif prop.get("type") in ("integer", "number"):
                    found.append(Case(label, "GET", path, {"what": f"{name}: a number of 60,000 digits"}, raw_query=f"{name}=" + "9" * 60_000))
            cases[label] = found
        if "post" in methods:
            label = f"INVALID POST {path}"
            numbers = b"[" + b",".join([b"9" * 400] * (MAX_BODY_BYTES // 402)) + b"]"
            cases[label] = [
                Case(label, "POST", path, {"what": "a body of integers of 400 digits"}, raw_body=b'{"q": ' + numbers + b"}"),
                Case(label, "POST", path, {"what": "a body of 2-level lists"}, raw_body=b'{"q": [' + b"[1]," * (MAX_BODY_BYTES // 5) + b"[1]]}"),
            ]
    return cases


# ---- measuring -----------------------------------------------------------------------------------


def send(client, case: Case):
    headers = case.headers
    if case.method == "POST":
        return client.post(case.url, content=case.body, headers={**headers, "content-type": "application/json"})
    return client.get(case.url, headers=headers)


def asgi_request(caller, loop, case: Case):
    """A function sending ``case`` straight into the ASGI app (``bench.asgi.Caller``): no socket and
    no HTTP client, so CPU time is the server's alone.  The URL is built before the clock starts."""
    url, body, headers = case.url, case.body or b"", case.headers

    def run():
        return loop.run_until_complete(caller.request(case.method, url, body, headers))

    return run


def measure(caller, loop, case: Case, repeats: int = 5) -> Measurement:
    """Cold medians of wall and CPU time (untraced runs), then one traced run for peak memory.
    CPU time is the process's (``time.process_time``), so work in the threadpool counts too."""
    request = asgi_request(caller, loop, case)
    walls, cpus = [], []
    status = size = 0
    for _ in range(repeats):
        clear_caches()
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        reply = request()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        status, size = reply.status, len(reply.body)
    clear_caches()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        request()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return Measurement(case, status, size, 1e3 * statistics.median(walls), 1e3 * statistics.median(cpus), peak / 2**20)


def worst(caller, loop, cases: list[Case], repeats: int) -> Measurement:
    """The costliest variant: each timed once, the slowest measured fully."""
    if len(cases) == 1:
        return measure(caller, loop, cases[0], repeats)
    costs = [(measure(caller, loop, case, 1).cpu_ms, index) for index, case in enumerate(cases)]
    slowest = cases[max(costs)[1]]
    result = measure(caller, loop, slowest, repeats)
    result.variants = cases
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="cold runs per operation (median)")
    parser.add_argument("--only", default="", help="substring of the operation labels to run")
    parser.add_argument("--no-pages", action="store_true", help="skip the HTML pages")
    parser.add_argument("--no-invalid", action="store_true", help="skip the invalid requests")
    args = parser.parse_args(argv)

    from app.main import create_app
    from bench.asgi import Caller

    app = create_app()
    caller, loop = Caller(app), asyncio.new_event_loop()
    rows = []
    try:
        everything = all_cases(app)
        if not args.no_invalid:
            everything.update(invalid_cases(app))
        for label, cases in everything.items():
            if args.only not in label or (args.no_pages and label.startswith("PAGE")) or not cases:
                continue
            rows.append(worst(caller, loop, cases, args.repeats))
    finally:
        loop.close()
    width = max(len(row.case.label) for row in rows)
    print(f"Largest allowed sizes, cold (caches cleared), median of {args.repeats}; budget {CPU_BUDGET_MS:g} ms CPU, "
          f"{MEMORY_BUDGET_MB:g} MB.  Load average: {' '.join(f'{x:.2f}' for x in __import__('os').getloadavg())}")
    print(f"{'operation':<{width}}  {'status':>6}  {'wall ms':>8}  {'CPU ms':>8}  {'peak MB':>8}  {'bytes':>9}  variants  parameters")
    over = []
    for row in rows:
        flag = ""
        if row.cpu_ms > CPU_BUDGET_MS or row.peak_mb > MEMORY_BUDGET_MB:
            flag = "  OVER BUDGET"
            over.append(row)
        print(
            f"{row.case.label:<{width}}  {row.status:>6}  {row.wall_ms:>8.1f}  {row.cpu_ms:>8.1f}  {row.peak_mb:>8.1f}  "
            f"{row.size:>9}  {max(len(row.variants), 1):>8}  {row.case.describe()}{flag}"
        )
    print(f"{len(over)} of {len(rows)} operations over budget" + (": " + ", ".join(r.case.label for r in over) if over else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
