"""Why position?  Attention without position gives "bites" the same output in "dog bites man" and
"man bites dog"; learned, sinusoidal or rotary position makes them differ."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, field_validator

from app.core.attention import POSITIONS, encode_sentence, reorder, word_key
from app.web.answers import Answer, Echo, Floats, Ints, Matrix, doc
from app.web.fields import Seed
from app.web.params import UI, Display, Params
from app.web.rules import Bound
from app.web.views import View, register

MAX_WORDS = 12
MAX_WORD_CHARS = 20
APOSTROPHES = "'’"


def split_sentence(sentence: str) -> list[str]:
    return sentence.split()


class WhyParams(Params):
    sentence: Annotated[
        str,
        Field(
            min_length=1,
            max_length=400,
            description=f"Up to {MAX_WORDS} words of up to {MAX_WORD_CHARS} letters, digits or apostrophes, separated by spaces. "
            "Case is ignored (Dog = dog).",
        ),
        UI("Sentence", kind="text", help=f"Up to {MAX_WORDS} words; letters, digits and apostrophes."),
    ] = "dog bites man"
    word: Annotated[
        int,
        Field(ge=0, le=MAX_WORDS - 1, description="Which word of the sentence to inspect (0 = the first word)."),
        UI("Word to inspect", help="0 is the first word."),
        Bound(le="words(sentence) - 1", why="the sentence has {words(sentence)} words, numbered from 0"),
    ] = 1
    reorder: Annotated[
        Literal["reverse", "swap_ends", "rotate", "shuffle"],
        Field(
            description="How the second sentence reorders the same words: reversed, first and last swapped, first word "
            "moved to the end, or a seeded shuffle."
        ),
        UI("Reordering"),
    ] = "reverse"
    dim: Annotated[
        int,
        Field(ge=2, le=32, multiple_of=2, description="Size d of the token vectors, queries, keys and values (even, for RoPE's pairs)."),
        UI("Vector size d", step=2),
    ] = 8
    seed: Seed = 0

    @field_validator("sentence")
    @classmethod
    def _short_sentence(cls, value: str) -> str:
        words = split_sentence(value)
        if not words:
            raise ValueError("sentence needs at least one word")
        if len(words) > MAX_WORDS:
            raise ValueError(
                f"sentence has {len(words)} words; at most {MAX_WORDS} are allowed (it is refused rather than cut short)"
            )
        for word in words:
            if len(word) > MAX_WORD_CHARS:
                raise ValueError(f"the word {word[:30]!r} has {len(word)} characters; at most {MAX_WORD_CHARS} are allowed")
            bad = [ch for ch in word if not (ch.isalnum() or ch in APOSTROPHES)]
            if bad:
                raise ValueError(f"the word {word!r} contains {bad[0]!r}; use letters, digits and apostrophes only")
        return value


class WhyDisplay(Display):
    position: Annotated[
        Literal["learned", "sinusoidal", "rope"],
        Field(description="Which kind of position to show beside attention without position."),
        UI("Position shown"),
    ] = "sinusoidal"


def _scheme(a: dict[str, np.ndarray], b: dict[str, np.ndarray], perm: list[int], i: int, j: int) -> dict[str, Any]:
    """Compare token i of sentence A with the same token, at j, in sentence B."""
    out_a, out_b = a["out"][i], b["out"][j]
    diff = out_a - out_b
    return {
        "out": out_a,
        "other_out": out_b,
        "diff": diff,
        "diff_norm": float(np.linalg.norm(diff)),
        "max_abs_diff": float(np.max(np.abs(diff))),
        "identical": bool(np.array_equal(out_a, out_b)),
        # every row: output of B's token t equals output of A's token perm[t]
        "equivariant": bool(np.array_equal(b["out"], a["out"][perm])),
        "largest_row_difference": float(np.max(np.abs(b["out"] - a["out"][perm]))),
        "scores": a["scores"],
        "weights": a["weights"][i],
        "other_weights": b["weights"][j],
    }


def repeated_groups(words: list[str]) -> list[list[int]]:
    """Positions of each word that occurs more than once (case-folded), in order of first occurrence."""
    groups: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        groups.setdefault(word_key(word), []).append(position)
    return [positions for positions in groups.values() if len(positions) > 1]


class OrderScheme(Answer):
    """One position scheme's attention output for the sentence and for its reordering."""

    out: Floats = doc("Attention output of the chosen word in the sentence.")
    other_out: Floats = doc("The same word's output in the reordered sentence.")
    diff: Floats = doc("other_out − out.")
    diff_norm: float = doc("Euclidean length of diff.")
    max_abs_diff: float = doc("Largest |diff| component.")
    identical: bool = doc("Whether the two outputs are equal (to rounding).")
    equivariant: bool = doc("Whether every row of the output just moves with its word under the reordering.")
    largest_row_difference: float = doc("Largest difference between a row and its moved counterpart.")
    scores: Matrix = doc("Attention scores, one row per query word.")
    weights: Floats = doc("Softmax weights of the chosen word over the sentence.")
    other_weights: Floats = doc("The same word's weights over the reordered sentence.")


