"""app/web/numbers.py against d3-format's documented examples (tests/d3_format_examples.py), and
the rounding rules of JavaScript's Number methods it reads (ECMA-262: a tie goes to the larger n)."""

import pytest

from app.web.numbers import MINUS, d3_format, to_exponential, to_fixed, to_precision
from tests.d3_format_examples import EXAMPLES


@pytest.mark.parametrize(("specifier", "value", "text"), EXAMPLES)
def test_d3_formats_documented_examples(specifier, value, text):
    assert d3_format(value, specifier) == text


@pytest.mark.parametrize(
    ("call", "text"),
    [
        # ties on exactly representable halves go up, as ECMA-262 says (Python's format rounds to even)
        (lambda: to_fixed(2.5, 0), "3"),
        (lambda: to_fixed(0.125, 2), "0.13"),
        (lambda: to_exponential(25.0, 0), "3e+1"),
        (lambda: to_precision(0.000001234, 2), "0.0000012"),
        (lambda: to_precision(0.0000001234, 2), "1.2e-7"),
        (lambda: to_precision(123456.0, 2), "1.2e+5"),
        (lambda: to_precision(8.0, 6), "8.00000"),
        # 1.005 is stored as 1.00499999999999989...: no tie, so it rounds down in JavaScript too
        (lambda: to_fixed(1.005, 2), "1.00"),
    ],
)
def test_javascripts_number_methods(call, text):
    assert call() == text


def test_the_minus_sign_and_negative_zero():
    assert d3_format(-0.5, ".4f") == f"{MINUS}0.5000"
    assert d3_format(-0.0001, ".2f") == "0.00"  # d3-format drops the sign of a value that rounds to zero
    assert d3_format(-1234567, ",d") == f"{MINUS}1,234,567"


def test_a_refused_specifier_says_so():
    with pytest.raises(ValueError, match="invalid format"):
        d3_format(1, ".2q!")
