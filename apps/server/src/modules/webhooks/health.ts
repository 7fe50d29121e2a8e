import type { Db } from '../../db/index.js';
import type { Notices } from '../notices/service.js';
import type { WorkerLog } from './log.js';
import type { WebhookRepository } from './repository.js';

/** Failed attempts in a row (whatever the delivery) after which a webhook is disabled and Admins told. */
export const DISABLE_AFTER = 20;

/**
 * What a batch of attempts did to one webhook's failures in a row: `cleared` when one went out after
 * earlier failures (the count starts again), `failed` the attempts that failed (counted after that).
 */
export interface HealthReport {
  webhookId: number;
  url: string;
  cleared: boolean;
  failed: number;
}

/** Where the worker tells what its attempts did to the webhooks' failures in a row. */
export interface HealthReporter {
  report(reports: HealthReport[]): Promise<void>;
}

/**
 * Keeps each webhook's failures in a row (`webhooks.failures`, shown in the console) and disables one after
 * DISABLE_AFTER, telling Admins, in one transaction of the database. It runs where the webhooks are
 * written: in the server's process for its delivery process (which reports over its channel), in a worker
 * process for itself.
 */
export class WebhookHealth implements HealthReporter {
  /** Told when a webhook was disabled (the enabled webhooks changed). */
  onDisabled: () => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly repo: WebhookRepository,
    private readonly notices: Notices,
    private readonly log: WorkerLog,
    private readonly now: () => number = Date.now,
  ) {}

  async report(reports: HealthReport[]): Promise<void> {
    const at = new Date(this.now()).toISOString();
    const disabled = await this.db.transaction().execute(async (tx) => {
      const disabled: HealthReport[] = [];
      for (const report of reports) {
        if (report.cleared) await this.repo.succeeded(tx, report.webhookId);
        if (report.failed === 0) continue;
        const failures = await this.repo.failed(tx, report.webhookId, report.failed);
        if (failures < DISABLE_AFTER || !(await this.repo.disable(tx, report.webhookId, at))) continue;
        await this.notices.toAdmins(tx, 'webhookDisabled', { url: report.url, failures });
        disabled.push(report);
      }
      return disabled;
    });
    for (const report of disabled)
      this.log.warn({ webhook: report.webhookId, failures: DISABLE_AFTER }, 'webhook disabled after failures in a row');
    if (disabled.length > 0) this.onDisabled();
  }
}
