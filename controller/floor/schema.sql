-- The floor's database, schema version 8 (controller/floor/schema.py applies it; docs/floor.md explains it).
-- Applied once by the floor's administrator (a superuser: pgcrypto is an extension), in one transaction.

CREATE EXTENSION IF NOT EXISTS pgcrypto;        -- hmac(): the floor checks each record's MAC itself
CREATE SCHEMA floor;

CREATE TABLE floor.meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO floor.meta VALUES ('schema_version', '10');

-- Every table of the floor, and the database role it logs in as (one role per table).
CREATE TABLE floor.tables (
    id          text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 32),
    role        name NOT NULL UNIQUE,
    enrolled_at timestamptz NOT NULL DEFAULT now()
);

-- Each table's floor key (derived from its journal key, controller/floor/link.py): the floor
-- verifies every record's MAC with it. No table role can read this table.
CREATE TABLE floor.table_keys (
    table_id  text PRIMARY KEY REFERENCES floor.tables(id),
    floor_key bytea NOT NULL CHECK (length(floor_key) = 32)
);

-- Every fact of every table's journal, in the journal's chain order: seq is the fact's number on
-- the table's keyed chain (round records and table events alike), so a table's seqs run 1, 2, 3...
-- One table, not partitioned (schema version 8): partitioned by hash (version 6) it ingested 3,220
-- records/s where one table took 5,488, and the pit's answer went from 62 to 252 ms p99 (a query
-- through the parent locks every partition it may touch, past a backend's fast-path locks, so 500
-- busy backends meet in the shared lock table). docs/floor.md says when to partition, and how.
CREATE TABLE floor.records (
    table_id    text NOT NULL REFERENCES floor.tables(id),
    seq         bigint NOT NULL CHECK (seq > 0),
    source      text NOT NULL CHECK (source IN ('records', 'table_events')),
    round_id    bigint,                           -- the table's round (NULL for a table event)
    at          text NOT NULL,                    -- the journal's time, exactly as it was chained
    kind        text NOT NULL,
    body        json NOT NULL,                    -- json, not jsonb: the exact text the MAC covers
    prev_hash   char(64) NOT NULL,                -- the journal's digest of the fact before
    chain_hash  char(64) NOT NULL,                -- the journal's digest of this fact
    mac         char(64) NOT NULL,                -- HMAC-SHA256 under the table's floor key
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX records_rounds ON floor.records (table_id, round_id) WHERE round_id IS NOT NULL;
CREATE INDEX records_kinds ON floor.records (kind, at);    -- the reports: a day's completed rounds

-- The group role every table's role is a member of: it may read the floor's tables list and read
-- and add records, never change or remove one.
-- roles are the cluster's, not the database's: a second floor database in one cluster (a staging floor
-- beside the live one) shares the group role
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'floor_table') THEN CREATE ROLE floor_table NOLOGIN; END IF;
END $$;
GRANT USAGE ON SCHEMA floor TO floor_table;
GRANT SELECT ON floor.tables, floor.meta TO floor_table;
GRANT SELECT, INSERT ON floor.records TO floor_table;

-- The table the connected role is (NULL for any other role).
CREATE FUNCTION floor.my_table() RETURNS text LANGUAGE sql STABLE
    SET search_path = pg_catalog, floor
    AS $$ SELECT id FROM floor.tables WHERE role = current_user $$;
