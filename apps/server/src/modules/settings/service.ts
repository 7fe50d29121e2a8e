import { randomBytes } from 'node:crypto';
import {
  type AllSettings,
  isSettingsPage,
  type SettingsAnswer,
  type SettingsOf,
  type SettingsPage,
  settingsDefaults,
  settingsSchemas,
} from '@parley/protocol';
import type { Db } from '../../db/index.js';
import type { AuditActor } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import type { Bus } from '../../realtime/bus.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { type AuditLog, changedFields } from '../audit/audit-log.js';
import type { SettingsRepository } from './repository.js';
import { salvage } from './salvage.js';
import { keepSecrets, withoutSecrets } from './secrets.js';

type Changed = (page: SettingsPage) => void | Promise<void>;

/**
 * The chat-window settings pages. Every process keeps all pages in memory, so that readers such as the
 * site time zone are plain function calls. A page saved here is taken as saved, its `onChanged`
 * listeners run (they push the widgets' new settings) and the bus tells the other processes, which read
 * the page again and run theirs.
 */
export class SettingsService {
  private pages: AllSettings = { ...settingsDefaults };
  private readonly listeners: Changed[] = [];
  /** Marks this service's own notices on the bus, which it does not read back. */
  private readonly origin = randomBytes(8).toString('hex');

  constructor(
    private readonly repo: SettingsRepository,
    private readonly events: EventHub,
    private readonly bus: Bus,
    private readonly onError: (error: unknown) => void,
    /** The zone of the server's configuration, used while softwareSetting names none. */
    private readonly configuredTimeZone: string,
    private readonly db: Db,
    private readonly audit: AuditLog,
  ) {
    bus.subscribe((event) => {
      if (event.type !== 'settings.changed' || !isSettingsPage(event.page) || event.origin === this.origin) return;
      const page = event.page;
      this.reload(page)
        .then(() => this.changed(page))
        .catch(this.onError);
    });
  }

  /** Reads every stored page; called once before the server takes requests. */
  async load(): Promise<void> {
    const rows = await this.repo.all();
    for (const row of rows) if (isSettingsPage(row.page)) this.store(row.page, row.value);
  }

  onChanged(listener: Changed): void {
    this.listeners.push(listener);
  }

  /** The page's values as this process knows them, secrets included: for the server's own use only. */
  current<P extends SettingsPage>(page: P): SettingsOf<P> {
    return this.pages[page];
  }

  all(): AllSettings {
    return this.pages;
  }

  /** The site's time zone: what days, work hours and "today" are read in. */
  siteTimeZone(): string {
    return this.pages.softwareSetting.timezone || this.configuredTimeZone;
  }

  /** The page as an agent may read it: stored values over the defaults, secrets answered as '' with a flag. */
  get<P extends SettingsPage>(page: P): SettingsAnswer<P> {
    return withoutSecrets(page, this.pages[page]);
  }

  /**
   * Stores the whole page. `value` was validated by the route; secrets it leaves empty keep their stored
   * value, and the merged page is validated again before it is written. The audit log names the fields
   * whose value changed, never a value (a secret's path appears when it changed, its value does not).
   */
  async save<P extends SettingsPage>(page: P, value: SettingsOf<P>, by: string, who: AuditActor): Promise<SettingsAnswer<P>> {
    const merged = settingsSchemas[page].parse(keepSecrets(page, value, this.pages[page])) as SettingsOf<P>;
    const fields = changedFields(this.pages[page], merged);
    await this.db.transaction().execute(async (tx) => {
      await this.repo.save(page, JSON.stringify(merged), by, isoNow(), tx);
      if (fields.length > 0)
        await this.audit.record(tx, { ...who, action: 'settings.update', target: `settings:${page}`, detail: { page, fields } });
    });
    this.pages = { ...this.pages, [page]: merged };
    await this.events.emit('settings.changed', { page });
    await this.bus.publish({ type: 'settings.changed', page, origin: this.origin });
    await this.changed(page).catch(this.onError);
    return withoutSecrets(page, merged);
  }

  private async changed(page: SettingsPage): Promise<void> {
    await Promise.all(this.listeners.map((listener) => listener(page)));
  }

  private async reload(page: SettingsPage): Promise<void> {
    const value = await this.repo.one(page);
    if (value !== undefined) this.store(page, value);
  }

  /**
   * Takes a stored page as valid. One stored by an older version, or edited by hand, that no longer passes
   * its schema keeps what still passes: only the fields and list entries that fail are dropped, and the
   * log names them; a page past saving leaves this process on the defaults and says so.
   */
  private store(page: SettingsPage, json: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      this.onError(error);
      return;
    }
    const result = salvage(settingsSchemas[page], parsed);
    if (!result) {
      this.onError(new Error(`stored settings page ${page} is not valid; its defaults are used`));
      return;
    }
    if (result.dropped.length > 0) {
      this.onError(
        new Error(`stored settings page ${page} breaks today's rules at ${result.dropped.join(', ')}; those values are left out`),
      );
    }
    this.pages = { ...this.pages, [page]: result.value };
  }
}
