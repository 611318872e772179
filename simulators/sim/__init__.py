"""The deterministic simulation: the real engine, round, store and drivers wired in memory to the
simulated devices, on one thread, on a virtual clock, every choice from one seed (docs/cli.md,
``table-sim soak``). Modules: clock (virtual time and the timers), links (the byte pipes and the
drivers' loop), world (one table), faults, check (every round settled again), campaign (seeds, jobs).
"""
