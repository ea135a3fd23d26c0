// Runs each snippet module and shows what it gives, or the error it ends with.
const show = (id: string, run: () => Promise<unknown>) =>
  run().then(
    (value) => (document.getElementById(id)!.textContent = JSON.stringify(value)),
    (e: Error) => (document.getElementById(id)!.textContent = `${e.name}: ${e.message}`),
  );

void show('core', async () => (await import('./core-snippet.ts')).result);
void show('stream', async () => (await import('./stream-snippet.ts')).result);