class OrderSchemes(Answer):
    """The outputs under each position scheme."""

    none: OrderScheme
    learned: OrderScheme
    sinusoidal: OrderScheme
    rope: OrderScheme


class OrderRepeat(Answer):
    """A word that occurs more than once, and whether each scheme tells its occurrences apart."""

    word: str
    positions: Ints
    none: bool
    learned: bool
    sinusoidal: bool
    rope: bool


class OrderAnswer(Answer, echoes=WhyParams):
    """What attention sees of a sentence and of the same words reordered, without and with positions."""

    sentence: Echo
    words: list[str] = doc("The sentence's words in order.")
    other_words: list[str] = doc("The reordered words.")
    perm: Ints = doc("other_words[i] = words[perm[i]].")
    word: Echo
    word_text: str = doc("The chosen word.")
    other_index: int = doc("Where the chosen word lands in the reordering.")
    dim: Echo
    seed: Echo
    reorder: Echo
    positions: list[str] = doc("The position schemes compared, in order.")
    schemes: OrderSchemes
    repeats: list[OrderRepeat] = doc("Every repeated word (empty when none is).")


def compute_why(params: WhyParams) -> dict[str, Any]:
    words = split_sentence(params.sentence)
    perm = reorder(words, params.reorder, params.seed)
    other = [words[t] for t in perm]
    i = params.word
    j = perm.index(i)
    schemes = {}
    for position in POSITIONS:
        a = encode_sentence(words, params.dim, params.seed, position, MAX_WORDS)
        b = encode_sentence(other, params.dim, params.seed, position, MAX_WORDS)
        schemes[position] = _scheme(a, b, perm, i, j)
    groups = repeated_groups(words)
    repeats = []
    for positions in groups:
        entry: dict[str, Any] = {"word": word_key(words[positions[0]]), "positions": positions}
        for position in POSITIONS:
            columns = schemes[position]["scores"][:, positions]
            # equal content scores: every query gives every copy of the word the same score
            entry[position] = bool(np.all(columns == columns[:, :1]))
        repeats.append(entry)
    return {
        "sentence": params.sentence,
        "words": words,
        "other_words": other,
        "perm": perm,
        "word": i,
        "word_text": words[i],
        "other_index": j,
        "dim": params.dim,
        "seed": params.seed,
        "reorder": params.reorder,
        "positions": list(POSITIONS),
        "schemes": schemes,
        "repeats": repeats,
    }


def why_csv(data: dict[str, Any]):
    """One row per component of the inspected word's output vector, both sentences, every scheme."""
    header = ["component"]
    for position in data["positions"]:
        header += [f"{position}_sentence", f"{position}_reordered", f"{position}_difference"]
    rows = []
    for c in range(data["dim"]):
        row: list[Any] = [c]
        for position in data["positions"]:
            scheme = data["schemes"][position]
            row += [scheme["out"][c], scheme["other_out"][c], scheme["diff"][c]]
        rows.append(row)
    return header, rows


register(
    View(
        name="why",
        title="Why position?",
        summary="Without position, attention gives 'bites' the same output in 'dog bites man' and 'man bites dog'.",
        short_title="Why position?",
        section="Foundations",
        order=5,
        api_path="/api/attention/order",
        answer=OrderAnswer,
        params=WhyParams,
        display=WhyDisplay,
        compute=compute_why,
        formulas=(
            r"\mathrm{out}_i = \sum_j \frac{\exp(q_i \cdot k_j/\sqrt{d})}{\sum_{j'} \exp(q_i \cdot k_{j'}/\sqrt{d})}\, v_j,"
            r"\quad q_i = x_i W_q,\ k_j = x_j W_k,\ v_j = x_j W_v",
            r"\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)",
            r"\text{learned, sinusoidal: } x_i \leftarrow x_i + p_i \qquad \text{RoPE: } q_i \leftarrow R_i q_i,\ k_j \leftarrow R_j k_j",
        ),
        csv=why_csv,
        api_description=(
            "A single attention head with seeded weights (W_q, W_k, W_v ~ N(0, 1/d)) and a seeded embedding per distinct "
            "word, run on `sentence` and on the same words reordered.  For each kind of position (`none`, `learned` "
            "with a std-0.01 table, `sinusoidal`, `rope`) it returns the output vector of word number `word` in both "
            "sentences, their difference (exactly zero without position), whether every row of the reordered output "
            "equals the permuted original bit for bit, the score matrix and the inspected word's attention weights.  "
            "`repeats` says, for each repeated word, whether every query scores its copies equally."
        ),
        examples=("sentence=man+bites+dog&word=1", "sentence=the+cat+saw+the+dog&word=0&reorder=shuffle&seed=3"),
    )
)
