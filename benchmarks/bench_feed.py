"""The surveillance feed under load: does a table with ten feed readers still meet the dealer page's
latency targets, and how soon does each reader get each fact?

Plays the same seeded rounds twice on the whole table (real drivers on ptys, simulated devices and
players, the scripted dealer, the journal durable, one dealer page connected to /api/events): once
with no feed reader, once with READERS readers on /api/feed in a process of their own (as the
surveillance room's recorder would be, on another machine). For each run it reports the engine's
device-frame-to-snapshot and the page's snapshot-to-event latencies (the table's own figures,
controller/latency.py), and for the readers: facts received each (all of them, or it says so) and
the delay from a fact's journal time to its arrival, p50/p99/max.

    .venv/bin/python benchmarks/bench_feed.py --rounds 200 --readers 10
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.store.readers import READERS_FILE, FeedReaders  # noqa: E402
from tests.support.rig import table  # noqa: E402

# the readers' process: READERS threads, each reading the feed from the start until told to stop,
# printing one JSON line each when its standard input closes (facts received, delays in ms)
READERS_SCRIPT = r"""
import json, socket, sys, threading, time
from datetime import datetime
host, port, token, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
results = [{"facts": [], "delays": []} for _ in range(count)]
def read(i):
    sock = socket.create_connection((host, port))
    sock.sendall(f"GET /api/feed HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    for line in sock.makefile("rb"):
        if line.startswith(b"data: "):
            fact = json.loads(line[6:])
            results[i]["delays"].append((time.time() - datetime.fromisoformat(fact["at"]).timestamp()) * 1000)
            results[i]["facts"].append(fact["fact"])
threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(count)]
for t in threads: t.start()
sys.stdin.read()                   # the benchmark closes it when the rounds are done
time.sleep(1.0)                    # the last facts on their way
for i in range(count):
    print(json.dumps(results[i]), flush=True)
"""


def _events_client(url: str, stop: threading.Event) -> None:
    """One dealer page on /api/events: the page's latency figures need a reader."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
        sock.settimeout(0.5)
        while not stop.is_set():
            try:
                if not sock.recv(65536):
                    return
            except TimeoutError:
                continue


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run(rounds: int, readers: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-feed-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        token = FeedReaders(data / READERS_FILE).add("bench")
        readers_proc = None
        with table(Path(tmp), "sheet-004", page=True, autoplay=True, rounds=rounds, seed=seed, data_dir=data,
                   players=True) as rig:
            stop = threading.Event()
            page = threading.Thread(target=_events_client, args=(rig.run.page.url, stop), daemon=True)
            page.start()
            if readers:
                parts = urlsplit(rig.run.page.url)
                readers_proc = subprocess.Popen([sys.executable, "-c", READERS_SCRIPT, str(parts.hostname),
                                                 str(parts.port), token, str(readers)],
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert rig.run.dealer.done.wait(rounds * 5 + 60), "the rounds did not finish"
            head = rig.journal.chain_head[0]
            latency = rig.run.page.latencies()
            out = readers_proc.communicate(timeout=60)[0] if readers_proc else ""
            stop.set()
        got = [json.loads(line) for line in out.splitlines() if line.strip()]
        delays = [d for g in got for d in g["delays"]]
        return {"readers": readers, "facts": head, "received": [len(g["facts"]) for g in got],
                "every_reader_got_every_fact": all(g["facts"] == list(range(1, len(g["facts"]) + 1)) and
                                                   len(g["facts"]) >= head - 5 for g in got),
                "frame_to_snapshot_p99_ms": latency["frame_to_snapshot"]["p99_ms"],
                "snapshot_to_page_p99_ms": latency["snapshot_to_page"]["p99_ms"],
                "fact_to_reader_ms": {"p50": round(percentile(delays, .5), 1), "p99": round(percentile(delays, .99), 1),
                                      "max": round(max(delays, default=0), 1)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--readers", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    for readers in (0, args.readers):
        print(json.dumps(run(args.rounds, readers, args.seed)), flush=True)


if __name__ == "__main__":
    main()
