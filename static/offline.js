// Registers the service worker that makes the page work offline (see sw.js), and
// offers a reload when a new version has been installed beside the running one.
// Registration waits until Python is running, so that the worker's download of every
// file for offline use does not compete with the first start for network and CPU.
import { whenPythonIsReady } from "./ready.mjs";

const notice = document.getElementById("update");

function offer(worker) {
  notice.hidden = false;
  document.getElementById("update-reload").addEventListener("click", () => worker.postMessage("activate"), { once: true });
}

if ("serviceWorker" in navigator) {
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (!reloading && notice.dataset.offered) {
      reloading = true;
      location.reload();
    }
  });
  whenPythonIsReady().then(() => navigator.serviceWorker.register(new URL("../sw.js", import.meta.url))).then((registration) => {
    const watch = (worker) => {
      worker.addEventListener("statechange", () => {
        if (worker.state === "installed" && navigator.serviceWorker.controller) {
          notice.dataset.offered = "1";
          offer(worker);
        }
      });
    };
    if (registration.waiting && navigator.serviceWorker.controller) {
      notice.dataset.offered = "1";
      offer(registration.waiting);
    }
    registration.addEventListener("updatefound", () => watch(registration.installing));
  }).catch(() => {
    // No service worker (private mode, file://): the page still works online.
  });
}
