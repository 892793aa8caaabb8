"""Check the committed reference data against statements in REFERENCE-FORMULAS.md.

Standard library only. Run from the repository root:  python3 tests/reference/sanity_check.py
Prints one line per check. Exits 1 if any check fails. It is not a pytest test and is not collected.
This checks the data and the design document against each other. It does not test the app.
"""

import json
import math
import os
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
results: list[bool] = []


def load(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return json.load(fh)["cases"]


def check(name, ok, detail=""):
    results.append(ok)
    print("%s  %s%s" % ("PASS" if ok else "FAIL", name, ("  -- " + detail) if detail else ""))


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


rope = {c["id"]: c for c in load("rope_init.json")}


def inv(case_id):
    return rope[case_id]["inv_freq"]


# --- YaRN correction range, d=128, b=1e4, L0=4096 -> (20, 46); unrounded (20.944, 45.027)
def corr_dim(n, r, b, l0):
    return r * math.log(l0 / (2 * math.pi * n)) / (2 * math.log(b))


lo, hi = corr_dim(32, 128, 1e4, 4096), corr_dim(1, 128, 1e4, 4096)
check("yarn corr_dim unrounded (20.944, 45.027)", round(lo, 3) == 20.944 and round(hi, 3) == 45.027,
      "%.4f %.4f" % (lo, hi))
for s in [4, 32]:
    base = inv("default/d128/theta10000")
    y = inv("yarn/d128/theta10000/s%d/L04096" % s)
    ratio = [a / b for a, b in zip(y, base, strict=True)]
    unchanged = [j for j, q in enumerate(ratio) if close(q, 1.0)]
    divided = [j for j, q in enumerate(ratio) if close(q, 1.0 / s)]
    check("yarn d128 s%d: pairs 0-20 keep theta, 46-63 theta/s, 21-45 between" % s,
          unchanged == list(range(0, 21)) and divided == list(range(46, 64)),
          "unchanged %s..%s divided %s..%s" % (unchanged[0], unchanged[-1], divided[0], divided[-1]))
for s, expected in [(2, 1.0693), (4, 1.1386), (8, 1.2079), (32, 1.3466)]:
    got = rope["yarn/d128/theta10000/s%d/L04096" % s]["attention_factor"]
    check("yarn attention_factor 0.1 ln s + 1, s=%d -> %s" % (s, expected), round(got, 4) == expected, repr(got))
ids = "yarn/d128/theta10000/s4/L04096/"
check("yarn mscale alone ignored", rope[ids + "mscale-alone"]["attention_factor"] ==
      rope["yarn/d128/theta10000/s4/L04096"]["attention_factor"])
check("yarn mscale == mscale_all_dim -> 1.0", rope[ids + "mscale1-mscale_all_dim1"]["attention_factor"] == 1.0)
check("yarn beta 0/0 falls back to 32/1", inv(ids + "beta0-0-falls-back-to-32-1") == inv(ids[:-1]))
check("yarn explicit attention_factor replaces mscale",
      rope[ids + "attention_factor1.5-with-mscales"]["attention_factor"] == 1.5)
check("yarn L0 omitted -> copied from max_position_embeddings",
      rope["yarn/d128/theta10000/s4/Lmax4096/L0-omitted"]["rope_parameters_standardized"][
          "original_max_position_embeddings"] == 4096)

# --- LongRoPE attention factor
for s, expected in [(4, 1.0801234), (32, 1.1902381)]:
    got = rope["longrope/d128/theta10000/s%d/L04096/seqNone" % s]["attention_factor"]
    check("longrope attention_factor s=%d L0=4096 -> %s" % (s, expected), round(got, 7) == expected, repr(got))
c_none, c_eq, c_gt = (rope["longrope/d128/theta10000/s4/L04096/seq%s" % x] for x in ["None", 4096, 4097])
short = c_none["config"]["rope_parameters"]["short_factor"]
base = inv("default/d128/theta10000")
check("longrope seq None and seq == L0 use short factors, seq L0+1 long",
      c_none["inv_freq"] == c_eq["inv_freq"] and c_gt["inv_freq"] != c_eq["inv_freq"]
      and all(close(a, b / f) for a, b, f in zip(c_none["inv_freq"], base, short, strict=True)))

# --- llama3 d=128 theta=5e5 L0=8192 s=8
base = inv("default/d128/theta500000")
l3 = inv("llama3/d128/theta500000/s8/L08192/low1/high4")
ratio = [a / b for a, b in zip(l3, base, strict=True)]
unchanged = [j for j, q in enumerate(ratio) if close(q, 1.0)]
divided = [j for j, q in enumerate(ratio) if close(q, 1 / 8)]
check("llama3 d128 5e5 L0 8192: 0-28 unchanged, 29-34 smoothed, 35-63 /8",
      unchanged == list(range(29)) and divided == list(range(35, 64)),
      "unchanged ..%d, divided %d.." % (unchanged[-1], divided[0]))

# --- dynamic
d = rope["dynamic/d128/theta10000/s4/Lmax4096/seq16384"]
r = 128
bprime = 1e4 * (4 * 16384 / 4096 - 3) ** (r / (r - 2))
want = [bprime ** (-2 * j / r) for j in range(64)]
check("dynamic: b' = b (sL/Lmax - (s-1))^(r/(r-2)) at L = 4 Lmax", all(close(a, b, 2e-6) for a, b in zip(d["inv_freq"], want, strict=True)))
check("dynamic: L <= Lmax leaves the base unchanged",
      inv("dynamic/d128/theta10000/s4/Lmax4096/seq4096") == inv("dynamic/d128/theta10000/s4/Lmax4096/seqNone")
      and all(close(a, b) for a, b in zip(inv("dynamic/d128/theta10000/s4/Lmax4096/seq4096"),
                                          inv("default/d128/theta10000"), strict=True)))
check("dynamic: r = 2 raises ZeroDivisionError",
      rope["dynamic/d2/theta10000/s4/Lmax4096/seqNone"].get("error") == "ZeroDivisionError"
      and rope["dynamic/d8/theta10000/s4/Lmax4096/prf0.25/seqNone"].get("error") == "ZeroDivisionError")
check("default: Llama ignores partial_rotary_factor, GPT-NeoX uses r in the exponent",
      len(inv("default/llama-ignores-prf/d64/theta10000/prf0.25")) == 32
      and all(close(a, 1e4 ** (-2 * j / 16)) for j, a in enumerate(inv("default/neox/d64/theta10000/prf0.25"))))

# --- RoPE application
apply = {c["id"]: c for c in load("rope_apply.json")}
for conv in ["rotate_half", "interleaved"]:
    c = apply["%s/d2/r2/base10000/unit" % conv]
    pos = c["positions"]
    dot = lambda a, b: sum(x * y for x, y in zip(a, b, strict=True))
    s02 = dot(c["q_rot"][pos.index(0)], c["k_rot"][pos.index(2)])
    s57 = dot(c["q_rot"][pos.index(5)], c["k_rot"][pos.index(7)])
    check("%s d=2: <R(0)q,R(2)k> = <R(5)q,R(7)k> = cos 2" % conv,
          abs(s02 - math.cos(2)) < 1e-12 and abs(s57 - math.cos(2)) < 1e-12, "%r %r" % (s02, s57))


def rotate(x, y, phi):
    return x * math.cos(phi) - y * math.sin(phi), x * math.sin(phi) + y * math.cos(phi)


worst = 0.0
for c in apply.values():
    dd, rr, b = c["head_dim"], c["rotary_dim"], c["base"]
    for i, m in enumerate(c["positions"]):
        for v, out in [(c["q"], c["q_rot"][i]), (c["k"], c["k_rot"][i])]:
            want = list(v)
            for j in range(rr // 2):
                phi = m * b ** (-2 * j / rr)
                a, bb = (2 * j, 2 * j + 1) if c["convention"] == "interleaved" else (j, j + rr // 2)
                want[a], want[bb] = rotate(v[a], v[bb], phi)
            worst = max(worst, max(abs(x - y) for x, y in zip(want, out, strict=True)))
check("rope_apply: interleaved pairs (2j,2j+1), rotate_half pairs (j,j+r/2) inside the rotary slice, "
      "(x cos - y sin, x sin + y cos), rest passes", worst < 1e-12, "max abs err %.2e" % worst)

# --- T5
t5 = {(c["num_buckets"], c["max_distance"], c["bidirectional"]): c for c in load("t5_buckets.json")}
c = t5[(32, 128, True)]
bk = dict(zip(c["relative_position"], c["bucket"], strict=True))
table = [(0, 7, None), (8, 11, 8), (12, 15, 9), (16, 22, 10), (23, 31, 11), (32, 45, 12), (46, 63, 13),
         (64, 90, 14), (91, 300, 15)]
ok = all(bk[-n] == (n if want is None else want) and (n == 0 or bk[n] == 16 + (n if want is None else want))
         for lo_, hi_, want in table for n in range(lo_, hi_ + 1))
check("T5 32/128 bidirectional table by distance, rel=+1 -> 17, bucket 16 never used",
      ok and bk[1] == 17 and 16 not in c["bucket"] and bk[0] == 0 and bk[20000] == 31 and bk[-20000] == 15)
c = t5[(32, 128, False)]
bk = dict(zip(c["relative_position"], c["bucket"], strict=True))
table = [(0, 15, None), (16, 18, 16), (19, 20, 17), (21, 23, 18), (24, 26, 19), (27, 30, 20), (31, 34, 21),
         (35, 39, 22), (40, 45, 23), (46, 51, 24), (52, 58, 25), (59, 66, 26), (67, 76, 27), (77, 86, 28),
         (87, 98, 29), (99, 112, 30), (113, 300, 31)]
ok = all(bk[-n] == (n if want is None else want) for lo_, hi_, want in table for n in range(lo_, hi_ + 1))
check("T5 32/128 causal table by n = -rel, all rel > 0 -> 0",
      ok and all(bk[r_] == 0 for r_ in bk if r_ > 0))

# --- ALiBi
al = {c["num_heads"]: c for c in load("alibi_slopes.json")}
want12 = [2.0 ** -k for k in range(1, 9)] + [2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5]
check("ALiBi n=12 example, n=1 -> 2^-8",
      all(close(a, b) for a, b in zip(al[12]["bloom"], want12, strict=True)) and close(al[1]["bloom"][0], 2 ** -8))
check("ALiBi bloom == mpt == paper for n = 1..128 (1e-6 rel)",
      all(close(a, b) and close(a, p) for c in al.values()
          for a, b, p in zip(c["bloom"], c["mpt"], c["crosscheck_paper_get_slopes"], strict=True)))

# --- sinusoidal
sn = {c["id"]: c for c in load("sinusoidal.json")}
w = sn["whisper/L16/d8"]["table"]
check("whisper d=8: last frequency 1e-4 (t2t spacing)", close(w[1][3], math.sin(1e-4), 1e-6), repr(w[1][3]))
db = sn["distilbert/L16/d8"]["table"]
check("distilbert d=8: interleaved, highest index frequency 1e-3",
      close(db[1][6], math.sin(1e-3), 1e-6) and close(db[1][7], math.cos(1e-3), 1e-6))
mr = sn["marian/L10/d7"]["table"]
check("marian d=7: 4 sines then 3 cosines",
      all(close(mr[3][i], math.sin(3 * 10000 ** (-2 * i / 7)), 1e-6) for i in range(4))
      and all(close(mr[3][4 + i], math.cos(3 * 10000 ** (-2 * i / 7)), 1e-6) for i in range(3)))
dbo = sn["distilbert/L10/d7"]["table"]
check("distilbert d=7: last column is a sine", close(dbo[3][6], math.sin(3 * 10000 ** (-6 / 7)), 1e-6))
check("whisper: odd dim -> ValueError, dim 2 -> ZeroDivisionError",
      sn["whisper/L10/d7"].get("error") == "ValueError" and sn["whisper/L4/d2"].get("error") == "ZeroDivisionError")

print("%d passed, %d failed" % (results.count(True), results.count(False)))
sys.exit(0 if all(results) else 1)
