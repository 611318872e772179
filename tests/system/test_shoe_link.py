"""The whole table through a shoe that drops off the line in the middle of a deal, over the
authenticated link the simulators use by default (docs/protocols/shoe.md, framing.md)."""

import json

from drivers.wire import shoe_protocol as shoe
from tests.support.rig import QUICK_SILENCE, table


def test_a_shoe_lost_mid_deal_comes_back_with_the_hand_it_formed_and_the_round_goes_on(tmp_path):
    with table(tmp_path, "sheet-002", silence_after=QUICK_SILENCE) as rig:
        rig.open_and_bet({1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 1000}})
        device = rig.run.sim.shoe

        def cut_after_hand_2(direction, message):      # hand 2 formed, its report lost on the line
            if direction == "sent" and isinstance(message, shoe.HandDelivered) and message.hand_no == 2:
                device.listeners.remove(cut_after_hand_2)
                device.silent = True
        device.listeners.append(cut_after_hand_2)
        rig.deal()
        rig.state("held", timeout=15)
        assert list(device.hands) == [1, 2] and len(rig.records("hand")) == 1
        device.silent = False                           # the cable is back
        rig.state("decisions", timeout=15)
        hands = rig.records("hand")
        assert [r.data["hand_no"] for r in hands] == [1, 2, 3, 4] and [r.data["target"] for r in hands] == [1, 2, 3, 0]
        assert [r.data["cards"] for r in hands] == [[list(c) for c in device.hands[n]] for n in (1, 2, 3, 4)]
        assert all(r.data["device_time"] for r in hands)                 # each stamped by the shoe
        assert len(device.dealt) == 12                                   # four hands formed, none twice
        kinds = [a["kind"] for a in rig.snap["alerts"]]
        assert "dead_hand" not in kinds and "misdeal" not in kinds and "device_security" not in kinds
        identities = [json.loads(d) for (d,) in rig.journal.db.execute(
            "SELECT data FROM table_events WHERE kind = 'device_identity'")]
        assert {i["device"] for i in identities} == {"shoe", "sensors"}
        assert sum(i["device"] == "shoe" for i in identities) == 2       # at start and after the return
        assert rig.snap["devices"]["shoe"]["identity"]["model"] == "SimulatedShoe"


def test_a_technician_reads_each_devices_identity_from_the_journal(tmp_path):
    import subprocess
    import sys
    with table(tmp_path, "sheet-002") as rig:
        rig.wait(lambda s: s["devices"]["sensors"]["identity"] and s["devices"]["shoe"]["identity"],
                 what="both devices identified")
    data = str(tmp_path / "data")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "devices", "--json", "--data-dir", data],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert sorted(doc["devices"]) == ["sensors", "shoe"]
    shoe_id = doc["devices"]["shoe"]
    assert (shoe_id["manufacturer"], shoe_id["model"], shoe_id["firmware_version"], shoe_id["protocol_version"]) == \
        ("Table simulators", "SimulatedShoe", "1.0", 1)
    assert len(shoe_id["firmware_checksum"]) == 64 and shoe_id["at"]
    assert {c["device"] for c in doc["connects"]} == {"shoe", "sensors"}
    text = subprocess.run([sys.executable, "-m", "controller.cli", "devices", "--data-dir", data],
                          capture_output=True, text=True, timeout=60).stdout
    assert "shoe: Table simulators SimulatedShoe, serial SIM-SimulatedShoe, firmware 1.0" in text
    bad = subprocess.run([sys.executable, "-m", "controller.cli", "devices", "--last", "0", "--data-dir", data],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--last 0: give 1 to 1000 connects" in bad.stderr
