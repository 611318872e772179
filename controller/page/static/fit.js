// Pay lines as large as the room allows (issue 31, item 3). At settlement each position's lines (what
// to pay and take, the six cards' hand) start a step above the page's body text and come down a step
// at a time only while the positions do not fit in view: at 1920x1080 and 1280x800 they are read from
// a metre away at or above the body's size; six busy positions at 1024x768 still fit, nothing scrolled
// away (tests/page/test_page_layout.py measures it). When even the smallest pay lines do not fit (a
// jackpot hit waiting for the supervisor adds a prompt line and a gold band over the positions; a
// capped win adds lines), the page's own type comes down half a pixel at a time, never under the 14px
// it has at 1024x768 (test_page_layout_jackpot.py). Runs after each drawing and each resize; a few
// reflows, at settlement only.
"use strict";

const PAY_LINE_SIZES = [1.15, 1.1, 1.05, 1, 0.95, 0.9, 0.85, 0.8];     // em of the body's text
const SMALLEST_TYPE = 14;                                               // px: page.css's floor

function fitPayLines() {
  const box = $("positions");
  const root = document.documentElement;
  root.style.removeProperty("font-size");
  const fits = () => box.scrollHeight <= box.clientHeight + 1 &&
    [...box.querySelectorAll(".pos")].every((p) => p.scrollWidth <= p.clientWidth + 1);
  if (!box.querySelector(".settle")) {
    box.style.removeProperty("--pay-lines");
    fitSpotLines(box, fits);
    return;
  }
  const fitLines = () => PAY_LINE_SIZES.some((size) => {
    box.style.setProperty("--pay-lines", `${size}em`);
    return fits();
  });
  for (let px = parseFloat(getComputedStyle(root).fontSize); !fitLines() && px > SMALLEST_TYPE;) {
    px = Math.max(SMALLEST_TYPE, px - 0.5);
    root.style.fontSize = `${px}px`;
  }
}

// The wagers on the felt before settlement (betting to collecting): read from a metre away, they were
// .95em of the body's text (13px at 1024x768) in boxes two-thirds empty. As large as the room allows,
// from 1.4em down to the .95em six busy positions with their problems need at 1024x768.
const SPOT_LINE_SIZES = [1.4, 1.3, 1.2, 1.1, 1, 0.95];

function fitSpotLines(box, fits) {
  if (!box.querySelector(".spots li")) {
    box.style.removeProperty("--spot-lines");
    return;
  }
  SPOT_LINE_SIZES.some((size) => {
    box.style.setProperty("--spot-lines", `${size}em`);
    return fits();
  });
}

window.addEventListener("resize", fitPayLines);
