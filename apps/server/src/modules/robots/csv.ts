import { Readable, type Transform } from 'node:stream';
import type { RobotAsk } from '@parley/protocol';
import { CsvError, parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { neutralized } from '../../lib/csv.js';
import { badRequest } from '../../lib/errors.js';
import { nextSlice } from '../../lib/heavy.js';

/**
 * The columns of the knowledge base's CSV, export and import alike. They stay in English whatever the
 * reader's language: the file is a format to edit and bring back, and its header is what the import reads.
 */
export const ROBOT_CSV_COLUMNS = ['question', 'answer', 'category', 'enabled', 'image'] as const;

/** One data row of an import, with the line it starts on (the header is line 1). */
export interface CsvRow {
  line: number;
  cells: Partial<Record<(typeof ROBOT_CSV_COLUMNS)[number], string>>;
}

/** Bytes of an import parsed per slice of the event loop (lib/heavy.ts): a millisecond or two. */
const PARSE_PIECE = 32 * 1024;

/**
 * Reads an import: a UTF-8 CSV (BOM tolerated) whose header names at least `question` and `answer`, in
 * any order, any case; unknown columns are ignored. A file that is not CSV at all is refused whole.
 * Parsed a piece at a time, each in a slice of its own: a 2 MiB file is some 130 ms of parsing.
 */
export async function parseRobotCsv(text: string): Promise<CsvRow[]> {
  const records: { record: string[]; info: { lines: number; empty_lines: number } }[] = [];
  try {
    const parser = parse({
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      // Kept here rather than passed on: nothing reads the parser's output side.
      on_record(record: string[], { lines, empty_lines }) {
        records.push({ record, info: { lines, empty_lines } });
        return undefined;
      },
    });
    // Its errors come back through the callbacks below; the event would otherwise go unheard and throw.
    parser.on('error', () => undefined);
    // Pieces of bytes, not of the string: the parser joins a character cut between two pieces.
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; at += PARSE_PIECE) {
      const error = await new Promise<Error | null | undefined>((resolve) => parser.write(bytes.subarray(at, at + PARSE_PIECE), resolve));
      if (error) throw error;
      await nextSlice();
    }
    await new Promise<void>((resolve, reject) => parser.end((error?: Error | null) => (error ? reject(error) : resolve())));
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines ?? 0;
      throw badRequest('robotImportMalformed', { line, reason: error.code });
    }
    throw error;
  }
  const [head, ...rest] = records;
  if (!head) throw badRequest('robotImportHeader');
  const names = head.record.map((name) => name.trim().toLowerCase());
  if (!names.includes('question') || !names.includes('answer')) throw badRequest('robotImportHeader');
  const rows: CsvRow[] = [];
  // csv-parse tells where a record ends; it starts after the previous one and the blank lines skipped since.
  let previousEnd = head.info.lines;
  let previousEmpty = head.info.empty_lines;
  for (const { record, info } of rest) {
    const line = previousEnd + 1 + (info.empty_lines - previousEmpty);
    previousEnd = info.lines;
    previousEmpty = info.empty_lines;
    const cells: CsvRow['cells'] = {};
    for (const column of ROBOT_CSV_COLUMNS) {
      const at = names.indexOf(column);
      if (at >= 0) cells[column] = unneutralized(record[at] ?? '');
    }
    rows.push({ line, cells });
  }
  return rows;
}

/** `true`/`false` as people write them in a spreadsheet; empty means enabled; anything else is refused. */
export function enabledCell(cell: string | undefined): boolean | undefined {
  const value = (cell ?? '').trim().toLowerCase();
  if (['', 'true', '1', 'yes', 'y', '是', '启用'].includes(value)) return true;
  if (['false', '0', 'no', 'n', '否', '停用', '禁用'].includes(value)) return false;
  return undefined;
}

/** Undoes the export's formula escaping, so a pair whose answer begins with `-` or `=` comes back as it left. */
export function unneutralized(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

/**
 * The pairs as CSV, UTF-8 with a BOM (so spreadsheet programs read Chinese right), phrasings one per line
 * in their cell, cells a spreadsheet would run as formulas escaped as in the history export.
 */
export function robotCsv(pages: AsyncIterable<RobotAsk[]>): Transform {
  const csv = stringify({ bom: true, header: true, columns: [...ROBOT_CSV_COLUMNS] });
  async function* rows() {
    for await (const page of pages) {
      for (const pair of page) {
        yield [pair.questions.join('\n'), pair.answer, pair.category, String(pair.enabled), pair.image].map(neutralized);
      }
    }
  }
  const source = Readable.from(rows());
  source.on('error', (error) => csv.destroy(error));
  return source.pipe(csv);
}
