// What the Upload page says when tus-js-client gives up on an upload, in words a person can act
// on. tus's own error messages carry the request, its URL, `[object ProgressEvent]` for a
// network failure and the response's body verbatim: none of that is shown.
import { DetailedError } from 'tus-js-client';

/** The status the demo's server refuses an upload with (tus's "checksum mismatch"). */
const REFUSED_STATUS = 460;

/**
 * - `refused`: the server checked the upload and discarded it; only a new upload can follow.
 * - `offline`: the browser is offline; the upload resumes when it is back.
 * - `unreachable`, `rejected`: no answer, or an answer that was not a success; a retry resumes
 *   from what the server holds.
 * - `failed`: the page itself could not go on (a read, the hashing worker): pick the file again.
 */
export type Outcome = { kind: 'refused' | 'offline' | 'unreachable' | 'rejected' | 'failed'; message: string };

export const OFFLINE_MESSAGE = 'Offline: the upload goes on by itself when the browser is back online.';

/** The reason the demo's server gives in a refusal's body, in its own fixed form; else nothing. */
function refusalReason(body: string): string | undefined {
  return /^BLAKE3 verification failed: ([^\n]{1,300}?); the upload was discarded\n?$/.exec(body)?.[1];
}

export function describeStop(error: Error, online: boolean): Outcome {
  if (!(error instanceof DetailedError) || error.originalRequest == null) {
    // A DetailedError without a request still spells its cause as tus does: not shown.
    const why = error instanceof DetailedError ? 'the upload could not go on.' : error.message;
    return { kind: 'failed', message: `Failed: ${why} Pick the file again to start over.` };
  }
  const response = error.originalResponse;
  if (response == null) {
    if (!online) return { kind: 'offline', message: OFFLINE_MESSAGE };
    return {
      kind: 'unreachable',
      message: 'Stopped: the server did not answer, after several tries. Retry goes on from what it holds.',
    };
  }
  const status = response.getStatus();
  if (status === REFUSED_STATUS) {
    const reason = refusalReason(response.getBody() ?? '');
    return {
      kind: 'refused',
      message: `Refused (${status}): ${reason ?? 'the server did not verify the upload'}. It discarded the upload; pick the file to upload it again.`,
    };
  }
  return {
    kind: 'rejected',
    message: `Stopped: the server answered ${status} to a ${error.originalRequest.getMethod()} request. Retry goes on from what it holds.`,
  };
}
