// Resolves once main.py has bound the form (<html data-py-ready>): the progress line, the
// service worker's registration and the memory snapshot all wait for it.
export function whenPythonIsReady() {
  const root = document.documentElement;
  return new Promise((resolve) => {
    if (root.hasAttribute("data-py-ready")) return resolve();
    new MutationObserver((_, observer) => {
      observer.disconnect();
      resolve();
    }).observe(root, { attributes: true, attributeFilter: ["data-py-ready"] });
  });
}
