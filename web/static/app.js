// ginscore: small progressive enhancements; every page also works without JavaScript.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  function label(code) { return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]); }
  function codes(input) { return input.value.split(/[\s,]+/).filter(Boolean); }

  // The preset menu reloads the form with that preset's options.
  var preset = document.getElementById("preset");
  if (preset) preset.addEventListener("change", function () {
    var form = preset.form, url = new URL(preset.dataset.reload, location.href);
    url.searchParams.set("preset", preset.value);
    location.href = url.toString();
  });

  // Forms marked data-once send once: a second tap cannot store a hand twice. The pressed
  // button's name=value is kept in a hidden field (a disabled button is not sent).
  document.querySelectorAll("form[data-once]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.sent) { event.preventDefault(); return; }
      form.dataset.sent = "1";
      var pressed = event.submitter;
      if (pressed && pressed.name) {
        var keep = document.createElement("input");
        keep.type = "hidden"; keep.name = pressed.name; keep.value = pressed.value;
        form.appendChild(keep);
      }
      form.querySelectorAll("button[type=submit], button:not([type])").forEach(function (button) {
        button.disabled = true;
        button.setAttribute("aria-busy", "true");
      });
      if (pressed) pressed.classList.add("busy");
    });
  });
  // Back to a page from the history: its buttons work again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-once]").forEach(function (form) {
      delete form.dataset.sent;
      form.querySelectorAll("button[disabled]").forEach(function (button) {
        button.disabled = false; button.removeAttribute("aria-busy"); button.classList.remove("busy");
      });
    });
  });

  // A photo is sent as soon as it is chosen or taken.
  document.querySelectorAll("input[data-autosubmit]").forEach(function (input) {
    input.addEventListener("change", function () {
      if (input.files.length) {
        input.closest("label").classList.add("busy");
        input.closest("label").firstChild.textContent = "Reading the cards\u2026 ";
        input.form.submit();
      }
    });
  });

  // Card-picker counters.
  function updateCounts() {
    document.querySelectorAll("[data-count-for]").forEach(function (span) {
      var name = span.dataset.countFor, n;
      var text = document.getElementById(name);
      if (text) n = codes(text).length;
      else n = document.querySelectorAll('input[name="' + name + '"]:checked').length;
      span.textContent = "(" + n + " card" + (n === 1 ? "" : "s") + ")";
    });
  }
  document.addEventListener("change", updateCounts);
  updateCounts();

  // Review page: each hand's text field drawn as chips with move and remove buttons.
  var chipBoxes = document.querySelectorAll(".chips[data-for]");
  function otherOf(name) { return name === "cards0" ? "cards1" : "cards0"; }
  function render() {
    chipBoxes.forEach(function (box) {
      var input = document.getElementById(box.dataset.for);
      var low = (box.dataset.low || "").split(" ");
      box.textContent = "";
      codes(input).forEach(function (code) {
        var chip = document.createElement("span");
        chip.className = "chip" + (/[hd]$/.test(code) ? " red" : "") + (low.indexOf(code) >= 0 ? " low" : "");
        chip.dataset.card = code;
        var face = document.createElement("span");
        face.className = "face"; face.textContent = label(code);
        var move = document.createElement("button");
        move.type = "button"; move.textContent = "\u21c5"; move.title = "Move to the other hand";
        move.setAttribute("aria-label", "Move " + code + " to the other hand");
        move.addEventListener("click", function () { moveCard(input.id, otherOf(input.id), code); });
        var remove = document.createElement("button");
        remove.type = "button"; remove.textContent = "\u00d7"; remove.title = "Remove";
        remove.setAttribute("aria-label", "Remove " + code);
        remove.addEventListener("click", function () { moveCard(input.id, null, code); });
        chip.append(face, move, remove);
        chip.addEventListener("mouseenter", function () { highlight(code, true); });
        chip.addEventListener("mouseleave", function () { highlight(code, false); });
        box.appendChild(chip);
      });
    });
    updateCounts();
  }
  function highlight(code, on) {
    document.querySelectorAll('.box[data-card="' + code + '"]').forEach(function (g) { g.classList.toggle("hilite", on); });
  }
  function moveCard(from, to, code) {
    var a = document.getElementById(from);
    a.value = codes(a).filter(function (c) { return c !== code; }).join(" ");
    if (to) { var b = document.getElementById(to); b.value = codes(b).concat([code]).join(" "); }
    render();
  }
  if (chipBoxes.length) {
    document.querySelectorAll(".cards-text").forEach(function (input) { input.addEventListener("input", render); });
    document.querySelectorAll("select[data-add-to]").forEach(function (select) {
      select.addEventListener("change", function () {
        var code = select.value; if (!code) return;
        var target = document.getElementById(select.dataset.addTo);
        ["cards0", "cards1"].forEach(function (name) {
          var el = document.getElementById(name);
          el.value = codes(el).filter(function (c) { return c !== code; }).join(" ");
        });
        target.value = codes(target).concat([code]).join(" ");
        select.value = "";
        render();
      });
    });
    var swap = document.querySelector("[data-swap]");
    if (swap) swap.addEventListener("click", function () {
      var a = document.getElementById("cards0"), b = document.getElementById("cards1"), t = a.value;
      a.value = b.value; b.value = t; render();
    });
    render();
  }
})();
