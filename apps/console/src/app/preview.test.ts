import { describe, expect, it } from 'vitest';
import { previewBlocked, previewHosts } from './preview';

describe('preview-mode check', () => {
  const hosts = previewHosts(' 10.0.0.5 , demo.parley.example,try.parley.example ');

  it('never blocks a build that is not in preview mode', () => {
    expect(previewBlocked('production', 'chat.example.com', hosts)).toBe(false);
    expect(previewBlocked('development', 'chat.example.com', hosts)).toBe(false);
  });

  it('lets a preview build run on localhost, the configured address and the two demo domains', () => {
    for (const host of ['localhost', '127.0.0.1', '[::1]', '10.0.0.5', 'demo.parley.example', 'TRY.parley.example']) {
      expect(previewBlocked('preview', host, hosts)).toBe(false);
    }
  });

  it('stops a preview build anywhere else', () => {
    expect(previewBlocked('preview', 'chat.example.com', hosts)).toBe(true);
    expect(previewBlocked('preview', '10.0.0.6', hosts)).toBe(true);
    expect(previewBlocked('preview', 'demo.parley.example.evil.com', hosts)).toBe(true);
    expect(previewBlocked('preview', 'chat.example.com', previewHosts(undefined))).toBe(true);
  });
});
