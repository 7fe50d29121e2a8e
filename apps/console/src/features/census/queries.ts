import type { CensusDim, CensusServiceKind, CensusTalkDim } from '@parley/protocol';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '../../lib/api';
import type { DayRange } from './range';

// The range is part of every key: a new range is a new query, and the last answer stays on screen
// (placeholder) while the next one loads, so the charts do not blink empty.

export function useCensusOverview(range: DayRange) {
  return useQuery({
    queryKey: ['census', 'overview', range.from, range.to],
    queryFn: () => call('GET /api/census/overview', { from: range.from, to: range.to }),
    placeholderData: keepPreviousData,
  });
}

export function useCensusFlow(dim: CensusDim, range: DayRange) {
  return useQuery({
    queryKey: ['census', 'flow', dim, range.from, range.to],
    queryFn: () => call('GET /api/census/flow', { dim, from: range.from, to: range.to }),
    placeholderData: keepPreviousData,
  });
}

export function useCensusTalk(dim: CensusTalkDim, range: DayRange) {
  return useQuery({
    queryKey: ['census', 'talk', dim, range.from, range.to],
    queryFn: () => call('GET /api/census/talk', { dim, from: range.from, to: range.to }),
    placeholderData: keepPreviousData,
  });
}

/** `serviceID` (kind=evaluate) narrows the rating comments to one agent's. */
export function useCensusService(kind: CensusServiceKind, range: DayRange, serviceID?: string) {
  return useQuery({
    queryKey: ['census', 'service', kind, range.from, range.to, serviceID],
    queryFn: () => call('GET /api/census/service', { kind, from: range.from, to: range.to, serviceID }),
    placeholderData: keepPreviousData,
  });
}
