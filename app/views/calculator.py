"""Context-extension calculator: the numbers behind each recipe from head dim, base, L and T."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.core import calculator as men
from app.core import men_table, scaling
from app.core.frequencies import pair_with_turns
from app.core.rope import block_partition
from app.views._rope_scaling import LLAMA3_BANDS, high_freq_default
from app.views.ladder import Llama3Bands
from app.web.answers import Answer, Echo, Floats, Ints, doc
from app.web.fields import DEFAULTS, Base, HeadDim
from app.web.params import UI, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_LENGTH = 1 << 24
# B_m is drawn for every m < T while T·d/2 ≤ CURVE_WORK (one curve costs about that many
# multiply-adds), else for the first CURVE_WORK/(d/2) distances; the verdict on the chosen base
# then reads on up to T within men.VERDICT_BUDGET.
CURVE_WORK = 1 << 24
COLUMNS = 800
# The old fixed drawing limit, still in the twin as `men_limit` for scripts that read it.
MEN_LIMIT = 131072


class CalculatorParams(Params):
    head_dim: HeadDim = DEFAULTS["head_dim"]
    base: Base = DEFAULTS["base"]
    original_max_position_embeddings: Annotated[
        int, Field(ge=2, le=MAX_LENGTH, description="Training length L."), UI("Training length L", kind="log", unit="tokens")
    ] = 4096
    seq_len: Annotated[
        int, Field(ge=2, le=MAX_LENGTH, description="Target length T."), UI("Target length T", kind="log", unit="tokens")
    ] = 32768
    low_freq_factor: Annotated[
        float, Field(gt=0, le=1e4, allow_inf_nan=False, description="Llama 3.1 low_freq_factor."), UI("low_freq_factor", kind="number", step=0.5)
    ] = 1.0
    high_freq_factor: Annotated[
        float, Field(gt=0, le=1e4, allow_inf_nan=False, description="Llama 3.1 high_freq_factor (at least low_freq_factor; not given: 4, or low_freq_factor when larger).",
                     default_factory=high_freq_default),
        UI("high_freq_factor", kind="number", step=0.5),
        Bound(ge="low_freq_factor", why=LLAMA3_BANDS),
    ]


class MarginCurve(Answer):
    """Men et al.'s margin B_m = Σ_j cos(m·θ_j) under one base, min and max per column."""

    label: str
    base: float
    low: Floats
    high: Floats
    min: float = doc("Smallest B_m drawn.")
    min_at: int = doc("Where it is.")
    verdict_passes: bool | None = doc("Whether B_m ≥ 0 for every m < seq_len (null: not decided within the work budget).")
    verdict_first_failing_m: int | None = doc("First m with B_m < 0 (null if none was found).")
    verdict_checked: int = doc("Distances checked.")


class Margin(Answer):
    """The margin curves over the first `length` distances."""

    start: Ints = doc("First distance of each column.")
    length: int
    covers_target: bool = doc("Whether the curves reach seq_len.")
    curves: list[MarginCurve] = doc("Under `base`, then under the smallest passing base (when there is one).")


class FailingBase(Answer):
    """A grid base above the smallest passing one that fails again."""

    base: float
    fails_at: int


class SmallestBaseTable(Answer):
    """What the precomputed table of smallest bases covers."""

    head_dims: Ints
    max_length: int


