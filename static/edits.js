// Edits made while Python starts. The form is live from the first paint, but main.py binds its
// handlers only once Python runs, so this records which controls were edited, in order, for
// main.py to apply them as it applies any later edit (window.vramcalcBootEdits, read by start()).
// From the first edit until main.py has recomputed, the prerendered results no longer match the
// form: they are marked stale (class "stale", dimmed, and a line that says why).
import { whenPythonIsReady } from "./ready.mjs";

const edits = [];
globalThis.vramcalcBootEdits = edits;
const AREAS = "#form, #reverse, #capacity-section";
const MARKED = ["results", "verdict", "sticky", "reverse", "capacity-section"];
const IMPORT = ["config-file", "config-text"]; // the config.json import has its own button

function edited(event) {
  const target = event.target;
  if (document.documentElement.hasAttribute("data-py-ready") || !target.id || IMPORT.includes(target.id)) return;
  if (!target.closest(AREAS)) return;
  edits.push(target.id);
  for (const id of MARKED) document.getElementById(id)?.classList.add("stale");
  const line = document.getElementById("stale-boot");
  if (line) line.hidden = false;
}

// the config.json import's Apply is a click, not an input: recorded as an edit of the button
function applied(event) {
  if (event.target.closest?.("#config-apply")) edited({ target: event.target.closest("#config-apply") });
}

document.addEventListener("input", edited, true);
document.addEventListener("click", applied, true);
whenPythonIsReady().then(() => {
  document.removeEventListener("input", edited, true);
  document.removeEventListener("click", applied, true);
});
