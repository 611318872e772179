
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


def test_every_message_has_a_hex_example():
    from drivers.wire.examples import EXAMPLES
    from drivers.wire.messages import SESSION
    shown = {type(m) for messages in EXAMPLES.values() for m in messages}
    from drivers.wire import sensor_protocol, shoe_protocol
    for catalog in (SESSION, shoe_protocol.catalog, sensor_protocol.catalog):
        assert set(catalog.types().values()) <= shown, set(catalog.types().values()) - shown
