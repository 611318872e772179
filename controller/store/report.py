"""The pit's report of a gaming day or a shift, read from the journal (never from memory).

Owns what ``table-controller report`` and the supervisor's page show, in integer cents:

- rounds complete, void and open among the rounds *opened* in the period (a round belongs
  to the gaming day and shift in which betting opened; its money counts once complete);
- per wager type (``Spot``): wagers, wagered, paid to players, taken, hold and hold %,
  beside the theoretical hold of the very wagers made (controller/rules/theory.py, the par
  sheet's figures for this table's pay tables) and one standard deviation of the hold %.
  The Ante Bonus is paid on the Ante, so the Ante's row counts it (``ante_bonus_paid``
  says how much of its paid it was); the Play is wagered only by a played hand;
- who dealt: each dealer's run of rounds, and the dealers' sign-ins (controller/store/report_dealers.py);
- jackpot hits, voids, and irregularities (misdeals, past posting, device faults) with
  their times: every journal ``alert`` of those kinds, in a round or between rounds, and
  the shoe's jams and door openings;
- ``timeline``: per complete round its time and per spot (stake, house's net, theoretical
  hold, variance), for the pictures (controller/page/charts.py); not part of the JSON.

Times in the report are local (controller/rules/gaming.py); the bounds select on the
journal's UTC times.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

from controller.rules.cap import paid_after_cap
from controller.rules.gaming import GamingClock
from controller.rules.paytable import Preset, load_preset
from controller.rules.spots import ANTE_BONUS, Spot
from controller.rules.theory import Expectation, lines
from controller.store.journal import Journal
from controller.store.report_dealers import dealer_runs, sign_ins

SPOTS: tuple[str, ...] = (Spot.ANTE.value, Spot.PLAY.value, Spot.PAIR_PLUS.value, Spot.SIX_CARD_BONUS.value,
                          Spot.SUPER6.value)
# the journal's alert kinds, by the irregularity a surveillance room looks for
IRREGULAR = {
    "misdeal": "misdeal",
    "past_posting": "past_posting", "play_amount": "past_posting",
    "device_fault": "device_fault", "device_offline": "device_fault", "sensor_fault": "device_fault",
    "shoe_error": "device_fault", "command_failed": "device_fault", "deck_check": "device_fault",
    "deck_count": "device_fault", "dead_hand": "device_fault", "unread_spot": "device_fault",
    "shoe_slow": "device_fault",
}
SHOE_EVENTS = {"jam": "The shoe jammed", "door": "The shoe's door was opened"}


def _iso(moment: datetime) -> str:
    """A bound as the journal writes its times, so that text compares as time."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def period(clock: GamingClock, day: date, shift: str | None) -> tuple[datetime, datetime]:
    """[start, end) in UTC of a gaming day, or of one of its shifts (KeyError naming the shifts)."""
    return clock.shift_bounds(day, shift) if shift else clock.day_bounds(day)


