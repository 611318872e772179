"""The dealer page's message catalogue: complete, compiled, in step with the code, and used as configured.

- every message id (the page's words and the table's messages) has a Spanish translation with the
  same placeholders, and the committed .mo is the .po compiled (scripts/catalogue.py --check);
- every message the round core, the engine, the stores and the page can put before the dealer has an
  id in controller/page/messages.py: each such call's text, read from the source (its literal parts,
  with whatever is computed as a gap), can make one of the ids;
- the translation at the page's boundary: Spanish in, the engine's snapshot untouched, English free;
- ``page.language`` other than en or es is refused at configuration load, naming the line.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from controller.app.config import ConfigError, parse_config
from controller.cli import main
from controller.page.i18n import LANGUAGES, LOCALE_DIR, PLACEHOLDER, LanguageError, Words
from controller.page.messages import TEMPLATES
from tests.support import ROOT
from tests.support.rig import config_text

spec = importlib.util.spec_from_file_location("catalogue", ROOT / "scripts" / "catalogue.py")
assert spec and spec.loader
catalogue = importlib.util.module_from_spec(spec)
spec.loader.exec_module(catalogue)


def test_every_id_has_its_spanish_and_the_mo_is_the_po_compiled():
    ids = catalogue.extracted()
    assert len(ids) > 400 and ("Open betting", None) in ids and ("Position {position}: play or fold", None) in ids
    assert catalogue.problems("es", ids) == []
    assert set(LANGUAGES) == {"en", *catalogue.LANGUAGES}
    for language in catalogue.LANGUAGES:                        # shipped where the package finds them
        assert (LOCALE_DIR / language / "LC_MESSAGES" / "dealer.mo").is_file()


def test_the_check_finds_a_missing_translation_a_new_word_and_a_stale_mo(tmp_path, monkeypatch):
    """The check above can fail: the same catalogue with one translation emptied, one word more on
    the page, or the .mo of another .po, is reported each time."""
    ids = catalogue.extracted()
    po = catalogue.read("es")
    po["Open betting"].string = ""
    monkeypatch.setattr(catalogue, "LOCALE", tmp_path)
    path = catalogue.po_path("es")
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        catalogue.write_po(f, po)
    catalogue.mo_path("es").write_bytes((LOCALE_DIR / "es" / "LC_MESSAGES" / "dealer.mo").read_bytes())
    found = catalogue.problems("es", {**ids, ("Split the pot", None): [("static/index.html", 1)]})
    assert "es: untranslated: 'Open betting'" in found
    assert any("not in the .po" in p and "Split the pot" in p for p in found)
    assert any("is not the .po compiled" in p for p in found)


# --- the code's messages against the ids ------------------------------------------------------------

GAP = object()
# the calls whose text argument the dealer reads, and which argument it is
# (``set``: the round's holds, controller/round/clerk.py; the sources' other ``set`` calls take no text)
SAID = {"alert": 1, "refuse": 0, "set": 1, "show": 1, "Verdict": 1, "PageAlert": 1, "_say": 2, "PinRefused": 0}
# functions whose returned text the dealer reads (a flag, a misdeal's reason, why Super 6 is closed, why a
# pair of positions cannot be linked, a referral or a posting refused)
RETURNED = {"stack_problem", "card_problem", "change_problem", "super6_closed", "prompt_for", "link_problem",
            "refer_problem", "post", "words"}
SOURCES = [*sorted((ROOT / "controller" / "round").glob("*.py")), ROOT / "controller" / "engine.py",
           ROOT / "controller" / "page" / "server.py", ROOT / "controller" / "page" / "actions.py",
           ROOT / "controller" / "store" / "pins.py",
           ROOT / "controller" / "store" / "jackpot.py", ROOT / "controller" / "app" / "clock.py",
           ROOT / "controller" / "floor" / "head.py"]      # a journal behind the floor: its alert and halt


def _shapes(node, constants) -> list[list] | None:
    """The texts an expression can make, each as literal parts and GAPs; None: not a text."""
    if isinstance(node, ast.Constant):
        return [[node.value]] if isinstance(node.value, str) else None
    if isinstance(node, ast.Name) and node.id in constants:
        return [[constants[node.id]]]
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        parts = node.values if isinstance(node, ast.JoinedStr) else [node.left, node.right]
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add):
            return None
        out: list[list] = [[]]
        for part in parts:
            inner = part.value if isinstance(part, ast.FormattedValue) else part
            found = _shapes(inner, constants) or [[GAP]]
            out = [a + b for a in out for b in found]
        return out
    if isinstance(node, ast.IfExp):
        found = [s for branch in (node.body, node.orelse) for s in (_shapes(branch, constants) or [[GAP]])
                 if not (isinstance(branch, ast.Constant) and branch.value is None)]
        return found
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "device_says":
        rest = _shapes(node.args[1], constants) or [[GAP]]
        return [[GAP, " ", *r] for r in rest]          # "The shoe is" / "The bet sensors are" ...
    return None


def messages_in_code() -> list[tuple[str, list]]:
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                     for t in n.targets if isinstance(t, ast.Name)}
        where = path.relative_to(ROOT)
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and fn.name in RETURNED:
                for ret in ast.walk(fn):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        for shape in _shapes(ret.value, constants) or []:
                            found.append((f"{where}:{ret.lineno}", shape))
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
            at = SAID.get(name or "")
            if at is None or len(call.args) <= at:
                continue
            if name == "Verdict" and not (isinstance(call.args[0], ast.Constant) and call.args[0].value is False):
                continue
            for shape in _shapes(call.args[at], constants) or []:
                found.append((f"{where}:{call.lineno}", shape))
    return found


def _can_make(shape: list, msgid: str) -> bool:
    regex = "".join(".+?" if part is GAP else re.escape(part) for part in shape)
    return re.fullmatch(regex, msgid, re.S) is not None


def test_every_message_the_table_can_say_has_a_message_id():
    said = [(where, shape) for where, shape in messages_in_code() if any(p is not GAP for p in shape)]
    assert len(said) > 100                              # the walk reads the calls, not nothing
    missing = [f"{where}: {''.join('…' if p is GAP else p for p in shape)}" for where, shape in said
               if not any(_can_make(shape, msgid) for msgid in TEMPLATES)]
    assert missing == []


def test_a_message_without_an_id_is_found():
    """The check above can fail: a message the catalogue does not know is reported."""
    shape = _shapes(ast.parse('f"The shoe sings {song} in the night"').body[0].value, {})
    assert shape and not any(_can_make(shape[0], msgid) for msgid in TEMPLATES)


# --- the translation at the page's boundary --------------------------------------------------------

@pytest.mark.parametrize(("english", "spanish"), [
    ("Position 3: play or fold", "Posición 3: juega o se retira"),
    ("No PAIR PLUS, positions 2, 3 and 5", "Sin PAR PLUS, posiciones 2, 3 y 5"),
    ("No PAIR PLUS, position 4", "Sin PAR PLUS, posición 4"),
    ("Dealer plays with a Pair of Queens", "El crupier juega con pareja de Reinas"),
    ("Dealer plays with a Straight Flush, King high", "El crupier juega con Escalera de color, carta alta Rey"),
    ("Pay Pair Plus $1,250.00", "Pagar Par Plus $1,250.00"),
    ("Pay $5.00 and take $1,250.00", "Pagar $5.00 y cobrar $1,250.00"),
    ("Straight Flush, King high", "Escalera de color, carta alta Rey"), ("Queen high", "Carta alta Reina"),
    ("Turn up the cards set aside: Full House with the dealer's cards", "Descubra las cartas apartadas: Full con "
     "las del crupier"),
    ("Turn up the cards set aside: no six-card hand with the dealer's cards", "Descubra las cartas apartadas: "
     "ninguna jugada de seis cartas con las del crupier"),
    ("Round held: Shoe jammed: clear the jam and close the shoe's door",
     "Ronda detenida: Zapato atascado: desatásquelo y cierre la puerta del zapato"),
    ("no more bets is not possible while betting", "«no va más» no es posible en el estado «apuestas»"),
    ("Misdeal declared by the supervisor Ana: a card was exposed. Return all wagers.",
     "Reparto nulo declarado por el supervisor Ana: se expuso una carta. Devuelva todas las apuestas."),
    ("The shoe reports a fault: E42 motor (its code 42)", "El zapato informa de un fallo: E42 motor (su código 42)"),
    ("The table has stopped: This table's journal is behind the floor: it ends at record 161, the floor holds "
     "table TCP-07's records up to 170. The journal and audit trail were rolled back or restored from an older "
     "copy; the table will not play on them",
     "La mesa se ha detenido: El registro de esta mesa va por detrás de la sala: termina en el asiento 161 y la "
     "sala guarda los asientos de la mesa TCP-07 hasta el 170. El registro y la pista de auditoría se devolvieron "
     "a un estado anterior o se restauraron de una copia antigua; la mesa no jugará con ellos"),
])
def test_the_tables_english_is_read_in_spanish(english, spanish):
    assert Words("es").text(english) == spanish


def test_what_no_id_matches_is_shown_as_it_came_and_english_costs_nothing():
    es = Words("es")
    assert es.text("[Errno 5] Input/output error") == "[Errno 5] Input/output error"
    assert es.text("The shoe is not answering: [Errno 5] Input/output error") == \
        "El zapato no responde: [Errno 5] Input/output error"
    snap = {"prompt": ["Open betting"], "holds": [], "alerts": [{"kind": "clock", "message":
            "The PC's clock is synchronised again"}], "positions": [], "dealer": {"announcement": None},
            "devices": {"shoe": {"detail": "online", "status": "online"}}, "state": "ready"}
    shown = es.snapshot(snap)
    assert shown["prompt"] == ["Abrir apuestas"] and shown["devices"]["shoe"] == {"detail": "en línea",
                                                                                 "status": "online"}
    assert shown["alerts"][0] == {"kind": "clock", "message": "El reloj del PC vuelve a estar sincronizado"}
    assert snap["prompt"] == ["Open betting"] and shown["state"] == "ready"      # the engine's is untouched
    assert Words("en").snapshot(snap) is snap and Words().text("Open betting") == "Open betting"
    assert "Abrir apuestas" in es.words_script() and Words().words_script().endswith("const WORDS = {};\n")
    with pytest.raises(LanguageError, match="no catalogue for language 'fr'"):
        Words("fr")


def test_every_id_and_its_spanish_have_the_same_placeholders():
    es = Words("es")
    for msgid in TEMPLATES:
        assert set(PLACEHOLDER.findall(es.gettext(msgid))) == set(PLACEHOLDER.findall(msgid)), msgid
        assert es.gettext(msgid) != msgid or msgid in {"Ante", "Super 6", "Supervisor", "supervisor",
                                                        "{jackpot} {amount} -> {value}", "supervisor {name}"}, msgid


# --- the configuration ----------------------------------------------------------------------------

def test_an_unknown_language_is_refused_at_load_naming_its_line(tmp_path, capsys):
    text = config_text("sheet-002", page_settings='language = "fr"\n')
    line = text.splitlines().index('language = "fr"') + 1
    with pytest.raises(ConfigError, match=rf"line {line}: key 'page.language': must be one of en, es, not 'fr'"):
        parse_config(text, "t.toml")
    path = Path(tmp_path / "table.toml")
    path.write_text(text, encoding="utf-8")
    assert main(["config", "check", str(path)]) == 2
    assert f"line {line}: key 'page.language'" in capsys.readouterr().err
    assert parse_config(config_text("sheet-002", page_settings='language = "es"\n'), "t.toml").language == "es"


def test_every_text_of_an_autoplayed_session_has_a_message_id(tmp_path):
    """The snapshots' texts as a played session makes them (the prompts, the dealer's announcements,
    the settlement lines: built in controller/round/view.py and controller/rules/words.py) all have an
    id, and read in Spanish differ from the English."""
    from tests.support.rig import table
    snaps: list[dict] = []
    with table(tmp_path, "sheet-004", autoplay=True, rounds=12, seed=5) as rig:
        rig.engine.observers.append(snaps.append)
        assert rig.run.dealer.done.wait(120)
    texts: set[str] = set()
    for s in snaps:
        texts.update(s["prompt"], s["holds"], (a["message"] for a in s["alerts"]), [s["dealer"]["announcement"] or ""],
                     (d["detail"] for d in s["devices"].values()), [s["dealer"]["hand"] or ""])
        for p in s["positions"]:
            texts.update(p["flags"].values(), p["problems"], (p.get("settlement") or {}).get("lines", []),
                         [(p.get("settlement") or {}).get("total") or "", p["hand"] or "", p["six_card_hand"] or ""])
    texts.discard("")
    es = Words("es")
    assert len(texts) > 30 and any(t.startswith("Dealer plays with") for t in texts)
    assert sorted(t for t in texts if es.match(t) is None) == []
    assert sorted(t for t in texts if es.text(t) == t and t not in {"Super 6"}) == []


def test_a_mo_from_another_compiler_version_is_the_same_catalogue(tmp_path, monkeypatch):
    """The .mo is compared by its messages and the header fields gettext reads, not by the bytes a
    given Babel writes: the same .po compiled by another version (another Generated-By) passes,
    while one translation changed in the .mo alone is still found."""
    import babel.messages.catalog
    po = catalogue.read("es")
    monkeypatch.setattr(babel.messages.catalog, "VERSION", "99.1")     # as a newer Babel writes it
    newer = catalogue.compiled(po)
    assert b"Generated-By: Babel 99.1" in newer
    assert newer != (LOCALE_DIR / "es" / "LC_MESSAGES" / "dealer.mo").read_bytes()
    monkeypatch.setattr(catalogue, "LOCALE", tmp_path)
    path = catalogue.po_path("es")
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        catalogue.write_po(f, po)
    catalogue.mo_path("es").write_bytes(newer)
    assert catalogue.problems("es", catalogue.extracted()) == []
    po["Open betting"].string = "Abrir apuestas ya"
    catalogue.mo_path("es").write_bytes(catalogue.compiled(po))
    assert any("is not the .po compiled" in p for p in catalogue.problems("es", catalogue.extracted()))


def test_every_alert_kind_the_table_raises_has_a_name_on_the_page():
    """The page names an alert's kind in the reader's words (page.js KINDS); a kind it does not know is
    shown as the machine word ("journal behind floor"), untranslated."""
    raised = set()
    for path in (ROOT / "controller").rglob("*.py"):
        raised |= set(re.findall(r'\balert\("([a-z0-9_]+)"', path.read_text(encoding="utf-8")))
    script = (ROOT / "controller" / "page" / "static" / "page.js").read_text(encoding="utf-8")
    kinds = re.search(r"const KINDS = \{(.*?)\n\};", script, re.S)
    assert kinds and "journal_behind_floor" in raised
    named = set(re.findall(r"([a-z0-9_]+): t", kinds.group(1)))
    assert sorted(raised - named) == []


def test_the_shoes_jam_and_fault_names_are_read_in_spanish():
    """The shoe names its jam (the hold and its alert: "Shoe jammed (elevator blocked): ...") and its
    faults by code; those names are the table's words (drivers/wire/shoe_protocol.py), so the Spanish
    page said "Zapato atascado (elevator blocked)" until each had an id (pagelab)."""
    from drivers.wire.shoe_protocol import JAM_CLEARED, JAM_CODES, SHOE_FAULTS
    es = Words("es")
    jams = [name for code, name in JAM_CODES.items() if code != JAM_CLEARED]     # "cleared" holds nothing
    for name in [*jams, *SHOE_FAULTS.values()]:
        assert es.text(name) != name, name
    hold = es.text("Shoe jammed (elevator blocked): clear the jam and close the shoe's door")
    assert hold == "Zapato atascado (elevador bloqueado): desatásquelo y cierre la puerta del zapato"
    assert es.text("The shoe reports a fault: shuffle failed") == "El zapato informa de un fallo: barajado fallido"


def test_a_sign_that_stops_answering_is_told_in_spanish_without_an_english_word():
    """Its keep-alive was 'heartbeat' and its reason 'no answer within 0.5 s after 3 attempts', both English
    on the Spanish page (the alert and the Super 6 closed reason), the command named by its wire name."""
    from controller.page.i18n import Words
    from controller.rules.words import command_words, device_says
    reason = "no answer within 0.5 s after 3 attempts"
    alert = device_says("sign", f"not taking the command to {command_words('heartbeat')}: {reason}")
    assert Words("es").text(alert) == ("El panel del jackpot no acepta la orden de mantener su mensaje en pantalla: "
                                       "ninguna respuesta en 0.5 s tras 3 intentos")
    closed = f"the jackpot sign is not showing the posted values (the sign did not take the command to " \
             f"{command_words('heartbeat')}: {reason})"
    assert Words("es").text(closed) == ("el panel del jackpot no muestra los valores publicados (el panel no aceptó "
                                        "la orden de mantener su mensaje en pantalla: ninguna respuesta en 0.5 s "
                                        "tras 3 intentos)")



def test_a_sign_that_refuses_or_cannot_fit_a_value_is_told_in_spanish():
    """A NAK's reason and the too-wide value stayed English on the Spanish page (the last review)."""
    from controller.page.i18n import Words
    from drivers.wire import alpha
    es = Words("es")
    for reason in alpha.NAK_BITS.values():
        said = es.text(f"The jackpot sign is not taking the command to show the jackpot values: NAK ({reason}) "
                       "after 3 attempts")
        assert said.startswith("El panel del jackpot no acepta") and reason not in said and "after" not in said
    assert es.text("MEGA $1,000,000.00 cannot be shown whole on a 16-character line: the sign shows the name alone "
                   "(a wider sign, or devices.sign.width, is needed)") == (
        "MEGA $1,000,000.00 no cabe entero en una línea de 16 caracteres: el panel muestra solo el nombre (hace "
        "falta un panel más ancho, o devices.sign.width)")
