"""Device-layer speed: frames decoded per second per codec, and pty latency.

Run with ``benchmarks/run devices``. Decoding figures include the message
layer (bytes -> typed message), fed in 4 KiB chunks as a serial read delivers
them. Latency: a simulated shoe on a real pty emits a message; the time from
the write of its last byte returning to the host driver posting the event,
over 2,000 messages, one at a time.
"""

from __future__ import annotations

import queue
import statistics
import time

from drivers.events import DeviceOnline, ShoeJam
from drivers.registry import build
from drivers.wire import alpha
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from simulators.devices.ports import PtyPort
from simulators.devices.shoe import SimulatedShoe

N = 20_000


def rate(wire: bytes, decode_all) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        count = decode_all(wire)
        best = min(best, time.perf_counter() - start)
    assert count == N, count
    return N / best


def framed(catalog, decode, message):
    type_code, payload = catalog.encode(message)
    wire = b"".join(encode_frame(i % 256, type_code, payload) for i in range(N))

    def decode_all(data):
        decoder, count = FrameDecoder(), 0
        for i in range(0, len(data), 4096):
            for item in decoder.feed(data[i:i + 4096]):
                if isinstance(item, Frame):
                    decode(item.type, item.payload)
                    count += 1
        return count
    return wire, decode_all


def alpha_packets():
    wire = b"".join(alpha.packet(alpha.write_string("M", f"${i:,}.00")) for i in range(N))

    def decode_all(data):
        decoder, count = alpha.PacketDecoder(), 0
        for i in range(0, len(data), 4096):
            count += sum(isinstance(x, alpha.SignCommand) for x in decoder.feed(data[i:i + 4096]))
        return count
    return wire, decode_all


def latency(samples: int = 2000) -> tuple[float, float]:
    port = PtyPort()
    device = SimulatedShoe(port).start()
    events: queue.Queue = queue.Queue()

    def post(event):
        events.put((time.perf_counter(), event))
    driver = build("shoe", "shoe-framed", port.url, post)
    driver.start()
    while not isinstance(events.get(timeout=5)[1], DeviceOnline):
        pass
    out = []
    for i in range(samples):
        device.emit(shoe.Jam(i % 250 + 1))
        written = time.perf_counter()
        while True:
            stamp, event = events.get(timeout=5)
            if isinstance(event, ShoeJam):         # what the shoe driver posts for a Jam
                break
        out.append(stamp - written)
        time.sleep(0.001)                 # let the ACK go back before the next frame
    driver.stop()
    device.stop()
    out.sort()
    return statistics.median(out) * 1000, out[int(len(out) * 0.99)] * 1000


def main() -> None:
    cases = {
        "shoe HandDelivered": framed(shoe.catalog, shoe.host_decode,
                                     shoe.HandDelivered(1, ((1, 1), (20, 1), (51, 1)))),
        "sensors SpotReading": framed(sp.catalog, sp.host_decode, sp.SpotReading(3, 2, 1, 2500)),
        "alpha sign packets": alpha_packets(),
    }
    for name, (wire, decode_all) in cases.items():
        print(f"{name}: frames decoded/s: {rate(wire, decode_all):,.0f}")
    p50, p99 = latency()
    print(f"pty latency, last byte written -> event posted: p50 {p50:.3f} ms, p99 {p99:.3f} ms")


if __name__ == "__main__":
    main()
