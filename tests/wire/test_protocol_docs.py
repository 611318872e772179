
from drivers.wire.examples import render
from tests.support import ROOT

DOCS = ROOT / "docs" / "protocols"


def test_committed_examples_match_the_codecs():
    committed = (DOCS / "examples.md").read_text()
    assert committed == render(), ("docs/protocols/examples.md is stale: "
                                   "python -m drivers.wire.examples > docs/protocols/examples.md")


def test_every_message_type_is_specified():
    from drivers.wire import sensor_protocol, shoe_protocol
    for module, doc in ((shoe_protocol, "shoe.md"), (sensor_protocol, "sensors.md")):
        text = (DOCS / doc).read_text()
        for code, cls in module.catalog.types().items():
            assert f"| 0x{code:02X} | {cls.__name__} |" in text, f"{doc} lacks {cls.__name__}"
