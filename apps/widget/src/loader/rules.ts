/**
 * The loader's decisions that do not touch the page: which device's settings apply, when an invitation
 * may show, and what a float navigation item links to. Kept apart so they are tested without a page.
 */
import { isWebAddress, isWebUrl, isWeChatId, weekTimeIn } from '@parley/protocol';
import type { FloatNavigationSettings, InvitationSettings } from '../bridge';

/** Phones and small tablets get the `mobile` settings; the window then fills the screen. */
export function isMobile(width: number, userAgent: string): boolean {
  return width <= 768 || /Mobi|Android|iPhone|iPod/i.test(userAgent);
}

/** A length in pixels kept within the viewport's reach. */
export function clampPx(value: number, max: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(0, Math.round(value)), max) : 0;
}

/**
 * Whether the invitation may show at `now`: on its days and in its hours, if it names any, read on the
 * site's clocks (`zone`) since the site sets them for when its agents work. A zone this browser does not
 * know falls back to the visitor's own clock rather than keeping the invitation away for good.
 */
export function invitationAllowedAt(style: InvitationSettings, now: Date, zone: string): boolean {
  let day = now.getDay();
  let time = `${String(now.getHours()).padStart(2, '0')}:${String(now.getMinutes()).padStart(2, '0')}`;
  try {
    ({ day, time } = weekTimeIn(zone, now));
  } catch {
    // RangeError: an unknown zone.
  }
  if (style.days?.length && !style.days.includes(day)) return false;
  return !style.hours || (style.hours.from <= time && time < style.hours.to);
}

/**
 * Seconds until the next showing, given how many times it has shown this visit, or null when it
 * shows no more: first after delaySeconds, then every intervalSeconds up to maxTimes.
 */
export function nextInvitationIn(style: InvitationSettings, shown: number): number | null {
  if (!style.enabled || shown >= Math.max(1, style.maxTimes)) return null;
  if (shown === 0) return Math.max(0, style.delaySeconds);
  return style.intervalSeconds > 0 ? style.intervalSeconds : null;
}

/** Where a float navigation item leads; null for items the loader handles itself (chat, top, WeChat QR). */
export function floatHref(item: FloatNavigationSettings['items'][number]): string | null {
  switch (item.type) {
    case 'phone': {
      const number = item.value.replace(/[^\d+]/g, '');
      return number ? `tel:${number}` : null;
    }
    case 'qq': {
      const uin = item.value.replace(/\D/g, '');
      return uin ? `https://wpa.qq.com/msgrd?v=3&uin=${uin}&site=qq&menu=yes` : null;
    }
    case 'link':
      // Only web addresses: a javascript: or data: URL from the settings must never run on the host page.
      return isWebUrl(item.value) ? item.value : null;
    default:
      return null;
  }
}

/**
 * What a WeChat item's pop-up shows: its ID, as text, or the image at its address (the account's QR
 * code; a path is this server's). Null for anything else, which an older server may have stored.
 */
export function weChatCard(value: string, origin: string): { id: string } | { image: string } | null {
  if (isWeChatId(value)) return { id: value };
  return isWebAddress(value) ? { image: new URL(value, origin).href } : null;
}
