from pathlib import Path

from drivers.protocol_examples import render

DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocols"


def test_committed_examples_match_the_codecs():
    committed = (DOCS / "examples.md").read_text()
    assert committed == render(), ("docs/protocols/examples.md is stale: "
                                   "python -m drivers.protocol_examples > docs/protocols/examples.md")


def test_every_message_type_is_specified():
    from drivers import sensor_protocol, shoe_protocol
    for module, doc in ((shoe_protocol, "shoe.md"), (sensor_protocol, "sensors.md")):
        text = (DOCS / doc).read_text()
        for code, cls in module.catalog.types().items():
            assert f"| 0x{code:02X} | {cls.__name__} |" in text, f"{doc} lacks {cls.__name__}"
