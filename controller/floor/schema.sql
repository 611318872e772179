-- The floor's database, schema version 1 (controller/floor/schema.py applies it; docs/floor.md explains it).
-- Applied once by the floor's administrator (a superuser: pgcrypto is an extension), in one transaction.

CREATE EXTENSION IF NOT EXISTS pgcrypto;        -- hmac(): the floor checks each record's MAC itself
CREATE SCHEMA floor;

CREATE TABLE floor.meta (key text PRIMARY KEY, value text NOT NULL);
INSERT INTO floor.meta VALUES ('schema_version', '1');

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
CREATE ROLE floor_table NOLOGIN;
GRANT USAGE ON SCHEMA floor TO floor_table;
GRANT SELECT ON floor.tables, floor.meta TO floor_table;
GRANT SELECT, INSERT ON floor.records TO floor_table;

-- The table the connected role is (NULL for any other role).
CREATE FUNCTION floor.my_table() RETURNS text LANGUAGE sql STABLE
    SET search_path = pg_catalog, floor
    AS $$ SELECT id FROM floor.tables WHERE role = current_user $$;

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
