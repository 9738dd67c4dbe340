// Short sounds for the room, synthesised with the Web Audio API (no files to load). Browsers
// let a page make sound only after a person has touched it, so the audio starts on the first
// tap or key; the mute choice is remembered per browser.

const KEY = "ludo.sound";
let ctx = null;

export function muted() {
  try {
    return localStorage.getItem(KEY) === "off";
  } catch {
    return false;
  }
}

export function setMuted(off) {
  try {
    localStorage.setItem(KEY, off ? "off" : "on");
  } catch {
    // private windows may refuse storage: the choice lasts this page only
  }
  setMuted.now = off;
}

function audio() {
  if (ctx || !globalThis.AudioContext) return ctx;
  ctx = new AudioContext();
  return ctx;
}

// Unlock on the first gesture (autoplay rules): until then nothing plays.
for (const type of ["pointerdown", "keydown"]) {
  addEventListener(type, () => audio()?.resume?.(), { once: true, capture: true });
}

function tone(freq, at, length, { type = "sine", gain = 0.16, to = null } = {}) {
  const a = ctx;
  const osc = a.createOscillator();
  const amp = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, a.currentTime + at);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, a.currentTime + at + length);
  amp.gain.setValueAtTime(0.0001, a.currentTime + at);
  amp.gain.exponentialRampToValueAtTime(gain, a.currentTime + at + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, a.currentTime + at + length);
  osc.connect(amp).connect(a.destination);
  osc.start(a.currentTime + at);
  osc.stop(a.currentTime + at + length + 0.02);
}

const SOUNDS = {
  roll: () => [0, 0.07, 0.15, 0.24, 0.34].forEach((t, i) => tone(180 + i * 37, t, 0.05, { type: "square", gain: 0.05 })),
  move: () => tone(520, 0, 0.08, { type: "triangle", gain: 0.12 }),
  capture: () => tone(440, 0, 0.35, { type: "sawtooth", gain: 0.08, to: 110 }),
  home: () => [523, 659, 784].forEach((f, i) => tone(f, i * 0.09, 0.16, { type: "triangle" })),
  turn: () => [660, 880].forEach((f, i) => tone(f, i * 0.12, 0.18)),
  // A turn the clock played for you: two low notes falling.
  missed: () => [392, 262].forEach((f, i) => tone(f, i * 0.16, 0.22, { type: "square", gain: 0.07 })),
  end: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.14, i === 3 ? 0.5 : 0.2, { type: "triangle" })),
};

/** Plays sound `name` unless muted or not yet allowed; says whether it played. */
export function play(name) {
  if ((setMuted.now ?? muted()) || !ctx || ctx.state !== "running" || !SOUNDS[name]) return false;
  SOUNDS[name]();
  return true;
}
