import type { Integration } from '@parley/protocol';
import QRCode from 'qrcode';
import type { LinkService } from '../links/service.js';

/** The most links the integration page lists; the links page has them all. */
const LISTED_LINKS = 100;

/** What a site needs to offer the chat: the embed snippet, the chat page, its QR code and the chat links. */
export class IntegrationService {
  constructor(
    private readonly links: LinkService,
    /** The absolute base of public addresses, without a trailing slash. */
    private readonly publicBase: () => string,
  ) {}

  async get(): Promise<Integration> {
    const base = this.publicBase();
    const chatUrl = `${base}/chat`;
    const qrCode = await QRCode.toDataURL(chatUrl, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 320 });
    const { list } = await this.links.list({ pageNo: 1, pageSize: LISTED_LINKS, keyword: '' });
    return {
      // CONTRACT §13: the stub queues Parley(…) calls made before the loader arrives.
      script: `<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>\n<script src="${base}/widget.js" async></script>`,
      chatUrl,
      qrCode,
      links: list.map((link) => ({ id: link.id, name: link.name, url: link.url })),
    };
  }
}
