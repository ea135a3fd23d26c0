/** Files dropped on a zone go to `use`; the zone shows it is a target while they are over it. */
export function onDroppedFiles(zone: HTMLElement, use: (files: FileList | undefined) => void): void {
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    use(e.dataTransfer?.files);
  });
}
