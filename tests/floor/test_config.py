"""The configuration's optional ``[floor]`` section: defaults, and each bad key refused naming it
and its line (no database needed)."""

from __future__ import annotations

import pytest

from controller.app.config import ConfigError, parse_config
from tests.support import ROOT
from tests.system.test_config_campaign import edit

EXAMPLE = (ROOT / "deploy" / "table.example.toml").read_text()


def test_a_table_without_a_floor_section_runs_alone():
    assert parse_config(EXAMPLE, "t.toml").floor is None


def test_the_floor_section_with_its_defaults():
    text = edit(EXAMPLE, "floor", "dsn", '"host=db port=5432 dbname=floor"')
    floor = parse_config(text, "t.toml", base=ROOT / "deploy").floor
    assert floor is not None
    table_id = parse_config(EXAMPLE, "t.toml").table_id
    assert (floor.dsn, floor.table_id, floor.poll, floor.batch, floor.drain, floor.password_file) == \
        ("host=db port=5432 dbname=floor", table_id, 0.5, 500, 5.0, None)
    assert floor.user.startswith("table_") and floor.user == floor.user.lower()
    text = edit(edit(text, "floor", "password_file", '"secret/pw"'), "floor", "table", '"T-07"')
    floor = parse_config(text, "t.toml", base=ROOT / "deploy").floor
    assert floor is not None and floor.password_file == ROOT / "deploy" / "secret" / "pw"
    assert (floor.table_id, floor.user) == ("T-07", "table_t_07")
    assert floor.jackpot_group is None and floor.heartbeat == 2.0
    text = edit(edit(text, "floor", "jackpot_group", '"PIT-2"'), "floor", "heartbeat", "0.5")
    floor = parse_config(text, "t.toml").floor
    assert floor is not None and (floor.jackpot_group, floor.heartbeat) == ("PIT-2", 0.5)


@pytest.mark.parametrize(("key", "value", "why"), [
    ("dsn", '"host=db password=hunter2"', "must not hold the password"),
    ("dsn", '"postgresql://t:hunter2@db/floor"', "must not hold the password"),
    ("user", '"Table-7"', "is not a role name"),
    ("poll", "0", "must be from 0.05 to 60.0"),
    ("batch", "1.5", "must be a whole number"),
    ("drain", "61", "must be from 0.0 to 60.0"),
    ("color", '"red"', "unknown key"),
    ("heartbeat", "0.1", "must be from 0.2 to 60.0"),
    ("jackpot_group", '""', "must be non-empty text"),
])
def test_a_bad_floor_key_is_refused_naming_it_and_its_line(key, value, why):
    text = edit(EXAMPLE, "floor", "dsn", '"host=db dbname=floor"')
    text = edit(text, "floor", key, value)
    with pytest.raises(ConfigError) as err:
        parse_config(text, "t.toml")
    line = next(n for n, text_line in enumerate(text.splitlines(), 1) if text_line.startswith(f"{key} ="))
    assert f"t.toml, line {line}: key 'floor.{key}'" in str(err.value) and why in str(err.value)
