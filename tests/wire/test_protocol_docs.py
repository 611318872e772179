
from drivers.wire.examples import render
from tests.support import ROOT

DOCS = ROOT / "docs" / "protocols"


def test_committed_examples_match_the_codecs():
    committed = (DOCS / "examples.md").read_text()
    assert committed == render(), ("docs/protocols/examples.md is stale: "
                                   "python -m drivers.wire.examples > docs/protocols/examples.md")


def test_every_message_type_is_specified():
    """Each protocol's messages in its document; the session messages every framed device speaks
    in framing.md."""
    from drivers.wire import sensor_protocol, shoe_protocol
    from drivers.wire.messages import SESSION
    common = SESSION.types()
    for catalog, doc in ((shoe_protocol.catalog, "shoe.md"), (sensor_protocol.catalog, "sensors.md"),
                         (SESSION, "framing.md")):
        text = (DOCS / doc).read_text()
        for code, cls in catalog.types().items():
            if catalog is SESSION or code not in common:
                assert f"| 0x{code:02X} | {cls.__name__} |" in text, f"{doc} lacks {cls.__name__}"


def test_every_hex_example_in_the_protocol_texts_is_bytes_the_codecs_make():
    """A byte sequence quoted in a protocol document (`15 50`) is one examples.md generates."""
    import re
    examples = (DOCS / "examples.md").read_text()
    for doc in ("sensors.md", "alpha-sign.md"):
        quoted = re.findall(r"`((?:[0-9A-F]{2} )+[0-9A-F]{2})`", (DOCS / doc).read_text())
        assert quoted or doc == "sensors.md", doc
        for hexes in quoted:
            assert f"`{hexes}`" in examples or f" {hexes} " in examples, f"{doc}: `{hexes}` is in no example"


def test_the_sign_nak_examples_are_the_serial_error_status_register():
    from drivers.wire import alpha
    text = (DOCS / "alpha-sign.md").read_text()
    for bit, name in alpha.NAK_BITS.items():
        assert f"| {bit.bit_length() - 1} | 0x{bit:02X} | {name} |" in text, name
    assert "| 6 | 0x40 | always 1 |" in text
    assert alpha.response(False, alpha.NAK_CHECKSUM).hex(" ").upper() == "15 50" and "`15 50`" in text


def test_every_message_has_a_hex_example():
    from drivers.wire.examples import EXAMPLES
    from drivers.wire.messages import SESSION
    shown = {type(m) for messages in EXAMPLES.values() for m in messages}
    from drivers.wire import sensor_protocol, shoe_protocol
    for catalog in (SESSION, shoe_protocol.catalog, sensor_protocol.catalog):
        assert set(catalog.types().values()) <= shown, set(catalog.types().values()) - shown
