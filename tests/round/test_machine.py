"""The procedure's definition: the committed diagram matches it, and its names resolve."""


from controller.round import machine
from controller.round.conditions import Conditions
from controller.round.records import Records
from controller.round.table import Table
from tests.support import ROOT


def test_committed_diagram_is_generated_from_the_machine():
    committed = (ROOT / machine.DIAGRAM_PATH).read_text(encoding="utf-8")
    assert committed == machine.diagram_document(), \
        "docs/state-machine.md is stale: run `python -m controller.round.machine`"


def test_every_condition_and_callback_named_in_the_data_is_answered_by_exactly_one_part():
    """``machine.build`` binds each name to the conditions or the records: a name both had would
    be answered by whichever came first, one neither has would fail only when fired."""
    conditions, callbacks = set(), {"record_state"}
    for t in machine.TRANSITIONS:
        for key, names in (("conditions", conditions), ("after", callbacks)):
            value = t.get(key, [])
            names.update([value] if isinstance(value, str) else value)
    callbacks |= {f"journal_{kind}" for pair in machine.JOURNALS.values() for kinds in pair for kind in kinds}
    assert sorted(n for n in conditions if not callable(getattr(Conditions, n, None))) == []
    assert sorted(n for n in callbacks if not callable(getattr(Records, n, None))) == []
    public = [{n for n in dir(part) if not n.startswith("_")} for part in (Conditions, Records)]
    assert not public[0] & public[1]
    # what entering a state asks of the devices is the model's, found by ``transitions`` by its name
    assert all(callable(getattr(Table, f"on_enter_{state}", None)) for state in machine.STATES
               if state not in ("starting", "ready", "complete"))


def test_dealer_actions_and_automatic_steps_are_triggers():
    triggers = {t["trigger"] for t in machine.TRANSITIONS}
    assert set(machine.DEALER_ACTIONS) <= triggers and set(machine.AUTOMATIC) <= triggers
    assert set(machine.SUPERVISOR_ACTIONS) <= set(machine.DEALER_ACTIONS) | set(machine.TABLE_ACTIONS)
    # every action declares its arguments, and every argument its type
    assert set(machine.ACTION_ARGUMENTS) == set(machine.DEALER_ACTIONS) | set(machine.TABLE_ACTIONS)
    assert {a for args in machine.ACTION_ARGUMENTS.values() for a in args} == set(machine.ARGUMENT_TYPES)
    # table actions are methods of the table, not round triggers
    assert not set(machine.TABLE_ACTIONS) & triggers
    assert all(callable(getattr(Table, a, None)) for a in machine.TABLE_ACTIONS)


def test_the_triggers_read_from_the_lists_are_those_transitions_finds():
    """The engine's table of triggers per state (read once) against the library's own search."""
    class Model:
        pass
    built = machine.build(Model())
    for state in machine.STATES:
        assert machine.TRIGGERS[state] == set(built.get_triggers(state)), state
    assert "no_more_bets" in machine.TRIGGERS["betting"] and "open_betting" not in machine.TRIGGERS["betting"]


def test_each_automatic_trigger_has_a_guard_every_one_of_its_transitions_needs():
    """The engine fires an automatic trigger only when its guard holds: a guard missing from one of
    the trigger's transitions would keep that transition from ever being taken."""
    import inspect
    assert set(machine.GUARDS) == set(machine.AUTOMATIC)
    for trigger, guard in machine.GUARDS.items():
        transitions = [t for t in machine.TRANSITIONS if t["trigger"] == trigger]
        assert transitions, trigger
        for t in transitions:
            conditions = [t["conditions"]] if isinstance(t.get("conditions"), str) else t.get("conditions", [])
            assert guard in conditions, (trigger, t)
        # asked without an event
        assert inspect.signature(getattr(Conditions, guard)).parameters["event"].default is None, guard
