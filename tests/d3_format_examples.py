"""d3-format's documented examples, as data: (specifier, value, text).

Taken from the README of d3-format 3.1 (https://github.com/d3/d3-format, README.md as of the
"restructure README" commit f3cb310, the text https://d3js.org/d3-format carries since): the
opening examples, the ``~`` option, the none type, formatSpecifier, precisionFixed and
precisionRound sections.  The locale example ``($.2f`` is left out (the README prints it in a
British locale, "(£3.50)"); d3-format writes a minus as U+2212 by default, which none of these
examples shows.  Both of the app's readings of d3-format are tested against this table:
app/web/numbers.py (tests/api/test_numbers.py) and static/js/lib/format.js
(tests/browser/test_format.py); neither is tested against the other.
"""

EXAMPLES = [
    # the loop of tenths, with and without ".1f"
    *[(".1f", 0.1 * i, f"0.{i}") for i in range(10)],
    ("04d", 2, "0002"),
    ("04d", 123, "0123"),
    (".0%", 0.123, "12%"),
    ("+20", 42, "                 +42"),
    (".^20", 42, ".........42........."),
    (".2s", 42e6, "42M"),
    ("#x", 48879, "0xbeef"),
    (",.2r", 4223, "4,200"),
    # the ~ option
    ("s", 1500, "1.50000k"),
    ("~s", 1500, "1.5k"),
    # the none type: decimal notation when it has `precision` digits or fewer
    (".2", 42, "42"),
    (".2", 4.2, "4.2"),
    (".1", 42, "4e+1"),
    (".1", 4.2, "4"),
    # formatSpecifier("f") with precisionFixed(0.01)
    (".2f", 42, "42.00"),
    # precisionFixed
    (".1f", 1, "1.0"),
    (".1f", 1.5, "1.5"),
    (".1f", 2, "2.0"),
    (".0f", 1, "1"),
    (".0f", 2, "2"),
    (".0f", 3, "3"),
    (".0%", 0.45, "45%"),
    (".0%", 0.50, "50%"),
    (".0%", 0.55, "55%"),
    # precisionRound
    (".3r", 0.99, "0.990"),
    (".3r", 1.0, "1.00"),
    (".3r", 1.01, "1.01"),
    (".2r", 0.9, "0.90"),
    (".2r", 1.0, "1.0"),
    (".2r", 1.1, "1.1"),
    (".2e", 0.01, "1.00e-2"),
    (".2e", 1.01, "1.01e+0"),
]
