// The lineage explorer: Cytoscape.js with the dagre layered layout (vendored; nothing loads
// from the network). Node boxes include their labels, so the layout never overlaps labels.
(function () {
  "use strict";
  var box = document.getElementById("graph");
  var root = box.dataset.root;
  var steps = [root + ":" + box.dataset.direction + ":" + box.dataset.depth];
  var state = { cy: null, ready: false, expansions: 0 };
  window.graphmemLineage = state;

  function api(step) {
    var parts = step.split(":");
    var depth = parts.pop(), direction = parts.pop(), id = parts.join(":");
    return "/api/lineage/" + encodeURIComponent(id) + "?direction=" + direction + "&depth=" + depth;
  }

  function layout() {
    state.ready = false;
    var run = state.cy.layout({
      name: "dagre", rankDir: "TB", nodeDimensionsIncludeLabels: true,
      nodeSep: 12, rankSep: 60, edgeSep: 6, animate: false, fit: true, padding: 20
    });
    run.one("layoutstop", function () {
      // a small graph is not blown up past a readable size
      if (state.cy.zoom() > 1.25) { state.cy.zoom(1.25); state.cy.center(); }
      state.ready = true;
    });
    run.run();
  }

  function updateExports() {
    var view = steps.slice(1).join(" ");
    document.querySelectorAll("a.export-link").forEach(function (a) {
      var url = new URL(a.href, window.location.origin);
      if (view) { url.searchParams.set("view", view); } else { url.searchParams.delete("view"); }
      a.href = url.pathname + url.search;
    });
  }

  function add(elements) {
    var fresh = [];
    elements.nodes.concat(elements.edges).forEach(function (el) {
      if (state.cy.getElementById(el.data.id).empty()) { fresh.push(el); }
    });
    state.cy.add(fresh.filter(function (el) { return !el.data.source; }));
    state.cy.add(fresh.filter(function (el) { return el.data.source; }));
    return fresh.length;
  }

  function fail(message) {
    document.getElementById("edge-label").textContent = message;
  }

  fetch(api(steps[0])).then(function (r) {
    if (!r.ok) { throw new Error("the lineage could not be read (" + r.status + ")"); }
    return r.json();
  }).then(function (elements) {
    state.cy = cytoscape({
      container: box, elements: [], wheelSensitivity: 0.3, minZoom: 0.02, maxZoom: 4,
      style: [
        { selector: "node", style: {
          "label": "data(label)", "shape": "data(shape)", "background-color": "data(fill)",
          "border-color": "data(border)", "border-width": 3, "text-valign": "center",
          "text-halign": "center", "font-size": 11, "min-zoomed-font-size": 5,
          "width": function (n) { return Math.max(30, n.data("label").length * 7 + 10); }, "height": 22, "padding": "6px", "text-wrap": "none" } },
        // the root by class: an id written into a selector broke on a quote or backslash
        { selector: "node.root", style: { "border-width": 6 } },
        { selector: "edge", style: {
          "curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.5,
          "line-color": "#6c757d", "target-arrow-color": "#6c757d", "arrow-scale": 1.1 } },
        { selector: "edge.hovered", style: {
          "label": "data(label)", "font-size": 10, "text-background-color": "#ffffff",
          "text-background-opacity": 1, "line-color": "#1d3557", "target-arrow-color": "#1d3557" } }
      ]
    });
    add(elements);
    state.cy.getElementById(root).addClass("root");
    layout();
    state.cy.on("mouseover", "edge", function (e) {
      e.target.addClass("hovered");
      document.getElementById("edge-label").textContent =
        e.target.data("source") + " → " + e.target.data("target") + ": " + e.target.data("label");
    });
    state.cy.on("mouseout", "edge", function (e) { e.target.removeClass("hovered"); });
    state.cy.on("tap", "node", function (e) {
      var step = e.target.id() + ":both:1";
      if (steps.indexOf(step) >= 0) { return; }
      fetch(api(step)).then(function (r) {
        if (!r.ok) { throw new Error("could not expand " + e.target.id() + " (" + r.status + ")"); }
        return r.json();
      }).then(function (more) {
        steps.push(step);
        state.expansions += 1;
        if (add(more)) { layout(); }
        updateExports();
      }).catch(function (err) { fail(err.message); });
    });
    state.cy.on("dbltap", "node", function (e) {
      window.location.href = "/records/" + encodeURIComponent(e.target.id());
    });
  }).catch(function (err) { fail(err.message); });
})();