-- The same inside a SECURITY DEFINER function (where current_user is the function's owner): the
-- role that logged in. A table's role logs in as itself; none may SET ROLE to another table's.
CREATE FUNCTION floor.caller_table() RETURNS text LANGUAGE sql STABLE
    SET search_path = pg_catalog, floor
    AS $$ SELECT id FROM floor.tables WHERE role = session_user $$;

-- Row-level security: a table sees and writes only its own rows. The administrator (the
-- tables' owner) is not subject to it and reads the whole floor.
ALTER TABLE floor.tables ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_table ON floor.tables FOR SELECT TO floor_table USING (role = current_user);
ALTER TABLE floor.records ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows_read ON floor.records FOR SELECT TO floor_table USING (table_id = floor.my_table());
CREATE POLICY own_rows_write ON floor.records FOR INSERT TO floor_table WITH CHECK (table_id = floor.my_table());

-- The check on arrival, inside the ingest transaction: runs before ON CONFLICT is looked at, so a
-- resent record is compared with the one the floor holds. SECURITY DEFINER: it reads the keys and
-- the table's previous record whatever the caller may see. Each refusal names the table and seq.
CREATE FUNCTION floor.check_record() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, floor, public
AS $$
DECLARE
    held   floor.records%ROWTYPE;
    before char(64);
    last   bigint;
    k      bytea;
BEGIN
    -- one ingest per table at a time: the check of seq-1 and the insert of seq are one step
    PERFORM pg_advisory_xact_lock(hashtext('floor.records/' || NEW.table_id));
    NEW.received_at := now();                   -- the floor's clock, not the sender's
    SELECT * INTO held FROM floor.records WHERE table_id = NEW.table_id AND seq = NEW.seq;
    IF FOUND THEN
        IF held.chain_hash = NEW.chain_hash AND held.prev_hash = NEW.prev_hash AND held.mac = NEW.mac
           AND held.kind = NEW.kind AND held.at = NEW.at AND held.body::text = NEW.body::text
           AND held.source = NEW.source AND held.round_id IS NOT DISTINCT FROM NEW.round_id THEN
            RETURN NEW;                         -- the same record again: ON CONFLICT DO NOTHING drops it
        END IF;
        RAISE EXCEPTION 'table %: record % was resent with different content (the floor keeps the one it has)',
            NEW.table_id, NEW.seq USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT floor_key INTO k FROM floor.table_keys WHERE table_id = NEW.table_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table %: record %: the table has no floor key (enroll it)', NEW.table_id, NEW.seq
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF encode(hmac(convert_to(concat_ws('|', NEW.table_id, NEW.seq, NEW.source, coalesce(NEW.round_id::text, '-'),
                                        NEW.at, NEW.kind, NEW.body::text, NEW.prev_hash, NEW.chain_hash), 'UTF8'),
                   k, 'sha256'), 'hex') <> NEW.mac THEN
        RAISE EXCEPTION 'table %: record % is forged or damaged: its MAC does not verify under the table''s floor key',
            NEW.table_id, NEW.seq USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.seq > 1 THEN
        SELECT chain_hash INTO before FROM floor.records WHERE table_id = NEW.table_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            SELECT coalesce(max(seq), 0) INTO last FROM floor.records WHERE table_id = NEW.table_id;
            RAISE EXCEPTION 'table %: record % arrived out of order: the floor holds the table''s records up to %, '
                'so % is missing (a gap)', NEW.table_id, NEW.seq, last, last + 1
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF before <> NEW.prev_hash THEN
            RAISE EXCEPTION 'table %: record % does not follow record % on the chain (reordered or forged)',
                NEW.table_id, NEW.seq, NEW.seq - 1 USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER check_record BEFORE INSERT ON floor.records FOR EACH ROW EXECUTE FUNCTION floor.check_record();

-- ---------------------------------------------------------------------------------------------
-- The linked Super 6 jackpot (controller/floor/jackpot.py; docs/floor.md "The linked jackpot").
-- A group of tables shares MEGA / MAJOR / MINOR. Each level has a generation: the value posted
-- and every claim on it until the next posting. A round carries the generation its table had
-- when it was dealt; every claim of the current generation is "the same hand" and shares it.

CREATE TABLE floor.jackpot_groups (id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 32));
CREATE TABLE floor.group_tables (
    table_id text PRIMARY KEY REFERENCES floor.tables(id),      -- a table is in one group at most
    group_id text NOT NULL REFERENCES floor.jackpot_groups(id)
);
CREATE TABLE floor.jackpot_levels (
    group_id      text NOT NULL REFERENCES floor.jackpot_groups(id),
    level         text NOT NULL CHECK (level IN ('mega', 'major', 'minor')),
    generation    integer NOT NULL CHECK (generation > 0),
    value         bigint NOT NULL CHECK (value > 0),             -- cents
    state         text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'pending')),
    pending_since timestamptz,                                   -- the first claim of the generation
    PRIMARY KEY (group_id, level)
);
-- every posting, with who and why (the 24-hour rule reads it)
CREATE TABLE floor.jackpot_postings (
    group_id   text NOT NULL,
    level      text NOT NULL,
    generation integer NOT NULL,
    value      bigint NOT NULL CHECK (value > 0),
    posted_at  timestamptz NOT NULL DEFAULT now(),
    posted_by  text NOT NULL CHECK (length(posted_by) > 0),
    reason     text NOT NULL CHECK (length(reason) > 0),
    PRIMARY KEY (group_id, level, generation),
    FOREIGN KEY (group_id, level) REFERENCES floor.jackpot_levels(group_id, level)
);
-- every claim: exactly one per table, round and level; its order among the generation's claims
-- and its part of the split, recomputed in the claim's transaction whenever a same-hand claim joins
CREATE TABLE floor.jackpot_claims (
    table_id      text NOT NULL REFERENCES floor.tables(id),
    round_id      bigint NOT NULL,
    level         text NOT NULL,
    group_id      text NOT NULL,
    generation    integer NOT NULL,
    claim_order   integer NOT NULL,
    position      integer NOT NULL,
    bet           bigint NOT NULL CHECK (bet > 0),
    share_percent integer NOT NULL CHECK (share_percent BETWEEN 1 AND 100),
    winners       integer NOT NULL,
    amount        bigint NOT NULL,
    claimed_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, round_id, level),
    UNIQUE (group_id, level, generation, claim_order)
);
-- a table has taken a level's lock (JACKPOT PENDING shown, its Super 6 closed) and every round it
-- dealt before then is settled or claimed: when all the group's tables have, the split is final
CREATE TABLE floor.lock_acks (
    group_id   text NOT NULL,
    level      text NOT NULL,
    generation integer NOT NULL,
    table_id   text NOT NULL REFERENCES floor.tables(id),
    acked_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, level, generation, table_id)
);
GRANT SELECT ON floor.jackpot_groups, floor.group_tables, floor.jackpot_levels, floor.jackpot_postings,
    floor.jackpot_claims, floor.lock_acks TO floor_table;