class CalculatorAnswer(Answer, echoes=CalculatorParams):
    """Context-extension numbers for one head: scale, NTK and dynamic bases, temperatures, and the smallest base."""

    head_dim: Echo
    base: Echo
    original_max_position_embeddings: Echo
    seq_len: Echo
    low_freq_factor: Echo
    high_freq_factor: Echo
    margin: Margin
    scale: float = doc("s = seq_len / original_max_position_embeddings.")
    extends: bool = doc("Whether s > 1 (anything to extend).")
    reason: str | None = doc("Why nothing is extended (null when s > 1).")
    exponent: float | None = doc("d/(d − 2), the NTK exponent (null for d = 2).")
    ntk_base: float | None = doc("b·s^(d/(d−2)) (null when s ≤ 1 or d = 2).")
    ntk_base_formula_value: float | None = doc("The same formula at any s (null for d = 2).")
    dynamic_base: float | None = doc("Dynamic NTK's base at seq_len (null when s < 1 or d = 2).")
    dynamic_alpha: float = doc("Dynamic NTK's α = s·max(T, L0)/L0 − (s − 1).")
    yarn_attention: float = doc("YaRN's attention factor 0.1·ln s + 1.")
    yarn_logits: float = doc("Its square, the factor on the logits.")
    longrope_attention: float = doc("LongRoPE's attention factor √(1 + ln s / ln L0).")
    critical_pair: float = doc("The pair index whose wavelength equals the training length.")
    llama3: Llama3Bands
    base_passes: bool | None = doc("Whether B_m ≥ 0 for every m < seq_len under `base` (null: not decided within the budget).")
    base_first_failing_m: int | None = doc("First m with B_m < 0 under `base` (null if none was found).")
    base_checked_length: int = doc("Distances checked under `base`.")
    smallest_base: float | None = doc("Smallest grid base with B_m ≥ 0 for every m < seq_len (null when not found within the budget).")
    smallest_base_source: str | None = doc("'table' or 'live' (null with no base).")
    smallest_base_reason: str | None = doc("Why there is no smallest base (null when there is one).")
    smallest_base_previous: float | None = doc("The grid value just below smallest_base.")
    smallest_base_previous_fails_at: int | None = doc("Where it fails.")
    larger_failing_base: FailingBase | None = doc("A larger grid base that fails again (null if the bounded search found none).")
    larger_failing_base_search: str | None = doc("What the search for larger_failing_base tried, and its bound (null without a smallest base).")
    smallest_base_train: float | None = doc("The smallest base for the training length.")
    smallest_base_train_source: str | None = doc("'table' or 'live'.")
    smallest_base_train_reason: str | None = doc("Why there is none (null when there is).")
    smallest_base_definition: str = doc("The definition the smallest base follows.")
    smallest_base_table: SmallestBaseTable
    men_base: float | None = doc("Older name of smallest_base.")
    men_first_negative_below: int | None = doc("Older name of smallest_base_previous_fails_at.")
    men_base_train: float | None = doc("Older name of smallest_base_train.")
    men_grid_ratio: float | None = doc("Ratio of the next grid value to smallest_base.")
    men_limit: int = doc("Longest length the page searches.")
    men_ok: bool | None = doc("Older name of base_passes.")
    men_source: str | None = doc("Older name of smallest_base_source.")
    men_train_source: str | None = doc("Older name of smallest_base_train_source.")
    men_live_limit: int = doc("Longest length searched live for this head_dim.")
    men_table_lengths: Ints = doc("Lengths tabulated for this head_dim (empty when it is not tabulated).")


