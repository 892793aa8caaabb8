"""Rules between parameters, each written once: a test in the module that owns the quantity and
one sentence, a template whose ``{name}`` places take the values that break it.

The core raises ``ValueError`` (or its subclass ``ScalingError``) with :func:`sentence`; a
parameter model that must show the rule on its page before the server is asked fills the same
template's places with expressions of its own fields (``template.format(name="{expression}")``),
so the API, the page and the core say the same words.  Numbers are written as the page writes
them: a whole float without its decimal point, any other in ``%g``.
"""

from __future__ import annotations

from typing import Any


def number(value: Any) -> str:
    """A number as a rule sentence writes it: 32.0 → "32", 0.5 → "0.5", 1e-300 → "1e-300"."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def sentence(template: str, **values: Any) -> str:
    """The rule's sentence for these values (numbers formatted by :func:`number`)."""
    return template.format(**{name: number(value) for name, value in values.items()})
