"""The dealer's page in Spanish (``page.language = "es"``), in a real browser against the simulated table.

A whole round is dealt from the page: its buttons, prompts, the state badge, a position's problem and
its alert, the table's refusals and the settlement are read in Spanish, and every text the page shows
on the way (dialogs included) is searched for the catalogue's English: none is left. The journal keeps
its English (it is the evidence).
"""

from __future__ import annotations

import re

from babel.messages.pofile import read_po
from playwright.sync_api import expect

from controller.page.i18n import LOCALE_DIR, PLACEHOLDER
from tests.support.browser import screenshot_dir, tap, touch, wait_state
from tests.support.rig import table

SPANISH = 'language = "es"\n'


def english_in(texts: list[str]) -> list[str]:
    """The catalogue's English words (ids whose Spanish differs) found in ``texts``: whole ids, and
    each fixed part of two words or more of an id with placeholders."""
    with (LOCALE_DIR / "es" / "LC_MESSAGES" / "dealer.po").open("rb") as f:
        catalogue = read_po(f)
    seen = "\n".join(texts)
    found = []
    for m in catalogue:
        if not m.id or m.string == m.id:
            continue
        parts = [p.strip() for p in PLACEHOLDER.split(str(m.id))[::2]] if "{" in m.id else [str(m.id)]
        for part in parts:
            if ("{" in m.id and len(part.split()) < 2) or not part:
                continue
            if re.search(rf"(?<![\w]){re.escape(part)}(?![\w])", seen):
                found.append(part)
    return sorted(set(found))


def shown(page) -> str:
    """Everything the dealer can read now: the visible text, and the titles and placeholders."""
    return page.evaluate("""() => document.body.innerText + "\\n" + document.title + "\\n" +
        [...document.querySelectorAll("[title], [placeholder], [aria-label]")].map(e =>
          [e.title, e.placeholder, e.getAttribute("aria-label")].filter(Boolean).join("\\n")).join("\\n")""")


def post(page, body: dict) -> tuple[int, dict]:
    return page.evaluate("b => fetch('/api/action', {method: 'POST', headers: {'Content-Type': "
                         "'application/json'}, body: JSON.stringify(b)}).then(async r => [r.status, await r.json()])",
                         body)


