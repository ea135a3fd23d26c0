// Imported before the library: counts attempts to compile the kernel from bytes (the library's
// probe of whether compilation is allowed is a few dozen bytes; the kernel is tens of KiB).
export const compiles = { kernel: 0 };

const count = (bytes: unknown) => {
  if (ArrayBuffer.isView(bytes) && bytes.byteLength > 1024) compiles.kernel++;
};
const { compile } = WebAssembly;
WebAssembly.Module = new Proxy(WebAssembly.Module, {
  construct(target, args: [BufferSource]) {
    count(args[0]);
    return new target(...args);
  },
});
WebAssembly.compile = (bytes) => {
  count(bytes);
  return compile(bytes);
};
