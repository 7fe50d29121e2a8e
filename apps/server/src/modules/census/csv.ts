import type { CensusFlow, CensusService, CensusTalk } from '@parley/protocol';
import { stringify } from 'csv-stringify/sync';
import { neutralized } from '../../lib/csv.js';
import { type Lang, type MessageKey, translate } from '../../lib/i18n.js';

type Cell = string | number | null;
type Column<T> = [string, (row: T) => Cell];

const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 1000));

/** A list as CSV text with a BOM (spreadsheets then read Chinese right), header in the caller's language. */
function table<T>(rows: readonly T[], columns: Column<T>[]): string {
  return stringify(
    rows.map((row) => columns.map(([, cell]) => neutralized(String(cell(row) ?? '')))),
    { bom: true, header: true, columns: columns.map(([header]) => header) },
  );
}

export function flowCsv(answer: CensusFlow, lang: Lang): string {
  const t = (key: MessageKey) => translate(lang, key);
  return table(answer.list, [
    [t('csvName'), (row) => row.name],
    [t('csvVisitors'), (row) => row.visitors],
    [t('csvVisits'), (row) => row.visits],
    [t('csvConversations'), (row) => row.conversations],
  ]);
}

export function talkCsv(answer: CensusTalk, lang: Lang): string {
  const t = (key: MessageKey) => translate(lang, key);
  return table(answer.list, [
    [t('csvName'), (row) => row.name],
    [t('csvConversations'), (row) => row.conversations],
    [t('csvMessages'), (row) => row.messages],
    [t('csvRated'), (row) => row.rated],
    [t('csvAverageScore'), (row) => row.averageScore],
  ]);
}

export function serviceCsv(answer: CensusService, lang: Lang): string {
  const t = (key: MessageKey) => translate(lang, key);
  const agent = <T extends { serviceID: string; nickname: string }>(): Column<T>[] => [
    [t('csvAgent'), (row) => row.nickname],
    [t('csvAgentId'), (row) => row.serviceID],
  ];
  if (answer.kind === 'talk') {
    return table(answer.list, [
      ...agent(),
      [t('csvConversations'), (row) => row.conversations],
      [t('csvMessages'), (row) => row.messages],
      [t('csvFirstResponse'), (row) => seconds(row.firstResponseMs)],
      [t('csvDuration'), (row) => seconds(row.durationMs)],
      [t('csvTransfers'), (row) => row.transfers],
    ]);
  }
  if (answer.kind === 'evaluate') {
    const scores = ([1, 2, 3, 4, 5] as const).map(
      (score): Column<(typeof answer.list)[number]> => [translate(lang, 'csvScoreCount', { score }), (row) => row.scores[score]],
    );
    return table(answer.list, [
      ...agent(),
      [t('csvRated'), (row) => row.rated],
      [t('csvAverageScore'), (row) => row.averageScore],
      ...scores,
    ]);
  }
  const stateName = { online: t('stateOnline'), hidden: t('stateHidden'), offline: t('stateOffline') };
  return table(answer.list, [
    ...agent(),
    [t('csvOnline'), (row) => seconds(row.onlineMs)],
    [t('csvHidden'), (row) => seconds(row.hiddenMs)],
    [t('csvOffline'), (row) => seconds(row.offlineMs)],
    [t('csvStateNow'), (row) => stateName[row.now]],
  ]);
}
