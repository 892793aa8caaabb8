"""static/js/lib/format.js, imported in a page, against d3-format's documented examples (the table
in tests/d3_format_examples.py, which app/web/numbers.py is tested against too)."""

from tests.d3_format_examples import EXAMPLES

FORMAT_ALL_JS = """async ([url, examples]) => {
  const { format } = await import(url);
  return examples.map(([specifier, value]) => format(specifier)(value));
}"""


def module_url(page, name):
    """The versioned URL the page preloads static/js/lib/<name> from."""
    return page.evaluate(
        "(name) => [...document.querySelectorAll('link[rel=modulepreload]')].map((link) => link.href).find((href) => href.endsWith('/js/lib/' + name))",
        name,
    )


def test_format_writes_d3_formats_documented_examples(page, base_url):
    page.goto(f"{base_url}/clock")
    url = module_url(page, "format.js")
    assert url, "the page does not preload static/js/lib/format.js"
    written = page.evaluate(FORMAT_ALL_JS, [url, [[specifier, value] for specifier, value, _ in EXAMPLES]])
    wrong = [(specifier, value, got, text) for (specifier, value, text), got in zip(EXAMPLES, written, strict=True) if got != text]
    assert wrong == [], wrong


def test_format_writes_a_true_minus_and_no_negative_zero(page, base_url):
    page.goto(f"{base_url}/clock")
    url = module_url(page, "format.js")
    cases = [[".4f", -0.5], [".2f", -0.0001], [",d", -1234567], ["+.1f", 0]]
    assert page.evaluate(FORMAT_ALL_JS, [url, cases]) == ["\u22120.5000", "0.00", "\u22121,234,567", "+0.0"]
