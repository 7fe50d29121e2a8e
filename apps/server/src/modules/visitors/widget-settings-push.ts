import { frame, SocketCode } from '@parley/protocol';
import type { VisitorSockets } from '../../realtime/visitor-socket.js';
import type { VisitorService } from './service.js';

/**
 * Tells every open widget of this process its settings again (frame `settings`), worded in its own
 * language and with its own region's rule: after a settings page was saved, or the robot's settings
 * changed what a widget offers with nobody online (chat or a letter). Visitors alike share one
 * serialised frame.
 */
export function widgetSettingsPusher(visitors: VisitorService, sockets: VisitorSockets): () => Promise<void> {
  return async () => {
    const project = await visitors.settingsProjector();
    const regions = await visitors.regionCodesByPublicId(sockets.tokens());
    const texts = new Map<string, string>();
    sockets.toEveryone((lang, token) => {
      const codes = regions.get(token) ?? [];
      const key = `${lang}|${codes.join(',')}`;
      let text = texts.get(key);
      if (text === undefined) {
        text = JSON.stringify(frame(SocketCode.settings, project(lang, codes)));
        texts.set(key, text);
      }
      return text;
    });
  };
}
