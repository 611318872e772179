"""The supervisor's report page in Chromium: behind a PIN, the controller's inline SVG charts are
drawn, each hold chart with its theoretical line and ±2σ band. The screenshot goes to the test's
folder; ``SCREENSHOTS=docs/screenshots`` (as scripts/screenshots.py does for the dealer's page)
refreshes the one in the docs: a test run leaves the source tree as it found it."""


import re

from playwright.sync_api import expect

from controller.rules.gaming import GamingClock
from tests.support.browser import screenshot_dir
from tests.support.rig import table


def _gaming_day(rig) -> str:
    opened = rig.journal.db.execute("SELECT opened_at FROM rounds ORDER BY id LIMIT 1").fetchone()[0]
    return GamingClock().day_of(opened).isoformat()         # the rig's configuration: UTC, from 06:00


def _ask(page, pin: str, day: str) -> str:
    page.locator("#keypad button[data-key=clear]").click()
    for digit in pin:                               # the kiosk has no keyboard: the PIN's keypad
        page.locator("#keypad button", has_text=digit).first.click()
    expect(page.locator("#pin")).to_have_value(pin)
    page.fill("#day", day)
    page.click("#show")
    page.wait_for_function("() => ['shown', 'refused'].includes(document.body.dataset.report)")
    return page.evaluate("document.body.dataset.report")


def test_the_supervisor_sees_the_days_charts_against_theory(tmp_path, page):
    with table(tmp_path, "sheet-004", autoplay=True, rounds=12, seed=23, page=True) as rig:
        assert rig.run.dealer.done.wait(120)
        rig.run.pins.set_pin("supervisor", "Ana", "2468")
        day = _gaming_day(rig)
        page.goto(rig.run.page.url)                 # the dealer's page links to the report, in view
        link = page.locator("#report-link")
        expect(link).to_be_in_viewport(ratio=1)
        link.click()
        page.wait_for_url(rig.run.page.url + "report")
        # a wrong PIN shows nothing and says why
        assert _ask(page, "1111", day) == "refused"
        expect(page.locator("#message")).to_contain_text("wrong supervisor PIN")
        assert page.locator("svg").count() == 0
        page.evaluate("document.body.dataset.report = ''")
        assert _ask(page, "2468", day) == "shown"
        holds = page.locator("svg.chart.hold")
        spots = page.locator("table.figures tbody tr:not(.total)")
        assert holds.count() == spots.count() >= 4                 # one per wager type with wagers
        for i in range(holds.count()):
            chart = holds.nth(i)
            assert chart.locator("polygon.band").count() == 1 and chart.locator("polyline.theory").count() == 1
            assert chart.locator("polyline.hold").count() == 1
            points = chart.locator("polyline.hold").get_attribute("points").split()
            assert len(points) >= 2                                 # a point per round with that wager
            band = chart.locator("polygon.band").bounding_box()
            assert band["width"] > 100 and band["height"] > 5       # drawn, not collapsed
        rounds = page.locator("svg.chart.rounds rect.bar")
        assert rounds.count() == 24                                 # the gaming day's hours
        heights = [float(rounds.nth(i).get_attribute("height")) for i in range(24)]
        assert sum(h > 0 for h in heights) >= 1
        assert page.locator("svg.chart.faults").count() == 1
        expect(page.locator("section.report h2")).to_contain_text(f"gaming day {day}")
        expect(page.locator("table.figures")).to_contain_text("$")
        shots = screenshot_dir(tmp_path)
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.screenshot(path=str(shots / "supervisor-report.png"), full_page=True)
        assert (shots / "supervisor-report.png").stat().st_size > 10_000


def test_the_report_api_needs_a_pin_and_a_challenge(tmp_path, page):
    with table(tmp_path, "sheet-002", autoplay=True, rounds=2, seed=3, page=True) as rig:
        assert rig.run.dealer.done.wait(60)
        rig.run.pins.set_pin("supervisor", "Ana", "2468")
        page.goto(rig.run.page.url + "report")

        def post(body):
            return page.evaluate("b => fetch('/api/report', {method: 'POST', headers: {'Content-Type': "
                                 "'application/json'}, body: JSON.stringify(b)}).then(async r => "
                                 "[r.status, await r.json()])", body)
        assert post({"role": "dealer", "pin": "2468"})[0] == 401
        status, answer = post({"role": "supervisor", "pin": "Ana 2468"})     # no PIN: not tried, not counted
        assert (status, answer["message"]) == (400, "a supervisor PIN is 4 to 12 digits; this one was not tried "
                                                    "and does not count as a wrong PIN")
        assert rig.run.pins.locked_for("supervisor") == 0
        status, answer = post({"role": "supervisor", "pin": "2468"})
        assert status == 403 and "challenge" in answer["message"]
        challenge = page.evaluate("fetch('/api/challenge').then(r => r.json()).then(a => a.challenge)")
        status, answer = post({"role": "supervisor", "pin": "2468", "challenge": challenge, "shift": "late"})
        assert status == 400 and "no such shift" in answer["message"]
        status, answer = post({"role": "supervisor", "pin": "2468", "challenge": challenge,
                               "day": _gaming_day(rig)})
        assert status == 200 and answer["report"]["rounds"]["complete"] == 2
        assert "timeline" not in answer["report"] and "<svg" in answer["html"]
        status, answer = post({"role": "supervisor", "pin": "2468", "challenge": challenge})
        assert status == 403                                         # a challenge is used once


def test_the_report_speaks_the_screens_language_with_times_in_the_tables_zone(tmp_path, page):
    """Chosen on the report page itself (the table is English); the shift is a button, the times are
    the table's local time, never a UTC ISO string."""
    with table(tmp_path, "sheet-002", autoplay=True, rounds=3, seed=3, page=True) as rig:
        assert rig.run.dealer.done.wait(60)
        rig.run.pins.set_pin("supervisor", "Ana", "2468")
        rig.act("open_betting")
        rig.state("betting")
        rig.act("void_round", role="supervisor", who="supervisor Ana", reason="player dispute")
        page.goto(rig.run.page.url + "report")
        expect(page.locator("#language")).to_have_text("Español")
        page.locator("#language").click()
        expect(page.locator("#show")).to_have_text("Mostrar informe")
        assert page.evaluate("document.documentElement.lang") == "es"
        expect(page.locator("#shifts button")).to_have_text(["toda la jornada", "day"])     # the table's shifts
        page.locator("#shifts button[data-shift=day]").click()
        assert _ask(page, "2468", _gaming_day(rig)) == "shown"
        expect(page.locator("section.report h2")).to_contain_text("Mesa T-TEST · turno day de la jornada de juego")
        expect(page.locator("table.figures thead")).to_contain_text("apostado")
        # the hold charts' own words too (their verdict line was English on the Spanish report)
        verdict = page.locator("svg text.verdict").first
        expect(verdict).to_contain_text("teórica")
        expect(verdict).not_to_contain_text("theory")
        period = page.locator("section.report .period").text_content()
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d a \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\) · .*", period), period
        void = page.locator(".lists li", has_text="player dispute")
        expect(void).to_have_count(1)
        at = void.text_content().split(" · ")[0]
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", at), at     # no "T", no offset
        expect(void).to_contain_text(f"ronda {rig.snap['round']} · player dispute · por supervisor Ana")
        # the dealer's page in this browser follows the choice (one cookie per browser)
        page.goto(rig.run.page.url)
        expect(page.locator("#recall-open")).to_have_text("Historial")
