"""Start-up: the self-check, and the open round found in the journal, re-checked before it goes on.

Owns what the table learns at start-up: the journal's integrity (no round opens
on a journal that cannot be trusted) and the configuration against the last
run's, the round the journal left open (``found``), and what does not hold in
it when replayed (``problem``: a misdeal in its cards, a wager the table could
not accept, a round opened under another game), which voids it instead of
carrying it on. A round being paid is never voided: it is finished as its
settlement says, or the table does not start (``RecoveryRefused``). Recovery
is over once the table leaves ``starting`` (``end``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.errors import InputError
from controller.round.clerk import Clerk
from controller.round.dealing import card_problem
from controller.round.facts import DEAD_HAND, UNREADABLE, Round
from controller.round.felt import Felt
from controller.rules.words import positions_named

if TYPE_CHECKING:
    from controller.app.config import TableConfig


class RecoveryRefused(InputError):
    """The open round in the journal cannot be finished under this configuration, and may not be
    voided (it is being paid): the table does not start, and says what to put back."""


class Recovery:
    def __init__(self, clerk: Clerk, config: TableConfig) -> None:
        self._clerk = clerk
        self._config = config
        self._found: Round | None = None        # the open round found in the journal at start-up
        self._problem: str | None = None        # what does not hold in it, when something does not

    def self_check(self) -> None:
        """Journal integrity (raises: no round opens on a journal that cannot be trusted) and the
        configuration against the last run's; devices answering is a condition of leaving
        ``starting``."""
        journal, log = self._clerk.journal, self._clerk.log
        checked = journal.check_at_start()
        previous = journal.meta("config_digest")
        digest = self._config.digest
        if previous is not None and previous != digest:
            # the digests are the journal's evidence (the table event); the dealer is told what it means
            at = journal.table_event("config_changed", {"old": previous, "new": digest, "source": self._config.source})
            self._clerk.show("config_changed", "The table's settings were changed since it last ran: call a "
                             "supervisor to confirm them before play", at)
            log.warning("table.config_changed", old=previous, new=digest, state="starting", round=None)
        journal.set_meta("config_digest", digest)
        log.info("table.self_check", journal_records_checked=checked, config_digest=digest,
                 state="starting", round=None)

    def load(self, linked: bool, felt: Felt) -> None:
        """The round the journal left open, made the clerk's open round, with what does not hold in it."""
        journal = self._clerk.journal
        last = journal.last_round()
        if last is None or last[1] != "open":
            return
        rnd = Round.from_records(last[0], journal.records(last[0]))
        if rnd.settlement is not None and rnd.floor_waiting and not linked:
            # being paid, so never voided; its linked jackpot is paid once the floor's split is final,
            # and without [floor] no claim is sent and no answer comes: the round could never end
            raise RecoveryRefused(
                f"round {rnd.id} is being paid and its linked jackpot at "
                f"{positions_named(sorted(rnd.floor_waiting))} waits for the floor's final amount, but this "
                "configuration has no [floor] jackpot group: put the [floor] section back to finish the round")
        self._clerk.round = self._found = rnd
        self._problem = self._replayed_problem(rnd, felt)

    def found(self) -> Round | None:
        return self._found

    def problem(self) -> str | None:
        return self._problem

    def end(self) -> None:
        self._found = None

    def _replayed_problem(self, rnd: Round, felt: Felt) -> str | None:
        """Recovery re-checks what it replays, the cards first: a hand that is a misdeal (whatever
        stopped the process before it voided the round) or a wager the table could not accept
        voids the round instead of carrying it on. A round whose settlement is journaled is paid as
        the reveal announced it, whatever the configuration says now: its amounts are in the journal,
        and positions may have been paid already (voided, they would have their wagers back too)."""
        config = self._config
        unsettled = rnd.settlement is None
        if unsettled and rnd.preset and rnd.preset != config.preset.name:
            return f"on recovery: the round opened under preset {rnd.preset}, not {config.preset.name}"
        # what it was played under: a device moved to another port is not another game (a round
        # opened by an earlier release has only the whole file's digest)
        opened_under, now = ((rnd.play_digest, config.play_digest) if rnd.play_digest
                             else (rnd.config_digest, config.digest))
        if unsettled and opened_under and opened_under != now:
            return "on recovery: the round opened under another configuration; it is not settled under this one"
        seen: set[int] = set()
        for record in self._clerk.journal.records(rnd.id):
            if record.kind != "hand":
                continue
            cards = tuple((None if c == UNREADABLE else c, deck) for c, deck in record.data["cards"])
            if record.data["target"] != DEAD_HAND:      # as dealt live: a dead hand's cards count as seen
                problem = card_problem(cards, record.data["target"], seen, rnd.deck)
                if problem:
                    return f"on recovery: {problem}"
            seen.update(c for c, _ in cards if c is not None)
        for position, wagers in rnd.wagers.items() if unsettled else ():
            for spot, amount in wagers.items():
                problem = felt.stack_problem(spot, amount, None) if amount else None
                if problem or not config.has_position(position):
                    return f"on recovery: position {position} {spot}: {problem or 'no such position'}"
        return None
