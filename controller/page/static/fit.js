// Pay lines as large as the room allows (issue 31, item 3). At settlement each position's lines (what
// to pay and take, the six cards' hand) start a step above the page's body text and come down a step
// at a time only while the positions do not fit in view: at 1920x1080 and 1280x800 they are read from
// a metre away at or above the body's size; six busy positions at 1024x768 still fit, nothing scrolled
// away (tests/page/test_page_layout.py measures it). Runs after each drawing and each resize; a few
// reflows, at settlement only.
"use strict";

const PAY_LINE_SIZES = [1.15, 1.1, 1.05, 1, 0.95, 0.9, 0.85, 0.8];     // em of the body's text

function fitPayLines() {
  const box = $("positions");
  if (!box.querySelector(".settle")) {
    box.style.removeProperty("--pay-lines");
    return;
  }
  const fits = () => box.scrollHeight <= box.clientHeight + 1 &&
    [...box.querySelectorAll(".pos")].every((p) => p.scrollWidth <= p.clientWidth + 1);
  for (const size of PAY_LINE_SIZES) {
    box.style.setProperty("--pay-lines", `${size}em`);
    if (fits()) return;
  }
}

window.addEventListener("resize", fitPayLines);
