// A digest in hex with a Copy button (the .hex-digest component of style.css).

export interface HexDigest {
  readonly el: HTMLElement;
  readonly output: HTMLOutputElement;
  /** Shows `hex` (empty hides the whole component). */
  set(hex: string): void;
}

/** `label` names the digest for assistive technology ("BLAKE3 of photo.jpg"). */
export function createHexDigest(label: string, id?: string): HexDigest {
  const el = document.createElement('div');
  el.className = 'hex-digest';
  const output = document.createElement('output');
  output.className = 'hex';
  if (id) output.id = id;
  output.setAttribute('aria-label', label);
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'copy';
  copy.textContent = 'Copy';
  copy.setAttribute('aria-label', `Copy: ${label}`);
  let reset: ReturnType<typeof setTimeout> | undefined;
  copy.addEventListener('click', () => {
    const hex = output.value;
    const said = (text: string) => {
      copy.textContent = text;
      clearTimeout(reset);
      reset = setTimeout(() => (copy.textContent = 'Copy'), 1500);
    };
    const select = () => {
      // No clipboard (an insecure origin, or permission refused): select the text for a manual copy.
      getSelection()?.selectAllChildren(output);
      said('Selected');
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(hex).then(() => said('Copied'), select);
  });
  el.append(output, copy);
  return {
    el,
    output,
    set(hex) {
      output.value = hex;
      el.hidden = hex === '';
    },
  };
}
