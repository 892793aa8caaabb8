"""Narration and notes as Markdown: markdown-it-py (CommonMark, raw HTML off, so HTML in a lecture
file is shown as text) with ``$...$`` inline math drawn as MathML by latex2mathml, the way the
lessons draw their formulas.  A construct that cannot be drawn raises :class:`MarkdownProblem`."""

from __future__ import annotations

from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt


class MarkdownProblem(ValueError):
    """Why a paragraph cannot be rendered; ``snippet`` is the source text at fault, so that the
    loader can name the line it is on."""

    def __init__(self, reason: str, snippet: str = "") -> None:
        super().__init__(reason)
        self.snippet = snippet


def _math_inline(state, silent: bool) -> bool:
    if state.src[state.pos] != "$":
        return False
    end = state.src.find("$", state.pos + 1)
    if end == -1:
        raise MarkdownProblem("a '$' opens inline math that no '$' closes (write \\$ for a dollar sign)", state.src[state.pos:].split("\n")[0])
    latex = state.src[state.pos + 1:end]
    if not latex.strip():
        raise MarkdownProblem("'$$' holds no math (write \\$ for a dollar sign)", "$$")
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = latex
    state.pos = end + 1
    return True


def _render_math(self, tokens, idx, options, env) -> str:
    latex = tokens[idx].content
    try:
        return latex_to_mathml(latex, display="inline")
    except Exception as exc:  # noqa: BLE001 -- latex2mathml raises its own and plain errors alike
        raise MarkdownProblem(f"latex2mathml cannot draw ${latex}$ ({str(exc) or type(exc).__name__})", f"${latex}$") from None


_md = MarkdownIt("commonmark", {"html": False, "linkify": False})
_md.inline.ruler.before("escape", "math_inline", _math_inline)
_md.add_render_rule("math_inline", _render_math)


def render(text: str) -> str:
    """One paragraph (or list) of Markdown source as HTML (block: ``<p>``, ``<ul>``...)."""
    return _md.render(text)


def render_inline(text: str) -> str:
    """One line of Markdown (a question, an answer) as inline HTML, with no ``<p>`` around it."""
    return _md.renderInline(text)