def test_a_table_in_spanish_deals_a_round_with_no_english_left(tmp_path, page):
    with table(tmp_path, "sheet-002", page=True, seed=6, page_settings=SPANISH) as rig:
        texts = []
        page.goto(rig.run.page.url)
        expect(page.locator("#link")).to_have_text("En línea")
        wait_state(page, "ready")
        assert page.evaluate("document.documentElement.lang") == "es"
        assert page.title() == "Póker de Tres Cartas — crupier"
        for action, words in (("open_betting", "Abrir apuestas"), ("no_more_bets", "No va más"),
                              ("deal", "Repartir"), ("reveal", "Descubrir mano del crupier"),
                              ("misdeal", "Reparto nulo"), ("call_supervisor", "Llamar al supervisor")):
            expect(page.locator(f"button[data-action={action}]")).to_have_text(words)
        expect(page.locator("#recall-open")).to_have_text("Historial")
        expect(page.locator("#report-link")).to_have_text("Informe")
        expect(page.locator("#prompt .first")).to_have_text("Abrir apuestas")
        expect(page.locator(".pill[data-device=shoe]")).to_have_text("zapato: en línea")
        # a touch the table does not offer says why, in Spanish
        touch(page, "button[data-action=deal]")
        expect(page.locator("#toast")).to_have_text("Ahora no: no hay ninguna ronda abierta")
        texts.append(shown(page))

        tap(page, "button[data-action=open_betting]")
        wait_state(page, "betting")
        expect(page.locator("#state")).to_have_text("Apuestas")
        expect(page.locator("#prompt .first")).to_have_text("Hagan sus apuestas")
        rig.bet({1: {"ante": 500}, 2: {"ante": 1000, "pair_plus": 500}, 3: {"ante": 200}})
        rig.closable()          # else No more bets is refused for the shuffle or the unread felt, not the minimum
        # a bet under the minimum: flagged on the felt and in the prompt
        expect(page.locator("#pos-3 .spots li.flag .why")).to_have_text("$2.00 no llega al mínimo de $5.00")
        expect(page.locator("#prompt .more").first).to_have_text("Posición 3 Ante: $2.00 no llega al mínimo de $5.00")
        texts.append(shown(page))
        # the table's refusal of a touch comes back in Spanish (the journal keeps the English)
        status, answer = post(page, {"action": "no_more_bets"})
        assert status == 409 and answer["message"] == "posición 3 Ante: $2.00 no llega al mínimo de $5.00"
        rig.sim.sensors.remove(3, "ante")
        rig.wait(lambda s: not s["positions"][2]["felt"], what="position 3 cleared")
        tap(page, "button[data-action=no_more_bets]")
        wait_state(page, "closed")
        expect(page.locator("#state")).to_have_text("No va más")
        expect(page.locator("#prompt .first")).to_have_text("No va más")
        expect(page.locator("#prompt .more").first).to_have_text("Sin PAR PLUS, posición 1")
        expect(page.locator("#prompt .more").last).to_have_text("Repartir")
        status, answer = post(page, {"action": "reveal"})
        assert status == 409 and answer["message"] == "«descubrir» no es posible en el estado «no va más»"
        texts.append(shown(page))

        tap(page, "button[data-action=deal]")
        wait_state(page, "decisions")
        expect(page.locator("#prompt .first")).to_have_text("Posición 1: juega o se retira")
        expect(page.locator("#pos-2 button[data-pos-action=play]")).to_have_text("Juega")
        expect(page.locator("#pos-2 button[data-pos-action=fold]")).to_have_text("Se retira")
        # Play chips of the wrong amount: the position's problem and the alert, in Spanish
        rig.sim.sensors.place(2, "play", 500)
        problem = "Posición 2: el Juego debe ser igual al Ante ($10.00), no $5.00"
        expect(page.locator("#pos-2 .problems")).to_have_text(problem)
        alert = page.locator("#alerts li", has_text=problem)
        expect(alert).to_have_count(1)
        expect(alert.locator(".kind")).to_contain_text("ronda 1 · importe del Juego · posición 2")
        expect(page.locator("#pos-2 .spots")).to_contain_text("Fichas de Juego$5.00")
        english = [r.data for r in rig.records("alert") if "Play must equal" in r.data.get("message", "")]
        assert english, "the journal keeps the alert in English"
        texts.append(shown(page))
        rig.sim.sensors.place(2, "play", 1000)
        expect(page.locator("#pos-2 .decision")).to_have_text("Juega")
        tap(page, "#pos-1 button[data-pos-action=fold]")
        wait_state(page, "collecting")
        expect(page.locator("#state")).to_have_text("Recogida")
        expect(page.locator("#prompt .first")).to_have_text("Recoja las manos retiradas y sus apuestas: posición 1")
        expect(page.locator("#prompt .more").last).to_have_text("Luego descubra la mano del crupier")
        expect(page.locator("#pos-1 .decision")).to_have_text("Se retira — recoja la mano")
        texts.append(shown(page))

        tap(page, "button[data-action=reveal]")
        wait_state(page, "settling")
        expect(page.locator("#announcement")).to_have_text(re.compile(r"^El crupier (no juega|juega con )"))
        expect(page.locator("#pos-2 .settle li").first).to_have_text(re.compile(r"^(Pagar|Cobrar|Empate) "))
        expect(page.locator("#pos-1 .settle li").first).to_have_text(
            "Retirada: sus apuestas perdidas se recogieron con las cartas")
        expect(page.locator("#prompt .more").last).to_have_text("Liquide la posición 2")
        texts.append(shown(page))
        for name in ("link", "report-link"):                  # the longer words still fit the header
            expect(page.locator(f"#{name}")).to_be_in_viewport(ratio=1)
        page.evaluate("document.getElementById('toast').hidden = true")     # the refusal shown before
        page.screenshot(path=str(screenshot_dir(tmp_path) / "settling-es.png"))
        tap(page, "#pos-2 button[data-pos-action=confirm]")
        expect(page.locator("#pos-2 .paid")).to_have_text("Liquidada ✓")
        while rig.snap["state"] == "settling":
            position = rig.snap["next_to_pay"]
            tap(page, f"#pos-{position} button[data-pos-action=confirm]")
            rig.wait(lambda s, p=position: s["next_to_pay"] != p, what=f"position {position} settled")
        wait_state(page, "complete")
        expect(page.locator("#prompt .first")).to_have_text("Ronda completa")
        texts.append(shown(page))

        # the dialogs: the supervisor's, the misdeal's and recall
        tap(page, "button[data-action=call_supervisor]")
        expect(page.locator("#toast")).to_have_text("Supervisor llamado")
        expect(page.locator("#alerts li").first).to_contain_text("Supervisor llamado a la mesa por el crupier")
        tap(page, "#supervisor-menu")
        expect(page.locator("#sup-title")).to_have_text("Supervisor")
        expect(page.locator("[data-sup=reset_meters]")).to_have_text("Poner a cero los contadores")
        page.locator("[data-sup=reset_meters]").click()
        expect(page.locator("#sup-fields")).to_be_visible()
        page.locator("#reasons button", has_text="fin de turno").click()
        expect(page.locator("#sup-reason")).to_have_value("fin de turno")
        texts.append(shown(page))
        page.locator("#sup-submit").click()              # no PIN is set: refused, in Spanish
        expect(page.locator("#sup-error")).to_have_text(re.compile("PIN"))
        texts.append(shown(page))
        page.locator("#sup-dialog .cancel").click()
        tap(page, "#recall-open")
        expect(page.locator("#recall-1 h3")).to_contain_text("Ronda 1")
        expect(page.locator("#recall-1 thead")).to_contain_text("Posición")
        expect(page.locator("#recall-1 .alert-note").first).to_contain_text("importe del Juego: Posición 2")
        texts.append(shown(page))
        page.locator("#recall-dialog .cancel").click()

        assert english_in(texts) == []


