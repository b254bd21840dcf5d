// Applies main.py's writes to the page in one call. Each call from Python into JavaScript costs far
// more than the write it makes, and an update writes a few hundred texts and attributes, so main.py
// queues them (already skipping those the page shows) and hands the queue over once per update.
// An operation is [id, selector or null, what, value]: what is "text", "hidden" or an attribute name
// (value null removes the attribute).
const nodes = new Map();

function find(id, selector) {
  const key = selector ? `${id} ${selector}` : id;
  let node = nodes.get(key);
  if (node === undefined) {
    const element = document.getElementById(id);
    node = selector ? element.querySelector(selector) : element;
    nodes.set(key, node);
  }
  return node;
}

globalThis.vramcalcApply = (operations) => {
  for (const [id, selector, what, value] of operations) {
    const node = find(id, selector);
    if (what === "text") node.textContent = value;
    else if (what === "hidden") node.hidden = value;
    else if (value == null) node.removeAttribute(what);
    else node.setAttribute(what, value);
  }
};