-- A floor supervisor ended a generation's claims while a table of the group could not take the lock
-- (cut off, closed for the night): the split is final among the claims received, a later one refused.
CREATE TABLE floor.claim_windows_closed (
    group_id   text NOT NULL,
    level      text NOT NULL,
    generation integer NOT NULL,
    closed_by  text NOT NULL CHECK (closed_by <> ''),
    reason     text NOT NULL CHECK (reason <> ''),
    closed_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (group_id, level, generation)
);

-- A generation's split made final, once and for good (schema version 4): by the acknowledgement that
-- completed the group's locks ('locks'), or by a supervisor closing its claims ('closed'), with the
-- group's tables at that moment. Never recomputed: a claim after it is refused (23J04, or 23J01 when
-- closed), and no later change of the group can make it not final again.
CREATE TABLE floor.final_splits (
    group_id   text NOT NULL,
    level      text NOT NULL,
    generation integer NOT NULL,
    how        text NOT NULL CHECK (how IN ('locks', 'closed')),
    tables     text[] NOT NULL,
    final_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (group_id, level, generation)
);
GRANT SELECT ON floor.final_splits TO floor_table;
-- A floor made before version 4 had its finality recomputed: an upgrade records what was final then
-- (a closed generation; one replaced by a posting, which needed it final; a pending one whose group
-- has all taken its lock). On a fresh floor this adds nothing.
INSERT INTO floor.final_splits (group_id, level, generation, how, tables, final_at)
SELECT c.group_id, c.level, c.generation,
       CASE WHEN w.group_id IS NOT NULL THEN 'closed' ELSE 'locks' END,
       coalesce((SELECT array_agg(gt.table_id ORDER BY gt.table_id) FROM floor.group_tables gt
                 WHERE gt.group_id = c.group_id), '{}'),
       coalesce(w.closed_at, (SELECT max(a.acked_at) FROM floor.lock_acks a WHERE a.group_id = c.group_id
                              AND a.level = c.level AND a.generation = c.generation), now())
FROM (SELECT DISTINCT group_id, level, generation FROM floor.jackpot_claims) c
JOIN floor.jackpot_levels l ON l.group_id = c.group_id AND l.level = c.level
LEFT JOIN floor.claim_windows_closed w ON w.group_id = c.group_id AND w.level = c.level
    AND w.generation = c.generation
WHERE w.group_id IS NOT NULL OR c.generation < l.generation
   OR NOT EXISTS (SELECT 1 FROM floor.group_tables gt WHERE gt.group_id = c.group_id
                  AND NOT EXISTS (SELECT 1 FROM floor.lock_acks a WHERE a.group_id = c.group_id
                                  AND a.level = c.level AND a.generation = c.generation
                                  AND a.table_id = gt.table_id));

-- A group's tables cannot change while one of its levels is pending (won, its new value not posted):
-- the split waits for the locks of the tables the group had when the level was won.
CREATE FUNCTION floor.group_frozen() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, floor
AS $$
DECLARE
    g       text;
    pending text;
BEGIN
    FOREACH g IN ARRAY ARRAY[CASE WHEN TG_OP <> 'INSERT' THEN OLD.group_id END,
                             CASE WHEN TG_OP <> 'DELETE' THEN NEW.group_id END] LOOP
        CONTINUE WHEN g IS NULL OR (TG_OP = 'UPDATE' AND OLD.group_id = NEW.group_id
                                    AND OLD.table_id = NEW.table_id);
        SELECT string_agg(format('%s jackpot (generation %s)', upper(l.level), l.generation), ', '
                          ORDER BY l.level) INTO pending
            FROM floor.jackpot_levels l WHERE l.group_id = g AND l.state = 'pending';
        IF pending IS NOT NULL THEN
            RAISE EXCEPTION 'table % cannot % group % while its % is pending: the split waits for the tables the '
                'group had when it was won; change the group once the new value is posted',
                coalesce(NEW.table_id, OLD.table_id),
                CASE WHEN TG_OP <> 'INSERT' AND g = OLD.group_id THEN 'leave' ELSE 'join' END, g, pending
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
    END LOOP;
    RETURN coalesce(NEW, OLD);
