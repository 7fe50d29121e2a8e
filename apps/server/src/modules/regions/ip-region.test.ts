import { describe, expect, it } from 'vitest';
import { regionOf } from './ip-region.js';

describe('regionOf', () => {
  it('names local and private addresses only', () => {
    expect(regionOf('127.0.0.1')).toBe('localhost');
    expect(regionOf('192.168.1.20')).toBe('LAN');
    expect(regionOf('8.8.8.8')).toBe('');
  });
});
