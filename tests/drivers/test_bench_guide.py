"""docs/protocols/bench-guide.md's requests, as a bench harness sends them, against a simulated
table (issue 33 item 19): every JSON body the guide shows is posted to the page in its order, with
the table's Host and no Origin; the supervisor's one with a fresh one-time challenge, which a
second use is refused for."""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from tests.support.rig import table

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "bench-guide.md"


def guide_requests() -> list[dict]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", GUIDE.read_text(), re.S)]


def post(url: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Host": f"{parts.hostname}:{parts.port}"}
    if body is None:
        conn.request("GET", path, headers=headers)
    else:
        conn.request("POST", path, body=json.dumps(body).encode(), headers={**headers,
                                                                        "Content-Type": "application/json"})
    response = conn.getresponse()
    answer = (response.status, json.loads(response.read()))
    conn.close()
    return answer


def test_the_guides_requests_drive_a_round_and_a_supervisors_void(tmp_path):
    requests = guide_requests()
    assert [r["action"] for r in requests] == ["open_betting", "no_more_bets", "deal", "play", "reveal", "confirm",
                                               "void_round"]
    with table(tmp_path, "sheet-004", page=True) as rig:
        rig.wait(lambda s: s["state"] == "ready", what="ready")
        url = rig.run.page.url
        assert post(url, "/api/action", requests[0]) == (200, {"ok": True, "message": "done"})
        rig.state("betting")
        rig.run.pins.set_pin("supervisor", "Ana", requests[-1]["pin"])
        status, challenge = post(url, "/api/challenge")
        assert status == 200 and challenge["ok"] and challenge["expires_in"] == 120
        void = {**requests[-1], "challenge": challenge["challenge"]}
        assert post(url, "/api/action", void) == (200, {"ok": True, "message": "done"})
        rig.state("void")
        status, answer = post(url, "/api/action", void)                   # the same challenge again
        assert status == 403 and "already used" in answer["message"]
        status, snapshot = post(url, "/api/state")
        assert status == 200 and snapshot["state"] == "void"

