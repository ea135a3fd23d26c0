import { hashFile } from '@blake3-web/worker';

// Picks a file, hashes it on the package's own workers, shows the hex (or the error).
const input = document.querySelector('input[type=file]');
const output = document.querySelector('output');
input.disabled = false;
input.addEventListener('change', async () => {
  output.value = 'hashing';
  try {
    const hash = await hashFile(input.files[0]);
    output.value = Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch (e) {
    output.value = `${e.name}: ${e.message}`;
  }
});
