import { hashFile } from '@blake3-web/worker';
import { startHashWorker, WorkerHasher } from '@blake3-web/upload';

// Picks a file and hashes it on workers the packages start themselves: the pool's (hashFile) and
// the upload package's hashing worker (the one that hashes a file while it uploads). Shows each
// hex, or the error.
const input = document.querySelector('input[type=file]');
const hex = (hash) => Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');

async function show(output, hash) {
  output.value = 'hashing';
  try {
    output.value = hex(await hash());
  } catch (e) {
    output.value = `${e.name}: ${e.message}`;
  }
}

async function hashOnUploadWorker(file) {
  const hasher = await WorkerHasher.open(startHashWorker());
  try {
    await hasher.read(0, file);
    return await hasher.digest();
  } finally {
    hasher.close();
  }
}

input.disabled = false;
input.addEventListener('change', () => {
  const file = input.files[0];
  void show(document.querySelector('#pool'), () => hashFile(file));
  void show(document.querySelector('#upload'), () => hashOnUploadWorker(file));
});