def build_report(journal: Journal, clock: GamingClock, day: date, shift: str | None = None, *,
                 table: str = "", preset: Preset | None = None) -> dict[str, Any]:
    start, end = period(clock, day, shift)
    lo, hi = _iso(start), _iso(end)
    db = journal.db
    rows = db.execute("SELECT id, status, opened_at, closed_at, preset, void_reason FROM rounds "
                      "WHERE opened_at >= ? AND opened_at < ? ORDER BY id", (lo, hi)).fetchall()
    ids = [r[0] for r in rows]
    per = {s: {"wagers": 0, "wagered": 0, "paid": 0, "taken": 0} for s in SPOTS}
    theory = {s: Expectation() for s in SPOTS}
    per[Spot.ANTE.value]["ante_bonus_paid"] = 0
    caps = 0
    hits: list[dict] = []
    voids: list[dict] = []
    timeline: list[dict] = []
    presets: dict[str, Preset] = {}
    for round_id, status, opened_at, closed_at, preset_name, void_reason in rows:
        if status == "void":
            row = db.execute("SELECT at, data FROM records WHERE round_id = ? AND kind = 'void' "
                             "ORDER BY seq DESC LIMIT 1", (round_id,)).fetchone()
            by = json.loads(row[1]).get("by") if row else None
            voids.append({"round": round_id, "at": _local(clock, row[0] if row else closed_at or opened_at),
                          "reason": void_reason, "by": by})
            continue
        if status != "complete":
            continue
        settled = db.execute("SELECT data FROM records WHERE round_id = ? AND kind = 'settlement' "
                             "ORDER BY seq DESC LIMIT 1", (round_id,)).fetchone()
        opened = db.execute("SELECT data FROM records WHERE round_id = ? AND kind = 'opened' "
                            "ORDER BY seq LIMIT 1", (round_id,)).fetchone()
        if settled is None:
            continue
        settlement = json.loads(settled[0])
        jackpots = json.loads(opened[0]).get("jackpots", {}) if opened else {}
        rules = presets.setdefault(preset_name, preset if preset and preset.name == preset_name
                                   else load_preset(preset_name))
        theory_lines = lines(rules, jackpots)
        moment = {s: [0, 0, 0.0, 0.0] for s in SPOTS}       # stake, house net, expected hold, variance
        for seat in settlement["seats"]:
            caps += seat["cap_reduction"]
            stakes = dict(seat["wagers"], play=seat["wagers"]["ante"] if seat["play"] else 0)
            # each wager as paid: a cut of the maximum payout off the wager it was reached on (controller/rules/cap.py)
            for line, result in paid_after_cap(seat["results"], seat["cap_reduction"]).items():
                spot = Spot.ANTE.value if line == ANTE_BONUS else line
                m = per[spot]
                m["paid" if result > 0 else "taken"] += abs(result)
                moment[spot][1] -= result
                if line == ANTE_BONUS:
                    m["ante_bonus_paid"] += max(result, 0)
                    continue
                stake = stakes.get(spot, 0)
                if stake:
                    m["wagers"] += 1
                    m["wagered"] += stake
                    line_theory = theory_lines[spot][stake if spot == Spot.SUPER6.value else 0]
                    theory[spot].add(stake, line_theory)
                    moment[spot][0] += stake
                    moment[spot][2] += stake * line_theory.hold
                    moment[spot][3] += (stake * line_theory.sigma) ** 2
        for hit in settlement.get("jackpot_hits", []):
            hits.append({"round": round_id, "at": _local(clock, closed_at), "seat": hit["seat"],
                         "jackpot": hit["jackpot"], "amount": hit["amount"], "posted": hit.get("posted")})
        timeline.append({"round": round_id, "at": closed_at, "spots": moment})
    wagers = {}
    for spot, m in per.items():
        m["hold"] = m["taken"] - m["paid"]
        t = theory[spot]
        wagers[spot] = dict(m, hold_percent=_pct(m["hold"], m["wagered"]),
                            theoretical_hold_percent=_round(t.hold_percent), sigma_percent=_round(t.sigma_percent),
                            theoretical_hold=round(t.held))
    # the wagers' figures are as paid, the maximum payout's cuts in them (``cap_reductions`` says how much)
    totals: dict[str, Any] = {k: sum(w[k] for w in per.values()) for k in ("wagered", "paid", "taken", "hold")}
    totals["hold_percent"] = _pct(totals["hold"], totals["wagered"])
    status = {s: sum(1 for r in rows if r[1] == s) for s in ("complete", "void", "open")}
    return {
        "table": table, "preset": preset.name if preset else (rows[0][4] if rows else ""),
        "gaming_day": day.isoformat(), "shift": shift, "gaming_day_settings": clock.describe(),
        "from": clock.local(start).isoformat(timespec="minutes"),
        "to": clock.local(end).isoformat(timespec="minutes"),
        "rounds": status, "first_round": ids[0] if ids else None, "last_round": ids[-1] if ids else None,
        "wagers": wagers, "cap_reductions": caps, "totals": totals,
        "jackpot_hits": hits, "voids": voids,
        "dealers": dealer_runs(journal, clock, rows), "dealer_sign_ins": sign_ins(journal, clock, lo, hi),
        "irregularities": _irregularities(journal, clock, lo, hi, ids),
        "rounds_per_hour": _per_hour(clock, [r[2] for r in rows]),
        "timeline": timeline,
        "journal_head": journal_head_before(journal, hi),
        "jackpot_postings": jackpot_postings(journal, clock, lo, hi),
    }


