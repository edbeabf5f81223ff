import http from 'node:http'
import { pathToFileURL } from 'node:url'

// A stand-in video host for end-to-end tests (no internet here): `GET /embed/{id}` serves a page
// that speaks YouTube's iframe postMessage protocol like the real player does, and plays a
// silent, imaginary video in real time. Start it with
//   node --import tsx tests/e2e/video-host.ts        (port: VIDEO_HOST_PORT, default 3211)
// Query parameters: d (duration in seconds, default 60), speed (playback rate, at most 2,
// default 1), start (initial position), origin (where messages go, as YouTube's parameter).
// The page shows controls for tests: Play, Pause, a number input with "Seek to", and a readout.

export const DEFAULT_VIDEO_HOST_PORT = 3211

type PlayerConfig = { id: string; duration: number; speed: number; start: number; origin: string }

function numberParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number) {
  const value = Number(params.get(name) ?? Number.NaN)
  return Number.isFinite(value) && value >= min && value <= max ? value : fallback
}

function playerConfig(id: string, params: URLSearchParams): PlayerConfig {
  const duration = numberParam(params, 'd', 60, 0.1, 24 * 3600)
  return {
    id,
    duration,
    speed: numberParam(params, 'speed', 1, 0.1, 2),
    start: numberParam(params, 'start', 0, 0, duration),
    origin: params.get('origin') ?? '*',
  }
}

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown) {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

// The player, as the page's script. YouTube's player states: -1 unstarted, 0 ended, 1 playing,
// 2 paused, 3 buffering, 5 cued. As YouTube's, a seek from unstarted, cued or ended starts play.
function playerScript(config: PlayerConfig) {
  return `
const config = ${scriptJson(config)};
const STATE_NAMES = { '-1': 'unstarted', 0: 'ended', 1: 'playing', 2: 'paused', 3: 'buffering', 5: 'cued' };
let state = -1;
let base = config.start;      // position when the clock last started or stopped
let startedAt = null;         // performance.now() when playing started
let listener = null;          // { id, channel } of the page that said "listening"

function currentTime() {
  if (state !== 1 || startedAt === null) return base;
  return Math.min(config.duration, base + ((performance.now() - startedAt) / 1000) * config.speed);
}
function info() {
  return { currentTime: currentTime(), playerState: state, duration: config.duration,
           playbackRate: config.speed, videoLoadedFraction: 1, videoData: { video_id: config.id } };
}
function post(message) {
  if (!listener) return;
  window.parent.postMessage(JSON.stringify(Object.assign({}, message, listener)), config.origin);
}
function deliver() { post({ event: 'infoDelivery', info: info() }); }
function setState(next) {
  base = currentTime();
  state = next;
  startedAt = next === 1 ? performance.now() : null;
  post({ event: 'onStateChange', info: next });
  deliver();
  render();
}
function play() {
  if (state === 0) base = 0;
  if (state !== 1) setState(1);
}
function pause() { if (state === 1 || state === 3) setState(2); }
function seekTo(seconds) {
  const time = Math.max(0, Math.min(config.duration, Number(seconds) || 0));
  const startsPlay = state === -1 || state === 5 || state === 0;
  base = time;
  if (state === 1) startedAt = performance.now();
  if (startsPlay) setState(1);
  else { deliver(); render(); }
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  let data;
  try { data = typeof event.data === 'string' ? JSON.parse(event.data) : event.data; } catch { return; }
  if (!data || typeof data !== 'object') return;
  if (data.event === 'listening') {
    listener = { id: data.id, channel: data.channel || 'widget' };
    post({ event: 'initialDelivery', info: info() });
    post({ event: 'onReady', info: { playerId: listener.id } });
    deliver();
  } else if (data.event === 'command') {
    const args = Array.isArray(data.args) ? data.args : [];
    if (data.func === 'playVideo') play();
    else if (data.func === 'pauseVideo') pause();
    else if (data.func === 'seekTo') seekTo(args[0]);
    else if (data.func === 'stopVideo') { base = 0; setState(5); }
  }
});

// about four reports a second while connected, as the real player does while playing
setInterval(() => {
  if (state === 1 && currentTime() >= config.duration) { base = config.duration; setState(0); return; }
  deliver();
}, 250);

const timeOut = document.getElementById('time');
const stateOut = document.getElementById('state');
function render() {
  timeOut.textContent = currentTime().toFixed(1);
  stateOut.textContent = STATE_NAMES[state];
}
setInterval(render, 100);
render();

document.getElementById('play').addEventListener('click', play);
document.getElementById('pause').addEventListener('click', pause);
// no <form>: the embedding page's sandbox (without allow-forms) blocks submitting one
const seekInput = document.getElementById('seek-to');
document.getElementById('seek').addEventListener('click', () => seekTo(seekInput.value));
seekInput.addEventListener('keydown', (event) => { if (event.key === 'Enter') seekTo(seekInput.value); });
`
}

function playerPage(config: PlayerConfig) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stand-in player: ${escapeHtml(config.id)}</title>
<style>
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #111; color: #eee; }
  main { padding: 12px; display: grid; gap: 8px; }
  button, input { font: inherit; }
  .controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
</style>
</head>
<body>
<main>
  <p>Stand-in video <strong>${escapeHtml(config.id)}</strong></p>
  <p>Time <output id="time" data-testid="current-time">0.0</output> / <span data-testid="duration">${config.duration}</span> s
     · <output id="state" data-testid="state">unstarted</output></p>
  <div class="controls">
    <button type="button" id="play">Play</button>
    <button type="button" id="pause">Pause</button>
    <label for="seek-to">Position (s)</label>
    <input id="seek-to" type="number" min="0" max="${config.duration}" step="any" value="0">
    <button type="button" id="seek">Seek to</button>
  </div>
</main>
<script>${playerScript(config)}</script>
</body>
</html>`
}

const EMBED_PATH = /^\/embed\/([A-Za-z0-9_-]{1,64})\/?$/

export function createVideoHost(): http.Server {
  return http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in')
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' })
      response.end(request.method === 'HEAD' ? undefined : body)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD')
      return send(405, 'text/plain; charset=utf-8', 'Method not allowed\n')
    }
    if (url.pathname === '/health') return send(200, 'text/plain; charset=utf-8', 'ok\n')
    const embed = EMBED_PATH.exec(url.pathname)
    if (embed) return send(200, 'text/html; charset=utf-8', playerPage(playerConfig(embed[1], url.searchParams)))
    return send(404, 'text/plain; charset=utf-8', 'Not found\n')
  })
}

export async function startVideoHost(port = DEFAULT_VIDEO_HOST_PORT, host = '127.0.0.1'): Promise<http.Server> {
  const server = createVideoHost()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return server
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.VIDEO_HOST_PORT ?? DEFAULT_VIDEO_HOST_PORT)
  const server = await startVideoHost(port)
  console.log(`Stand-in video host on http://127.0.0.1:${port}`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.close(() => process.exit(0))
      server.closeAllConnections()
    })
  }
}
