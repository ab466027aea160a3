// The alert sound, made with the Web Audio API (no file to load): a short two-note chime. Browsers
// let a page make sound only after the user interacted with it; the context is created, or resumed,
// on the first key or click.

let context: AudioContext | null = null;

function audio(): AudioContext | null {
  if (typeof AudioContext !== 'function') return null;
  context ??= new AudioContext();
  if (context.state === 'suspended') void context.resume().catch(() => undefined);
  return context;
}

/** Call from a user gesture so that later chimes may play. */
export function unlockSound() {
  audio();
}

/** Plays the chime once. */
export function chime() {
  const ctx = audio();
  if (!ctx) return;
  const t = ctx.currentTime;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = 'sine';
  osc.frequency.setValueAtTime(880, t);
  osc.frequency.setValueAtTime(1320, t + 0.12);
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.4);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t);
  osc.stop(t + 0.42);
}
