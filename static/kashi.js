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
// A request aborted by a newer one (hx-sync) is no answer and shows nothing.
function formAnswer(e) {
  var form = e.target.closest && e.target.closest("#task-form");
  var s = document.getElementById("task-form-status");
  if (!form || !s) {
    return;
  }
  var code = e.type === "htmx:sendError" ? 0 : e.detail.xhr.status;
  var project = document.getElementById("f-project");
  var msg = (s.dataset["e" + code] || s.dataset.eother).replace("%s", project ? project.value : "");
  var p = document.createElement("p");
  p.className = "notice bad";
  p.setAttribute("data-testid", "form-answer");
  p.setAttribute("role", "alert");
  p.textContent = code ? msg + " (" + code + ")" : msg;
  s.replaceChildren(p);
}
document.addEventListener("htmx:responseError", formAnswer);
document.addEventListener("htmx:sendError", formAnswer);

// Regions that refresh themselves (data-refresh: an hx-trigger of "every …", or a part
// swapped out of band with one) refresh only while the tab is visible. This is not a filter
// in hx-trigger: htmx evaluates those as script, which the pages' Content-Security-Policy
// forbids (the board logged the refusal at every refresh).
document.addEventListener("htmx:beforeRequest", function (e) {
  if (document.visibilityState !== "visible" && e.detail.elt.hasAttribute("data-refresh")) {
    e.preventDefault();
  }
});

// Swaps keep the scroll of each wide table and log, by position on the page. A refresh keeps
// where the reader is too: the element that had keyboard focus in a refreshed region gets it
// back (htmx does this only for elements with an id; a link in a table has none, and focus
// fell back to the top of the page), and the page's scroll stays.
var kept = null;
var scrollers = ".table-wrap, pre.log";
document.addEventListener("htmx:beforeSwap", function (e) {
  var refresh = e.detail.elt.hasAttribute("data-refresh");
  kept = {
    x: refresh ? window.scrollX : null,
    y: window.scrollY,
    scrolls: Array.prototype.map.call(document.querySelectorAll(scrollers), function (w) { return [w.scrollLeft, w.scrollTop]; }),
    focus: refresh ? focusKey(document.activeElement) : null
  };
});
document.addEventListener("htmx:afterSwap", function () {
  var k = kept;
  kept = null;
  if (!k) {
    return;
  }
  document.querySelectorAll(scrollers).forEach(function (w, i) {
    var s = k.scrolls[i];
    if (s && (s[0] || s[1])) {
      w.scrollLeft = s[0];
      w.scrollTop = s[1];
    }
  });
  var f = k.focus;
  if (f && !f.el.isConnected) {
    var region = document.getElementById(f.region);
    if (region) {
      var all = region.querySelectorAll(f.sel);
      var el = all[Math.min(f.i, all.length - 1)] || region;
      if (el === region && !region.hasAttribute("tabindex")) {
        region.setAttribute("tabindex", "-1");
      }
      el.focus({ preventScroll: true });
    }
  }
  if (k.x !== null && (window.scrollX !== k.x || window.scrollY !== k.y)) {
    window.scrollTo(k.x, k.y);
  }
});

// focusKey describes el, when it is in a refreshing region with an id, so that its
// counterpart in the region's new content can be found: its tag and the attributes that name
// what it does, and which of the region's elements alike it is.
function focusKey(el) {
  var region = el && el !== document.body && el.closest && el.closest("[data-refresh][id]");
  if (!region) {
    return null;
  }
  var sel = el.tagName.toLowerCase();
  ["id", "href", "name", "value", "type", "data-testid"].forEach(function (a) {
    var v = el.getAttribute(a);
    if (v !== null) {
      sel += "[" + a + "=\"" + CSS.escape(v) + "\"]";
    }
  });
  return { el: el, region: region.id, sel: sel, i: Array.prototype.indexOf.call(region.querySelectorAll(sel), el) };
}

// What cannot be undone asks first: a form with data-confirm submits only when the user
// agrees (issuing a bill, revoking a token, rolling back a pool, releasing cards, cancelling).
document.addEventListener("submit", function (e) {
  var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
  if (msg && !window.confirm(msg)) {
    e.preventDefault();
    e.stopImmediatePropagation();
  }
}, true);

// The audit log shows times in the browser's time zone, which the server reads from this
// cookie (an IANA name such as Asia/Shanghai).
(function () {
  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz) {
      document.cookie = "kashi_tz=" + encodeURIComponent(tz) + "; path=/; max-age=31536000; SameSite=Lax";
    }
  } catch (e) {
    // No Intl: times stay in the billing zone.
  }
})();

// A copy button (data-copy names the element whose text it copies, such as a new token):
// through the clipboard where the browser offers it, else by selecting the text for the
// copy command; the button then says it was copied (data-copied), or asks the reader to
// copy the selected text (data-copy-failed).
document.addEventListener("click", function (e) {
  var b = e.target.closest && e.target.closest("button[data-copy]");
  var el = b && document.getElementById(b.getAttribute("data-copy"));
  if (!el) {
    return;
  }
  var label = b.getAttribute("data-label") || b.textContent;
  b.setAttribute("data-label", label);
  function say(text) {
    b.textContent = text;
    setTimeout(function () { b.textContent = label; }, 2000);
  }
  function select() {
    var r = document.createRange();
    r.selectNodeContents(el);
    var s = window.getSelection();
    s.removeAllRanges();
    s.addRange(r);
    var ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (err) {
      ok = false;
    }
    say(ok ? b.getAttribute("data-copied") : b.getAttribute("data-copy-failed"));
  }
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(el.textContent).then(function () { say(b.getAttribute("data-copied")); }, select);
  } else {
    select();
  }
});