def test_the_english_page_stays_english_and_the_catalogue_check_finds_english(tmp_path, page):
    """The check above can fail: the same walk's English page is full of the catalogue's English."""
    with table(tmp_path, "sheet-002", page=True, seed=6) as rig:
        page.goto(rig.run.page.url)
        expect(page.locator("#link")).to_have_text("Live")
        wait_state(page, "ready")
        assert page.evaluate("document.documentElement.lang") == "en"
        expect(page.locator("button[data-action=no_more_bets]")).to_have_text("No more bets")
        found = english_in([shown(page)])
        assert {"No more bets", "Open betting", "Misdeal", "Recall", "Alerts"} <= set(found)


def test_each_screen_chooses_its_language_on_the_page_and_two_screens_may_differ(tmp_path, page, browser):
    """The table is configured English; the person at this screen touches "Español": the page, its live
    snapshots and the table's answers are Spanish for this browser only, and a supervisor's tablet (another
    browser) stays English. ?lang= chooses it too, and /words.js?lang=es answers in that language."""
    with table(tmp_path, "sheet-002", page=True, seed=6) as rig:
        tablet = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        try:
            page.goto(rig.run.page.url)
            expect(page.locator("#link")).to_have_text("Live")
            tablet.goto(rig.run.page.url)
            expect(tablet.locator("#link")).to_have_text("Live")
            expect(page.locator("#language")).to_have_text("Español")
            page.locator("#language").click()
            expect(page.locator("#link")).to_have_text("En línea")
            expect(page.locator("#language")).to_have_text("English")
            assert page.evaluate("document.documentElement.lang") == "es"
            expect(page.locator("#prompt .first")).to_have_text("Abrir apuestas")        # the snapshot too
            touch(page, "button[data-action=deal]")
            expect(page.locator("#toast")).to_have_text("Ahora no: no hay ninguna ronda abierta")
            status, answer = post(page, {"action": "deal"})                # the table's answer, in Spanish
            assert (status, answer["message"]) == (409, "«repartir» no es posible en el estado «lista»")
            # the tablet is another browser: still English, live
            expect(tablet.locator("#prompt .first")).to_have_text("Open betting")
            tap(tablet, "button[data-action=open_betting]")
            expect(page.locator("#prompt .first")).to_have_text("Hagan sus apuestas")
            expect(tablet.locator("#prompt .first")).to_have_text("Place your bets")
            assert post(tablet, {"action": "deal"})[1]["message"].startswith("deal is not possible")
            assert tablet.evaluate("fetch('/words.js?lang=es').then(r => r.text())").startswith(
                "// The dealer page's words in 'es'")
            # a start address may name the language: the tablet's ?lang=es sticks to that browser
            tablet.goto(rig.run.page.url + "?lang=es")
            expect(tablet.locator("#link")).to_have_text("En línea")
            assert "lang=" not in tablet.url
            tablet.goto(rig.run.page.url + "?lang=en")
            expect(tablet.locator("#link")).to_have_text("Live")
            expect(page.locator("#prompt .first")).to_have_text("Hagan sus apuestas")
        finally:
            tablet.context.close()
