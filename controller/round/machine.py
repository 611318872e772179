"""The round procedure as data for ``transitions``: states, triggers and their conditions.

Owns what may happen when. Every dealer touch, device fact and automatic
step is a trigger listed here; a trigger not listed for the current state is
refused, and one whose conditions fail is refused with the reason the
condition left (``Clerk.refusal``). The dealer page offers the actions of
each state (``ACTIONS``, ``available_actions``), less those the table does not
offer now (controller/round/view.py). The conditions are answered by
controller/round/conditions.py, the records a transition journals and the
actions inside a state by controller/round/records.py, what entering a state
asks of the devices by the model (controller/round/table.py); each stays
small (``build`` binds the names). ``docs/state-machine.md`` is generated
from these lists (``python -m controller.round.machine``) and a test fails when the
committed diagram differs.

Internal triggers (``dest: None``) are actions inside a state (a decision, a
confirmed payment); they run their callbacks without leaving the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from transitions import Machine

STATES = [
    "starting",     # self-check: journal, configuration, devices answering
    "ready",        # no round open; the dealer may open betting
    "betting",      # wagers seen on the spots and checked against the limits
    "closed",       # "No more bets" said (positions without Pair Plus named), spots locked
    "dealing",      # hands coming from the shoe
    "decisions",    # players play (Play chips equal to the Ante) or fold
    "collecting",   # the dealer collects the folded hands and their forfeited wagers
    "settling",     # dealer's hand revealed; positions paid from the dealer's right
    "complete",     # the round is settled
    "void",         # the round was voided (misdeal, supervisor): wagers returned
    "held",         # a device needed by the round is lost, jammed or open
]

ROUND_STATES = ("betting", "closed", "dealing", "decisions", "collecting", "settling")
HOLDABLE = ("dealing", "decisions")

TRANSITIONS: list[dict[str, Any]] = [
    # start-up and recovery: nothing opens before the self-check passes
    {"trigger": "self_check_passed", "source": "starting", "dest": "ready",
     "conditions": ["devices_answering", "no_open_round"]},
    {"trigger": "replay_failed", "source": "starting", "dest": "void",
     "conditions": ["devices_answering", "replay_invalid"]},
    *({"trigger": "recover", "source": "starting", "dest": state,
       "conditions": ["devices_answering", "recovering_into"]} for state in ROUND_STATES),

    # the round
    {"trigger": "open_betting", "source": ["ready", "complete", "void"], "dest": "betting",
     "prepare": "sign_out_removed_dealer", "conditions": ["devices_answering", "dealer_on_duty"]},
    {"trigger": "no_more_bets", "source": "betting", "dest": "closed",
     "conditions": ["sensors_online", "deck_ready", "has_wagers", "wagers_valid"]},
    {"trigger": "deal", "source": "closed", "dest": "dealing",
     "conditions": ["sensors_online", "deck_ready"]},
    {"trigger": "all_dealt", "source": "dealing", "dest": "decisions", "conditions": "hands_complete"},
    {"trigger": "play", "source": "decisions", "dest": None, "conditions": ["position_undecided", "play_on_felt"],
     "after": "record_play"},
    {"trigger": "fold", "source": "decisions", "dest": None, "conditions": ["position_undecided", "no_play_chips"],
     "after": "record_fold"},
    {"trigger": "all_decided", "source": "decisions", "dest": "collecting", "conditions": "decisions_complete"},
    {"trigger": "reveal", "source": "collecting", "dest": "settling"},
    {"trigger": "verify_jackpot", "source": "settling", "dest": None, "conditions": "jackpot_unverified",
     "after": "record_jackpot_verified"},
    {"trigger": "refer_jackpot", "source": "settling", "dest": None, "conditions": "jackpot_refused",
     "after": "record_jackpot_referred"},
    {"trigger": "confirm", "source": "settling", "dest": None, "conditions": "position_next_to_pay",
     "after": "record_paid"},
    {"trigger": "all_paid", "source": "settling", "dest": "complete", "conditions": "everything_paid"},

    # betting-time actions
    {"trigger": "link_positions", "source": "betting", "dest": None, "conditions": "positions_linkable",
     "after": "record_link"},
    {"trigger": "unlink_positions", "source": "betting", "dest": None, "after": "record_unlink"},
    {"trigger": "override_wager", "source": ["betting", "decisions"], "dest": None,
     "conditions": "override_valid", "after": "record_override"},

    # irregularities
    {"trigger": "misdeal", "source": ["dealing", "decisions", "collecting", "held"], "dest": "void"},
    # the shoe's deck is short, long or mixed (its check after the shuffle, or its own count): a
    # misdeal before any card reaches a player
    {"trigger": "deck_failed", "source": ["betting", "closed"], "dest": "void"},
    {"trigger": "void_round", "source": ["betting", "closed", "dealing", "decisions", "collecting", "held"],
     "dest": "void",
     "conditions": ["reason_given", "nothing_paid"]},
    {"trigger": "hold", "source": list(HOLDABLE), "dest": "held", "conditions": "something_holding"},
    *({"trigger": "resume", "source": "held", "dest": state,
       "conditions": ["nothing_holding", "held_from_here"]} for state in HOLDABLE),
]

# What a transition that changes state journals besides the ``state`` record itself: the records
# written before it and after it. Each kind's data is made by ``Records.journal_<kind>`` (records.py); no
# other code decides what a transition journals (controller/round/facts.py lists the kinds).
JOURNALS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "recover": (("recovery",), ()),         # an alert: the round continues after a restart
    "replay_failed": (("void",), ()),       # a replayed fact does not hold: the round cannot go on
    "open_betting": (("opened",), ()),      # a new round, in one record with everything it needs
    "no_more_bets": (("wagers",), ()),      # the wagers accepted, as they lay on the felt
    # every position's result, each linked jackpot hit to claim on the floor; the folds' forfeits
    "reveal": (("settlement", "jackpot_pending"), ("folds_collected",)),
    "misdeal": (("void",), ()),
    "deck_failed": (("void",), ()),
    "void_round": (("void",), ()),
    "all_paid": ((), ("complete",)),
}

# What a change on the felt is in each state (a held round: the state the hold interrupted):
#   wager   a bet being made: checked against limits and offers, its lamp flashed when refused
#   locked  the spots are locked: any change is past posting, never accepted; only the Play spot of
#           a position still to decide is its decision (in DECIDING_STATES)
# A state not listed does not look at the felt.
#   collecting  locked, but chips leave the spots of a folded position: the dealer collects them
#   paying  settlement: chips leave a spot, or are added to it, only where the dealer is settling
#           (the position next to pay) or has settled; anywhere else it is past posting
FELT_CHANGES = {"betting": "wager", "closed": "locked", "dealing": "locked", "decisions": "locked",
                "collecting": "collecting", "settling": "paying"}
DECIDING_STATES = ("decisions",)

# The states in which each of the shoe's facts belongs to the round; elsewhere it is ignored
# (a reshuffle after a void, a count nobody asked for) or, for a hand, a dead hand.
SHOE_FACTS = {"shuffled": ("betting",), "deck_check": ("betting", "closed"), "hand": ("dealing",),
              "count": ("dealing",)}
DEAD_HAND_STATES = ("dealing", "decisions", "held")     # a stray hand is journaled as a dead hand

# triggers the dealer (or supervisor) may touch; the rest come from devices and the engine
DEALER_ACTIONS = ("open_betting", "no_more_bets", "deal", "play", "fold", "reveal", "confirm", "misdeal",
                  "link_positions", "unlink_positions", "override_wager", "void_round", "verify_jackpot",
                  "refer_jackpot")
# actions outside the round's procedure, taken by the table itself in any state (each method
# refuses with a reason where it does not apply, e.g. a meter reset while a round is open)
TABLE_ACTIONS = ("call_supervisor", "reset_meters", "set_jackpots", "sign_in_dealer", "sign_out_dealer")
# The arguments each action takes (any other is refused), and each argument's type: the one
# declaration the engine checks and the page's request fence derives from.
ACTION_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "open_betting": (), "no_more_bets": (), "deal": (), "reveal": (), "play": ("position",), "fold": ("position",),
    "confirm": ("position",), "misdeal": ("reason",), "link_positions": ("position", "other"),
    "unlink_positions": ("position",), "override_wager": ("position", "spot", "amount", "reason"),
    "void_round": ("reason",), "verify_jackpot": ("reason",), "refer_jackpot": ("reason",),
    "call_supervisor": ("reason",),
    "reset_meters": ("reason",), "set_jackpots": ("reason", "mega", "major", "minor"),
    "sign_in_dealer": (), "sign_out_dealer": (),
}
# the arguments an action cannot go without (a link's two positions are asked for by its condition, in words)
NEEDED_ARGUMENTS: dict[str, tuple[str, ...]] = {
    a: ("position",) for a in ("play", "fold", "confirm", "unlink_positions", "override_wager")}
ARGUMENT_TYPES: dict[str, type] = {"position": int, "other": int, "spot": str, "amount": int, "reason": str,
                                   "mega": int, "major": int, "minor": int}
# actions that need a supervisor's or technician's PIN (controller/store/pins.py)
SUPERVISOR_ACTIONS = ("void_round", "override_wager", "reset_meters", "set_jackpots", "verify_jackpot",
                      "refer_jackpot")
# every action that needs a PIN, and whose: the page checks the PIN against the PIN file's holders of
# those roles and names the holder as the action's author. A dealer signs in with their own PIN (the
# name they sign in under is the holder's, never a name the request gives).
PIN_ROLES: dict[str, tuple[str, ...]] = {**{a: ("supervisor", "technician") for a in SUPERVISOR_ACTIONS},
                                         "sign_in_dealer": ("dealer",),
                                         # the dealer on duty's own PIN, or a supervisor's (shift.py checks whose)
                                         "sign_out_dealer": ("dealer", "supervisor", "technician")}
# the dealer on duty changes between rounds only: a round is dealt by one dealer, named in its record
SHIFT_ACTIONS = ("sign_in_dealer", "sign_out_dealer")
BETWEEN_ROUNDS = ("ready", "complete", "void")
# tried after every event, in this order, so the round moves on by itself when it can
AUTOMATIC = ("self_check_passed", "replay_failed", "recover", "all_dealt", "all_decided", "all_paid", "hold", "resume")
# For each automatic trigger, a condition every one of its transitions has, callable without an
# event: the engine asks it first and fires the trigger only when it holds. After most events none
# of them does, and a refused trigger costs transitions' whole machinery (about 30 a round). A test
# checks each guard against the transitions above.
GUARDS = {"self_check_passed": "devices_answering", "replay_failed": "replay_invalid",
          "recover": "devices_answering", "all_dealt": "hands_complete", "all_decided": "decisions_complete",
          "all_paid": "everything_paid", "hold": "something_holding", "resume": "nothing_holding"}
# states whose lamps, locks and prompt concern one round in play (the snapshot shows its alerts)
IN_PLAY = ("betting", "closed", "dealing", "decisions", "collecting", "settling", "held")


def build(model, answers: Sequence[object] = (), initial: str = "starting") -> Machine:
    """The machine driving ``model``. Each condition and callback the lists above name (and
    ``record_state``, before every change of state) is the method of that name of the first of
    ``answers`` that has one (controller/round/table.py passes its conditions and its records);
    a name none of them has is looked up on the model when called, as ``transitions`` does."""
    def bound(name: str) -> Any:
        return next((found for part in answers if callable(found := getattr(part, name, None))), name)

    def bind(names: str | list[str]) -> Any:
        return bound(names) if isinstance(names, str) else [bound(n) for n in names]

    transitions = [{k: bind(v) if k in ("prepare", "conditions", "after") else v for k, v in t.items()}
                   for t in TRANSITIONS]
    return Machine(model=model, states=STATES, transitions=cast(Any, transitions), initial=initial,
                   auto_transitions=False, send_event=True, queued=False,
                   before_state_change=bound("record_state"), model_attribute="state")


def _triggers_by_state() -> dict[str, frozenset[str]]:
    by_state: dict[str, set[str]] = {state: set() for state in STATES}
    for t in TRANSITIONS:
        sources = STATES if t["source"] == "*" else [t["source"]] if isinstance(t["source"], str) else t["source"]
        for source in sources:
            by_state[source].add(t["trigger"])
    return {state: frozenset(triggers) for state, triggers in by_state.items()}


# The triggers leaving each state, read once from the lists above: the engine asks after every
# event (transitions' own get_triggers walks every event each time).
TRIGGERS = _triggers_by_state()


def _actions_in(state: str) -> tuple[str, ...]:
    triggers = TRIGGERS[state]
    table = ["call_supervisor"] + (["reset_meters", "set_jackpots", *SHIFT_ACTIONS] if state in BETWEEN_ROUNDS
                                   else [])
    return (*[a for a in DEALER_ACTIONS if a in triggers], *table)


ACTIONS = {state: _actions_in(state) for state in TRIGGERS}     # read once: every snapshot asks


def available_actions(state: str) -> list[str]:
    """The dealer's and supervisor's actions that exist in ``state`` (their conditions are checked
    when touched)."""
    return list(ACTIONS[state])


def mermaid() -> str:
    """The state diagram, from the lists above (``transitions``' mermaid engine)."""
    from transitions.extensions.diagrams import GraphMachine

    class _Model:
        pass

    model: Any = _Model()
    GraphMachine(model=model, states=STATES, transitions=cast(Any, TRANSITIONS), initial="starting",
                 auto_transitions=False, graph_engine="mermaid", show_conditions=True,
                 title="Three Card Poker round")
    return str(model.get_graph().draw(None))


DIAGRAM_PATH = "docs/state-machine.md"


def diagram_document() -> str:
    return ("# The round as a state machine\n\n"
            "Generated from `controller/round/machine.py` by `python -m controller.round.machine`; "
            "`tests/round/test_machine.py` fails when this file differs from the code.\n\n"
            "Internal triggers (play, fold, confirm, link) are actions inside a state and are drawn "
            "as loops.\n\n"
            "```mermaid\n" + mermaid().strip() + "\n```\n")


if __name__ == "__main__":
    import pathlib
    pathlib.Path(DIAGRAM_PATH).write_text(diagram_document(), encoding="utf-8")
    print(f"wrote {DIAGRAM_PATH}")
