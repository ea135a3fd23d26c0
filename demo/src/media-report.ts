// What the service worker tells the Video page about each range request of the clip. Types only:
// the worker and the page both import it.

/** How one request ended, or `open` while its body is still flowing. */
export type RangeOutcome = 'open' | 'verified' | 'refused' | 'cancelled' | 'failed';

export type MediaRangeReport = {
  type: 'blake3-media-range';
  /** Numbers the requests of one worker; later reports of the same request carry the same id. */
  id: number;
  url: string;
  /** The Range header the media element sent (null: the whole clip). */
  range: string | null;
  /** The `Content-Range` answered, once there is one. */
  contentRange?: string;
  outcome: RangeOutcome;
  /** Verified bytes handed to the page so far. */
  bytes: number;
  /** Why it was refused or failed: the error's name and message. */
  reason?: string;
};
