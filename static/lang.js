// Picks the page's language before the first paint. A link's lang=en or lang=pt wins; without one, a
// browser that prefers Portuguese opening the English page (the site's root) is sent to pt/, the same
// page prerendered in Portuguese, with the link's settings kept. The language switch in the header
// carries lang=..., and the page keeps it in the link, so a choice sticks across reloads.
(function () {
  const page = document.documentElement.lang;
  const asked = new URLSearchParams(location.search).get("lang");
  const preferred = ((navigator.languages && navigator.languages[0]) || navigator.language || "").slice(0, 2);
  const wanted = (asked || (page === "en" ? preferred : page)).toLowerCase();
  if (wanted === page || (wanted !== "en" && wanted !== "pt")) return;
  location.replace((page === "en" ? "pt/" : "../") + location.search + location.hash);
})();
