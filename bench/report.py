"""One table of results: figure, value, target, pass/miss."""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass
class Row:
    section: str
    figure: str
    value: str
    target: str
    verdict: str  # "pass", "miss", "info", "error"


class Report:
    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.notes: list[str] = []

    def add(self, section: str, figure: str, value: str, target: str = "", ok: bool | None = None, verdict: str | None = None) -> None:
        if verdict is None:
            verdict = "info" if ok is None else ("pass" if ok else "miss")
        self.rows.append(Row(section, figure, value, target, verdict))
        mark = {"pass": "ok  ", "info": "    ", "error": "ERR "}.get(verdict, "MISS")
        print(f"  {mark} {figure}: {value}" + (f"  (target {target})" if target else ""), file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def markdown(self) -> str:
        lines = ["| # | figure | value | target | result |", "|---|---|---|---|---|"]
        for index, row in enumerate(self.rows, 1):
            cells = [str(index), row.figure, row.value, row.target or "—", row.verdict]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        return "\n".join(lines)

    def summary(self) -> str:
        counts = {verdict: sum(row.verdict.split(" ")[0] == verdict for row in self.rows) for verdict in ("pass", "miss", "error")}
        return f"{counts['pass']} targets met, {counts['miss']} missed, {counts['error']} errors"