def compute_calculator(params: CalculatorParams) -> dict[str, Any]:
    d = params.head_dim
    b = params.base
    L = params.original_max_position_embeddings
    T = params.seq_len
    s = T / L
    pairs = d // 2
    exponent = scaling.ntk_exponent(d)
    extension = scaling.extension_status(T, L)
    dynamic = scaling.RopeConfig(rope_type="dynamic", rope_theta=b, head_dim=d, factor=s, max_position_embeddings=L)
    llama3 = scaling.RopeConfig(rope_type="llama3", rope_theta=b, head_dim=d, original_max_position_embeddings=L,
                                low_freq_factor=params.low_freq_factor, high_freq_factor=params.high_freq_factor)
    # (the shorter length first: when its live search runs out, the longer one is known to as well)
    if L < T:
        smallest_train = men.smallest_base(d, L)
        smallest = men.smallest_base(d, T)
    else:
        smallest = men.smallest_base(d, T)
        smallest_train = men.smallest_base(d, L)

    shown = min(T, max(1, CURVE_WORK // pairs))
    starts, _ = block_partition(shown, COLUMNS)
    curves = []
    verdict = None
    for label, base in (("base b", b), ("smallest base for T", smallest["base"])):
        if base is None:
            continue
        envelope = men.margin_envelope(base, d, shown, starts)
        curve_verdict = men.verdict_from(base, d, T, shown, envelope["first_failing_m"])
        if verdict is None:
            verdict = curve_verdict
        curves.append({"label": label, "base": base, "low": envelope["low"], "high": envelope["high"],
                       "min": envelope["min"], "min_at": envelope["min_at"], **{f"verdict_{k}": v for k, v in curve_verdict.items()}})
    assert verdict is not None  # the first curve, base b, is always drawn
    larger, larger_search = None, None
    if smallest["base"] is not None:
        search = men.search_larger_failing_base(d, T, men.grid_index_at_least(smallest["base"]))
        larger, larger_search = search["found"], search["statement"]
    tabulated = men.table_records(d)
    step = men.grid_step(smallest["base"]) if smallest["base"] else None
    return {
        **params.model_dump(),
        "margin": {"start": starts, "length": shown, "covers_target": shown == T, "curves": curves},
        "scale": s,
        **extension,
        "exponent": exponent,
        # Below s = 1 the NTK base would fall below b: not an extension, so not given.
        "ntk_base": scaling.ntk_base(b, s, d) if exponent and s > 1 else None,
        "ntk_base_formula_value": scaling.ntk_base(b, s, d) if exponent else None,
        "dynamic_base": scaling.dynamic_base(dynamic, T) if exponent and s >= 1 else None,
        "dynamic_alpha": scaling.dynamic_alpha(dynamic, T),
        "yarn_attention": scaling.get_mscale(s),
        "yarn_logits": scaling.get_mscale(s) ** 2,
        "longrope_attention": scaling.longrope_attention(s, L),
        "critical_pair": pair_with_turns(1, L, d, b),
        "llama3": scaling.llama3_band_counts(llama3),
        # Men et al.: the direct verdict on b and the smallest base on the 4-significant-digit grid.
        "base_passes": verdict["passes"],
        "base_first_failing_m": verdict["first_failing_m"],
        "base_checked_length": verdict["checked"],
        "smallest_base": smallest["base"],
        "smallest_base_source": smallest["source"],
        "smallest_base_reason": smallest["reason"],
        "smallest_base_previous": smallest["previous_base"],
        "smallest_base_previous_fails_at": smallest["previous_fails_at"],
        "larger_failing_base": larger,
        "larger_failing_base_search": larger_search,
        "smallest_base_train": smallest_train["base"],
        "smallest_base_train_source": smallest_train["source"],
        "smallest_base_train_reason": smallest_train["reason"],
        "smallest_base_definition": (
            "smallest b ≥ 1 with four significant digits (1.000, 1.001, …, 9.999, 10.00, …) such that "
            "B_m = Σ_j cos(m·b^(−2j/d)) ≥ 0 for every integer 0 ≤ m < T, each B_m evaluated directly in float64; "
            "passing bases do not form an interval, so a larger base can fail"
        ),
        "smallest_base_table": {"head_dims": sorted(men_table.RECORDS), "max_length": men_table.LIMIT},
        # Older names, kept for scripts that read them (the page reads the names above; same
        # values): men_base = smallest_base,
        # men_ok = base_passes (the direct verdict, not a comparison with the smallest base),
        # men_first_negative_below = smallest_base_previous_fails_at, men_grid_ratio = ratio of
        # the grid value after smallest_base to it.
        "men_base": smallest["base"],
        "men_first_negative_below": smallest["previous_fails_at"],
        "men_base_train": smallest_train["base"],
        "men_grid_ratio": step,
        "men_limit": MEN_LIMIT,
        "men_ok": verdict["passes"],
        "men_source": smallest["source"],
        "men_train_source": smallest_train["source"],
        "men_live_limit": tabulated.limit if tabulated is not None else men.live_length_limit(d),
        "men_table_lengths": [1 << k for k in range(10, 21)] if tabulated is not None else [],
    }


register(
    View(
        name="calculator",
        title="Context-extension calculator",
        short_title="Calculator",
        summary="NTK and dynamic bases, YaRN and LongRoPE temperatures, Llama 3.1 bands and the smallest base for a context.",
        section="Context extension",
        order=230,
        api_path="/api/rope/calculator",
        answer=CalculatorAnswer,
        params=CalculatorParams,
        compute=compute_calculator,
        formulas=(
            r"s = T/L,\qquad r = d",
            r"B_m(b) = \sum_{j=0}^{d/2-1}\cos\!\left(m\,b^{-2j/d}\right),\qquad b_{\min}(T) = \min\{\,b \in G_4,\ b \ge 1 : B_m(b) \ge 0\ \ \forall\, 0 \le m < T\,\}",
            r"G_4 = \{k\cdot 10^{e} : k = 1000,\ldots,9999,\ e \in \mathbb{Z}\}\ \text{(four significant digits)}",
        ),
        api_description=(
            "From head dim d, base b, training length L and target length T (s = T/L; `extends` false with a `reason` "
            "when s ≤ 1, and then no NTK base): the NTK-aware base, the dynamic-NTK base at length T (with "
            "max_position_embeddings = L), the YaRN and LongRoPE attention factors, Llama 3.1's band edges and pair "
            "counts, and Men et al. (2024)'s criterion B_m = Σ_j cos(m·b^(−2j/d)) ≥ 0 for every 0 ≤ m < T, evaluated "
            "directly at every m: `base_passes` (null when T·d/2 exceeds 2^26 and no failure was found in the first "
            "`base_checked_length` distances) with `base_first_failing_m`, and `smallest_base`: the smallest b ≥ 1 "
            "with four significant digits that passes (the passing bases are not an interval: a larger base can fail; "
            "`larger_failing_base` gives one). It is read from records precomputed by scripts/men_table.py for head "
            "dims 8, 16, …, 96, 112, 128, 160, 192 and 256 and T ≤ 2^20 (`smallest_base_source` \"table\"), searched for this request when that "
            "fits in ~50 ms (\"live\"), or not given (null, with `smallest_base_reason`). `margin` holds B_m for b and "
            "for smallest_base as a min/max envelope per column over m < `margin.length` (all of m < T while "
            "T·d/2 ≤ 2^24)."
        ),
        examples=("head_dim=128&base=500000&original_max_position_embeddings=8192&seq_len=131072",),
    )
)

# Read the precomputed records now, as this worker starts, not on its first calculator request.
men_table.shipped()
