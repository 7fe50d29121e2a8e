import { Readable, type Transform } from 'node:stream';
import type { Conversation, Note } from '@parley/protocol';
import { stringify } from 'csv-stringify';
import { neutralized } from '../../lib/csv.js';
import type { Lang, MessageKey } from '../../lib/i18n.js';
import { translate } from '../../lib/i18n.js';
import { formatInZone } from '../../lib/time.js';

const seconds = (ms: number | null) => (ms === null ? '' : String(Math.round(ms / 1000)));

/** A conversation as the export writes it: with its internal notes, which the list does not carry. */
export type ExportedConversation = Conversation & { notes?: Note[] };

/** The export's columns: header key and the cell of a conversation, times as the site's wall clock. */
function columns(zone: string, lang: Lang): [MessageKey, (row: ExportedConversation) => string][] {
  const time = (iso: string | null) => (iso ? formatInZone(iso, zone) : '');
  // One line per note, each marked as a note with its time and author.
  const notes = (row: ExportedConversation) =>
    (row.notes ?? []).map((note) => translate(lang, 'csvNote', { time: time(note.time), name: note.nickname, msg: note.msg })).join('\n');
  return [
    ['csvConversation', (row) => String(row.id)],
    ['csvVisitor', (row) => row.nickname],
    ['csvVisitorId', (row) => row.YQToken],
    ['csvChannel', (row) => row.channel],
    ['csvAgent', (row) => row.agentNickname],
    ['csvStarted', (row) => time(row.startedAt)],
    ['csvEnded', (row) => time(row.endedAt)],
    ['csvDuration', (row) => (row.endedAt ? seconds(Date.parse(row.endedAt) - Date.parse(row.startedAt)) : '')],
    ['csvMessages', (row) => String(row.messages)],
    ['csvFirstResponse', (row) => seconds(row.firstResponseMs)],
    ['csvScore', (row) => (row.score === null ? '' : String(row.score))],
    ['csvComment', (row) => row.comment],
    ['csvRegion', (row) => row.region],
    ['csvSource', (row) => row.source],
    ['csvEngine', (row) => row.engine],
    ['csvKeyword', (row) => row.keyword],
    ['csvLabels', (row) => row.labels.map((label) => label.name).join(', ')],
    ['csvNotes', notes],
    // After the older columns, whose places a reader of earlier exports may rely on.
    ['csvUserId', (row) => row.userId ?? ''],
    ['csvEmail', (row) => row.email],
    ['csvPhone', (row) => row.phone],
    // One `key: value` a line, as a reader of the sheet would write them.
    [
      'csvAttributes',
      (row) =>
        Object.entries(row.attributes)
          .map(([key, value]) => `${key}: ${String(value)}`)
          .join('\n'),
    ],
  ];
}

/**
 * The conversations as CSV text, UTF-8 with a BOM (so spreadsheet programs read Chinese right), the
 * header in the caller's language. Pulls pages from `pages` only as fast as the client reads.
 */
export function conversationsCsv(pages: AsyncIterable<ExportedConversation[]>, lang: Lang, zone: string): Transform {
  const table = columns(zone, lang);
  const csv = stringify({ bom: true, header: true, columns: table.map(([key]) => translate(lang, key)) });
  async function* rows() {
    for await (const page of pages) {
      for (const conversation of page) yield table.map(([, cell]) => neutralized(cell(conversation)));
    }
  }
  const source = Readable.from(rows());
  source.on('error', (error) => csv.destroy(error));
  return source.pipe(csv);
}