END
$$;
CREATE TRIGGER group_frozen BEFORE INSERT OR UPDATE OR DELETE ON floor.group_tables
    FOR EACH ROW EXECUTE FUNCTION floor.group_frozen();

-- The claim, in one transaction: the level's row locked FOR UPDATE (claims of one level queue here),
-- a resent claim answered with the claim already recorded, the level locked (state 'pending', and
-- NOTIFY floor_jackpot) by the generation's first claim, the claim ordered and the generation's
-- split recomputed as controller/rules/settlement.py split_jackpot does (the value divided equally
-- in claim order, odd cents to the first claims, then each part times its bet size's share).
-- Only a table's role may claim, and only for itself. A refusal that no later change on the floor
-- can mend has its own SQLSTATE (class 23, so still an integrity violation to a client): 23J01 the
-- generation's claims were closed, 23J02 a later generation was posted, 23J03 a resend that
-- differs, 23J04 the split was made final (every table of the group took the lock) before this claim
-- came (schema version 4: a final split never takes another winner). Only these may be settled at the table without the award (docs/floor-jackpot.md): any
-- other refusal (no group, no level) is mended by the administrator and the claim then stands.
CREATE FUNCTION floor.claim_jackpot(p_round bigint, p_level text, p_position integer, p_bet bigint,
                                    p_share integer, p_generation integer)
RETURNS TABLE (claim_order integer, winners integer, amount bigint, generation integer, value bigint,
               final boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, floor
AS $$
DECLARE
    t   text := floor.caller_table();
    g   text;
    lv  floor.jackpot_levels%ROWTYPE;
    c   floor.jackpot_claims%ROWTYPE;
    f   floor.final_splits%ROWTYPE;
    n   integer;
BEGIN
    IF t IS NULL THEN
        RAISE EXCEPTION 'only a table''s role claims a jackpot' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT group_id INTO g FROM floor.group_tables WHERE table_id = t;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table %: round %: the table is in no jackpot group', t, p_round
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT * INTO lv FROM floor.jackpot_levels l WHERE l.group_id = g AND l.level = p_level FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table %: round %: group % has no % jackpot', t, p_round, g, p_level
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    SELECT * INTO c FROM floor.jackpot_claims jc WHERE jc.table_id = t AND jc.round_id = p_round AND jc.level = p_level;
    IF FOUND THEN
        IF c.position <> p_position OR c.bet <> p_bet OR c.share_percent <> p_share OR c.generation <> p_generation THEN
            RAISE EXCEPTION 'table %: round %: the % claim was resent with different content', t, p_round, p_level
                USING ERRCODE = '23J03';
        END IF;
    ELSE
        IF EXISTS (SELECT 1 FROM floor.claim_windows_closed w WHERE w.group_id = g AND w.level = p_level
                   AND w.generation = p_generation) THEN
            RAISE EXCEPTION 'table %: round %: the floor closed the claims of % generation % before this one came',
                t, p_round, p_level, p_generation USING ERRCODE = '23J01';
        END IF;
        IF p_generation > lv.generation THEN
            -- not for good (schema version 10): a floor restored from an older copy, mended by its administrator
            RAISE EXCEPTION 'table %: round %: dealt under % generation %, but the floor is at generation %: it does '
                'not know that generation (restored from an older copy?); call the floor''s administrator', t, p_round,
                p_level, p_generation, lv.generation USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF p_generation <> lv.generation THEN
            RAISE EXCEPTION 'table %: round %: dealt under % generation %, but the floor posted generation % since: '
                'the round''s Super 6 was closed for it', t, p_round, p_level, p_generation, lv.generation
                USING ERRCODE = '23J02';
        END IF;
        SELECT * INTO f FROM floor.final_splits s WHERE s.group_id = g AND s.level = p_level
            AND s.generation = p_generation;
        IF FOUND THEN
            RAISE EXCEPTION 'table %: round %: the floor made the % split of generation % final at % (every table of '
                'the group had taken its lock): its winners are paid and it takes no other', t, p_round, p_level,
                p_generation, to_char(f.final_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
                USING ERRCODE = '23J04';
        END IF;
        IF lv.state = 'open' THEN
            UPDATE floor.jackpot_levels l SET state = 'pending', pending_since = clock_timestamp()
                WHERE l.group_id = g AND l.level = p_level;
            PERFORM pg_notify('floor_jackpot', json_build_object('group', g, 'level', p_level, 'state', 'pending',
                                                                 'generation', lv.generation)::text);
        END IF;
        SELECT coalesce(max(jc.claim_order), 0) + 1 INTO n FROM floor.jackpot_claims jc
            WHERE jc.group_id = g AND jc.level = p_level AND jc.generation = lv.generation;
        INSERT INTO floor.jackpot_claims (table_id, round_id, level, group_id, generation, claim_order, position,
                                          bet, share_percent, winners, amount)
            VALUES (t, p_round, p_level, g, lv.generation, n, p_position, p_bet, p_share, n, 0);
        WITH split AS (
            SELECT jc.table_id, jc.round_id, count(*) OVER () AS k, jc.claim_order AS o, jc.share_percent AS s
            FROM floor.jackpot_claims jc WHERE jc.group_id = g AND jc.level = p_level AND jc.generation = lv.generation)
        UPDATE floor.jackpot_claims jc
            SET winners = split.k,
                amount = (lv.value / split.k + CASE WHEN split.o <= lv.value % split.k THEN 1 ELSE 0 END) * split.s / 100
            FROM split WHERE jc.table_id = split.table_id AND jc.round_id = split.round_id AND jc.level = p_level;
    END IF;
    -- the claim's own generation's value (a resend after a new posting is answered as recorded)
    RETURN QUERY SELECT jc.claim_order, jc.winners, jc.amount, jc.generation, p.value,
                        floor.split_final(jc.group_id, p_level, jc.generation)
        FROM floor.jackpot_claims jc JOIN floor.jackpot_postings p ON p.group_id = jc.group_id
            AND p.level = jc.level AND p.generation = jc.generation
        WHERE jc.table_id = t AND jc.round_id = p_round AND jc.level = p_level;
END
$$;

-- Whether a generation's split is final: recorded once in floor.final_splits (every table of the
-- group took its lock, or a floor supervisor closed its claims), never recomputed.
CREATE FUNCTION floor.split_final(p_group text, p_level text, p_generation integer) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, floor
AS $$
    SELECT EXISTS (SELECT 1 FROM floor.final_splits s WHERE s.group_id = p_group AND s.level = p_level
                   AND s.generation = p_generation)
$$;

-- Record a won generation's split final (how: 'locks' or 'closed') if it is not already; true when
-- this call made it final. The caller holds the level's row FOR UPDATE.
CREATE FUNCTION floor.make_final(p_group text, p_level text, p_generation integer, p_how text) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, floor
AS $$
DECLARE
    added integer;
BEGIN
    INSERT INTO floor.final_splits (group_id, level, generation, how, tables)
        SELECT p_group, p_level, p_generation, p_how,
               coalesce(array_agg(gt.table_id ORDER BY gt.table_id), '{}')
        FROM floor.group_tables gt WHERE gt.group_id = p_group
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS added = ROW_COUNT;
    RETURN added > 0;
END
$$;

-- A table has taken a level's lock (see floor.lock_acks); idempotent.
CREATE FUNCTION floor.ack_lock(p_level text, p_generation integer) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, floor
AS $$
DECLARE
    t text := floor.caller_table();
    g text;
    lv floor.jackpot_levels%ROWTYPE;
    made boolean := false;
BEGIN
    IF t IS NULL THEN
        RAISE EXCEPTION 'only a table''s role takes a lock' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT group_id INTO g FROM floor.group_tables WHERE table_id = t;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table %: the table is in no jackpot group', t USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    -- after the claims of the level (they queue on its row too): a claim and the last lock cannot cross
    SELECT * INTO lv FROM floor.jackpot_levels l WHERE l.group_id = g AND l.level = p_level FOR UPDATE;
    -- only a lock of a generation that was won (schema version 10): one taken ahead of the win would
    -- count then as the table's lock, with rounds dealt after it still to claim
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table %: group % has no % jackpot', t, g, p_level USING ERRCODE = 'integrity_constraint_violation';
    ELSIF p_generation > lv.generation THEN
        RAISE EXCEPTION 'table %: the floor is at % generation %: no lock to take of generation %', t,
            upper(p_level), lv.generation, p_generation USING ERRCODE = 'integrity_constraint_violation';
    ELSIF p_generation = lv.generation AND lv.state = 'open' THEN
        RAISE EXCEPTION 'table %: % generation % is not won: no lock to take', t, upper(p_level), p_generation
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    INSERT INTO floor.lock_acks (group_id, level, generation, table_id) VALUES (g, p_level, p_generation, t)
        ON CONFLICT DO NOTHING;
    -- a won generation (pending, with claims) is made final by the acknowledgement that completes the
    -- group's locks; recorded once, whatever the group becomes later
    IF lv.generation = p_generation AND lv.state = 'pending' AND NOT floor.split_final(g, p_level, p_generation)
       AND NOT EXISTS (SELECT 1 FROM floor.group_tables gt WHERE gt.group_id = g
                       AND NOT EXISTS (SELECT 1 FROM floor.lock_acks a WHERE a.group_id = g AND a.level = p_level
                                       AND a.generation = p_generation AND a.table_id = gt.table_id)) THEN
        made := floor.make_final(g, p_level, p_generation, 'locks');
    END IF;
    IF made THEN
        -- this acknowledgement made the split final: every table of the group hears it at once and
        -- asks for its final answer, instead of at its next poll
        PERFORM pg_notify('floor_jackpot', json_build_object('group', g, 'level', p_level, 'state', 'final',
                                                             'generation', p_generation)::text);
    END IF;
    RETURN floor.split_final(g, p_level, p_generation);
END
$$;
GRANT EXECUTE ON FUNCTION floor.claim_jackpot(bigint, text, integer, bigint, integer, integer),
    floor.split_final(text, text, integer), floor.ack_lock(text, integer) TO floor_table;
REVOKE EXECUTE ON FUNCTION floor.claim_jackpot(bigint, text, integer, bigint, integer, integer),
    floor.split_final(text, text, integer), floor.ack_lock(text, integer),
    floor.make_final(text, text, integer, text) FROM PUBLIC;

-- A whole number a table wrote in a fact's body (the text ->> gives), or NULL when it is none or its size
-- is past p_most (schema version 10). Bodies are checked for their MAC on arrival, not for what they
-- say: the administrator's views read every table's facts together, and one table's odd fact (a
-- generation that is a word, a bet past any integer) must show as unreadable, not stop them for all.
CREATE FUNCTION floor.whole(p_text text, p_most bigint) RETURNS bigint LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog
    AS $$ SELECT CASE WHEN p_text !~ '^-?[0-9]{1,18}$' THEN NULL
                      WHEN abs(p_text::bigint) <= p_most THEN p_text::bigint END $$;

-- Every linked hit a table journaled (its jackpot_pending record, forwarded like every record) with
-- what became of it: 'claimed' (the floor's claim and its part), 'referred' (the table's
-- supervisor settled the round without the award after a refusal for good: the win is owed by
-- the floor's decision, a hand pay), 'unclaimed' (no answer yet: the table is cut off or its claim
-- is refused and waits), 'disputed' (claimed on the floor and referred at the table: the floor's
-- split counts a part the table did not pay). The group is the claim's, else the table's now. A field
-- the table wrote that is no whole number of its column's size is NULL (floor.whole).
-- The administrator's (table-floor hits, the pit).
CREATE VIEW floor.linked_hits AS
SELECT h.table_id, h.round_id, h.body->>'jackpot' AS level, coalesce(c.group_id, gt.group_id) AS group_id,
       floor.whole(h.body->>'generation', 2147483647)::integer AS generation,
       floor.whole(h.body->>'seat', 2147483647)::integer AS position,
       floor.whole(h.body->>'bet', 9223372036854775807) AS bet, h.at AS hit_at, c.claim_order, c.winners, c.amount,
       CASE WHEN c.table_id IS NULL THEN NULL ELSE floor.split_final(c.group_id, c.level, c.generation) END AS final,
       r.body->>'by' AS referred_by, r.body->>'reason' AS referral_reason, r.body->>'refused' AS refused,
       r.at AS referred_at,
       CASE WHEN c.table_id IS NOT NULL AND r.seq IS NOT NULL THEN 'disputed'
            WHEN c.table_id IS NOT NULL THEN 'claimed'
            WHEN r.seq IS NOT NULL THEN 'referred' ELSE 'unclaimed' END AS state
FROM floor.records h
LEFT JOIN floor.group_tables gt ON gt.table_id = h.table_id
LEFT JOIN floor.jackpot_claims c ON c.table_id = h.table_id AND c.round_id = h.round_id
    AND c.level = h.body->>'jackpot'
LEFT JOIN LATERAL (SELECT x.seq, x.at, x.body FROM floor.records x WHERE x.table_id = h.table_id
                   AND x.round_id = h.round_id AND x.kind = 'jackpot_referred'
                   AND x.body->>'jackpot' = h.body->>'jackpot' ORDER BY x.seq LIMIT 1) r ON true
WHERE h.kind = 'jackpot_pending';

-- No NOTIFY from the ingest (schema version 5): a transaction that notifies takes one lock for the
-- whole database at its commit and holds it through the commit's WAL flush, so 500 tables' commits
-- were made one at a time and could not share a flush (1,278 records/s with it, 4,244 without, on
-- benchmarks/bench_floor_load.py). The pit's page looks at the status rows' marker instead
-- (controller/floor/pit.py CHANGED); claims and postings, rare, still NOTIFY floor_jackpot.

-- ---------------------------------------------------------------------------------------------
-- Each table at a glance (schema version 4): one small row per table kept by the ingest itself, so
-- the pit's page reads 500 rows instead of scanning the records. An AFTER statement trigger folds
-- the rows each insert added (floor.fold_status) into the table's row: the last record and when
-- the floor received it, the table's last state and round, each device as last reported, and the
-- open alerts (newest first, at most 5): a round's alerts close with its round, a device's when it
-- is back, "Super 6 closed" when Super 6 reopens.

-- The sentence a table journals when a device stops answering (controller/rules/words.py
-- device_says(role, "not answering"); tests/floor/test_pit_status.py holds the two equal).
CREATE TABLE floor.device_words (
    role    text PRIMARY KEY,
    offline text NOT NULL
);
INSERT INTO floor.device_words VALUES ('shoe', 'The shoe is not answering'),
    ('sensors', 'The bet sensors are not answering'), ('sign', 'The jackpot sign is not answering');

CREATE TABLE floor.table_status (
    table_id      text PRIMARY KEY REFERENCES floor.tables(id),
    last_seq      bigint NOT NULL,
    last_received timestamptz NOT NULL,
    state         text,
    round_id      bigint,
    devices       jsonb NOT NULL DEFAULT '{}',      -- role -> {online, since, said}
    alerts        jsonb NOT NULL DEFAULT '[]',      -- [{at, kind, message, round, device}], newest first
    dealer        text                              -- the dealer signed in now (schema version 9), or null
);

-- an alerts array without the alerts whose ``key`` is ``val``
CREATE FUNCTION floor.alerts_without(p_alerts jsonb, p_key text, p_val text) RETURNS jsonb LANGUAGE sql IMMUTABLE
    SET search_path = pg_catalog, floor
    AS $$ SELECT coalesce(jsonb_agg(e ORDER BY i), '[]') FROM jsonb_array_elements(p_alerts) WITH ORDINALITY a(e, i)
          WHERE e->>p_key IS DISTINCT FROM p_val $$;

-- Fold a table's records after seq ``p_after`` into its status row (made when missing).
CREATE FUNCTION floor.fold_status(p_table text, p_after bigint) RETURNS void LANGUAGE plpgsql
    SET search_path = pg_catalog, floor
AS $$
DECLARE
    s   floor.table_status%ROWTYPE;
    f   record;
    dev text;
    k   text;
BEGIN
    -- the table's last record through the primary key's index, not a scan of all its records (a
    -- record's received_at is its transaction's start: the last record's is the latest a table's
    -- one-at-a-time ingest gave it, and greatest() keeps the row from going back)
    INSERT INTO floor.table_status AS x (table_id, last_seq, last_received)
        SELECT r.table_id, r.seq, r.received_at FROM floor.records r WHERE r.table_id = p_table
        ORDER BY r.seq DESC LIMIT 1
        ON CONFLICT (table_id) DO UPDATE SET last_seq = greatest(x.last_seq, excluded.last_seq),
                                             last_received = greatest(x.last_received, excluded.last_received)
        RETURNING * INTO s;
    IF s.table_id IS NULL THEN
        RETURN;
    END IF;
    FOR f IN SELECT r.round_id, r.at, r.kind, r.body FROM floor.records r WHERE r.table_id = p_table
             AND r.seq > p_after AND r.kind IN ('state', 'alert', 'device_identity', 'device_online', 'complete', 'void',
                                                'dealer_signed_in', 'dealer_signed_out')
             ORDER BY r.seq LOOP
        IF f.kind = 'dealer_signed_in' THEN
            s.dealer := f.body->>'name';
        ELSIF f.kind = 'dealer_signed_out' THEN
            s.dealer := NULL;
        ELSIF f.kind = 'state' THEN
            s.state := f.body->>'state';
            s.round_id := f.round_id;
        ELSIF f.kind IN ('device_identity', 'device_online') THEN
            dev := f.body->>'device';
            s.devices := s.devices || jsonb_build_object(dev, jsonb_build_object('online', true, 'since', f.at));
            s.alerts := floor.alerts_without(s.alerts, 'device', dev);
        ELSIF f.kind IN ('complete', 'void') THEN
            s.alerts := floor.alerts_without(s.alerts, 'round', f.round_id::text);
        ELSE
            k := f.body->>'kind';
            dev := NULL;
            IF k = 'device_offline' THEN
                SELECT w.role INTO dev FROM floor.device_words w WHERE starts_with(f.body->>'message', w.offline);
                IF dev IS NOT NULL THEN
                    s.devices := s.devices || jsonb_build_object(dev, jsonb_build_object(
                        'online', false, 'since', f.at, 'said', f.body->>'message'));
                    s.alerts := floor.alerts_without(s.alerts, 'device', dev);
                END IF;
            ELSIF k IN ('super6_closed', 'super6_open') THEN
                s.alerts := floor.alerts_without(s.alerts, 'kind', 'super6_closed');
            END IF;
            CONTINUE WHEN k = 'super6_open';
            s.alerts := (SELECT coalesce(jsonb_agg(e ORDER BY i), '[]') FROM jsonb_array_elements(
                             jsonb_build_array(jsonb_build_object('at', f.at, 'kind', k, 'message', f.body->>'message',
                                                                  'round', f.round_id, 'device', dev)) || s.alerts)
                             WITH ORDINALITY a(e, i) WHERE i <= 5);
        END IF;
    END LOOP;
    UPDATE floor.table_status SET state = s.state, round_id = s.round_id, devices = s.devices, alerts = s.alerts,
                                  dealer = s.dealer
        WHERE table_id = p_table;
END
$$;
REVOKE EXECUTE ON FUNCTION floor.fold_status(text, bigint) FROM PUBLIC;

CREATE FUNCTION floor.keep_status() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, floor
AS $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT table_id, min(seq) AS first FROM new_rows GROUP BY table_id ORDER BY table_id LOOP
        PERFORM floor.fold_status(t.table_id, t.first - 1);
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER keep_status AFTER INSERT ON floor.records REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION floor.keep_status();
-- a floor made before version 5: every table's row made again from its records (a fresh floor has none)
DELETE FROM floor.table_status;
SELECT floor.fold_status(id, 0) FROM floor.tables ORDER BY id;

-- ---------------------------------------------------------------------------------------------
-- A table that came back behind the floor (schema version 7): the floor holds each table's chain
-- head, so a journal and audit trail rolled back together to an older copy (or another table's
-- journal put in its place), which nothing inside the table can see, is seen at the forwarder's next
-- connect (controller/floor/head.py). The table refuses to play on it and reports it here; the floor
-- judges the report against what it holds, in its own words, and alerts the pit.

-- every such report the floor found true, once per (table, the floor's head, the journal's end and
-- digest): the administrator's, read by nobody else
CREATE TABLE floor.chain_alarms (
    table_id       text NOT NULL REFERENCES floor.tables(id),
    floor_seq      bigint NOT NULL,                 -- the floor's last record of the table
    floor_hash     char(64) NOT NULL,               -- its chain digest
    journal_end    bigint NOT NULL,                 -- where the table's journal ends now
    journal_digest text NOT NULL,                   -- the journal's digest at floor_seq ('' when it ends before)
    message        text NOT NULL,
    raised_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, floor_seq, journal_end, journal_digest)
);

