import { describe, expect, it } from 'vitest';
import type { InvitationSettings } from '../bridge';
import { floatHref, invitationAllowedAt, isMobile, nextInvitationIn, weChatCard } from './rules';

const invitation: InvitationSettings = {
  enabled: true,
  delaySeconds: 5,
  intervalSeconds: 30,
  maxTimes: 3,
  text: 'Need help?',
  acceptText: 'Chat',
  laterText: 'Later',
  image: '',
};

describe('loader rules', () => {
  it('takes the mobile settings on narrow screens and phone browsers', () => {
    expect(isMobile(390, 'Mozilla/5.0 (X11; Linux x86_64)')).toBe(true);
    expect(isMobile(1440, 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148')).toBe(true);
    expect(isMobile(1440, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130')).toBe(false);
  });

  it('shows the invitation after its delay, then every interval, up to maxTimes', () => {
    expect(nextInvitationIn(invitation, 0)).toBe(5);
    expect(nextInvitationIn(invitation, 1)).toBe(30);
    expect(nextInvitationIn(invitation, 2)).toBe(30);
    expect(nextInvitationIn(invitation, 3)).toBeNull();
    expect(nextInvitationIn({ ...invitation, intervalSeconds: 0 }, 1)).toBeNull();
    expect(nextInvitationIn({ ...invitation, enabled: false }, 0)).toBeNull();
  });

  it('shows the invitation only on its days and hours, read on the site’s clocks', () => {
    // Monday 10:15 in Shanghai, still Sunday 21:15 in New York.
    const instant = new Date('2026-11-23T02:15:00Z');
    const mondayMorning = { ...invitation, days: [1], hours: { from: '09:00', to: '11:00' } };
    expect(invitationAllowedAt(invitation, instant, 'Asia/Shanghai')).toBe(true);
    expect(invitationAllowedAt(mondayMorning, instant, 'Asia/Shanghai')).toBe(true);
    expect(invitationAllowedAt(mondayMorning, instant, 'America/New_York')).toBe(false);
    expect(invitationAllowedAt({ ...invitation, days: [0], hours: { from: '20:00', to: '22:00' } }, instant, 'America/New_York')).toBe(
      true,
    );
    expect(invitationAllowedAt({ ...invitation, days: [0, 6] }, instant, 'Asia/Shanghai')).toBe(false);
    expect(invitationAllowedAt({ ...invitation, hours: { from: '14:00', to: '18:00' } }, instant, 'Asia/Shanghai')).toBe(false);
    // The end of a span is outside it.
    expect(invitationAllowedAt({ ...invitation, hours: { from: '09:00', to: '10:15' } }, instant, 'Asia/Shanghai')).toBe(false);
  });

  it('falls back to the visitor’s clock for a zone the browser does not know', () => {
    const now = new Date();
    expect(invitationAllowedAt({ ...invitation, days: [now.getDay()] }, now, 'Nowhere/Unknown')).toBe(true);
    expect(invitationAllowedAt({ ...invitation, days: [(now.getDay() + 1) % 7] }, now, 'Nowhere/Unknown')).toBe(false);
  });

  it('links float navigation items safely', () => {
    expect(floatHref({ type: 'phone', title: 'Call', value: '+86 400-123 456' })).toBe('tel:+86400123456');
    expect(floatHref({ type: 'qq', title: 'QQ', value: '12345' })).toContain('uin=12345');
    expect(floatHref({ type: 'link', title: 'Docs', value: 'https://example.com/help' })).toBe('https://example.com/help');
    expect(floatHref({ type: 'link', title: 'Bad', value: 'javascript:alert(1)' })).toBeNull();
    expect(floatHref({ type: 'top', title: 'Top', value: '' })).toBeNull();
    expect(floatHref({ type: 'link', title: 'Bad', value: 'https://good.example\\@evil.example/' })).toBeNull();
  });

  it('shows a WeChat item as its ID in text or its QR code image, and nothing it cannot trust', () => {
    const origin = 'https://chat.shop.example';
    expect(weChatCard('shop_service', origin)).toEqual({ id: 'shop_service' });
    expect(weChatCard('/api/files/qr.png', origin)).toEqual({ image: 'https://chat.shop.example/api/files/qr.png' });
    expect(weChatCard('https://cdn.example/qr.png', origin)).toEqual({ image: 'https://cdn.example/qr.png' });
    for (const value of [
      '',
      '"><img src=x onerror=alert(1)>',
      'javascript:alert(1)',
      'data:image/png;base64,AA',
      '/\\evil.example/qr.png',
      '//evil.example/qr.png',
    ]) {
      expect(weChatCard(value, origin), value).toBeNull();
    }
  });
});
