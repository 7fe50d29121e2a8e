export interface Clock {
  now: () => number;
  setTimeout: (run: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface TypingSender {
  /** Called with the draft on every edit. */
  update: (text: string) => void;
  /** Drops a pending preview (the message was sent). */
  reset: () => void;
}

/**
 * Typing preview for the agent: at most one frame every `intervalMs`, the latest draft winning, and an
 * empty text at once when the draft is cleared so the agent's preview does not linger.
 */
export function createTypingSender(send: (text: string) => void, intervalMs = 800, clock: Clock = realClock): TypingSender {
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastText = '';
  let pending: string | null = null;
  let timer: unknown;

  const emit = (text: string) => {
    lastText = text;
    lastSentAt = clock.now();
    send(text);
  };
  const flush = () => {
    timer = undefined;
    if (pending !== null && pending !== lastText) emit(pending);
    pending = null;
  };
  const reset = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    pending = null;
    if (lastText !== '') emit('');
  };

  return {
    update(text) {
      if (text === '') return reset();
      if (text === lastText && pending === null) return;
      const wait = lastSentAt + intervalMs - clock.now();
      if (wait <= 0 && timer === undefined) return emit(text);
      pending = text;
      if (timer === undefined) timer = clock.setTimeout(flush, Math.max(0, wait));
    },
    reset,
  };
}
