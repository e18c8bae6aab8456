// Kashi's own small script (no eval: the pages' Content-Security-Policy forbids it).
"use strict";

// The phone menu: the toggle opens and closes the navigation.
document.addEventListener("click", function (e) {
  var b = e.target.closest(".menu-toggle");
  if (b) {
    b.setAttribute("aria-expanded", b.getAttribute("aria-expanded") === "true" ? "false" : "true");
  }
});

// The submit form never fails silently: every answer htmx does not swap in — a refusal
// (403, 409, 413), a server error (5xx), no answer at all (network) — is written into the
// form's status area, in the page's language (its data-e… attributes; %s is the project).
document.addEventListener("htmx:afterRequest", function (e) {
  var form = e.target.closest && e.target.closest("#task-form");
  var x = e.detail.xhr;
  if (!form || e.detail.successful || (x && x.status === 422)) {
    return;
  }
  var s = document.getElementById("task-form-status");
  if (!s) {
    return;
  }
  var code = x ? x.status : 0;
  var project = document.getElementById("f-project");
  var msg = (s.dataset["e" + code] || s.dataset.eother).replace("%s", project ? project.value : "");
  var p = document.createElement("p");
  p.className = "notice bad";
  p.setAttribute("data-testid", "form-answer");
  p.setAttribute("role", "alert");
  p.textContent = code ? msg + " (" + code + ")" : msg;
  s.replaceChildren(p);
});

// Refreshes keep the horizontal scroll of wide tables: each .table-wrap's scroll is noted
// before a swap and restored, by position on the page, after it.
var scrolls = [];
document.addEventListener("htmx:beforeSwap", function () {
  scrolls = Array.prototype.map.call(document.querySelectorAll(".table-wrap"), function (w) { return w.scrollLeft; });
});
document.addEventListener("htmx:afterSettle", function () {
  document.querySelectorAll(".table-wrap").forEach(function (w, i) {
    if (scrolls[i]) {
      w.scrollLeft = scrolls[i];
    }
  });
});
