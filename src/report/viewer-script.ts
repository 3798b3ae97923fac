/**
 * The report page's script (plain ES2017, no library): reads the embedded JSON and renders the
 * timeline. Only the rows are built up front, a page of them at a time ("Show more"); a turn's
 * text and calls, a call's input, diff and output are built when opened, so a session of thousands
 * of turns and megabytes of output opens at once. Search and the filter work on the data, not on
 * the page. Kept as a string (no template literals inside) so it is inlined as is.
 */
export const VIEWER_SCRIPT = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var PAGE = 200;
  var timeline = document.getElementById("timeline");
  var search = document.getElementById("search");
  var filter = document.getElementById("filter");
  var sideBySide = document.getElementById("side-by-side");
  var matchCount = document.getElementById("match-count");
  var themeButton = document.getElementById("theme-toggle");

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function ms(value) {
    if (value === null || value === undefined) return "?";
    if (value < 1000) return Math.round(value) + " ms";
    if (value < 60000) return (value / 1000).toFixed(1) + " s";
    return Math.floor(value / 60000) + " min " + Math.round((value % 60000) / 1000) + " s";
  }
  function num(value) { return Number(value || 0).toLocaleString("en-US"); }
  function usd(value) {
    if (value === null || value === undefined) return "price unknown";
    return value > 0 && value < 0.01 ? "$" + value.toFixed(4) : "$" + value.toFixed(2);
  }
  /** A <details> whose body is built the first time it is opened. */
  function lazyDetails(className, fillSummary, fillBody, open) {
    var details = el("details", className);
    var summary = el("summary");
    fillSummary(summary);
    details.appendChild(summary);
    var built = false;
    function build() {
      if (built) return;
      built = true;
      var body = el("div", "body");
      fillBody(body);
      details.appendChild(body);
    }
    details.addEventListener("toggle", function () { if (details.open) build(); });
    if (open) { build(); details.open = true; }
    return details;
  }
  function capped(node, value, label) {
    if (!value) return;
    if (label) node.appendChild(el("div", "label", label));
    if (value.redacted) {
      node.appendChild(el("div", "cut", "left out (--redact): " + num(value.chars) + " characters"));
      return;
    }
    node.appendChild(el("pre", "", value.text));
    if (value.cut) node.appendChild(el("div", "cut", "cut to " + num(value.cap) + " of " + num(value.chars) + " characters"));
  }

  // Theme: auto (the system's), dark, light; remembered where the browser allows it.
  var THEMES = ["auto", "dark", "light"];
  var theme = "auto";
  try { theme = localStorage.getItem("cairn-report-theme") || "auto"; } catch (e) { theme = "auto"; }
  function applyTheme() {
    if (theme === "auto") document.documentElement.removeAttribute("data-theme");
    else document.documentElement.setAttribute("data-theme", theme);
    themeButton.textContent = "Theme: " + theme;
  }
  themeButton.addEventListener("click", function () {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    try { localStorage.setItem("cairn-report-theme", theme); } catch (e) { /* a file: page may not store */ }
    applyTheme();
  });
  applyTheme();

  // Diffs.
  function diffView(diff) {
    var box = el("div", "diff-box");
    var head = el("div", "diff-head");
    head.appendChild(el("span", "mono", diff.file));
    head.appendChild(el("span", "chip ok", "+" + diff.added));
    head.appendChild(el("span", "chip error", "-" + diff.removed));
    if (diff.kind === "write") head.appendChild(el("span", "label", "whole file written"));
    if (diff.note) head.appendChild(el("span", "cut", diff.note));
    box.appendChild(head);
    if (diff.hunks.length === 0) return box;
    var holder = el("div", "diff");
    function draw() {
      holder.textContent = "";
      holder.appendChild(sideBySide.checked ? splitTable(diff.hunks) : unifiedTable(diff.hunks));
    }
    draw();
    sideBySide.addEventListener("change", draw);
    box.appendChild(holder);
    return box;
  }
  function cls(op) { return op === "+" ? "add" : op === "-" ? "del" : ""; }
  function unifiedTable(hunks) {
    var table = el("table", "unified");
    hunks.forEach(function (hunk, index) {
      if (index > 0) gapRow(table, 2);
      hunk.forEach(function (row) {
        var tr = el("tr", cls(row.op));
        tr.appendChild(el("td", "op", row.op));
        tr.appendChild(el("td", "", row.text));
        table.appendChild(tr);
      });
    });
    return table;
  }
  function splitTable(hunks) {
    var table = el("table", "split");
    hunks.forEach(function (hunk, index) {
      if (index > 0) gapRow(table, 2);
      var i = 0;
      while (i < hunk.length) {
        if (hunk[i].op === " ") { pair(table, hunk[i], hunk[i]); i += 1; continue; }
        var removed = [], added = [];
        while (i < hunk.length && hunk[i].op === "-") { removed.push(hunk[i]); i += 1; }
        while (i < hunk.length && hunk[i].op === "+") { added.push(hunk[i]); i += 1; }
        for (var k = 0; k < Math.max(removed.length, added.length); k += 1) pair(table, removed[k], added[k]);
      }
    });
    return table;
  }
  function pair(table, left, right) {
    var tr = el("tr");
    tr.appendChild(el("td", left ? cls(left.op) : "", left ? left.text : ""));
    tr.appendChild(el("td", right ? cls(right.op) : "", right ? right.text : ""));
    table.appendChild(tr);
  }
  function gapRow(table, span) {
    var tr = el("tr", "gap");
    var td = el("td", "", "\u22ef");
    td.colSpan = span;
    tr.appendChild(td);
    table.appendChild(tr);
  }

  // Tool calls.
  function callView(call, open) {
    return lazyDetails("call", function (summary) {
      summary.appendChild(el("span", "call-name", call.name));
      summary.appendChild(el("span", "call-summary", call.summary));
      summary.appendChild(el("span", "chip decision-" + call.decision.replace(" ", "-"), call.decision));
      if (call.bash && call.bash.exitCode !== undefined)
        summary.appendChild(el("span", "chip " + (call.bash.exitCode === 0 ? "ok" : "error"), "exit " + (call.bash.exitCode === null ? "signal" : call.bash.exitCode)));
      if (call.isError) summary.appendChild(el("span", "chip error", call.errorKind || "error"));
      if (call.durationMs !== undefined) summary.appendChild(el("span", "times", ms(call.durationMs)));
    }, function (body) {
      if (call.bash) {
        body.appendChild(el("div", "label", "command"));
        body.appendChild(el("pre", "command", call.bash.command));
        body.appendChild(el("div", "label", "exit status: " + (call.bash.exitCode === undefined ? "not recorded" : call.bash.exitCode === null ? "ended by a signal" : call.bash.exitCode)));
      } else {
        capped(body, call.input, "input");
      }
      if (call.diff) body.appendChild(diffView(call.diff));
      call.hooks.forEach(function (hook) {
        body.appendChild(el("div", hook.outcome === "error" ? "note error" : "note",
          hook.event + " hook " + hook.hook + ": " + hook.outcome + (hook.decision ? " \u2192 " + hook.decision : "") + (hook.reason ? " (" + hook.reason + ")" : "") + (hook.error ? " (" + hook.error + ")" : "")));
      });
      if (call.result) {
        if (call.bash) {
          var output = lazyDetails("output", function (s) {
            s.appendChild(el("span", "label", "output (" + num(call.result.chars) + " characters)"));
          }, function (b) { capped(b, call.result); }, false);
          body.appendChild(output);
        } else if (call.agent) {
          body.appendChild(el("div", "label", "answer"));
          body.appendChild(el("pre", "", call.result.text));
        } else {
          capped(body, call.result, call.isError ? "error" : "result");
        }
      } else {
        body.appendChild(el("div", "note error", "no result was recorded (interrupted?)"));
      }
      if (call.agent) {
        var nested = el("div", "subagent");
        nested.appendChild(el("div", "label", "subagent " + call.agent.type + (call.agent.description ? ": " + call.agent.description : "")));
        renderSession(nested, call.agent.session, null, true);
        body.appendChild(nested);
      }
    }, open);
  }

  // Turns and the other items of a run.
  function turnView(item, open, query) {
    return lazyDetails("turn", function (summary) {
      summary.appendChild(el("span", "turn-label", "Turn " + item.turn));
      var total = (item.modelMs || 0) + item.toolMs + (item.cairnMs || 0);
      var bar = el("span", "bar");
      [["model", item.modelMs || 0], ["tool", item.toolMs], ["cairn", item.cairnMs || 0]].forEach(function (part) {
        var span = el("span", part[0]);
        span.style.width = (total > 0 ? (100 * part[1]) / total : 0) + "%";
        bar.appendChild(span);
      });
      summary.appendChild(bar);
      summary.appendChild(el("span", "times", "model " + ms(item.modelMs) + " \u00b7 tools " + ms(item.toolMs) + " \u00b7 cairn " + ms(item.cairnMs)));
      item.calls.forEach(function (call) {
        summary.appendChild(el("span", "chip" + (call.isError || call.decision === "denied" ? " error" : ""), call.name));
      });
      if (item.retries.length > 0) summary.appendChild(el("span", "chip error", item.retries.length + " retr" + (item.retries.length === 1 ? "y" : "ies")));
      if (item.calls.length === 0 && item.text) summary.appendChild(el("span", "call-summary", item.text.split("\n")[0]));
    }, function (body) {
      body.appendChild(el("div", "label", (item.model || "") + (item.tokens ? " \u00b7 " + num(item.tokens.input) + " in \u00b7 " + num(item.tokens.output) + " out" : "") + (item.costUsd !== undefined ? " \u00b7 " + usd(item.costUsd) : "") + " \u00b7 " + item.ts));
      item.retries.forEach(function (retry) {
        body.appendChild(el("div", "retry", "attempt " + (retry.attempt - 1) + " failed" + (retry.errorStatus ? " (HTTP " + retry.errorStatus + ")" : "") + ": " + retry.error + "; retried after " + ms(retry.delayMs)));
      });
      if (item.fallback) body.appendChild(el("div", "retry", item.fallback.from + " failed (" + item.fallback.error + "); " + item.fallback.to + " took over"));
      if (item.thinking) body.appendChild(el("div", "thinking", item.thinking));
      if (item.text) body.appendChild(el("div", "assistant-text", item.text));
      item.calls.forEach(function (call) {
        body.appendChild(callView(call, Boolean(query) && matches(call, query)));
      });
    }, open);
  }
  function itemView(item, query) {
    if (item.kind === "turn") return turnView(item, false, query);
    if (item.kind === "compaction")
      return lazyDetails("compaction", function (summary) {
        summary.appendChild(el("span", "", "Compacted (" + item.trigger + "): " + num(item.preTokens) + " \u2192 " + num(item.postTokens) + " tokens" + (item.durationMs !== undefined ? " in " + ms(item.durationMs) : "")));
      }, function (body) { capped(body, item.summary, "summary"); }, false);
    return el("div", "note " + item.level, item.text);
  }

  function renderRun(container, run, index, items, query) {
    var box = el("div", "run");
    box.appendChild(el("div", "run-head", "Run " + (index + 1) + (run.model ? " \u00b7 " + run.model : "") + (run.permissionMode ? " \u00b7 " + run.permissionMode : "")));
    box.appendChild(el("pre", "run-prompt", run.prompt));
    var shown = 0;
    function more() {
      var next = items.slice(shown, shown + PAGE);
      next.forEach(function (item) { box.insertBefore(itemView(item, query), tail); });
      shown += next.length;
      button.hidden = shown >= items.length;
      button.textContent = "Show " + Math.min(PAGE, items.length - shown) + " more (" + (items.length - shown) + " left)";
    }
    var tail = el("div");
    var button = el("button", "show-more");
    button.type = "button";
    button.addEventListener("click", more);
    box.appendChild(tail);
    tail.appendChild(button);
    if (run.end) {
      var end = run.end;
      tail.appendChild(el("div", "run-end" + (end.isError ? " error" : ""),
        "Run ended: " + end.subtype + (end.aborted ? " (interrupted)" : "") + " \u00b7 " + ms(end.durationMs) + " (model " + ms(end.apiMs) + ", tools " + ms(end.toolMs) + ", cairn " + ms(end.cairnMs) + ")" + (end.costUsd !== undefined ? " \u00b7 " + usd(end.costUsd) : "")));
      end.retries.forEach(function (retry) {
        tail.appendChild(el("div", "retry", "attempt " + (retry.attempt - 1) + " failed" + (retry.errorStatus ? " (HTTP " + retry.errorStatus + ")" : "") + ": " + retry.error));
      });
      end.errors.forEach(function (error) { tail.appendChild(el("div", "error-text", "Error: " + error)); });
    } else {
      tail.appendChild(el("div", "run-end", "No end recorded (the run was still going, or was killed)."));
    }
    more();
    container.appendChild(box);
  }

  function renderSession(container, session, predicate, nested) {
    var total = 0, kept = 0;
    session.runs.forEach(function (run, index) {
      total += run.items.length;
      var items = predicate ? run.items.filter(predicate) : run.items;
      kept += items.length;
      if (predicate && items.length === 0 && !matchesText(run.prompt, predicate.query)) return;
      renderRun(container, run, index, items, predicate ? predicate.query : "");
    });
    if (!nested) session.notes.forEach(function (note) { container.appendChild(el("div", "note error", note)); });
    return { total: total, kept: kept };
  }

  // Search and filter.
  var searchText = new WeakMap();
  function textOfCall(call) {
    var parts = [call.name, call.summary, call.input.text, call.result ? call.result.text : "", call.errorKind || "", call.decision];
    if (call.agent) call.agent.session.runs.forEach(function (run) {
      parts.push(run.prompt);
      run.items.forEach(function (item) { parts.push(textOfItem(item)); });
    });
    return parts.join("\n").toLowerCase();
  }
  function textOfItem(item) {
    var cached = searchText.get(item);
    if (cached !== undefined) return cached;
    var text;
    if (item.kind === "turn") text = [item.text, item.thinking || ""].concat(item.calls.map(textOfCall)).join("\n").toLowerCase();
    else if (item.kind === "compaction") text = ("compaction " + item.summary.text).toLowerCase();
    else text = item.text.toLowerCase();
    searchText.set(item, text);
    return text;
  }
  function matchesText(text, query) { return !query || String(text).toLowerCase().indexOf(query) !== -1; }
  function matches(call, query) { return textOfCall(call).indexOf(query) !== -1; }
  function anyCall(item, test) {
    if (item.kind !== "turn") return false;
    return item.calls.some(function (call) {
      return test(call) || (call.agent ? call.agent.session.runs.some(function (run) { return run.items.some(function (inner) { return anyCall(inner, test); }); }) : false);
    });
  }
  var FILTERS = {
    all: function () { return true; },
    errors: function (item) {
      return (item.kind === "note" && item.level === "error") || (item.kind === "turn" && item.retries.length > 0) || anyCall(item, function (call) { return call.isError; });
    },
    denied: function (item) { return anyCall(item, function (call) { return call.decision === "denied"; }); },
    compaction: function (item) { return item.kind === "compaction"; },
  };
  function fillFilter() {
    var names = {};
    function collect(session) {
      session.runs.forEach(function (run) {
        run.items.forEach(function (item) {
          if (item.kind !== "turn") return;
          item.calls.forEach(function (call) { names[call.name] = true; if (call.agent) collect(call.agent.session); });
        });
      });
    }
    collect(data.main);
    var options = [["all", "everything"], ["errors", "errors and retries"], ["denied", "denied calls"], ["compaction", "compactions"]];
    Object.keys(names).sort().forEach(function (name) { options.push(["tool:" + name, name + " calls"]); });
    options.forEach(function (option) {
      var node = el("option", "", option[1]);
      node.value = option[0];
      filter.appendChild(node);
    });
  }
  function currentPredicate() {
    var query = search.value.trim().toLowerCase();
    var mode = filter.value || "all";
    var byKind = mode.indexOf("tool:") === 0
      ? (function (name) { return function (item) { return anyCall(item, function (call) { return call.name === name; }); }; })(mode.slice(5))
      : FILTERS[mode];
    if (!query && mode === "all") return null;
    var predicate = function (item) { return byKind(item) && (!query || textOfItem(item).indexOf(query) !== -1); };
    predicate.query = query;
    return predicate;
  }
  function render() {
    timeline.textContent = "";
    var predicate = currentPredicate();
    var counts = renderSession(timeline, data.main, predicate, false);
    matchCount.textContent = predicate ? counts.kept + " of " + counts.total + " items match" : counts.total + " items";
  }
  var pending;
  search.addEventListener("input", function () { clearTimeout(pending); pending = setTimeout(render, 150); });
  filter.addEventListener("change", render);
  fillFilter();
  render();
})();
`;
