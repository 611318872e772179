"""What the host turns on with UseCapabilities (docs/protocols/framing.md, Session messages): the
real shoe driver against the simulated shoe on a fake clock (tests/support/wire_bench.py)."""

from __future__ import annotations

import pytest

from drivers.events import DeviceOnline
from drivers.shoe import ShoeDriver
from drivers.wire.messages import CAP_AUTHENTICATION, CAP_KEEPS_EVENTS, CAP_TIMESTAMPS
from simulators.devices.shoe import SimulatedShoe
from tests.support.wire_bench import WireBench


@pytest.mark.parametrize(("paired", "used"), [(True, ["timestamps", "keeps events", "authentication"]),
                                              (False, ["timestamps", "keeps events"])])
def test_authentication_is_turned_on_only_on_a_link_the_host_holds_a_key_for(tmp_path, paired, used):
    """Bit 2 says a device can authenticate; the pairing decides whether it does. A plain link
    offered bit 2 used to journal 'authentication' among the capabilities used, on frames no one
    checked."""
    b = WireBench(tmp_path, lambda w, p, **kw: ShoeDriver("shoe", w, p, **kw),
                  lambda port, **kw: SimulatedShoe(port, **kw), paired=paired)
    b.run(1)
    (online,) = [e for e in b.events if isinstance(e, DeviceOnline)]
    assert online.info["identity"]["capabilities"] == ["timestamps", "keeps events", "authentication"]
    assert online.info["capabilities_used"] == used
    bits = CAP_TIMESTAMPS | CAP_KEEPS_EVENTS | (CAP_AUTHENTICATION if paired else 0)
    assert b.device.capabilities_used == bits
