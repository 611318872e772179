"""What ties a forwarded record to its table: the floor key and each record's MAC (pure).

The journal's own digests are HMACs under the table's journal key, which never leaves the
table (with it, anybody could rewrite the journal). The floor checks each record with a
second key instead, the *floor key*: HMAC-SHA256 of ``floor|<table id>`` under the journal
key, given to the floor once when the table is enrolled. Knowing it lets the floor verify (and
its administrator forge) floor records, never extend the table's journal. A record's MAC
covers the table, the seq, every field the floor stores and the journal's previous and own
digests, so the floor catches an altered, invented or misplaced record on arrival
(controller/floor/schema.sql, ``floor.check_record``).
"""

from __future__ import annotations

import hashlib
import hmac

from controller.store.outbox import Fact


def floor_key(journal_key: bytes, table_id: str) -> bytes:
    return hmac.new(journal_key, f"floor|{table_id}".encode(), hashlib.sha256).digest()


def record_mac(key: bytes, table_id: str, fact: Fact) -> str:
    """The MAC ``floor.check_record`` recomputes with pgcrypto: the same fields, joined by ``|``."""
    round_id = "-" if fact.round_id is None else str(fact.round_id)
    message = "|".join((table_id, str(fact.chain), fact.source, round_id, fact.at, fact.kind, fact.text,
                        fact.prev, fact.digest))
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def record_row(key: bytes, table_id: str, fact: Fact) -> tuple:
    """The row the forwarder inserts (the columns of ``INSERT_RECORD``)."""
    return (table_id, fact.chain, fact.source, fact.round_id, fact.at, fact.kind, fact.text, fact.prev,
            fact.digest, record_mac(key, table_id, fact))


ROW = "(%s, %s, %s, %s, %s, %s, %s::json, %s, %s, %s)"


def insert_batch(count: int) -> str:
    """One INSERT of ``count`` rows (the columns of ``record_row``), in order: one statement a batch,
    so the floor's per-statement work (the pit's notice) is done once; ``check_record`` still sees
    each row after the ones before it in the same statement."""
    return (INSERT_RECORD.split(" VALUES ")[0] + " VALUES " + ", ".join([ROW] * count)
            + " ON CONFLICT (table_id, seq) DO NOTHING")


INSERT_RECORD = ("INSERT INTO floor.records "
                 "(table_id, seq, source, round_id, at, kind, body, prev_hash, chain_hash, mac) "
                 "VALUES (%s, %s, %s, %s, %s, %s, %s::json, %s, %s, %s) ON CONFLICT (table_id, seq) DO NOTHING")
