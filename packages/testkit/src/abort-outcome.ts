/**
 * How a write that is under way and an abort of its writer settle: `['write rejected', 'aborted']`
 * when both settle as they must (the write failing with the abort's reason), or `'pending after
 * 1 s'` when either hangs. Self-contained, so a page can run its source text.
 */
export async function abortOutcome(
  writer: WritableStreamDefaultWriter<Uint8Array>,
  write: Promise<void>,
  reason: unknown,
): Promise<string[] | string> {
  const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('pending after 1 s'), 1000));
  const settled = Promise.all([
    write.then(
      () => 'write resolved',
      (e) => (e === reason ? 'write rejected' : String(e)),
    ),
    writer.abort(reason).then(() => 'aborted'),
  ]);
  return Promise.race([settled, timeout]);
}
