"""The pit's page and ``table-floor pit`` on odd input (the test lab's, session 18): a range that is
no range, a port it cannot listen on, names with a NUL or control characters. Each is refused in
words before any PIN is tried or the floor asked, and changes nothing."""

from __future__ import annotations

import socket

from controller.floor import cli


def test_table_floor_pit_refuses_an_allowed_range_that_is_none(tmp_path, capsys):
    assert cli.main(["pit", "--pins", str(tmp_path / "pins.json"), "--allow", "garbage"]) == 2
    assert "table-floor: --allow 'garbage' is not an address range" in capsys.readouterr().err


def test_table_floor_pit_on_a_port_in_use_says_so_and_ends(cluster, tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = cli.main(["pit", "--dsn", cluster.dsn(), "--pins", str(tmp_path / "pins.json"),
                           "--port", str(port)])
    out = capsys.readouterr()
    assert status == 2, out
    assert f"table-floor: the pit's page cannot listen on 127.0.0.1 port {port}: " in out.err
    assert "address already in use" in out.err and "The pit:" not in out.out
