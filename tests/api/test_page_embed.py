"""A page embeds its data for the first paint, unless that data is large: then the HTML stays small
and the page fetches its twin (app/web/routing.py, EMBED_MAX_BYTES)."""

import json
import re

BOOT = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.S)


def boot_of(html: str) -> dict:
    match = BOOT.search(html)
    assert match, "no page-data block"
    return json.loads(match.group(1))


def test_a_default_page_carries_its_data(client):
    page = client.get("/sinusoidal")
    assert page.status_code == 200
    assert boot_of(page.text)["data"] == client.get("/api/sinusoidal/table").json()


def test_a_large_view_sends_small_html_and_leaves_the_data_to_the_twin(client):
    page = client.get("/sinusoidal?seq_len=512&dim=512")
    twin = client.get("/api/sinusoidal/table?seq_len=512&dim=512")
    assert page.status_code == twin.status_code == 200
    assert len(twin.content) > 4_000_000
    assert len(page.content) < 200_000
    boot = boot_of(page.text)
    assert boot["data"] is None
    assert boot["api"] == "/api/sinusoidal/table" and boot["state"]["seq_len"] == 512
