/** The demo's service worker (sw.ts), registered once for the pages that need it. */

/** Resolves once the demo's service worker controls this page. */
export async function controlled(): Promise<void> {
  if (!('serviceWorker' in navigator)) throw new Error('this browser has no service workers');
  await navigator.serviceWorker.register('./sw.js', { scope: './' });
  await navigator.serviceWorker.ready;
  // The first load is not controlled until the worker claims it.
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) =>
      navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
}
