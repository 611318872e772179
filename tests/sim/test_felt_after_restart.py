"""A restart whose sensors go quiet during the handshake (simulation tier: the real engine, journal
and drivers on the in-memory links and the virtual clock).

The 100,000-round campaign's 7 ``stuck`` rounds, each at ``complete`` waiting for Open betting, were
this (seed 5066 round 224 traced; the other six played past their stuck round once it was fixed):
the table restarted mid-settlement, the sensors went quiet for 2.5 s just after the host took them
online, the host's SetClock and SnapshotRequest went unacknowledged and the Snapshot was never asked
for again. The round was settled on an empty felt; at ``complete`` the felt still read empty while the
players' chips lay on it, so the dealer, waiting for the felt to be cleared, never opened betting."""

from __future__ import annotations

from drivers.wire.messages import UseCapabilities
from simulators.sim.world import World, WorldOptions

RESTART_AFTER = 2.0


def test_a_table_restarted_while_settling_reads_the_felt_and_plays_on(tmp_path):
    world = World(WorldOptions(seed=11), tmp_path / "table")
    world.dealer.rounds = 4
    restarted: list[float] = []

    def quiet_after_the_handshake(direction: str, message: object) -> None:
        # the restarted host's first session message: the sensors take it, then say nothing for 2.5 s
        if restarted and len(restarted) == 1 and direction == "received" and isinstance(message, UseCapabilities):
            restarted.append(world.clock.now)
            world.sim.sensors.silent = True
            world.clock.after(2.5, lambda: setattr(world.sim.sensors, "silent", False))
    world.sim.sensors.listeners.append(quiet_after_the_handshake)

    def crash_in_settling(snap: dict) -> None:
        if snap["state"] == "settling" and snap["round"] == 2 and not restarted:
            restarted.append(world.clock.now)
            world.clock.after(0.0, world.crash)
            world.clock.after(RESTART_AFTER, world.start)
    world.observers.append(crash_in_settling)
    world.start()
    try:
        while not world.dealer.done.is_set() and world.clock.now < 900 and world.advance():
            pass
        assert len(restarted) == 2, "the restart and the sensors' silence both happened"
        assert world.engine is not None and world.engine.halted is None
        assert world.dealer.finished >= 4, (world.clock.now, world.engine.snapshot["state"],
                                            world.engine.snapshot["prompt"])
        felt = {p["position"]: p["felt"] for p in world.engine.snapshot["positions"] if p["felt"]}
        assert world.engine.ports.sensors.felt_read and world.engine.ports.sensors.spots == {
            (p, s): v for (p, s), v in world.sim.sensors.spots.items()}
        assert felt or not world.sim.sensors.spots
    finally:
        world.close()
