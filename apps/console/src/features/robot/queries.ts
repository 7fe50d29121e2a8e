import { useQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';

/** The knowledge base's list area: its queries are keyed under it, so a save or an import refreshes them all. */
export const ASK_AREA = 'robot/ask' as const;
export const highRobotKey = ['robot', 'high'] as const;

export const ASK_ROBOT_PATH = '/robot/askRobot';
export const HIGH_ROBOT_PATH = '/robot/highRobot';

/** How many pairs there are, and how many of them the robot may answer with (two one-row pages: only the totals count). */
export function usePairCounts() {
  const all = useQuery({
    queryKey: [ASK_AREA, 'count', 'all'],
    queryFn: () => call('GET /api/robot/ask/getList', { pageNo: 1, pageSize: 1 }),
  });
  const enabled = useQuery({
    queryKey: [ASK_AREA, 'count', 'enabled'],
    queryFn: () => call('GET /api/robot/ask/getList', { pageNo: 1, pageSize: 1, enabled: 'true' }),
  });
  return { all: all.data?.total, enabled: enabled.data?.total, loading: all.isPending || enabled.isPending };
}

export function useHighRobot() {
  return useQuery({ queryKey: highRobotKey, queryFn: () => call('GET /api/robot/high') });
}
