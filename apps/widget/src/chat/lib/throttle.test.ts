import { describe, expect, it } from 'vitest';
import { type Clock, createTypingSender } from './throttle';

/** A hand-driven clock: timers run only when the test advances time. */
function fakeClock() {
  let now = 0;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let next = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = next++;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimeout: (handle) => {
      timers = timers.filter((timer) => timer.id !== handle);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    const due = timers.filter((timer) => timer.at <= now);
    timers = timers.filter((timer) => timer.at > now);
    for (const timer of due) timer.run();
  };
  return { clock, advance };
}

describe('createTypingSender', () => {
  it('sends the first draft at once, then at most one frame per interval with the latest draft', () => {
    const { clock, advance } = fakeClock();
    const sent: string[] = [];
    const typing = createTypingSender((text) => sent.push(text), 800, clock);
    typing.update('h');
    typing.update('he');
    typing.update('hel');
    expect(sent).toEqual(['h']);
    advance(799);
    expect(sent).toEqual(['h']);
    advance(1);
    expect(sent).toEqual(['h', 'hel']);
    typing.update('hell');
    typing.update('hello');
    advance(800);
    expect(sent).toEqual(['h', 'hel', 'hello']);
  });

  it('sends an empty text at once when the draft is cleared, and drops the pending draft', () => {
    const { clock, advance } = fakeClock();
    const sent: string[] = [];
    const typing = createTypingSender((text) => sent.push(text), 800, clock);
    typing.update('a');
    typing.update('ab');
    typing.update('');
    expect(sent).toEqual(['a', '']);
    advance(2000);
    expect(sent).toEqual(['a', '']);
  });

  it('does not repeat an unchanged draft or an empty one', () => {
    const { clock, advance } = fakeClock();
    const sent: string[] = [];
    const typing = createTypingSender((text) => sent.push(text), 800, clock);
    typing.update('');
    typing.update('x');
    advance(1000);
    typing.update('x');
    typing.reset();
    typing.reset();
    expect(sent).toEqual(['x', '']);
  });
});
