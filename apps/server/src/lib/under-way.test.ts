import { describe, expect, it } from 'vitest';
import { UnderWay } from './under-way.js';

function later<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('work under way', () => {
  it('is waited for, work that ends adding more included, and a failure is not raised twice', async () => {
    const underWay = new UnderWay();
    const first = later<void>();
    const failing = later<void>();
    const second = later<void>();
    underWay.add(first.promise);
    // The caller handles its work's failure; keeping it must not leave another rejection unhandled.
    underWay.add(failing.promise.catch(() => undefined));
    underWay.add(failing.promise);
    failing.promise.catch(() => undefined);
    let settled = false;
    const waiting = underWay.settled().then(() => {
      settled = true;
    });
    expect(underWay.size).toBe(3);
    failing.reject(new Error('refused'));
    first.promise.then(() => underWay.add(second.promise));
    first.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(underWay.size).toBe(1);
    second.resolve();
    await waiting;
    expect(settled).toBe(true);
    expect(underWay.size).toBe(0);
  });

  it('is settled at once when nothing runs', async () => {
    await expect(new UnderWay().settled()).resolves.toBeUndefined();
  });
});
