"""/heads surgery at T = 256: the request a surgery slider sends, through the app (each a new URL, so no
response cache helps), and the compute alone. Target: ≤ 50 ms."""

from __future__ import annotations

import statistics
import time

TARGET_MS = 50.0


def run(report, quick: bool = False) -> str:
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.views.heads import HeadsParams, compute_heads

    client = TestClient(create_app())
    n = 10 if quick else 40
    client.get("/api/model/heads?text=long-256&layer=3&head=2&surgery_rope_type=yarn&surgery_factor=4")  # loads the text once
    request_ms, compute_ms = [], []
    for i in range(n):
        base = 100000.0 + 17 * (i + 1)  # a new URL every time
        url = f"/api/model/heads?text=long-256&layer=3&head=2&surgery_rope_type=yarn&surgery_factor=4&surgery_base={base}"
        t0 = time.perf_counter()
        r = client.get(url)
        request_ms.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, r.text
        params = HeadsParams(text="long-256", layer=3, head=2, surgery_rope_type="yarn", surgery_factor=4.0, surgery_base=base)
        t0 = time.perf_counter()
        compute_heads(params)
        compute_ms.append((time.perf_counter() - t0) * 1000)
    req, comp = statistics.median(request_ms), statistics.median(compute_ms)
    report.add("heads", "surgery request at T = 256 (median)", f"{req:.1f} ms", f"≤ {TARGET_MS:.0f} ms", ok=req <= TARGET_MS)
    report.add("heads", "surgery compute at T = 256 (median)", f"{comp:.1f} ms")
    return f"{n} requests: median {req:.1f} ms, max {max(request_ms):.1f} ms; compute alone median {comp:.1f} ms"
