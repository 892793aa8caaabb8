"""`make bench`: the explorer's performance figures against the targets of issue 7.

Run with ``python -m bench`` (``--help`` for sections and options).  Results go to stdout as one
table and to ``bench/results/latest.md``.
"""

# The Accept header the pages' fetches send (static/js/lib/api.js); sizes are measured with it.
PAGE_ACCEPT = "application/vnd.pe-explorer.compact+json, application/json;q=0.9"