def jackpot_postings(journal: Journal, clock: GamingClock, lo: str, hi: str) -> list[dict[str, Any]]:
    """Every posting of jackpot values in the period (``jackpot_posted``): when (local time), who, why,
    the values before and after (integer cents)."""
    rows = journal.db.execute("SELECT at, data FROM table_events WHERE kind = 'jackpot_posted' AND at >= ? AND at < ? "
                              "ORDER BY seq", (lo, hi)).fetchall()
    out = []
    for at, data in rows:
        doc = json.loads(data)
        out.append({"at": _local(clock, at), "by": doc.get("by"), "reason": doc.get("reason"),
                    "old": doc.get("old") or {}, "values": doc.get("values") or {}})
    return out


def journal_head_before(journal: Journal, before: str) -> dict[str, Any] | None:
    """The keyed chain's last fact journaled before ``before`` (UTC): the outside anchor a gaming
    day's papers keep. Once the period has ended, the same report printed again gives the same head,
    and ``verify --anchor FACT:DIGEST`` proves a journal still holds it: a journal and trail rolled
    back together to an older copy cannot (docs/deploy.md, "A journal rolled back")."""
    row = journal.db.execute("SELECT chain, digest, at FROM (SELECT chain, digest, at FROM records WHERE chain IS NOT "
                             "NULL AND at < :t UNION ALL SELECT chain, digest, at FROM table_events WHERE chain "
                             "IS NOT NULL AND at < :t) ORDER BY chain DESC LIMIT 1", {"t": before}).fetchone()
    return {"fact": row[0], "digest": row[1], "at": row[2]} if row else None


def _irregularities(journal: Journal, clock: GamingClock, lo: str, hi: str, ids: list[int]) -> list[dict]:
    """Alerts of the irregular kinds in the period's rounds and between rounds, with the shoe's
    jams and door openings, in time order."""
    found = []
    marks = ",".join("?" * len(ids))
    in_rounds = (journal.db.execute(f"SELECT round_id, at, data FROM records WHERE kind = 'alert' "
                                    f"AND round_id IN ({marks})", ids).fetchall() if ids else [])
    between = journal.db.execute("SELECT NULL, at, data FROM table_events WHERE kind = 'alert' AND at >= ? "
                                 "AND at < ?", (lo, hi)).fetchall()
    for round_id, at, data in in_rounds + between:
        alert = json.loads(data)
        category = IRREGULAR.get(alert.get("kind", ""))
        if category:
            found.append({"at": at, "round": round_id, "category": category, "kind": alert["kind"],
                          "position": alert.get("position"), "message": alert.get("message", "")})
    for at, kind, data in journal.db.execute("SELECT at, kind, data FROM table_events WHERE kind IN "
                                             "('jam', 'door') AND at >= ? AND at < ?", (lo, hi)):
        detail = json.loads(data).get("description")
        found.append({"at": at, "round": None, "category": "device_fault", "kind": kind, "position": None,
                      "message": SHOE_EVENTS[kind] + (f": {detail}" if detail else "")})
    found.sort(key=lambda f: f["at"])
    for f in found:
        f["utc"], f["at"] = f["at"], _local(clock, f["at"])
    return found


def _per_hour(clock: GamingClock, opened: list[str]) -> dict[str, int]:
    """Rounds opened in each local hour ("14:00"), in the order the hours came."""
    hours: dict[str, int] = {}
    for at in opened:
        hour = clock.local(at).strftime("%Y-%m-%dT%H:00")
        hours[hour] = hours.get(hour, 0) + 1
    return hours


def _local(clock: GamingClock, at: str | None) -> str | None:
    return clock.local(at).isoformat(timespec="seconds") if at else None


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 4) if whole else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
