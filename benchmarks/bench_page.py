"""Dealer page push latency: from the engine publishing a snapshot to a browser-side client
holding it, over the real server-sent-event stream of a running table (simulated devices).

Each sample: the engine handles one action that changes the snapshot (a "call supervisor",
which adds an alert); an observer registered ahead of the page notes the moment of
publication for that version; a client on a raw socket reads the event stream and notes
when that version's ``data:`` line has arrived in full. Target: within 100 ms.
Run: benchmarks/run page
"""

from __future__ import annotations

import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.rig import table  # noqa: E402

SAMPLES = 300


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, table(Path(tmp), "sheet-004", page=True) as rig:
        rig.wait(lambda s: s["state"] == "ready")
        published: dict[int, float] = {}
        rig.engine.observers.insert(0, lambda snap: published.__setitem__(snap["version"],
                                                                          time.perf_counter()))
        received: dict[int, float] = {}
        parts = urlsplit(rig.run.page.url)
        sock = socket.create_connection((parts.hostname, parts.port))
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
        reader = sock.makefile("rb")

        def read():
            for line in reader:
                if line.startswith(b"data: "):
                    received[json.loads(line[6:])["version"]] = time.perf_counter()
        threading.Thread(target=read, daemon=True).start()
        time.sleep(0.3)
        versions = []
        for _ in range(SAMPLES):
            before = rig.engine.snapshot["version"]
            rig.engine.act("call_supervisor")
            version = rig.engine.wait_snapshot(before, 1.0)["version"]
            deadline = time.monotonic() + 1
            while version not in received and time.monotonic() < deadline:
                time.sleep(0.0005)
            versions.append(version)
            time.sleep(0.01)        # a dealer's touches are far apart; measure each on its own
        sock.close()
    lat = sorted((received[v] - published[v]) * 1000 for v in versions if v in received and v in published)
    lost = len(versions) - len(lat)
    print("dealer page push latency (publish -> event received), "
          f"{len(lat)} samples, {lost} missing:")
    print(f"  median {statistics.median(lat):.2f} ms   p99 {lat[int(len(lat) * 0.99) - 1]:.2f} ms   "
          f"max {lat[-1]:.2f} ms   (target < 100 ms)")


if __name__ == "__main__":
    main()
