"""Context-extension numbers from head dim, base, training length and target length.

The recipes' formulas live in :mod:`app.core.scaling` (one function per formula: NTK-aware and
dynamic-NTK bases, YaRN's and LongRoPE's attention factors, Llama 3.1's bands); this module adds
the Men et al. criterion.

Men et al. 2024, "Base of RoPE Bounds Context Length" (arXiv 2405.14591): with q, k random and a
similar key k* = q + ε, E[qᵀR_m k*] − E[qᵀR_m k] ∝ B_m = Σ_{j=0}^{d/2−1} cos(m·θ_j), θ_j = b^(−2j/d).
The model can tell a similar token from a random one at distance m only while B_m ≥ 0, so a
context of T tokens needs B_m ≥ 0 for every 0 ≤ m < T.

Definitions used here (computed by direct evaluation at every m; nothing is sampled or fitted):

* **passes(b, T)**: B_m(b) ≥ 0 for every integer 0 ≤ m < T, with B_m evaluated in float64 as
  ``np.cos(m * θ).sum()`` and θ = :func:`app.core.frequencies.inverse_frequencies` (d, b).
* **first failing m**: the smallest m < T with B_m(b) < 0.
* **smallest base**: the smallest b on the grid of four significant digits, b ∈ {k·10^e : k =
  1000 … 9999, e integer}, b ≥ 1 (1.000, 1.001, …, 9.999, 10.00, 10.01, …), that passes.
  Bases that pass do not form an interval (d = 128, T = 4096: 26 960 passes, 26 980 and 27 000
  fail, 28 630 passes again), so a base above the smallest one may fail: every other base has
  to be checked itself (:func:`base_verdict`).  The grid ends below 10^15.

Search (:func:`smallest_base_records`): grid values in increasing order; with R the largest first
failing m seen so far, a base whose first failing m exceeds R is a *record*.  The smallest base
for T is the first record whose first failing m is ≥ T (or which passes everything searched), so
the list of records answers every T up to the length it was computed for.  Most bases are shown
to fail (first failing m ≤ R) at a "witness" distance: the first failing m of a recent base,
evaluated exactly as the definition says; the others are scanned from m = 0.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from app.core import men_table
from app.core.base_grid import GRID_SIZE, grid_value, grid_values

# the grid's index and step are part of this module's answer vocabulary (app/views/calculator.py)
from app.core.base_grid import grid_index_at_least as grid_index_at_least
from app.core.base_grid import grid_step as grid_step
from app.core.decimate import column_envelope
from app.core.frequencies import inverse_frequencies

# ---- B_m, exactly -----------------------------------------------------------------------------


def margin_at(inv_freq: np.ndarray, m: int) -> float:
    """The definition: B_m = Σ_j cos(m·θ_j), in float64 (one rounding of m·θ_j, then cos)."""
    return float(np.cos(float(m) * inv_freq).sum())


def similarity_margin(base: float, head_dim: int, positions: np.ndarray) -> np.ndarray:
    """B_m for each m of ``positions`` by the definition.  Shape of positions."""
    theta = inverse_frequencies(head_dim, base)
    return np.cos(np.multiply.outer(np.asarray(positions, dtype=np.float64), theta)).sum(axis=-1)


class MarginScan:
    """B_m of one base over long ranges of m, fast, with the definition's pass/fail decisions.

    A block of n consecutive distances m = a + k (a = m0 + W·row, 0 ≤ k < W, W ≈ √n) is
    cos(aθ)cos(kθ) − sin(aθ)sin(kθ) summed over pairs: one ``(rows, d) @ (d, W)`` matrix product.
    This value and the definition's each differ from the exact sum by at most 2^-52·m·Σθ
    (rounding of the arguments) plus P·1e-14 (trig, products, sums of P terms of size ≤ 1);
    δ(m) = 2^-49·m·Σθ + P·1e-13 + P²·2^-50 is more than twice that, so a block value below −δ
    is negative by the definition too, one above δ is not, and a value within δ of 0 is
    decided by :func:`margin_at`.  ``work`` counts the (distance, pair) terms evaluated.
    """

    def __init__(self, inv_freq: np.ndarray) -> None:
        self.theta = np.asarray(inv_freq, dtype=np.float64)
        pairs = len(self.theta)
        self.spread = 2.0**-49 * float(self.theta.sum())
        self.floor = pairs * 1e-13 + pairs * pairs * 2.0**-50
        self._tables: dict[int, np.ndarray] = {}
        self.work = 0

    def _table(self, width: int) -> np.ndarray:
        table = self._tables.get(width)
        if table is None:
            angle = np.multiply.outer(self.theta, np.arange(width, dtype=np.float64))
            table = self._tables[width] = np.concatenate([np.cos(angle), np.sin(angle)])
        return table

    def block(self, m0: int, n: int) -> np.ndarray:
        """B_m for m = m0 … m0+n−1 (block evaluation, within δ of the definition).  ``(n,)``."""
        width = 1 << max(4, math.isqrt(max(n - 1, 1)).bit_length())
        rows = -(-n // width)
        angle = np.multiply.outer(m0 + width * np.arange(rows, dtype=np.float64), self.theta)
        left = np.concatenate([np.cos(angle), -np.sin(angle)], axis=1)
        self.work += rows * width * len(self.theta)
        return (left @ self._table(width)).ravel()[:n]

    def delta(self, m_end: int) -> float:
        return self.spread * m_end + self.floor

    def negatives(self, m0: int, values: np.ndarray) -> int | None:
        """First m (absolute) where the block ``values`` starting at m0 is negative by the definition."""
        delta = self.delta(m0 + len(values))
        for pos in np.flatnonzero(values < delta):
            if values[pos] < -delta or margin_at(self.theta, m0 + int(pos)) < 0:
                return m0 + int(pos)
        return None

    def first_negative(self, start: int, stop: int, first_block: int = 256) -> int | None:
        """Smallest m in [start, stop) with B_m < 0 by the definition, or None.  Blocks grow from
        ``first_block`` (×4 each, up to 65 536) so an early failure costs little."""
        m0, n = start, first_block
        while m0 < stop:
            n = min(n, stop - m0)
            found = self.negatives(m0, self.block(m0, n))
            if found is not None:
                return found
            m0 += n
            n = min(4 * n, 1 << 16)
        return None


class SearchTooCostly(Exception):
    """The search needs more work than it was allowed.  ``found``: the records it had found by then
    (in grid order: they answer every length up to their largest first failing m), or None."""

    def __init__(self, message: str, found: Records | None = None) -> None:
        super().__init__(message)
        self.found = found


# ---- the smallest base -------------------------------------------------------------------------


@dataclass(frozen=True)
class Records:
    """Records of the search for one head dim, complete for lengths up to ``limit``.

    ``index[i]``: grid index of record i; ``reach[i]``: its first failing m (−1 for the last record
    when it passes every m < limit); ``previous_fails_at[i]``: first failing m of the grid value
    just below record i (−1 for index 0).  ``exhausted``: the grid ended before a base passed
    ``limit`` (then lengths above the last reach have no smallest base below 10^15).
    """

    head_dim: int
    limit: int
    index: np.ndarray
    reach: np.ndarray
    previous_fails_at: np.ndarray
    exhausted: bool

    def lookup(self, length: int) -> int | None:
        """Row of the record that is the smallest base for ``length`` (≤ limit), or None."""
        if length > self.limit:
            raise ValueError(f"records reach only {self.limit}")
        reach = np.where(self.reach < 0, self.limit, self.reach)
        row = int(np.searchsorted(reach, length, side="left"))
        return row if row < len(reach) else None


BATCH = 256
WITNESSES = 16
# A cos or pow of one (base, pair) costs about as much as this many multiply-adds of a scan, and
# the Python work around one batch about as much as BATCH_OVERHEAD of them (measured here).
TRIG_WEIGHT = 8
BATCH_OVERHEAD = 1 << 16


def smallest_base_records(head_dim: int, limit: int, budget: int | None = None) -> Records:
    """All records of the grid search for head dim d, up to the first base passing every m < limit.

    Bases are taken 256 at a time in grid order.  Each is first evaluated (by the definition) at
    the witnesses, the first failing distances of the last 16 bases scanned; a negative value at a
    witness m ≤ R proves it is no record.  The others are scanned from m = 0 (:class:`MarginScan`)
    to their first failing m, which then becomes a witness.  ``budget``: largest number of
    (distance, pair) terms to evaluate, else :class:`SearchTooCostly`.
    """
    pairs = head_dim // 2
    batch = max(16, min(BATCH, (1 << 19) // max(pairs * WITNESSES, 1)))
    best = 0  # R: the largest first failing m so far
    rows: list[tuple[int, int, int]] = []  # (index, reach, previous index)
    witnesses: list[int] = []
    work = 0
    previous_scanned: dict[int, int] = {}
    for i0 in range(0, GRID_SIZE, batch):
        thetas = inverse_frequencies(head_dim, grid_values(i0, i0 + batch))
        work += TRIG_WEIGHT * len(thetas) * pairs + BATCH_OVERHEAD
        alive = np.arange(len(thetas))
        for w in reversed(witnesses):  # most recent first: it kills the most
            if not alive.size:
                break
            values = np.cos(thetas[alive] * float(w)).sum(axis=1)
            work += TRIG_WEIGHT * alive.size * pairs
            alive = alive[values >= 0]
        new: list[int] = []
        for g in alive:
            if any(margin_at(thetas[g], w) < 0 for w in new):
                work += TRIG_WEIGHT * len(new) * pairs
                continue
            scan = MarginScan(thetas[g])
            fails_at = scan.first_negative(0, limit)
            work += scan.work
            if budget is not None and work > budget:
                raise SearchTooCostly(f"more than {budget} terms", _partial(head_dim, best, rows, previous_scanned))
            index = i0 + int(g)
            previous_scanned[index] = -1 if fails_at is None else fails_at
            if fails_at is None or fails_at > best:
                rows.append((index, -1 if fails_at is None else fails_at, index - 1))
                if fails_at is None:
                    return _finish(head_dim, limit, rows, previous_scanned, False)
                best = fails_at
            if fails_at in witnesses:
                witnesses.remove(fails_at)
            new.append(fails_at)
        witnesses = (witnesses + new)[-WITNESSES:]
        if budget is not None and work > budget:
            raise SearchTooCostly(f"more than {budget} terms", _partial(head_dim, best, rows, previous_scanned))
    return _finish(head_dim, limit, rows, previous_scanned, True)


def _partial(head_dim: int, best: int, rows: list[tuple[int, int, int]], scanned: dict[int, int]) -> Records | None:
    """The records a search found before it stopped: every grid base below the last one fails before
    its reach, so they are the records of a search up to ``best``, the largest first failing m."""
    return _finish(head_dim, best, rows, scanned, False) if rows else None


def _finish(head_dim: int, limit: int, rows: list[tuple[int, int, int]], scanned: dict[int, int], exhausted: bool) -> Records:
    """The first failing m of each record's grid predecessor (scanned now unless it was)."""
    previous = []
    for _, _, before in rows:
        if before < 0:
            previous.append(-1)
        elif before in scanned:
            previous.append(scanned[before])
        else:
            found = MarginScan(inverse_frequencies(head_dim, grid_values(before, before + 1))[0]).first_negative(0, limit)
            previous.append(-1 if found is None else found)

    def as_array(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return Records(
        head_dim=head_dim,
        limit=limit,
        index=as_array([r[0] for r in rows]),
        reach=as_array([r[1] for r in rows]),
        previous_fails_at=as_array(previous),
        exhausted=exhausted,
    )


@lru_cache(maxsize=64)
def table_records(head_dim: int) -> Records | None:
    """The precomputed records of ``men_table.RECORDS`` (app/data/men_table.csv) for this head dim, or None."""
    entry = men_table.RECORDS.get(head_dim)
    if entry is None:
        return None
    return Records(head_dim, men_table.LIMIT, entry["index"], entry["reach"], entry["previous_fails_at"], entry["exhausted"])


# Live searches: a smallest base is searched for a request when its records need at most this
# much work (counted as in smallest_base_records; about 1.4 ns a unit here, so ≈ 25 ms: a page asks for T and L).
LIVE_BUDGET = 1 << 24


def live_work_lower_bound(head_dim: int, length: int) -> int:
    """Work a live search for ``length`` needs at least: the passing base's scan of every
    m < length, and, when the table covers the head dim, θ of every grid base below its answer
    at the table's limit (for a longer length the answer is not smaller)."""
    pairs = head_dim // 2
    bound = length * pairs
    records = table_records(head_dim)
    if records is not None and length > records.limit:
        bound += TRIG_WEIGHT * pairs * int(records.index[-1])
    return bound


def live_length_limit(head_dim: int, budget: int = LIVE_BUDGET) -> int:
    """Lengths above this are never searched live at this head dim (:func:`live_work_lower_bound`
    exceeds the budget); below it a search is tried and may still run out of budget."""
    return budget // max(1, head_dim // 2)


# What the live searches of a head dim (and budget) have shown, so that one search answers the
# calculator's T and L and the answer never depends on which searches ran before:
# - the longest records found (a finished search's, or those a search had found when it ran out):
#   they answer every length up to their limit exactly as a search for that length would, which
#   does no more work in the same order (its scans stop at its own length) up to the same answer;
# - the shortest length whose search ran out of budget: a longer one runs out too, since it does at
#   least that work in the same order and its answer lies beyond the shorter one's.
# One entry per head dim (at most 512).
_LIVE_KNOWN: dict[tuple[int, int], tuple[Records | None, int | None]] = {}


def _live_records_for(head_dim: int, length: int, budget: int) -> Records | None:
    """Records that answer ``length`` (≤ their limit) within ``budget``, or None when its search runs out."""
    known, runs_out_from = _LIVE_KNOWN.get((head_dim, budget), (None, None))
    if known is not None and length <= known.limit:
        return known
    if (runs_out_from is not None and length >= runs_out_from) or live_work_lower_bound(head_dim, length) > budget:
        return None
    try:
        found: Records | None = smallest_base_records(head_dim, length, budget)
        answered = True
    except SearchTooCostly as stopped:
        found, answered = stopped.found, False
        runs_out_from = length if runs_out_from is None else min(runs_out_from, length)
    if found is not None and (known is None or found.limit > known.limit):
        known = found
    _LIVE_KNOWN[(head_dim, budget)] = (known, runs_out_from)
    return known if answered or (known is not None and length <= known.limit) else None


def smallest_base(head_dim: int, length: int, budget: int = LIVE_BUDGET) -> dict[str, Any]:
    """The smallest grid base that passes ``length`` (see the module docstring).

    Returns ``{"base", "source", "reason", "previous_base", "previous_fails_at",
    "record_reach"}``: ``source`` is ``"table"`` (app/data/men_table.csv, made by
    scripts/men_table.py with :func:`smallest_base_records`), ``"live"`` (searched now within
    ``budget`` terms) or None; ``reason`` says why there is no base when ``base`` is None;
    ``previous_*`` is the grid value just below and its first failing m (< length).
    """
    empty = {"base": None, "source": None, "previous_base": None, "previous_fails_at": None, "record_reach": None}
    if head_dim == 2:  # one pair, θ_0 = 1 whatever b: B_m = cos m, negative first at m = 2
        if length <= 2:
            return {**empty, "base": 1.0, "source": "live", "reason": None, "record_reach": 2}
        return {**empty, "source": "live",
                "reason": "no base below 10^15 passes: for d = 2, B_m = cos m whatever b (θ_0 = 1), and cos 2 < 0"}
    records = table_records(head_dim)
    source = "table"
    if records is None or length > records.limit:
        records, source = _live_records_for(head_dim, length, budget), "live"
    empty = {"base": None, "source": None, "previous_base": None, "previous_fails_at": None, "record_reach": None}
    if records is None:
        tabulated = table_records(head_dim)
        if tabulated is not None:
            reason = (
                f"the precomputed search for d = {head_dim} covers T ≤ {tabulated.limit:,}, and a live search for "
                f"T = {length:,} needs more than one request's work"
            )
        else:
            reason = (
                f"d = {head_dim} is not among the precomputed head dims ({', '.join(map(str, sorted(men_table.RECORDS)))}), "
                f"and a live search for T = {length:,} needs more than one request's work"
            )
        return {**empty, "reason": reason}
    row = records.lookup(length)
    if row is None:
        return {**empty, "source": source, "reason": f"no base below 10^15 passes T = {length:,} at d = {head_dim}"}
    index = int(records.index[row])
    return {
        "base": grid_value(index),
        "source": source,
        "reason": None,
        "previous_base": grid_value(index - 1) if index > 0 else None,
        "previous_fails_at": int(records.previous_fails_at[row]) if index > 0 else None,
        # the first failing m of this base (None: it passes every m < the records' limit)
        "record_reach": None if records.reach[row] < 0 else int(records.reach[row]),
    }


def smallest_base_witnesses(head_dim: int, length: int) -> list[int]:
    """Distances below ``length`` at which records failed (useful places to look for a failure)."""
    records = table_records(head_dim)
    stop = None
    if records is None or length > records.limit:
        records = _live_records_for(head_dim, length, LIVE_BUDGET)
        if records is None:
            return []
        # (the records a search for this very length finds: those up to its answer)
        row = records.lookup(length)
        stop = None if row is None else row + 1
    values = {int(v) for v in records.reach[:stop] if 0 <= v < length}
    values |= {int(v) for v in records.previous_fails_at[:stop] if 0 <= v < length}
    return sorted(values)[-32:]


# The search for a larger failing base: how many grid values above the smallest base it tries, how
# far either side of each witness distance it looks, and the (distance, pair) terms it may evaluate.
LARGER_STEPS = 2048
LARGER_WINDOW = 16
LARGER_BUDGET = 1 << 23


def search_larger_failing_base(head_dim: int, length: int, smallest_index: int, steps: int = LARGER_STEPS,
                               window: int = LARGER_WINDOW, budget: int = LARGER_BUDGET) -> dict[str, Any]:
    """:func:`_search_larger_failing_base`, remembered: it depends on d and T but not on the base b the
    reader chose, and it is most of a calculator request's work (a fresh copy each call)."""
    return copy.deepcopy(_search_larger_failing_base(head_dim, length, smallest_index, steps, window, budget))


@lru_cache(maxsize=128)
def _search_larger_failing_base(head_dim: int, length: int, smallest_index: int, steps: int,
                                window: int, budget: int) -> dict[str, Any]:
    """Look for a grid value above the smallest base that fails ``length``.

    Passing bases are not an interval, so one usually exists close above.  The candidates, the
    ``steps`` grid values above the smallest base, are tried in increasing order, first at every
    distance within ``window`` of :func:`smallest_base_witnesses` (where earlier bases failed: a
    failure moves by a few positions from one base to the next), 16 candidates at a time; then, with
    the budget left, the first candidates are scanned at every m < length.  A failure found is
    checked with the definition (:func:`margin_at` < 0).  At most ``budget`` (distance, pair) terms.

    Returns ``{"found": {"base", "fails_at"} or None, "tried": candidates tried at the windows,
    "scanned": candidates scanned at every m, "statement": one sentence saying what was searched}``.
    When whole scans are cheap (length · d/2 ≤ budget/16) the candidates are scanned in order first, so
    ``found`` is the first failing grid value; otherwise it is the first failure found, which need not be."""
    pairs = head_dim // 2
    witnesses = smallest_base_witnesses(head_dim, length)
    near = sorted({m for w in witnesses for m in range(max(0, w - window), min(length, w + window + 1))})
    distances = np.array(near, dtype=np.float64)
    work, tried, scanned, found = 0, 0, 0, None

    def scan_from(first: int, share: int) -> None:
        nonlocal work, scanned, found
        for g in range(first, steps):
            if work + length * pairs > share:
                return
            scan = MarginScan(inverse_frequencies(head_dim, grid_value(smallest_index + 1 + g)))
            hit = scan.first_negative(0, length)
            work += scan.work
            scanned = g + 1
            if hit is not None:
                found = {"base": grid_value(smallest_index + 1 + g), "fails_at": hit}
                return

    # Short lengths: whole scans are cheap, so the candidates are scanned in order first (the first failing
    # grid value is then the one found).
    if length * pairs <= budget // 16:
        scan_from(0, budget // 2)
    chunk = 16
    for start in range(0, steps if distances.size and found is None else 0, chunk):
        count = min(chunk, steps - start)
        cost = distances.size * pairs * count
        if work + cost > budget // 2:
            break
        work += cost
        theta = inverse_frequencies(head_dim, grid_values(smallest_index + 1 + start, smallest_index + 1 + start + count))
        margins = np.cos(distances[:, None, None] * theta[None, :, :]).sum(axis=-1)  # (distances, candidates)
        tried = start + count
        for g in np.flatnonzero((margins < 0).any(axis=0)):
            m = int(distances[int(np.argmax(margins[:, g] < 0))])
            base = grid_value(smallest_index + 1 + start + int(g))
            if margin_at(inverse_frequencies(head_dim, base), m) < 0:
                found = {"base": base, "fails_at": m}
                tried = start + int(g) + 1
                break
        if found:
            break
    if found is None:
        scan_from(scanned, budget)
    parts = []
    if scanned:
        parts.append(f"scanned the first {scanned:,} grid values above the smallest base at every m < {length:,}")
    if tried:
        parts.append(f"tried the first {tried:,}{'' if scanned else ' grid values above the smallest base'} at the distances "
                     f"within {window} of where earlier bases failed ({distances.size:,} distances)")
    what = " and ".join(parts) or "could not try any grid value within the bound"
    statement = (
        f"Found by a bounded search: it {what}." if found else
        f"None found within the search's bound ({budget:,} terms): it {what}; a larger base may still fail elsewhere."
    )
    return {"found": found, "tried": tried, "scanned": scanned, "statement": statement}


def larger_failing_base(head_dim: int, length: int, smallest_index: int, **bounds: int) -> dict[str, Any] | None:
    """``{"base", "fails_at"}`` of :func:`search_larger_failing_base`, or None."""
    return search_larger_failing_base(head_dim, length, smallest_index, **bounds)["found"]


# ---- one base: verdict and curve ------------------------------------------------------------------

# Work (distance, pair terms) for a verdict beyond the drawn range.
VERDICT_BUDGET = 1 << 26


def base_verdict(base: float, head_dim: int, length: int, budget: int = VERDICT_BUDGET) -> dict[str, Any]:
    """Does ``base`` pass ``length``?  ``{"passes", "first_failing_m", "checked"}``: ``passes`` is
    None when the distances below ``length`` are more than ``budget``/(d/2) and no failure was
    found among the first ``checked`` of them."""
    pairs = head_dim // 2
    checked = min(length, max(1, budget // pairs))
    found = MarginScan(inverse_frequencies(head_dim, base)).first_negative(0, checked)
    if found is not None:
        return {"passes": False, "first_failing_m": found, "checked": found + 1}
    return {"passes": True if checked == length else None, "first_failing_m": None, "checked": checked}


def margin_curve(base: float, head_dim: int, length: int) -> np.ndarray:
    """B_m for every m in [0, length), block-evaluated (within δ(m) of the definition, see
    :class:`MarginScan`).  Shape ``(length,)``."""
    scan = MarginScan(inverse_frequencies(head_dim, base))
    step = 1 << 16
    return np.concatenate([scan.block(m0, min(step, length - m0)) for m0 in range(0, length, step)]) if length else np.zeros(0)


def margin_envelope(base: float, head_dim: int, length: int, starts: np.ndarray) -> dict[str, Any]:
    """Min and max of B_m over each column [starts[c], starts[c+1]) of m < length, with the
    smallest value and its m, and the first m with B_m < 0 by the definition (None: none)."""
    scan = MarginScan(inverse_frequencies(head_dim, base))
    step = 1 << 16
    values = np.empty(length)
    first = None
    for m0 in range(0, length, step):
        block = scan.block(m0, min(step, length - m0))
        values[m0 : m0 + len(block)] = block
        if first is None:
            first = scan.negatives(m0, block)
    low, high = column_envelope(values, starts)
    at = int(np.argmin(values))
    return {
        "low": low,
        "high": high,
        "min": float(values[at]),
        "min_at": at,
        "first_failing_m": first,
    }


def verdict_from(base: float, head_dim: int, length: int, shown: int, first_failing_m: int | None) -> dict[str, Any]:
    """The direct verdict on ``base`` for ``length`` when B_m is already known for m < ``shown``
    (its first failing m there, or None): ``{"passes", "first_failing_m", "checked"}`` as
    :func:`base_verdict`, reading on from ``shown`` within :data:`VERDICT_BUDGET` (distance, pair)
    terms in all; ``passes`` is None when that budget ends before ``length``."""
    if first_failing_m is not None:
        return {"passes": False, "first_failing_m": first_failing_m, "checked": first_failing_m + 1}
    if shown == length:
        return {"passes": True, "first_failing_m": None, "checked": length}
    stop = min(length, shown + max(0, VERDICT_BUDGET // (head_dim // 2) - shown))
    found = MarginScan(inverse_frequencies(head_dim, base)).first_negative(shown, stop) if stop > shown else None
    if found is not None:
        return {"passes": False, "first_failing_m": found, "checked": found + 1}
    return {"passes": True if stop == length else None, "first_failing_m": None, "checked": stop}