-- A table reports where its journal ends (p_end) and its digest at the floor's last record of it
-- (p_digest; NULL when the journal ends before). True when the floor finds the journal behind or
-- different (recorded in chain_alarms: the pit shows it until a record past that head arrives,
-- controller/floor/pit.py); false when it is the floor's chain. A table reports for itself only.
CREATE FUNCTION floor.report_behind(p_end bigint, p_digest text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, floor
AS $$
DECLARE
    t     text := floor.caller_table();
    head  floor.records%ROWTYPE;
    said  text;
BEGIN
    IF t IS NULL THEN
        RAISE EXCEPTION 'only a table''s own role reports its journal' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT * INTO head FROM floor.records r WHERE r.table_id = t ORDER BY r.seq DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN false;                               -- the floor holds nothing of it: nothing to be behind
    END IF;
    IF p_end < head.seq THEN
        said := format('Table %s came back behind the floor: its journal ends at record %s, the floor holds its '
                       'records up to %s. Its journal and audit trail were rolled back or restored from an older '
                       'copy; the table refuses to play on it. Find out why before it opens again', t, p_end, head.seq);
    ELSIF p_digest IS DISTINCT FROM head.chain_hash THEN
        said := format('Table %s came back with a journal that is not the floor''s copy: its record %s is not the '
                       'one the floor holds (a journal rolled back and played on, or another journal). The table '
                       'refuses to play on it. Find out why before it opens again', t, head.seq);
    ELSE
        RETURN false;
    END IF;
    INSERT INTO floor.chain_alarms (table_id, floor_seq, floor_hash, journal_end, journal_digest, message)
        VALUES (t, head.seq, head.chain_hash, p_end, coalesce(p_digest, ''), said) ON CONFLICT DO NOTHING;
    RETURN true;
END
$$;
REVOKE EXECUTE ON FUNCTION floor.report_behind(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION floor.report_behind(bigint, text) TO floor_table;
