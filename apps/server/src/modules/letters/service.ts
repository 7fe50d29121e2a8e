import type { Saved } from '@parley/protocol';
import { isoNow } from '../../lib/time.js';
import type { VisitorService } from '../visitors/service.js';
import type { LetterRepository } from './repository.js';

/** Leave-messages: what visitors write while nobody answers. */
export class LetterService {
  constructor(
    private readonly repo: LetterRepository,
    private readonly visitors: VisitorService,
  ) {}

  async create(
    input: { YQToken?: string | undefined; name: string; phone?: string | undefined; email?: string | undefined; content: string },
    ip: string,
  ): Promise<Saved> {
    const visitor = input.YQToken ? await this.visitors.byCredential(this.repo.db, input.YQToken) : undefined;
    const contact = { name: input.name, phone: input.phone ?? '', email: input.email ?? '' };
    const id = await this.repo.insert({ visitor_id: visitor?.id ?? null, ...contact, content: input.content, ip, created_at: isoNow() });
    if (visitor) await this.visitors.rememberContact(visitor, contact);
    return { id };
  }

  async unreadCount(): Promise<number> {
    return (await this.repo.unread()).count;
  }
}
