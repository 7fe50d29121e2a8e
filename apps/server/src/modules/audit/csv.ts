import { Readable, type Transform } from 'node:stream';
import type { AuditEntry } from '@parley/protocol';
import { stringify } from 'csv-stringify';
import { neutralized } from '../../lib/csv.js';
import { type Lang, type MessageKey, translate } from '../../lib/i18n.js';
import { formatInZone } from '../../lib/time.js';

function columns(zone: string): [MessageKey, (row: AuditEntry) => string][] {
  return [
    ['csvAuditId', (row) => String(row.id)],
    ['csvAuditTime', (row) => formatInZone(row.createdAt, zone)],
    ['csvAuditActor', (row) => row.actor],
    ['csvAuditAction', (row) => row.action],
    ['csvAuditTarget', (row) => row.target],
    ['csvAuditDetail', (row) => JSON.stringify(row.detail)],
    ['csvAuditIp', (row) => row.ip],
  ];
}

/**
 * The audit log as CSV, UTF-8 with a BOM, header in the caller's language, times as the site's wall
 * clock. Pulls pages only as fast as the client reads; a cell that would run as a formula is neutralized
 * (a target or actor is text someone typed).
 */
export function auditCsv(pages: AsyncIterable<AuditEntry[]>, lang: Lang, zone: string): Transform {
  const table = columns(zone);
  const csv = stringify({ bom: true, header: true, columns: table.map(([key]) => translate(lang, key)) });
  async function* rows() {
    for await (const page of pages) {
      for (const entry of page) yield table.map(([, cell]) => neutralized(cell(entry)));
    }
  }
  const source = Readable.from(rows());
  source.on('error', (error) => csv.destroy(error));
  return source.pipe(csv);
}
