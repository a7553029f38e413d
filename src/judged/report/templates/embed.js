(function () {
  "use strict";
  var containers = Array.prototype.slice.call(document.querySelectorAll("[data-spec]"));
  var drawn = containers.map(function (element) {
    var spec = JSON.parse(document.getElementById(element.getAttribute("data-spec")).textContent);
    return vegaEmbed(element, spec, { actions: false, renderer: element.getAttribute("data-renderer") }).catch(function (error) {
      element.classList.add("failed");
      element.textContent = "This chart could not be drawn: " + error;
      console.error(error);
      throw error;
    });
  });
  Promise.allSettled(drawn).then(function (outcomes) {
    var failed = outcomes.filter(function (outcome) { return outcome.status === "rejected"; }).length;
    document.body.setAttribute("data-charts", failed ? "failed" : "drawn");
  });
})();
