// ginscore: small progressive enhancements; every page also works without JavaScript.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  // A card code for people: "Ts" -> "10\u2660" (the same label as engine.cards.card_label).
  function cardLabel(code) { return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]); }
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

  // A photo is sent as soon as it is chosen or taken, with a progress bar: the upload in per cent
  // (the browser's own count of bytes sent), then the reading with the seconds it has taken so far.
  // A photo chosen before this script ran (a fast tap on a slow phone: the script is deferred) is sent too.
  document.querySelectorAll("input[data-autosubmit]").forEach(function (input) {
    function send() {
      if (!input.files.length) return;
      var form = input.form, fileLabel = input.closest("label");
      var box = document.getElementById("upload-progress"), bar = document.getElementById("upload-bar");
      var text = document.getElementById("upload-text");
      fileLabel.classList.add("busy");
      fileLabel.querySelector(".file-label").textContent = "Sending the photo\u2026";
      if (!box || !window.XMLHttpRequest || !window.FormData) { form.submit(); return; }
      box.hidden = false; bar.value = 0; text.textContent = "Sending the photo: 0%";
      var xhr = new XMLHttpRequest(), started = 0, timer = null;
      xhr.open("POST", form.action);
      xhr.setRequestHeader("X-Upload-Progress", "1");
      xhr.upload.addEventListener("progress", function (event) {
        if (!event.lengthComputable) return;
        var percent = Math.round(100 * event.loaded / event.total);
        bar.value = percent; text.textContent = "Sending the photo: " + percent + "%";
      });
      xhr.upload.addEventListener("load", function () {
        bar.removeAttribute("value");              // indeterminate: the server is reading the cards
        started = Date.now();
        fileLabel.querySelector(".file-label").textContent = "Reading the cards\u2026";
        var tick = function () {
          text.textContent = "Photo sent. Reading the cards\u2026 " + Math.round((Date.now() - started) / 1000) + " s";
        };
        tick(); timer = setInterval(tick, 500);
      });
      xhr.addEventListener("load", function () {
        if (timer) clearInterval(timer);
        var answer = null;
        try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = null; }
        if (answer && answer.location) { go(answer.location); return; }
        if (xhr.responseURL && xhr.responseURL !== form.action) { location.href = xhr.responseURL; return; }
        form.submit();                              // an error page: let the browser show it
      });
      xhr.addEventListener("error", function () {
        if (timer) clearInterval(timer);
        text.textContent = "The photo could not be sent (connection lost?); try again.";
        box.classList.add("error"); fileLabel.classList.remove("busy");
        fileLabel.querySelector(".file-label").textContent = "Photo of the hands";
      });
      xhr.send(new FormData(form));
    }
    input.addEventListener("change", send);
    send();
  });

  // Teaching a deck: the photos chosen are sent one by one (a phone's 4-6 big photos in one request could
  // outgrow the upload limit, and a dropped connection would lose them all), each read on the server before
  // the next goes, with "Photo 2 of 4: reading its cards… 7 s". Each answer is JSON with the page to show
  // at the end; a bad deck name stops at once. Without JavaScript the form sends them all together.
  document.querySelectorAll("form[data-teach-upload]").forEach(function (form) {
    var input = form.querySelector("input[type=file]"), label = form.querySelector(".file-label");
    input.addEventListener("change", function () {
      var n = input.files.length;
      label.textContent = n ? n + " photo" + (n === 1 ? "" : "s") + " chosen (tap to change)" : label.dataset.empty;
      label.parentNode.classList.toggle("chosen", n > 0);
    });
    form.addEventListener("submit", function (event) {
      if (!input.files.length || !window.FormData || !window.XMLHttpRequest) return; // the server says what is missing
      event.preventDefault();
      if (form.dataset.sent) return;
      form.dataset.sent = "1";
      var files = Array.prototype.slice.call(input.files), total = files.length, k = 0, last = null;
      var box = form.querySelector(".teach-progress"), bar = box.querySelector("progress");
      var text = box.querySelector(".teach-text"), token = form.elements.upload_token.value;
      form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
      box.hidden = false;
      text.textContent = which() + ": sending\u2026";
      if (box.scrollIntoView) box.scrollIntoView({ block: "center" });
      function which() { return total > 1 ? "Photo " + (k + 1) + " of " + total : "The photo"; }
      function next() {
        if (k >= total) { go(last || location.href); return; }
        var data = new FormData(form), xhr = new XMLHttpRequest(), started = 0, timer = null;
        data.delete("photos");
        data.append("photos", files[k], files[k].name);
        data.set("upload_token", token + "-" + (k + 1));
        xhr.open("POST", form.action);
        xhr.setRequestHeader("X-Upload-Progress", "1");
        bar.value = 0; text.textContent = which() + ": sending 0%";
        xhr.upload.addEventListener("progress", function (event) {
          if (!event.lengthComputable) return;
          var percent = Math.round(100 * event.loaded / event.total);
          bar.value = percent; text.textContent = which() + ": sending " + percent + "%";
        });
        xhr.upload.addEventListener("load", function () {
          bar.removeAttribute("value");
          started = Date.now();
          var tick = function () {
            text.textContent = which() + ": reading its cards\u2026 " + Math.round((Date.now() - started) / 1000) + " s";
          };
          tick(); timer = setInterval(tick, 500);
        });
        xhr.addEventListener("load", function () {
          if (timer) clearInterval(timer);
          var reply = null;
          try { reply = JSON.parse(xhr.responseText); } catch (e) { reply = null; }
          if (!reply || !reply.location) {            // not the app's answer (a PIN page, an error page): show it
            if (xhr.responseURL && xhr.responseURL !== form.action) { location.href = xhr.responseURL; return; }
            document.open(); document.write(xhr.responseText); document.close(); return;
          }
          last = reply.location;
          if (reply.stop) { go(last); return; }
          k += 1; next();
        });
        xhr.addEventListener("error", function () {
          if (timer) clearInterval(timer);
          box.classList.add("error");
          text.textContent = which() + " could not be sent (connection lost?). The photos before it are kept; " +
            "choose the others again.";
          if (last) { setTimeout(function () { go(last); }, 2500); }
          else { delete form.dataset.sent; form.querySelectorAll("button").forEach(function (b) { b.disabled = false; }); }
        });
        xhr.send(data);
      }
      next();
    });
  });

  // Training page: the retrain's time follows what it trains (a taught deck's own reader has its own, shorter,
  // default budget) until the person picks a time themselves.
  document.querySelectorAll("select[data-hours-default]").forEach(function (part) {
    var hours = part.form && part.form.querySelector('select[name="hours"]');
    if (!hours) return;
    var picked = false;
    hours.addEventListener("change", function () { picked = true; });
    part.addEventListener("change", function () {
      if (!picked) hours.value = part.value === "taught" ? part.dataset.hoursTaught : part.dataset.hoursDefault;
    });
  });

  // Where an upload's answer sends the page. The same page with another #anchor (a photo that could not be
  // read sends you back to the sheet's "Add hand") would only scroll, leaving "Reading the cards…" on
  // screen and the error unshown: load it again instead.
  function go(address) {
    var target = new URL(address, location.href);
    if (target.pathname === location.pathname && target.search === location.search) {
      if (target.hash) location.hash = target.hash;
      location.reload();
      return;
    }
    location.href = target.toString();
  }

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

  // The picker cannot put one card in both hands: a card picked for one player is greyed out
  // (disabled) in the other player's picker.
  var pickers = document.querySelectorAll("[data-picker]");
  function syncPickers() {
    pickers.forEach(function (picker) {
      var other = picker.dataset.picker === "pick0" ? "pick1" : "pick0";
      picker.querySelectorAll("input").forEach(function (box) {
        var twin = document.querySelector('input[name="' + other + '"][value="' + box.value + '"]');
        box.disabled = !!(twin && twin.checked);
        box.closest("label").title = box.disabled ? "In the other player's hand" : "";
      });
    });
  }
  if (pickers.length === 2) { document.addEventListener("change", syncPickers); syncPickers(); }

  // Score sheet: each hand row opens to its melds, deadwood, lay-offs and photo.
  document.querySelectorAll(".row-toggle").forEach(function (button) {
    var detail = document.getElementById(button.getAttribute("aria-controls"));
    function toggle() {
      var open = !detail.classList.contains("open");
      detail.classList.toggle("open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
      var arrow = button.querySelector("span");
      if (arrow) arrow.textContent = open ? "\u25be" : "\u25b8";
    }
    button.addEventListener("click", function (event) { event.stopPropagation(); toggle(); });
    button.closest("tr").addEventListener("click", function (event) {
      if (!event.target.closest("a, button")) toggle();
    });
  });

  // Review page: each hand's text field drawn as chips, grouped by meld then deadwood as the engine
  // found them; chips and the boxes on the photo are linked both ways; a box opens an editor.
  var chipBoxes = document.querySelectorAll(".chips[data-for]");
  var flagged = {};                   // card code -> still to check
  document.querySelectorAll(".box.flagged").forEach(function (g) { flagged[g.dataset.card] = true; });
  var selected = null;                // the selected box's index
  function otherOf(name) { return name === "cards0" ? "cards1" : "cards0"; }
  function handOf(code) {
    var names = ["cards0", "cards1"];
    for (var i = 0; i < 2; i++) {
      var el = document.getElementById(names[i]);
      if (el && codes(el).indexOf(code) >= 0) return names[i];
    }
    return null;
  }
  function makeChip(input, code) {
    var chip = document.createElement("span");
    chip.className = "chip" + (/[hd]$/.test(code) ? " red" : "") + (flagged[code] ? " low" : "");
    chip.dataset.card = code;
    var face = document.createElement("button");
    face.type = "button"; face.className = "face"; face.textContent = cardLabel(code);
    face.setAttribute("aria-label", cardLabel(code) + (flagged[code] ? ", to check" : "") + ": show on the photo");
    face.addEventListener("click", function () { selectCard(code, false); });
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
    return chip;
  }
  function render() {
    chipBoxes.forEach(function (box) {
      var input = document.getElementById(box.dataset.for);
      var groups = []; try { groups = JSON.parse(box.dataset.groups || "[]"); } catch (e) { groups = []; }
      var present = codes(input), placed = {};
      box.textContent = "";
      groups.forEach(function (group) {
        var cards = group.cards.filter(function (c) { return present.indexOf(c) >= 0 && !placed[c]; });
        if (!cards.length) return;
        var div = document.createElement("div");
        div.className = "group " + group.kind + (group.colour !== null ? " m" + (group.colour % 8) : "");
        var title = document.createElement("span");
        title.className = "group-label"; title.textContent = group.label;
        div.appendChild(title);
        cards.forEach(function (c) { placed[c] = true; div.appendChild(makeChip(input, c)); });
        box.appendChild(div);
      });
      var rest = present.filter(function (c) { return !placed[c]; });
      if (rest.length) {
        var div = document.createElement("div");
        div.className = "group changed";
        var title = document.createElement("span");
        title.className = "group-label";
        title.textContent = groups.length ? "Changed: press Check score to see the melds" : "Cards";
        div.appendChild(title);
        rest.forEach(function (c) { div.appendChild(makeChip(input, c)); });
        box.appendChild(div);
      }
    });
    updateCounts(); updateToCheck();
    if (selected !== null) markSelected();
  }
  function boxesOf(code) { return document.querySelectorAll('.box[data-card="' + code + '"]'); }
  function highlight(code, on) { boxesOf(code).forEach(function (g) { g.classList.toggle("hilite", on); }); }
  function moveCard(from, to, code) {
    var a = document.getElementById(from);
    a.value = codes(a).filter(function (c) { return c !== code; }).join(" ");
    if (to) { var b = document.getElementById(to); b.value = codes(b).concat([code]).join(" "); }
    render();
  }
  // The "N cards to check" count at the top follows what is confirmed or corrected.
  function updateToCheck() {
    var count = document.getElementById("to-check-count");
    if (!count) return;
    var left = 0;
    document.querySelectorAll(".box.flagged").forEach(function (g) {
      var done = g.classList.contains("checked");
      var item = document.querySelector('[data-flag-for="' + g.dataset.index + '"]');
      if (item) item.classList.toggle("checked", done);
      if (!done) left++;
    });
    count.textContent = left ? left + " card" + (left === 1 ? "" : "s") + " to check" : "All cards checked";
    count.dataset.count = left;
    document.getElementById("to-check").classList.toggle("done", left === 0);
  }
  // Selecting a card: its boxes lit, its chip marked; from a box, the editor opens.
  var editor = document.getElementById("card-editor");
  function boxByIndex(index) { return document.querySelector('.box[data-index="' + index + '"]'); }
  function markSelected() {
    var g = boxByIndex(selected);
    document.querySelectorAll(".box.selected").forEach(function (b) { b.classList.remove("selected"); });
    document.querySelectorAll(".chip.selected").forEach(function (c) { c.classList.remove("selected"); });
    if (!g) return;
    g.classList.add("selected");
    document.querySelectorAll('.chip[data-card="' + g.dataset.card + '"]').forEach(function (c) { c.classList.add("selected"); });
  }
  function inView(element) {
    var r = element.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= (window.innerHeight || document.documentElement.clientHeight);
  }
  function selectCard(code, fromBox) {
    var boxes = boxesOf(code);
    if (!boxes.length) {               // a card added by hand has no box: just mark its chip
      selected = null; markSelected();
      document.querySelectorAll('.chip[data-card="' + code + '"]').forEach(function (c) { c.classList.add("selected"); });
      return;
    }
    selected = boxes[0].dataset.index; markSelected();
    if (fromBox) {
      openEditor(boxes[0]);
      var chip = document.querySelector('.chip[data-card="' + code + '"]');
      if (chip && !inView(chip) && window.matchMedia("(min-width: 1000px)").matches) chip.scrollIntoView({ block: "center" });
    } else if (!inView(boxes[0])) {
      boxes[0].scrollIntoView({ block: "center", inline: "center" });
    }
  }
  function openEditor(g) {
    if (!editor) return;
    var code = g.dataset.card, hand = handOf(code);
    document.getElementById("editor-card").textContent = cardLabel(code) + (hand ? " \u2014 " +
      document.querySelector('.hand[data-player="' + hand.slice(-1) + '"] .player-name').textContent + "'s hand" : " \u2014 in neither hand");
    var why = g.classList.contains("flagged") && !g.classList.contains("checked") ? g.dataset.why : "";
    document.getElementById("editor-why").textContent = why ? "(" + why + ")" : "";
    var alternatives = document.getElementById("editor-alternatives");
    alternatives.textContent = "";
    (g.dataset.runnerUps || "").split(" ").filter(Boolean).forEach(function (other) {
      var button = document.createElement("button");
      button.type = "button"; button.textContent = "It is " + cardLabel(other);
      button.dataset.replaceWith = other;
      button.addEventListener("click", function () { correct(g, other); });
      alternatives.appendChild(button);
    });
    document.getElementById("editor-select").value = "";
    document.getElementById("editor-move").disabled = !hand;
    document.getElementById("editor-remove").disabled = !hand;
    editor.hidden = false;
    editor.dataset.index = g.dataset.index;
    if (!inView(editor)) editor.scrollIntoView({ block: "nearest" });   // on a phone it sits under the photo
  }
  function closeEditor() { if (editor) editor.hidden = true; selected = null; markSelected(); }
  function correct(g, code) {
    // This box shows `code`, not what was read: change the card in its hand, in place.
    var old = g.dataset.card, hand = handOf(old);
    if (code && code !== old) {
      var elsewhere = handOf(code);
      if (elsewhere) { var e = document.getElementById(elsewhere); e.value = codes(e).filter(function (c) { return c !== code; }).join(" "); }
      if (hand) {
        var input = document.getElementById(hand);
        input.value = codes(input).map(function (c) { return c === old ? code : c; }).join(" ");
      }
      g.dataset.card = code;
      g.querySelectorAll("text").forEach(function (t) { t.textContent = cardLabel(code); });
      g.setAttribute("aria-label", cardLabel(code) + ", corrected");
      delete flagged[old];
    }
    g.classList.add("checked");
    g.querySelectorAll("text").forEach(function (t) { t.textContent = cardLabel(g.dataset.card); });
    delete flagged[g.dataset.card];
    render(); openEditor(g);
  }
  if (editor) {
    document.getElementById("editor-ok").addEventListener("click", function () { var g = boxByIndex(editor.dataset.index); if (g) correct(g, null); });
    document.getElementById("editor-select").addEventListener("change", function (event) {
      var g = boxByIndex(editor.dataset.index); if (g && event.target.value) correct(g, event.target.value);
    });
    document.getElementById("editor-move").addEventListener("click", function () {
      var g = boxByIndex(editor.dataset.index), hand = g && handOf(g.dataset.card);
      if (hand) { moveCard(hand, otherOf(hand), g.dataset.card); openEditor(g); }
    });
    document.getElementById("editor-remove").addEventListener("click", function () {
      var g = boxByIndex(editor.dataset.index), hand = g && handOf(g.dataset.card);
      if (hand) { moveCard(hand, null, g.dataset.card); openEditor(g); }
    });
    document.getElementById("editor-close").addEventListener("click", closeEditor);
  }
  document.querySelectorAll(".box").forEach(function (g) {
    g.addEventListener("click", function (event) { event.stopPropagation(); selectCard(g.dataset.card, true); });
    g.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); selectCard(g.dataset.card, true); }
    });
  });
  document.querySelectorAll("[data-select]").forEach(function (button) {
    button.addEventListener("click", function () {
      var g = boxByIndex(button.dataset.select);
      if (!g) return;
      selectCard(g.dataset.card, true);
      var photo = document.getElementById("photo");
      if (photo && !inView(g)) g.scrollIntoView({ block: "center", inline: "center" });
    });
  });
  // Tap to zoom: the photo grows inside its own frame (the page never scrolls sideways).
  var zoom = document.getElementById("zoom"), wrap = document.getElementById("zoom-wrap");
  function toggleZoom(event) {
    var on = !wrap.classList.contains("zoomed");
    wrap.classList.toggle("zoomed", on);
    zoom.setAttribute("aria-pressed", on ? "true" : "false");
    zoom.textContent = on ? "Zoom out" : "Zoom";
    if (on && event && event.offsetX !== undefined && event.target.closest && event.target.closest("svg")) {
      var svg = wrap.querySelector("svg"), rect = wrap.getBoundingClientRect();
      var fx = (event.clientX - rect.left) / rect.width, fy = (event.clientY - rect.top) / rect.height;
      wrap.scrollLeft = fx * svg.clientWidth - wrap.clientWidth / 2;
      wrap.scrollTop = fy * svg.clientHeight - wrap.clientHeight / 2;
    }
  }
  if (zoom && wrap) {
    zoom.addEventListener("click", function () { toggleZoom(null); });
    var image = wrap.querySelector(".photo-image");
    if (image) image.addEventListener("click", toggleZoom);
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
      a.value = b.value; b.value = t;
      var ga = document.querySelector('.chips[data-for="cards0"]'), gb = document.querySelector('.chips[data-for="cards1"]');
      var tg = ga.dataset.groups; ga.dataset.groups = gb.dataset.groups; gb.dataset.groups = tg;
      render();
    });
    render();
  }

  // Webcam: the cards the live view reads, and the capture offered once both spreads have stayed
  // the same for about a second.
  var live = document.getElementById("live-reading");
  if (live) {
    var capture = document.getElementById("capture"), status = document.getElementById("live-status");
    var poll = function () {
      fetch(live.dataset.url, { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (state) {
        [0, 1].forEach(function (i) {
          document.getElementById("live-hand" + i).textContent = state.hands[i].map(cardLabel).join(" ") || "\u2014";
        });
        if (!state.cards) status.textContent = "No cards seen yet: spread both hands face up under the camera.";
        else if (state.steady) status.textContent = state.cards + " cards, steady: capture now.";
        else status.textContent = state.cards + " cards read; hold still\u2026";
        capture.classList.toggle("ready", !!state.steady);
        capture.textContent = state.steady ? "Capture now" : "Capture";
      }).catch(function () { status.textContent = "The live reading is not available."; });
    };
    poll(); setInterval(poll, 700);
  }

  // A live sheet: every open sheet asks every 1.5 s whether the game changed (a conditional request: the
  // server answers 304 while nothing did). When it did, the page shows the new sheet at once, unless this
  // phone is in the middle of something (a photo uploading, a form being filled in): then it says so and
  // waits for a tap. A phone that slept asks as soon as it wakes.
  var liveSheet = document.getElementById("live-sheet");
  if (liveSheet) {
    // the sheet follows everything it shows (its version); the review page only the saved hands ("hands")
    var stay = "stay" in liveSheet.dataset, version = liveSheet.dataset.version, etag = version;
    var changed = document.getElementById("sheet-changed");
    var busy = function () {
      var progress = document.getElementById("upload-progress"), active = document.activeElement;
      var open = document.querySelector("details[open]");
      return (progress && !progress.hidden) || !!open ||
        (active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active.type !== "file");
    };
    var timer = null;
    var check = function () {
      clearTimeout(timer);
      if (document.hidden) return;
      fetch(liveSheet.dataset.versionUrl, { cache: "no-store", headers: { "If-None-Match": '"' + etag + '"' } })
        .then(function (r) { return r.status === 200 ? r.json() : null; })
        .then(function (state) {
          if (state) etag = state.version;
          var now = state ? (stay ? state.hands : state.version) : version;
          if (now !== version) {
            // the review page never reloads itself (the corrections would be lost): it says so
            if (busy() || stay) { changed.hidden = false; version = now; }
            else { window.location.reload(); return; }
          }
          timer = setTimeout(check, 1500);
        })
        .catch(function () { timer = setTimeout(check, 5000); });
    };
    var refresh = document.getElementById("sheet-refresh");
    if (refresh) refresh.addEventListener("click", function () { window.location.reload(); });
    document.addEventListener("visibilitychange", function () { if (!document.hidden) check(); });
    timer = setTimeout(check, 1500);
  }
})();
