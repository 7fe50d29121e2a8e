export type DemoStatus = 'published' | 'draft' | 'deleted';

export interface DemoItem {
  id: number;
  title: string;
  author: string;
  status: DemoStatus;
  pageViews: number;
  percent: number;
  datetime: string;
}

const STATUSES: DemoStatus[] = ['published', 'draft', 'deleted'];
const AUTHORS = ['Ada', 'Lin', 'Grace', 'Wei', 'Alan', 'Mei'];

/** Seed §9: 50 mock rows, page views 300-5000, percent 80-99; deterministic so screenshots compare. */
export function demoItems(count = 50): DemoItem[] {
  let seed = 7;
  const next = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    title: `Sample article ${index + 1}`,
    author: AUTHORS[Math.floor(next() * AUTHORS.length)] ?? 'Ada',
    status: STATUSES[Math.floor(next() * STATUSES.length)] ?? 'draft',
    pageViews: 300 + Math.floor(next() * 4701),
    percent: 80 + Math.floor(next() * 20),
    datetime: new Date(start + Math.floor(next() * 300) * 86_400_000).toISOString(),
  }));
}
