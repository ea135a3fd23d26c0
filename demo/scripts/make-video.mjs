// Makes the Video page's clip, servers/media/timecode.webm (and timecode-previous.webm, see below): 60 s of ffmpeg's test pattern with
// the time written large on every frame (so a seek shows where it landed) and a beep each
// second, VP8 and Opus in WebM with a keyframe every second and room for the Cues at the front, so a
// player seeks with one small range request. The ffmpeg binary comes from the npm package
// @ffmpeg-installer/ffmpeg (a devDependency of the demo); its output for the same inputs is the
// same file, so running this again changes nothing. The Bao outboard and the root are not made
// here: the media CDN (servers/media-cdn.ts) computes them from the file when it starts.
//
//   node demo/scripts/make-video.mjs [--seconds 60]
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ffmpeg = require('@ffmpeg-installer/ffmpeg').path;
const out = fileURLToPath(new URL('../../servers/media/timecode.webm', import.meta.url));
const previous = fileURLToPath(new URL('../../servers/media/timecode-previous.webm', import.meta.url));

const at = process.argv.indexOf('--seconds');
const seconds = at === -1 ? 60 : Number(process.argv[at + 1]);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600)
  throw new RangeError(`--seconds must be a whole number from 1 to 600, got ${process.argv[at + 1]}`);

// A font for the timecode: DejaVu is on Debian and most desktops; without one the pattern's
// own small counter still shows the time.
const FONTS = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
];
const font = FONTS.find((f) => existsSync(f));

/** One WebM: the test pattern with `label` and the time drawn on it, and a beep each second. */
function encode(file, { size, videoRate, audioRate, length, label }) {
  const text = font
    ? `,drawtext=fontfile=${font}:text='${label}%{pts\\:hms}':fontsize=h/6:fontcolor=white:box=1:boxcolor=black@0.7:boxborderw=12:x=(w-tw)/2:y=h-th-h/10`
    : '';
  execFileSync(
    ffmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=25:duration=${length}${text}`],
      ...['-f', 'lavfi', '-i', `sine=frequency=660:beep_factor=2:sample_rate=48000:duration=${length}`],
      ...['-c:v', 'libvpx', '-b:v', videoRate, '-crf', '10', '-g', '25', '-keyint_min', '25', '-threads', '2'],
      ...['-c:a', 'libopus', '-b:a', audioRate],
      // Nothing that changes from run to run (dates, encoder versions in tags).
      ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact'],
      ...['-reserve_index_space', '8192'],
      file,
    ],
    { stdio: 'inherit' },
  );
  console.log(`${file}: ${statSync(file).size} bytes, ${length} s`);
}

encode(out, { size: '640x360', videoRate: '600k', audioRate: '64k', length: seconds, label: '' });
// What a stale CDN node still holds: an earlier, smaller encode of the clip. The CDN's "stale" mode
// serves its bytes in place of one region of the current file; the region must lie within it.
encode(previous, { size: '320x180', videoRate: '200k', audioRate: '32k', length: seconds, label: 'OLD ' });
